"""The exercise checks: each runs your code on fresh scenarios and prints PASS, or FAIL with a hint.

Every check takes your function (or value), tries it on histories and runs it has never seen
(random, but seeded, so the verdict is the same on every machine), prints one verdict line and
returns True or False. A check never raises: an unfinished stub prints "Not done yet", and an
error in your code becomes a FAIL that names the call. So a wrong answer never stops a notebook.

The checks always use the offline desk model, even when ANTHROPIC_API_KEY is set: a verdict must
not depend on which model answered, or on the network.

A few things the exercises need are not in the harness, so they live here:
* ``StudentWindow`` and ``FoldLoop`` turn a student's function into a context strategy the loop runs;
* ``with_memory`` puts a CLAUDE.md text beside the system prompt (what a memory loader would do).

Left out: timeouts (a function that never returns hangs its cell), and grades or scores.
"""

from __future__ import annotations

import random
import re
import tempfile
from pathlib import Path

from harness.context import (Assembly, FullHistory, RunningSummary, SlidingWindow, Strategy,
                             ThreeZoneCompaction, turn_starts)
from harness.offline import DeskModel
from harness.loop import run_agent
from harness.messages import assistant, is_plain_user, pair_problems, safe_cuts, text_of, tool_results, user
from harness.model import describe_model
from harness.prompts import SUMMARY_HEADER, SYSTEM_PROMPT, compaction_prompt, fold_prompt, render
from harness.tasks import GOAL, RULE, file_reading_task
from harness.tokens import Meter, tiktoken_count
from harness.tools import WORKSPACE

_METER = Meter("tiktoken")     # one meter for every run: its per-message cache keeps the runs fast
_RUNS: dict = {}               # runs that involve no student code, made once per kernel

# Other wordings of the standing rule, and the lowercase piece of each that shows it is on the desk.
RULES = [
    (RULE, "never touch production"),
    ("Do not run anything on production; use staging only.", "do not run anything on production"),
    ("Production is off-limits: apply database changes to staging only.", "production is off-limits"),
]

# Other ways to ask for the same work: session two must not depend on one exact sentence.
GOALS = [
    GOAL,
    "Sign-in fails for people who type their email with upper-case letters. "
    "Find the cause under app/ and migrations/, then apply the pending fix to the database.",
    "Customers with capital letters in their email address cannot log in. "
    "Locate the cause in app/ and migrations/ and apply the pending fix to the database.",
]

MEMORY_CAP = 150               # tokens: the most this class lets a four-line CLAUDE.md cost per turn


def hello() -> None:
    """The setup line every exercise notebook prints first."""
    print(describe_model())
    print("The checks always use the offline desk model, so every verdict is the same on every machine.")


# ---- verdicts ---------------------------------------------------------------------------------------

class _Fail(Exception):
    """A wrong answer: what went wrong, and the idea that fixes it."""

    def __init__(self, what: str, hint: str):
        super().__init__(what)
        self.what, self.hint = what, hint


class _NotDone(Exception):
    """An answer that is still the stub."""


def _verdict(name: str, body) -> bool:
    """Run one check body; print exactly one verdict line; never raise."""
    try:
        message = body()
    except _NotDone as unfinished:
        print(f"Not done yet: {unfinished}")
        return False
    except NotImplementedError:
        print(f"Not done yet: {name} (or a function it calls) still raises NotImplementedError. "
              "Replace that line with your code, then run this cell again.")
        return False
    except _Fail as failed:
        print(f"FAIL: {failed.what} — Hint: {failed.hint}")
        return False
    except Exception as problem:            # an error in student code met outside a _call
        print(f"FAIL: {name} raised {type(problem).__name__}: {problem} — Hint: run it by hand on the "
              "example in its docstring and read the traceback.")
        return False
    print(f"PASS: {message}")
    return True


def _call(what: str, fn, *args, **kwargs):
    """Call student code; an error becomes a FAIL naming the call (NotImplementedError passes through)."""
    try:
        return fn(*args, **kwargs)
    except (NotImplementedError, _Fail, _NotDone):
        raise
    except Exception as problem:
        raise _Fail(f"{what} raised {type(problem).__name__}: {problem}",
                    "run it by hand on the example in its docstring and read the traceback.") from None


def _need_function(fn, name: str) -> None:
    if fn is None:
        raise _NotDone(f"{name} is not defined yet.")
    if not callable(fn):
        raise _Fail(f"{name} is a {type(fn).__name__}, not a function",
                    f"keep the `def {name}(...)` line as it is.")


def _model(window: int) -> DeskModel:
    return DeskModel(window=window, meter=_METER)


def _run(context, window: int, task=None, system: str = SYSTEM_PROMPT, on_lap=None):
    task = task or file_reading_task()
    return run_agent(task.request, _model(window), context=context, remarks=task.remarks, system=system,
                     max_laps=80, on_lap=on_lap)


def _once(key, make):
    """A run that involves no student code is made once, then reused (the model is deterministic)."""
    if key not in _RUNS:
        _RUNS[key] = make()
    return _RUNS[key]


def _on_desk(lap, text: str) -> bool:
    return any(text.lower() in text_of(m).lower() for m in lap.sent)


# ---- fresh scenarios --------------------------------------------------------------------------------

_VOCAB = ("desk window token summary request rule staging file read note lap tool result cache "
          "invoice email login billing report export migration pending schema index").split()


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_VOCAB) for _ in range(n))


def _text(words: str) -> dict:
    return {"type": "text", "text": words}


def random_history(rng: random.Random, turns: int | None = None, chat: bool = True) -> list[dict]:
    """A made-up agent history: a request, then turns of (assistant with tool calls, user with results).

    Some results carry a remark from the user; with ``chat`` a few turns are a plain exchange
    (the model asks something, the user answers). Sizes vary a lot, like real file reads.
    """
    messages = [user("Please " + _words(rng, rng.randint(5, 40)) + ".")]
    ids = iter(range(1, 10_000))
    for t in range(rng.randint(0, 14) if turns is None else turns):
        if chat and t and rng.random() < 0.1:
            messages.append(assistant([_text("A question: " + _words(rng, rng.randint(3, 20)))]))
            messages.append(user("Answer: " + _words(rng, rng.randint(3, 20))))
            continue
        calls = [{"type": "tool_use", "id": f"toolu_{next(ids):04d}", "name": "read_file",
                  "input": {"path": f"app/{rng.choice(_VOCAB)}.py"}} for _ in range(rng.choice((1, 1, 1, 2)))]
        messages.append(assistant([_text("Note: " + _words(rng, rng.randint(0, 30)))] + calls))
        results = []
        for call in calls:
            lines = [f"{i:>4}  {_words(rng, rng.randint(1, 9))}" for i in range(1, rng.randint(2, 60))]
            results.append({"type": "tool_result", "tool_use_id": call["id"], "content": "\n".join(lines)})
        if rng.random() < 0.15:
            results.append(_text("By the way: " + _words(rng, rng.randint(3, 15))))
        messages.append({"role": "user", "content": results})
    if rng.random() < 0.3:
        messages.append(assistant([_text("Done. " + _words(rng, rng.randint(3, 20)))]))
    return messages


def worked_history() -> list[dict]:
    """The small history the notebooks show: a request and three read_file turns (seven messages)."""
    messages = [user("Find why the export skips its first row. Never touch production.")]
    for n, path in enumerate(("app/db.py", "app/api/reports.py", "tests/test_db.py"), start=1):
        call = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": "read_file", "input": {"path": path}}
        messages.append(assistant([_text(f"Reading {path}."), call]))
        result = {"type": "tool_result", "tool_use_id": call["id"],
                  "content": (WORKSPACE / path).read_text(encoding="utf-8")}
        messages.append({"role": "user", "content": [result]})
    return messages


# ==== 01 the desk ====================================================================================

def check_tokens_of(tokens_of, seed: int = 1) -> bool:
    """tokens_of(messages) must be about (characters of all the text) / 4, on fresh histories."""

    def body():
        _need_function(tokens_of, "tokens_of")
        if _call("tokens_of([user('abcdefgh')])", tokens_of, [user("abcdefgh")]) is None:
            raise _Fail("tokens_of returned None", "end the function with `return` and the number.")
        if _call("tokens_of([])", tokens_of, []) != 0:
            raise _Fail("tokens_of([]) is not 0", "an empty desk holds no tokens.")
        rng = random.Random(seed)
        for _ in range(15):
            history = random_history(rng, turns=rng.randint(1, 12))
            got = _call(f"tokens_of on a fresh history of {len(history)} messages", tokens_of, history)
            if isinstance(got, bool) or not isinstance(got, (int, float)):
                raise _Fail(f"tokens_of returned {got!r}, not a number", "return one number: characters / 4.")
            chars = sum(len(text_of(m)) for m in history)
            if abs(got - chars / 4) > 0.05 * chars / 4 + len(history) + 2:
                raise _Fail(f"tokens_of gave {got:,} for a history holding {chars:,} characters "
                            f"(about {chars / 4:,.0f} expected)", _tokens_hint(got, history))
        return "tokens_of matches chars/4 on 15 fresh histories."

    return _verdict("tokens_of", body)


def _tokens_hint(got, history) -> str:
    """Name the usual mistake behind a wrong count: words, raw characters, or text blocks only."""
    near = lambda value, slack: abs(got - value) <= 0.05 * value + slack   # noqa: E731
    words = sum(len(text_of(m).split()) for m in history)
    chars = sum(len(text_of(m)) for m in history)
    blocks = [b for m in history for b in
              ([_text(m["content"])] if isinstance(m["content"], str) else m["content"])]
    text_only = sum(len(b.get("text", "")) for b in blocks if b.get("type") == "text")
    if near(words, 2):
        return ("you are counting words. Tokens are pieces of words, about four characters each: "
                "count the characters and divide by 4.")
    if near(chars, len(history)):
        return "that is the number of characters: divide it by 4."
    if near(text_only / 4, len(history) + 2):
        return ("tool calls and every tool_result are on the desk too, not only text blocks: "
                "harness.messages.text_of(message) gives all of a message's text.")
    return "add up len(text_of(m)) over all the messages, then divide by 4."


def compare_with_tokenizer(tokens_of) -> None:
    """Print, for each workspace file, the chars/4 estimate (your tokens_of) beside the cl100k tokenizer."""
    rows = []
    for path in sorted(p for p in WORKSPACE.rglob("*") if p.is_file() and not p.name.startswith(".")):
        text = path.read_text(encoding="utf-8")
        rows.append((str(path.relative_to(WORKSPACE)), len(text), text, tiktoken_count(text)))
    estimates, note = {}, ""
    try:
        for name, _, text, _ in rows:
            estimates[name] = tokens_of([user(text)])
    except NotImplementedError:
        note = "Not done yet: write tokens_of above, then run this cell again to fill the chars/4 column."
    except Exception as problem:
        note = f"Your tokens_of raised {type(problem).__name__}: {problem}. The chars/4 column stays empty."
    numbers = {name: n for name, n in estimates.items() if isinstance(n, (int, float))}
    print(f"{'file':36} {'chars':>6} {'chars/4':>8} {'cl100k':>7} {'off by':>7}")
    for name, chars, _, real in rows:
        guess = numbers.get(name)
        shown = f"{guess:>8,.0f}" if guess is not None else f"{'-':>8}"
        off = f"{(guess - real) / real:>+7.0%}" if guess is not None and real else ""
        print(f"{name:36} {chars:>6,} {shown} {real:>7,} {off}")
    if note:
        print(note)
    elif len(numbers) == len(rows):
        worst = max(rows, key=lambda r: abs(numbers[r[0]] - r[3]) / max(r[3], 1))
        print(f"All files: chars/4 says {sum(numbers.values()):,.0f}, cl100k says "
              f"{sum(r[3] for r in rows):,}. "
              f"The biggest miss is {worst[0]}.")


def check_overflow_prediction(predicted_lap, window: int = 6000, tolerance: int = 1) -> bool:
    """Run FullHistory at ``window`` and compare the lap it overflowed at with the prediction."""

    def body():
        if predicted_lap is None:
            raise _NotDone("set predicted_overflow_lap to the lap number you expect, then run this cell.")
        if isinstance(predicted_lap, bool) or not isinstance(predicted_lap, int):
            raise _Fail(f"predicted_overflow_lap is {predicted_lap!r}", "give a whole lap number, like 7.")
        run = _once(("full history", window), lambda: _run(FullHistory(), window))
        if run.stopped != "overflow":
            raise _Fail(f"with a {window:,}-token window the run did not overflow "
                        f"(it stopped: {run.stopped})",
                        "pick a window smaller than the whole task, for example 6000.")
        lap = run.laps[-1]
        print(f"You predicted lap {predicted_lap}. The run overflowed at lap {lap.number}: "
              f"the desk held {lap.raw_tokens:,} tokens for a {window:,}-token window.")
        if abs(predicted_lap - lap.number) > tolerance:
            side = "early" if predicted_lap < lap.number else "late"
            raise _Fail(f"lap {predicted_lap} is too {side} (the run overflowed at lap {lap.number})",
                        "the desk grows by about one file and one note a lap. Take the growth of the last "
                        "probe laps (lap 1 only lists the files), then count how many more laps fit.")
        return f"within {tolerance} lap of the run."

    return _verdict("the overflow prediction", body)


# ==== 02 the sliding window ==========================================================================

def _window_problem(messages, budget, counter, out, pinned: bool) -> _Fail | None:
    """What is wrong with ``out`` as a (pinned) sliding window over ``messages``, or None."""
    size = f"a history of {len(messages)} messages and a budget of {budget:,} tokens"
    if not isinstance(out, list) or not all(isinstance(m, dict) and "role" in m and "content" in m
                                            for m in out):
        return _Fail(f"for {size} the function returned {type(out).__name__}, not a list of messages",
                     "return a list of message dicts: the ones you keep, in order.")
    total = sum(counter(m) for m in messages)
    if total <= budget:
        if out != messages:
            return _Fail(f"for {size}, everything fitted ({total:,} tokens) but you did not send it all",
                         "when the whole history fits the budget, send it unchanged.")
        return None
    if pinned and (not out or out[0] != messages[0]):
        return _Fail(f"for {size} the request (message 0) is not the first message you send",
                     "pin the head: the request is the mission, so messages[0] is always sent first, "
                     "and the window slides over what comes after it.")
    sent = sum(counter(m) for m in out)
    if sent > budget:
        if pinned and sent - counter(messages[0]) <= budget:
            hint = ("the pinned head counts against the budget too: the window over the rest only gets what "
                    "the head leaves, budget - counter(messages[0]).")
        elif out == messages:
            hint = "drop the oldest messages until what you send fits."
        else:
            hint = "count every message you send against the budget, the notice included."
        return _Fail(f"for {size} you sent {sent:,} tokens", hint)
    problems = pair_problems(out)
    if problems:
        if "first message is not a user message" in problems[0]:
            hint = ("the API wants the desk to start with a user message. When you drop messages, put a "
                    "one-line notice in front, for example user(DROPPED_NOTICE); count it in the budget.")
        elif "answers tool_use" in problems[0]:
            hint = ("you kept a tool_result but dropped the tool_use it answers. Cut only just before an "
                    "assistant message (safe_cuts lists the safe places), never between a call and "
                    "its result.")
        else:
            hint = "a tool_use and its tool_result always travel together: keep both or drop both."
        return _Fail(f"for {size} the desk breaks the tool-pair rule ({problems[0]})", hint)
    return _window_shape_problem(messages, budget, counter, out, pinned, size)


def _window_shape_problem(messages, budget, counter, out, pinned, size) -> _Fail | None:
    """The kept part must be the newest messages, unbroken, and as long as the budget allows."""
    rest, base = (out[1:], 1) if pinned else (out, 0)
    if not rest or rest[-1] != messages[-1]:
        return _Fail(f"for {size} the newest message is not on your desk",
                     "a sliding window keeps the NEWEST messages and drops the oldest ones.")
    k = 0
    while k < len(rest) and k < len(messages) - base and rest[-1 - k] == messages[-1 - k]:
        k += 1
    front, start = rest[:len(rest) - k], len(messages) - k
    if len(front) > 1 or (front and not is_plain_user(front[0])):
        return _Fail(f"for {size} your desk is not one notice followed by the newest messages, in order",
                     "keep one unbroken run of the newest messages, with at most one short user "
                     "notice in front.")
    # Would the next older turn have fitted too? Then the window dropped more than it had to.
    earlier = [c for c in safe_cuts(messages)[:-1] if base <= c < start]
    if earlier:
        p = earlier[-1]
        if front:
            notice = front                   # the student's own notice, whatever its size
        elif (p == base and not pinned) or is_plain_user(messages[p]):
            notice = []
        else:
            notice = [user("[dropped]")]
        candidate = ([messages[0]] if pinned else []) + notice + messages[p:]
        if sum(counter(m) for m in candidate) <= budget:
            return _Fail(f"for {size} you dropped more than needed: messages {p}..{start - 1} still fitted",
                         "walk back from the newest message, adding whole turns while they fit; stop at the "
                         "first turn that would go over.")
    return None


def _window_scenarios(seed: int, pinned: bool):
    """(messages, budget, counter): mixed sizes, two different counters, loose, tight and roomy budgets."""
    rng = random.Random(seed)
    chars4 = Meter("chars4").count
    thirds = lambda m: len(text_of(m)) // 3 + 2   # noqa: E731 -- a second, different counter
    for i in range(40):
        messages = random_history(rng, turns=rng.randint(2, 14))
        counter = chars4 if i % 2 == 0 else thirds
        head = counter(messages[0]) if pinned else 0
        total = sum(counter(m) for m in messages)
        cuts = [c for c in safe_cuts(messages)[:-1] if c >= 1]
        smallest = head + sum(counter(m) for m in messages[cuts[-1]:]) + counter(user("[" + "x" * 80 + "]"))
        if i % 8 == 7:                                  # everything fits
            budget = total + rng.randint(0, 50)
        elif i % 4 == 1 and len(cuts) > 1:              # a turn fits exactly, but not with a notice before it
            cut = rng.choice(cuts[1:])
            budget = max(smallest, head + sum(counter(m) for m in messages[cut:]) + rng.randint(0, 3))
        else:
            budget = rng.randint(smallest, max(smallest, total))
        yield messages, budget, counter


def _try_window_scenarios(window_fn, name: str, seed: int, pinned: bool) -> None:
    """Run the student's window on the fresh histories; raise the first problem found."""
    _need_function(window_fn, name)
    for messages, budget, counter in _window_scenarios(seed, pinned=pinned):
        out = _call(f"{name}(<{len(messages)} messages>, {budget}, counter)", window_fn, list(messages), budget, counter)
        problem = _window_problem(messages, budget, counter, out, pinned=pinned)
        if problem:
            raise problem


def check_sliding_window(sliding_window, seed: int = 2) -> bool:
    """The newest messages that fit, tool pairs whole, a user message first -- on 40 fresh histories."""

    def body():
        _try_window_scenarios(sliding_window, "sliding_window", seed, pinned=False)
        return "40 fresh histories: within budget, newest kept, no tool pair split, a user message first."

    return _verdict("sliding_window", body)


def _first_lap_without(laps, text: str):
    seen = False
    for lap in laps:
        if _on_desk(lap, text):
            seen = True
        elif seen:
            return lap.number
    return None


_LAP_SCENARIOS = [  # (pin_head, window, rule_at_lap, rule wording)
    (False, 4000, None, RULES[0]),
    (False, 4500, 3, RULES[0]),
    (False, 6000, 2, RULES[1]),
    (False, 5000, 4, RULES[2]),
    (True, 5000, None, RULES[1]),
]


def _sliding_laps(pin_head, window, at, rule):
    laps = []
    task = file_reading_task(rule_at_lap=at, rule=rule)
    _run(SlidingWindow(pin_head=pin_head), window, task, on_lap=laps.append)
    return laps


def check_first_lap_without(first_lap_without) -> bool:
    """Your answer against fresh SlidingWindow runs: the rule in the request or said later, other wordings."""

    def body():
        _need_function(first_lap_without, "first_lap_without")
        wrong = []                      # (where, got, expected, laps, piece) for every run it got wrong
        for pin_head, window, at, (rule, piece) in _LAP_SCENARIOS:
            key = ("sliding", pin_head, window, at, rule)
            laps = _once(key, lambda: _sliding_laps(pin_head, window, at, rule))
            expected = _first_lap_without(laps, piece)
            where = (f"sliding window{', head pinned' if pin_head else ''}, window {window:,}, the rule "
                     + ("in the request" if at is None else f"said at lap {at}"))
            got = _call(f"first_lap_without(laps, {piece!r}) [{where}]", first_lap_without, list(laps), piece)
            if got != expected:
                wrong.append((where, got, expected, laps, piece))
        if not wrong:
            return "right on 5 fresh runs (rule in the request, said mid-task, other wordings, head pinned)."
        # One hint for the whole pattern: one lap early on every run is counting from 0.
        if all(expected is not None and got == expected - 1 for _, got, expected, _, _ in wrong):
            where, got, expected, _, _ = wrong[0]
            raise _Fail(f"[{where}] you said {got!r}, the run says {expected!r}",
                        "lap numbers start at 1: return lap.number, not the position of the lap in the list.")
        where, got, expected, laps, piece = next(w for w in wrong if w[2] is None or w[1] != w[2] - 1)
        raise _Fail(f"[{where}] you said {got!r}, the run says {expected!r}",
                    _lap_hint(got, expected, laps, piece))

    return _verdict("first_lap_without", body)


def _lap_hint(got, expected, laps, piece) -> str:
    if got is None:
        return ("the text does leave the desk in this run: look for it in every message of lap.sent "
                "(tool results and remarks included), case-insensitively.")
    if expected is None:
        return "in this run the text never leaves the desk (the head is pinned): return None."
    if not isinstance(got, int) or not any(lap.number == got for lap in laps):
        return "return the number of a lap (lap.number), or None if the text never leaves the desk."
    lap = next(lap for lap in laps if lap.number == got)
    if _on_desk(lap, piece):
        return (f"at lap {got} the text is still on the desk (something else was dropped). Search every "
                "message of lap.sent, with text_of(message), for the text in lowercase.")
    if not any(_on_desk(earlier, piece) for earlier in laps if earlier.number < got):
        return (f"at lap {got} the rule had not been given yet, so it cannot have left. Find the first "
                "lap without it AFTER a lap where it was on the desk.")
    return "find the FIRST lap without the text, after a lap that had it."


class StudentWindow(Strategy):
    """Runs a window function ``fn(messages, budget, counter)`` inside the loop, like SlidingWindow does.

    The budget is the model's window minus ``output_reserve`` and the fixed cost of the system prompt
    and tool definitions; ``counter`` is the run's token meter.
    """

    def __init__(self, fn, output_reserve: int = 512, name: str = "your window"):
        self.fn, self.output_reserve, self.name = fn, output_reserve, name

    def assemble(self, history, *, system="", tools=None, meter, model, **_):
        budget = model.window - self.output_reserve - meter.total([], system=system, tools=tools)
        sent = self.fn(list(history), budget, meter.count)
        if not isinstance(sent, list):
            raise _Fail(f"{self.name} returned {type(sent).__name__} inside the loop",
                        "return a list of messages.")
        ids = {id(m) for m in history}
        zones = ["head" if m is history[0] else "tail" if id(m) in ids else "notice" for m in sent]
        dropped = len(history) - sum(z != "notice" for z in zones)
        return Assembly(sent, zones, "drop" if dropped else "none",
                        f"dropped {dropped} oldest messages" if dropped else "")


def check_pinned_window(pinned_window, seed: int = 3) -> bool:
    """The request always first, then a window over the rest: on fresh histories, then in real runs."""

    def body():
        _try_window_scenarios(pinned_window, "pinned_window", seed, pinned=True)
        for window in (4000, 5000, 6000):
            run = _run(StudentWindow(pinned_window, name="pinned_window"), window)
            lost = [lap.number for lap in run.laps if not _on_desk(lap, "never touch production")]
            if lost:
                raise _Fail(f"in a run with a {window:,}-token window the rule left the desk at lap "
                            f"{lost[0]}",
                            "the rule lives in the request: pin messages[0] so it is sent on every lap.")
            if run.database_target != "staging":
                raise _Fail(f"in a run with a {window:,}-token window the fix went to {run.database_target}",
                            "keep the request (and its rule) pinned at the front of every desk.")
        return "40 fresh histories, and 3 runs where the rule stayed on the desk and the fix went to staging."

    return _verdict("pinned_window", body)


# ==== 03 three zones =================================================================================

def _reference_split(messages, keep_recent):
    cut = max(1, len(messages) - keep_recent)
    while cut < len(messages) and tool_results(messages[cut]):
        cut -= 1            # the tail may not start with a result: take its tool_use along
    return messages[:1], messages[1:cut], messages[cut:]


def _split_scenarios(seed: int):
    yield worked_history(), 3          # the notebook's example: the last 3 would start with a tool_result
    rng = random.Random(seed)
    for _ in range(40):
        history = random_history(rng)
        yield history, rng.randint(0, 7)


def check_split_zones(split_zones, seed: int = 4) -> bool:
    """(head, middle, tail): the request, the part to summarize, the newest keep_recent, pairs whole."""

    def body():
        _need_function(split_zones, "split_zones")
        for messages, keep in _split_scenarios(seed):
            size = f"{len(messages)} messages, keep_recent={keep}"
            got = _call(f"split_zones(<{size}>)", split_zones, list(messages), keep)
            if not (isinstance(got, tuple) and len(got) == 3 and all(isinstance(z, list) for z in got)):
                raise _Fail(f"[{size}] split_zones returned {type(got).__name__}",
                            "return a tuple of three lists: head, middle, tail.")
            head, middle, tail = got
            if tail and tool_results(tail[0]):
                raise _Fail(f"[{size}] your tail starts with a tool_result whose tool_use is in the "
                            "summarized middle",
                            "if the tail would start with a tool_result, move the boundary back one "
                            "message so the assistant's tool_use stays with its result.")
            if head != messages[:1]:
                raise _Fail(f"[{size}] the head holds {len(head)} messages",
                            "the pinned head is the request alone, messages[:1] (the system prompt travels "
                            "beside the list, not in it).")
            if head + middle + tail != messages:
                raise _Fail(f"[{size}] head + middle + tail is not the history",
                            "every message lands in exactly one zone, in order: nothing lost, nothing twice.")
            want = _reference_split(messages, keep)[2]
            if len(tail) != len(want):
                raise _Fail(f"[{size}] the tail holds {len(tail)} messages, {len(want)} expected",
                            "the tail is the last keep_recent messages, or one more when it would otherwise "
                            "start with a tool_result. It never reaches into the head.")
        return "41 histories (the example and 40 fresh): request pinned, tail the right size, no pair split."

    return _verdict("split_zones", body)


def check_compact(compact, seed: int = 5) -> bool:
    """head + one summary message + tail; the summarizer sees exactly the middle, once."""

    def body():
        _need_function(compact, "compact")
        for n, (messages, keep) in enumerate(_split_scenarios(seed)):
            seen = []

            def summarize(part, n=n):
                seen.append(list(part))
                return f"Goal: task {n}.\nDone: read {len(part)} messages."

            size = f"{len(messages)} messages, keep_recent={keep}"
            out = _call(f"compact(<{size}>, summarize, {keep})", compact, list(messages), summarize, keep)
            problem = _compact_problem(messages, keep, out, seen, f"Goal: task {n}.", size)
            if problem:
                raise problem
        return "41 histories: the request pinned, one summary card for the middle, the tail word for word."

    return _verdict("compact", body)


def _compact_problem(messages, keep, out, seen, card_text, size) -> _Fail | None:
    head, middle, tail = _reference_split(messages, keep)
    if not isinstance(out, list):
        return _Fail(f"[{size}] compact returned {type(out).__name__}", "return the new list of messages.")
    if not middle:
        if seen or out != messages:
            return _Fail(f"[{size}] there was nothing between head and tail, yet the list changed",
                         "when the middle is empty there is nothing to summarize: return the list as it is.")
        return None
    if len(seen) != 1:
        return _Fail(f"[{size}] summarize was called {len(seen)} times", "one summary call per compaction.")
    if seen[0] != middle:
        extra = ("the request" if seen[0][:1] == head else
                 "the recent tail" if tail and seen[0][-len(tail):] == tail else "")
        return _Fail(f"[{size}] summarize got {len(seen[0])} messages, the middle has {len(middle)}"
                     + (f" (you also gave it {extra})" if extra else ""),
                     "summarize only the middle: the request stays pinned and the tail stays word for word.")
    if not out or out[0] != messages[0]:
        return _Fail(f"[{size}] the compacted list does not start with the request",
                     "the request stays pinned at the front, untouched; only the middle becomes a summary.")
    if len(out) != 2 + len(tail):
        return _Fail(f"[{size}] the compacted list has {len(out)} messages, {2 + len(tail)} expected",
                     "replace the whole middle with ONE summary message: head + [summary] + tail.")
    if out[1].get("role") != "user" or not is_plain_user(out[1]):
        return _Fail(f"[{size}] the summary is sent as a {out[1].get('role')} message",
                     "send the summary as a user message (the harness's notes to the model), for example "
                     "user('[Summary of earlier work]\\n' + text).")
    if card_text not in text_of(out[1]):
        return _Fail(f"[{size}] the summary message does not hold what summarize returned",
                     "put the text that summarize(middle) returned into the summary message.")
    if out[2:] != tail:
        return _Fail(f"[{size}] the tail after the summary is not the last messages, word for word",
                     "use your split_zones: the tail is the last keep_recent messages, moved back one if it "
                     "would start with a tool_result.")
    return None


_PROMPT_SCENARIOS = [(3, 5000, RULES[0]), (2, 4500, RULES[1]), (4, 5500, RULES[2])]


def check_compaction_prompt(prompt) -> bool:
    """ThreeZoneCompaction(prompt=yours), the rule said mid-task: staging, and the rule in the summary."""

    def body():
        _prompt_shape(prompt)
        for number, (at, window, (rule, piece)) in enumerate(_PROMPT_SCENARIOS):
            task = file_reading_task(rule_at_lap=at, rule=rule)
            run = _run(ThreeZoneCompaction(prompt=prompt), window, task)
            summaries = [lap.summary for lap in run.laps if lap.kind == "compact" and lap.summary]
            where = f"window {window:,}, rule said at lap {at}"
            if run.stopped != "answered":
                raise _Fail(f"[{where}] the run stopped early ({run.stopped}: {run.problem})",
                            "a summary must stay short enough to make room: ask for a word "
                            "limit ({max_words}).")
            if not summaries:
                raise _Fail(f"[{where}] the run never compacted",
                            "ask the model to summarize the transcript.")
            kept = piece in summaries[-1].lower()
            if run.database_target != "staging" or not kept:
                print(f"The last summary of that run:\n{summaries[-1]}\n")
                limit = re.search(r"(\d+)\s+words", prompt)
                if limit and int(limit.group(1)) < 60:
                    hint = f"your word limit ({limit.group(1)}) leaves no room for the rule: allow more."
                else:
                    hint = ("the rule arrived mid-task, so it sits in the summarized middle. Ask for a "
                            "standing-constraints section as a bullet ('- Standing constraints: "
                            "every rule the user gave, word for word') and say it must always be "
                            "included.")
                raise _Fail(f"[{where}] the fix went to {run.database_target}; the last summary "
                            f"{'kept' if kept else 'lost'} the rule", hint)
            if number == 0:
                print(f"The last summary of the first run:\n{summaries[-1]}\n")
        return "3 runs with the rule said mid-task: every summary carried it, every fix went to staging."

    return _verdict("your compaction prompt", body)


def _prompt_shape(prompt) -> None:
    """The prompt must be a string the harness can fill and the model will read as a summary request."""
    if prompt is None:
        raise _NotDone("write your compaction prompt as a string, then run this cell.")
    if not isinstance(prompt, str):
        raise _Fail(f"the prompt is a {type(prompt).__name__}", "write the prompt as one string.")
    if "{transcript}" not in prompt:
        raise _Fail("the prompt has no {transcript} placeholder",
                    "the harness puts the middle of the conversation where {transcript} is.")
    if "<transcript>" not in prompt:
        raise _Fail("the prompt does not wrap the transcript in <transcript> tags",
                    "write <transcript>\\n{transcript}\\n</transcript>: the offline model treats a "
                    "message as a request to summarize only when it holds a <transcript> (Claude likes "
                    "the tags too).")
    try:
        compaction_prompt("user: hello", 200, "", template=prompt)
    except (KeyError, IndexError, ValueError) as problem:
        raise _Fail(f"the prompt cannot be filled in ({type(problem).__name__}: {problem})",
                    "only {transcript}, {max_words} and {focus} are filled in; write any other brace "
                    "doubled, {{ or }}.") from None


# ==== 04 the running summary =========================================================================

def check_running_summary(running_summary, seed: int = 6) -> bool:
    """One living summary: a fold per chunk, each given the previous summary and only the new events."""

    def body():
        _need_function(running_summary, "running_summary")
        rng = random.Random(seed)
        for _ in range(25):
            events = random_history(rng, turns=rng.randint(0, 8), chat=False)[1:]
            chunk = rng.randint(1, 5)
            start = rng.choice(["", "Goal: an earlier summary."])
            calls = []

            def fold(summary, new_events, calls=calls):
                calls.append((summary, list(new_events)))
                return f"<summary #{len(calls)}>"

            size = f"{len(events)} events, chunk_size={chunk}"
            got = _call(f"running_summary(<{size}>)", running_summary, list(events), fold, chunk,
                        summary=start)
            problem = _fold_problem(events, chunk, start, calls, got, size)
            if problem:
                raise problem
        for window, at in ((5000, None), (4500, 3)):
            run = _run(FoldLoop(running_summary), window, file_reading_task(rule_at_lap=at))
            later = [lap.assembled_tokens for lap in run.laps[5:-1]]   # the last lap only answers
            where = f"window {window:,}" + (f", rule said at lap {at}" if at else "")
            if run.stopped != "answered" or not later:
                raise _Fail(f"[{where}] the run stopped early ({run.stopped}: {run.problem})",
                            "keep the desk small: the request, the one summary, and the newest turn.")
            if max(later) - min(later) > 1200 or run.laps[-1].raw_tokens < 2.5 * max(later):
                raise _Fail(f"[{where}] the assembled desk went from {min(later):,} to {max(later):,} tokens",
                            "the summary grows with the history: it should stay about the same size while "
                            "the raw history grows.")
            if run.database_target != "staging":
                raise _Fail(f"[{where}] the fix went to {run.database_target}",
                            "every fold must carry the summary so far, rules included.")
            print(f"[{where}] the raw history ended at {run.laps[-1].raw_tokens:,} tokens; the desk stayed "
                  f"between {min(later):,} and {max(later):,} after lap 5; fix on {run.database_target}.")
        return "25 fold sequences, and 2 runs where the desk stayed flat while the raw history grew."

    return _verdict("running_summary", body)


def _fold_problem(events, chunk, start, calls, got, size) -> _Fail | None:
    chunks = [events[i:i + chunk] for i in range(0, len(events), chunk)]
    outputs = [start] + [f"<summary #{i}>" for i in range(1, len(chunks) + 1)]
    if any(len(new) > chunk for _, new in calls[1:]) or (len(calls) > 1 and calls[1][1][:1] == events[:1]):
        return _Fail(f"[{size}] a fold was given events it had already folded",
                     "fold only the NEW chunk: the older events are already inside the summary.")
    if len(calls) != len(chunks):
        return _Fail(f"[{size}] fold was called {len(calls)} times, {len(chunks)} expected",
                     "one fold per chunk of chunk_size events (the last chunk may be shorter), not one per "
                     "event; no fold when there are no events.")
    for i, (summary, new) in enumerate(calls):
        if new != chunks[i]:
            return _Fail(f"[{size}] fold number {i + 1} got the wrong events",
                         "fold the events in order, chunk_size at a time: "
                         f"events[{i * chunk}:{(i + 1) * chunk}].")
        if summary != outputs[i]:
            return _Fail(f"[{size}] fold number {i + 1} was given {summary!r} as the summary so far",
                         "pass the previous summary in: each fold merges the new events INTO the summary the "
                         "last fold returned (the first fold starts from `summary`).")
    if got != outputs[-1]:
        grown = isinstance(got, str) and outputs[-1] in got and len(got) > len(outputs[-1])
        return _Fail(f"[{size}] you returned {got!r}, the last fold returned {outputs[-1]!r}",
                     "your summary grows with the history: keep only what the last fold gave back, do not "
                     "append to it." if grown else "return the summary the last fold gave back.")
    return None


class FoldLoop(Strategy):
    """Runs ``fn(events, fold, chunk_size, summary=...)`` inside the loop: your fold loop as a strategy.

    Once ``chunk_turns`` turns have finished beyond the newest ``keep_turns``, their messages go to ``fn``
    with a ``fold(summary, chunk)`` that asks the model to fold ``chunk`` into ``summary``. The desk is
    the request + one summary message + the messages not folded yet.
    """

    name = "your running summary"

    def __init__(self, fn, chunk_turns: int = 2, keep_turns: int = 1, max_words: int = 180):
        self.fn, self.chunk_turns, self.keep_turns, self.max_words = fn, chunk_turns, keep_turns, max_words
        self.start()

    def start(self):
        self.summary, self.upto = "", 1

    def assemble(self, history, *, lap=0, model, **_):
        usage = []

        def fold(summary, chunk):
            prompt = fold_prompt(str(summary or ""), render(list(chunk)), self.max_words)
            reply = model.reply("", [user(prompt)], [])
            usage.append(reply.usage)
            return reply.text.strip()

        starts = turn_starts(history, start=self.upto)
        if len(starts) >= self.keep_turns + self.chunk_turns:
            cut = starts[-self.keep_turns] if self.keep_turns else len(history)
            self.summary = self.fn(history[self.upto:cut], fold, 2 * self.chunk_turns, summary=self.summary)
            self.upto = cut
        card = [user(SUMMARY_HEADER.format(lap=lap) + "\n" + str(self.summary))] if self.summary else []
        messages = history[:1] + card + history[self.upto:]
        zones = ["head"] + ["summary"] * len(card) + ["tail"] * (len(history) - self.upto)
        return Assembly(messages, zones, "fold" if usage else "none",
                        f"folded {len(usage)} chunk(s)" if usage else "", summary_calls=len(usage),
                        summary_input=sum(u.get("input_tokens", 0) for u in usage),
                        summary_output=sum(u.get("output_tokens", 0) for u in usage),
                        summary=self.summary or None)


_BILL_RUNS = [  # (where, strategy, window, rule_at_lap)
    ("running summary, window 5,000", lambda: RunningSummary(), 5000, None),
    ("three-zone compaction, window 5,000", lambda: ThreeZoneCompaction(), 5000, 3),
    ("running summary in chunks of 3, window 4,000", lambda: RunningSummary(chunk_turns=3), 4000, None),
    ("full history, window 20,000", lambda: FullHistory(), 20000, None),
]


def check_token_bill(token_bill) -> bool:
    """(with, without) = (sum of billed input, sum of the raw history per lap), on runs of four strategies."""

    def body():
        _need_function(token_bill, "token_bill")
        for where, make, window, at in _BILL_RUNS:
            run = _once(("bill", where), lambda: _run(make(), window, file_reading_task(rule_at_lap=at)))
            laps = list(run.laps)
            want = (sum(lap.billed_input for lap in laps), sum(lap.raw_tokens for lap in laps))
            got = _call(f"token_bill(laps) [{where}]", token_bill, laps)
            if not (isinstance(got, tuple) and len(got) == 2
                    and all(isinstance(x, (int, float)) for x in got)):
                raise _Fail(f"[{where}] token_bill returned {got!r}",
                            "return a pair of numbers: (with_summary, without_summary).")
            if tuple(got) != want:
                raise _Fail(f"[{where}] you said {got}, the lap records say {want}",
                            _bill_hint(got, want, laps))
        first = _RUNS[("bill", _BILL_RUNS[0][0])].laps
        paid, would = sum(lap.billed_input for lap in first), sum(lap.raw_tokens for lap in first)
        print(f"Running summary at 5,000 tokens: {paid:,} input tokens billed, against {would:,} for sending "
              f"the full history every lap ({paid / would:.0%}).")
        return "right on 4 fresh runs."

    return _verdict("token_bill", body)


def _bill_hint(got, want, laps) -> str:
    with_summary, without_summary = got
    running_totals = sum(lap.total_input for lap in laps)
    if tuple(got) == want[::-1]:
        return "the pair is the wrong way round: (with_summary, without_summary)."
    if running_totals in (with_summary, without_summary):
        return "lap.total_input is already a running total: add up the per-lap lap.billed_input instead."
    if with_summary == sum(lap.assembled_tokens for lap in laps):
        return ("the summary calls are billed too: lap.billed_input counts the desk sent AND the "
                "input of any summary or fold call made that lap.")
    if without_summary == laps[-1].raw_tokens:
        return ("without a strategy every lap re-sends the whole raw history, so the bill is the SUM of "
                "lap.raw_tokens over all laps, not the last one.")
    if with_summary != want[0]:
        return "with the summary, the bill is what was really billed: the sum of lap.billed_input."
    return "without the summary, each lap would have sent its whole raw history: sum lap.raw_tokens."


# ==== 05 memory ======================================================================================

def with_memory(memory: str, system: str = SYSTEM_PROMPT) -> str:
    """The system prompt of a session that starts by loading CLAUDE.md (what a memory loader does)."""
    if not memory or not memory.strip():
        return system
    return f"{system}\n\nProject memory (CLAUDE.md):\n{memory.strip()}"


def check_memory(memory, budget) -> bool:
    """At most four lines, within your budget; session two skips rediscovery and uses staging."""

    def body():
        lines, cost = _memory_shape(memory, budget)
        for n, goal in enumerate(GOALS, start=1):
            before = _once(("no memory", goal), lambda: run_agent(goal, _model(20000), max_laps=80))
            after = run_agent(goal, _model(20000), system=with_memory(memory), max_laps=80)
            print(f"request {n}: without memory {len(before.files_read)} files read, fix on "
                  f"{before.database_target}; with memory {len(after.files_read)} files read, fix on "
                  f"{after.database_target}.")
            if after.database_target != "staging":
                raise _Fail(f"[request {n}] session two ran the fix on {after.database_target}",
                            "the standing rule must be in memory: nothing else in session two "
                            "says production is off-limits.")
            if len(after.files_read) >= len(before.files_read):
                raise _Fail(f"[request {n}] session two read {len(after.files_read)} files, as many "
                            "as without memory",
                            "say where things live (the file that handles sign-in, the folder of "
                            "migrations, how a pending one is marked), so session two goes straight "
                            "there.")
        laps = len(after.laps)
        return (f"{len(lines)} lines, {cost} tokens (budget {budget}); session two went straight "
                f"to the files and used staging. Memory cost {cost} x {laps} laps = "
                f"{cost * laps:,} tokens in that session.")

    return _verdict("your CLAUDE.md", body)


def _memory_shape(memory, budget) -> tuple[list[str], int]:
    """Four lines at most, a sensible budget, and within it. Returns (lines, tokens)."""
    if memory is None or budget is None:
        raise _NotDone("write MEMORY (the text of CLAUDE.md) and MEMORY_BUDGET (tokens), then run this cell.")
    if not isinstance(memory, str) or not memory.strip():
        raise _Fail("MEMORY is not a piece of text",
                    "write CLAUDE.md as one string, one fact or rule per line.")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
        raise _Fail(f"MEMORY_BUDGET is {budget!r}", "give a positive whole number of tokens.")
    lines = [line for line in memory.splitlines() if line.strip()]
    if len(lines) > 4:
        raise _Fail(f"MEMORY has {len(lines)} lines",
                    "at most four lines: CLAUDE.md is loaded on every turn of every session, so only durable "
                    "rules and where-things-live pointers belong in it, not a diary or the codebase.")
    if budget > MEMORY_CAP:
        raise _Fail(f"a budget of {budget:,} tokens is too generous",
                    f"CLAUDE.md is paid on every turn: keep it to {MEMORY_CAP} tokens or less.")
    cost = tiktoken_count(memory)
    if cost > budget:
        raise _Fail(f"MEMORY is {cost} tokens, over your own budget of {budget}",
                    "trim it to the rules and pointers that matter, or raise the budget (within the cap).")
    return lines, cost


_CONSTRAINT_POOL = [
    "Never touch production: run database changes on staging only.",
    "Do not edit files under migrations/ that have already run.",
    "Only use the public API in app/api/; never call the database from a handler.",
    "Always run `pytest tests/` before saying a change is done.",
    "No new dependencies without asking first.",
]
_MEMORY_POOL = [
    "- Ledgerly is a small invoicing API (Python 3.11, Postgres).",
    "- Sign-in lives in app/auth.py; data fixes are SQL files in migrations/.",
    "- A pending migration has `-- status: pending` on its second line.",
]


def _summary_text(rng: random.Random, constraints: list[str], last: bool) -> str:
    """A summary in the harness's shape: headed sections, bullets under the constraints heading."""
    facts = ["Facts:", "- Cause: app/auth.py:40 — FIXME: case-sensitive email match",
             "- Noticed: app/db.py:25 — NOTE: the export skips its first row"]
    rules = (["Standing constraints:"] + [f"- {c}" for c in constraints]) if constraints else []
    progress = ["Files read: app/auth.py, app/db.py, migrations/003_lowercase_emails.sql",
                "Done / pending:", "- Done: read 3 files. Pending: apply the pending fix."]
    sections = [facts, progress, rules] if last else [rules, facts, progress]
    return "\n".join([f"Goal: {rng.choice(GOALS)}"] + [line for section in sections for line in section])


def _norm(line: str) -> str:
    return line.strip().lstrip("-*• ").strip().lower()


def check_promote(promote, seed: int = 7) -> bool:
    """Move the standing-constraints lines of a summary into a memory file, on fresh temp files, twice."""

    def body():
        _need_function(promote, "promote")
        rng = random.Random(seed)
        with tempfile.TemporaryDirectory() as folder:
            for n in range(8):
                _promote_case(promote, rng, n, Path(folder) / f"case{n}" / "CLAUDE.md")
        return "8 fresh summaries and memory files: rules promoted once, nothing else moved, nothing lost."

    return _verdict("promote", body)


def _promote_case(promote, rng, n, path):
    """One case: some memory lines (or no file), a summary with 0-3 rules; promote, then promote again."""
    path.parent.mkdir()
    constraints = rng.sample(_CONSTRAINT_POOL, rng.randint(0 if n == 5 else 1, 3))
    existing = rng.sample(_MEMORY_POOL, rng.randint(1, 3))
    if n % 3 == 1 and constraints:
        existing.append(f"- {constraints[0]}")                    # memory already holds one of them
    if n == 2:
        existing = []                                              # no CLAUDE.md yet
    else:
        path.write_text("\n".join(existing) + ("" if n == 4 else "\n"), encoding="utf-8")
    summary = _summary_text(rng, constraints, last=n % 2 == 0)
    where = (f"case {n + 1}: {len(existing)} lines in memory, {len(constraints)} constraints in the summary"
             + (", no trailing newline" if n == 4 else ", no CLAUDE.md yet" if n == 2 else ""))
    target = str(path) if n % 2 else path                          # a str or a Path, both must work
    _call(f"promote(summary, memory_path) [{where}]", promote, summary, target)
    if not path.exists():
        raise _Fail(f"[{where}] no memory file was written", "create the file when it does not exist yet.")
    first = path.read_text(encoding="utf-8")
    lines = [line for line in first.splitlines() if line.strip()]
    _memory_lines_problem(lines, existing, constraints, where)
    _call(f"promote run a second time [{where}]", promote, summary, target)
    again = path.read_text(encoding="utf-8")
    if again != first:
        raise _Fail(f"[{where}] running promote twice changed the file ({len(lines)} -> "
                    f"{len([x for x in again.splitlines() if x.strip()])} lines)",
                    "do not duplicate lines: before appending, check what the file already holds "
                    "(compare the text without the leading '- ').")


def _memory_lines_problem(lines, existing, constraints, where):
    for old in existing:
        if old not in lines:
            glued = any(line.startswith(old) and line != old for line in lines)
            raise _Fail(f"[{where}] the memory line {old!r} is gone or changed",
                        "the file did not end with a newline, so your first line was glued onto "
                        "its last one: start on a new line." if glued else
                        "append to the memory file; never overwrite what it already holds.")
    for rule in constraints:
        count = sum(_norm(line) == _norm(rule) for line in lines)
        if count > 1:
            raise _Fail(f"[{where}] the constraint {rule!r} is in memory {count} times",
                        "each standing constraint belongs in memory exactly once: skip the ones "
                        "already there (compare without the leading '- ').")
        if count == 0:
            raise _Fail(f"[{where}] the constraint {rule!r} is not in memory as a line of its own",
                        "copy every bullet under the 'Standing constraints:' heading of the "
                        "summary, one line each.")
    allowed = {_norm(x) for x in existing + constraints}
    strays = [line for line in lines if _norm(line) not in allowed]
    if strays:
        raise _Fail(f"[{where}] memory gained {strays[0]!r}",
                    "only the standing-constraints lines belong in memory: the goal, facts and "
                    "progress stay in the summary (they are this session's, not the project's).")
