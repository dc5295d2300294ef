"""Checks for exercise 02, the sliding window: ``sliding_window``, ``first_lap_without``, ``pinned_window``,
``remarks_window``.

A window function gets ``(messages, budget, counter)``: ``messages`` is the raw history (a list of
messages), ``budget`` the most tokens the desk may hold, ``counter(message)`` the tokens of one message.
The budget covers every message sent -- the notice and the pinned request included; the system prompt
and the tools are already taken off it. The scenarios include the edges a careful grader tries: an
empty history, a budget the whole history fits exactly, a budget of 0, a newest turn that alone is
over the budget, a turn that fits exactly beside the notice.

``StudentWindow`` runs your window inside the loop, so the checks can watch the rule on a real desk.
Left out: windows that reorder messages, and notices longer than a few lines.
"""

from __future__ import annotations

import random

from harness.context import DROPPED_NOTICE, Assembly, SlidingWindow, Strategy
from harness.laps import Lap
from harness.messages import assistant, blocks_of, is_plain_user, pair_problems, safe_cuts, text_of, user
from harness.tokens import Meter
from stage.tasks import file_reading_task

from .common import (RULES, Fail, call, call_on_copy, how_it_stopped, need_function, on_desk, once, random_history,
                     run, text_block, verdict, words)

NOTICE = user(DROPPED_NOTICE)
_CHANGED = ("build a new list (a slice such as messages[start:], or [notice] + ...) and return it; never pop, "
            "insert into or edit the list you were given -- in the loop that list is the raw history.")
_EMPTY = "an empty history is a real input (nothing has happened yet): return []."


# ---- what is wrong with a window ----------------------------------------------------------------------

def window_problem(messages, budget, counter, out, pinned: bool) -> Fail | None:
    """What is wrong with ``out`` as a (pinned) sliding window over ``messages``, or None."""
    size = f"a history of {len(messages)} messages and a budget of {budget:,} tokens"
    if out is None:
        return Fail(f"for {size} the function returned None", "end the function with `return` and the list.")
    if not isinstance(out, list) or not all(isinstance(m, dict) and "role" in m and "content" in m for m in out):
        return Fail(f"for {size} the function returned {type(out).__name__}, not a list of messages",
                    "return a list of message dicts: the ones you keep, in order.")
    total = sum(counter(m) for m in messages)
    if total <= budget:
        if out == messages:
            return None
        if total == budget:
            return Fail(f"for {size} everything fitted exactly ({total:,} tokens) but you did not send it all",
                        "a history exactly as big as the budget fits: compare with <=, not <.")
        return Fail(f"for {size} everything fitted ({total:,} tokens) but you did not send it all",
                    "when the whole history fits the budget, send it unchanged.")
    head = messages[:1] if pinned else []
    sent = sum(counter(m) for m in out)
    newest = safe_cuts(messages)[-2]                      # where the newest turn starts
    newest_fits = sum(counter(m) for m in head + [NOTICE] + messages[newest:]) <= budget
    if sent > budget:
        if budget == 0:
            hint = "a budget of 0 is not 'no limit': it leaves room for nothing, so return []."
        elif out[-1:] == messages[-1:] and not newest_fits:
            hint = ("even the newest turn alone does not fit beside " + ("the request and " if pinned else "")
                    + "the notice, so nothing more fits: return " + ("[request]" if pinned else "[]")
                    + " rather than a desk over the budget (the API would refuse it).")
        elif pinned and out[:1] == head and sent - counter(messages[0]) <= budget:
            hint = ("the pinned head counts against the budget too: the window over the rest only gets what "
                    "the head leaves, budget - counter(messages[0]).")
        elif out == messages:
            hint = "drop the oldest messages until what you send fits."
        else:
            hint = "count every message you send against the budget, the notice included."
        return Fail(f"for {size} you sent {sent:,} tokens", hint)
    if pinned and not out:
        if counter(messages[0]) <= budget:
            return Fail(f"for {size} you sent nothing, though the request fits",
                        "pin the head: the request is always sent, even when nothing after it fits.")
        return None
    if pinned and out[0] != messages[0]:
        return Fail(f"for {size} the request (message 0) is not the first message you send",
                    "pin the head: the request is the mission, so messages[0] is always sent first, "
                    "and the window slides over what comes after it.")
    if not newest_fits:
        rest = out[len(head):]
        if not rest:
            return None
        if len(rest) == 1 and is_plain_user(rest[0]) and rest[0] not in messages:
            return Fail(f"for {size} you sent a notice and nothing after it",
                        "when not even the newest turn fits, a notice alone is no help: return "
                        + ("[request]." if pinned else "[]."))
        return Fail(f"for {size} not even the newest turn fits, yet you sent {len(rest)} message(s) after "
                    + ("the request" if pinned else "nothing"),
                    "keep one unbroken run of the NEWEST messages: when the newest turn does not fit, nothing "
                    "older may take its place. Return " + ("[request]." if pinned else "[]."))
    problems = pair_problems(out)
    if problems:
        if "first message is not a user message" in problems[0]:
            hint = ("the API wants the desk to start with a user message. When you drop messages, put a "
                    "one-line notice in front, for example user(DROPPED_NOTICE); count it in the budget.")
        elif "answers tool_use" in problems[0]:
            hint = ("you kept a tool_result but dropped the tool_use it answers. Cut only just before an "
                    "assistant message (safe_cuts lists the safe places), never between a call and its result.")
        else:
            hint = "a tool_use and its tool_result always travel together: keep both or drop both."
        return Fail(f"for {size} the desk breaks the tool-pair rule ({problems[0]})", hint)
    return _shape_problem(messages, budget, counter, out, pinned, size)


def _shape_problem(messages, budget, counter, out, pinned, size) -> Fail | None:
    """The kept part must be the newest messages, unbroken, and as long as the budget allows."""
    rest, base = (out[1:], 1) if pinned else (out, 0)
    if not rest or rest[-1] != messages[-1]:
        return Fail(f"for {size} the newest message is not on your desk",
                    "a sliding window keeps the NEWEST messages and drops the oldest ones.")
    k = 0
    while k < len(rest) and k < len(messages) - base and rest[-1 - k] == messages[-1 - k]:
        k += 1
    front, start = rest[:len(rest) - k], len(messages) - k
    if len(front) > 1 or (front and not is_plain_user(front[0])):
        return Fail(f"for {size} your desk is not one notice followed by the newest messages, in order",
                    "keep one unbroken run of the newest messages, with at most one short user notice in front.")
    # Would the next older turn have fitted too? Then the window dropped more than it had to.
    earlier = [c for c in safe_cuts(messages)[:-1] if base <= c < start]
    if earlier:
        p = earlier[-1]
        if front:
            notice = front                   # the student's own notice, whatever its size
        elif (p == base and not pinned) or is_plain_user(messages[p]):
            notice = []
        else:
            notice = [NOTICE]
        candidate = ([messages[0]] if pinned else []) + notice + messages[p:]
        fits = sum(counter(m) for m in candidate)
        if fits <= budget:
            exact = fits == budget
            return Fail(f"for {size} you dropped more than needed: messages {p}..{start - 1} still fitted"
                        + (" exactly" if exact else ""),
                        "a turn that brings the desk exactly to the budget fits: compare with <=, not <."
                        if exact else "walk back from the newest message, adding whole turns while they fit; stop "
                                      "at the first turn that would go over.")
    return None


# ---- fresh scenarios ------------------------------------------------------------------------------------

def window_scenarios(seed: int, pinned: bool):
    """(messages, budget, counter): mixed sizes, two counters, loose, tight and roomy budgets, then the edges."""
    rng = random.Random(seed)
    chars4 = Meter("chars4").count
    thirds = lambda m: len(text_of(m)) // 3 + 2   # noqa: E731 -- a second, different counter
    for i in range(40):
        messages = random_history(rng, turns=rng.randint(2, 14), wide=0.1 if i % 5 == 0 else 0.0,
                                  big_inputs=i % 5 == 1)
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
    yield from edge_scenarios(rng, pinned, chars4)


def edge_scenarios(rng, pinned: bool, counter):
    """The cases a careful grader tries. Each is (messages, budget, counter)."""
    messages = random_history(rng, turns=8, chat=False)
    head = counter(messages[0]) if pinned else 0
    total = sum(counter(m) for m in messages)
    cuts = [c for c in safe_cuts(messages)[:-1] if c >= 1]
    yield messages, total, counter                                   # the whole history fits exactly
    exact = head + counter(NOTICE) + sum(counter(m) for m in messages[cuts[-3]:])
    yield messages, exact, counter                                   # three turns fit exactly beside the notice
    yield messages, head + counter(NOTICE) + sum(counter(m) for m in messages[cuts[-1]:]) - 1, counter  # none fits
    if not pinned:
        yield messages, 0, counter                                   # a budget of 0
    big = list(messages)                                             # the newest turn alone is over the budget
    call_ = {"type": "tool_use", "id": "toolu_big", "name": "read_file", "input": {"path": "app/huge.py"}}
    big += [assistant([text_block("Reading the big one."), call_]),
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_big",
                                          "content": words(rng, 3000)}]}]
    yield big, total, counter


def _try_window_scenarios(window_fn, name: str, seed: int, pinned: bool) -> int:
    """Run the student's window on the fresh histories; raise the first problem found. Returns how many."""
    need_function(window_fn, name)
    out = call_on_copy(f"{name}([], 100, counter)", window_fn, [], 100, Meter("chars4").count,
                       changed_hint=_CHANGED, hint=_EMPTY)
    if out is None:
        raise Fail(f"{name}([], 100, counter) returned None", "end the function with `return` and the list.")
    if out != []:
        raise Fail(f"{name}([], 100, counter) returned {out!r}", _EMPTY)
    count = 1
    for messages, budget, counter in window_scenarios(seed, pinned=pinned):
        out = call_on_copy(f"{name}(<{len(messages)} messages>, {budget}, counter)", window_fn, messages, budget,
                           counter, changed_hint=_CHANGED)
        problem = window_problem(messages, budget, counter, out, pinned=pinned)
        if problem:
            raise problem
        count += 1
    return count


def check_sliding_window(sliding_window, seed: int = 2) -> bool:
    """The newest messages that fit, tool pairs whole, a user message first -- on fresh histories and edges."""

    def body():
        n = _try_window_scenarios(sliding_window, "sliding_window", seed, pinned=False)
        return (f"{n} histories (40 fresh, an empty one, exact fits, a budget of 0, an oversize newest turn): "
                "within budget, newest kept, no tool pair split, a user message first, your input untouched.")

    return verdict("sliding_window", body)


# ---- task 2: first_lap_without ----------------------------------------------------------------------

def reference_first_lap_without(laps, text: str):
    seen = False
    for lap in laps:
        if on_desk(lap, text):
            seen = True
        elif seen:
            return lap.number
    return None


_LAP_SCENARIOS = [  # (pin_head, window, rule_at_lap, rule wording)
    (False, 4000, None, RULES[0]),
    (False, 4500, 3, RULES[1]),
    (False, 6000, 2, RULES[2]),
    (False, 5000, 4, RULES[1]),
    (True, 5000, None, RULES[1]),
]


def _sliding_laps(pin_head, window, at, rule):
    laps = []
    run(SlidingWindow(pin_head=pin_head), window, file_reading_task(rule_at_lap=at, rule=rule), on_lap=laps.append)
    return laps


def made_up_laps(rng: random.Random, shape: str, piece: str) -> list[Lap]:
    """Lap records with the text on the desk in a chosen pattern, put in a random kind of message, any case.

    Shapes: "never", "always", "leaves", "later" (given at lap 3, gone later), "returns" (gone, back, gone).
    """
    n = rng.randint(8, 12)
    on = {"never": [False] * n, "always": [True] * n,
          "leaves": [i < 4 for i in range(n)], "later": [2 <= i < 5 for i in range(n)],
          "returns": [i < 3 or 5 <= i < 7 for i in range(n)]}[shape]
    said = rng.choice([piece.capitalize(), piece.upper(), piece.title(), piece])
    laps = []
    for number, present in enumerate(on, start=1):
        sent = random_history(rng, turns=2, chat=False)
        if present:
            where = rng.choice(["request", "remark", "result", "note"])
            if where == "request":
                sent[0] = user(f"Fix the login. {said}: use staging.")
            elif where == "remark":
                sent[2] = {"role": "user", "content": list(sent[2]["content"]) + [text_block(f"Also: {said}.")]}
            elif where == "result":
                result = dict(sent[2]["content"][0], content=f"  1  # {said}\n  2  x = 1")
                sent[2] = {"role": "user", "content": [result] + list(sent[2]["content"][1:])}
            else:
                sent[1] = assistant([text_block(f"Remember: {said}.")] + blocks_of(sent[1])[1:])
        laps.append(Lap(number, 1000 + 100 * number, 900, sent=sent))
    return laps


def _lap_cases(seed: int):
    """(where, laps, piece): real SlidingWindow runs, then made-up lap records (and no laps at all)."""
    for pin_head, window, at, (rule, piece) in _LAP_SCENARIOS:
        laps = once(("sliding", pin_head, window, at, rule), lambda: _sliding_laps(pin_head, window, at, rule))
        where = (f"sliding window{', head pinned' if pin_head else ''}, window {window:,}, the rule "
                 + ("in the request" if at is None else f"said at lap {at}"))
        yield where, laps, piece
    rng = random.Random(seed)
    for shape in ("leaves", "returns", "later", "never", "always", "returns", "leaves"):
        piece = rng.choice(RULES)[1]
        yield f"made-up laps where the text {_SHAPES[shape]}", made_up_laps(rng, shape, piece), piece
    yield "no laps at all", [], RULES[0][1]


_SHAPES = {"never": "is never on the desk", "always": "never leaves", "leaves": "leaves at lap 5",
           "later": "arrives at lap 3 and leaves at lap 6", "returns": "leaves at lap 4, comes back, leaves again"}


def check_first_lap_without(first_lap_without, seed: int = 8) -> bool:
    """Your answer against fresh SlidingWindow runs and made-up lap records (any case, any kind of message)."""

    def body():
        need_function(first_lap_without, "first_lap_without")
        wrong, count = [], 0        # (where, got, expected, laps, piece) for every case it got wrong
        for where, laps, piece in _lap_cases(seed):
            expected = reference_first_lap_without(laps, piece)
            got = call_on_copy(f"first_lap_without(laps, {piece!r}) [{where}]", first_lap_without, list(laps), piece,
                               changed_hint="only read the laps; do not sort, pop or edit them.",
                               hint="an empty list of laps is a real input: return None." if not laps else None)
            count += 1
            if got != expected:
                wrong.append((where, got, expected, laps, piece))
        if not wrong:
            return f"right on {count} cases: 5 real runs, made-up laps (the text anywhere, any case), no laps."
        # One hint for the whole pattern: one lap early on every case is counting from 0.
        if all(isinstance(got, int) and expected is not None and got == expected - 1
               for _, got, expected, _, _ in wrong):
            where, got, expected, _, _ = wrong[0]
            raise Fail(f"[{where}] you said {got!r}, the laps say {expected!r}",
                       "lap numbers start at 1: return lap.number, not the position of the lap in the list.")
        where, got, expected, laps, piece = next((w for w in wrong if w[2] is None or w[1] != w[2] - 1), wrong[0])
        raise Fail(f"[{where}] you said {got!r}, the laps say {expected!r}", _lap_hint(got, expected, laps, piece))

    return verdict("first_lap_without", body)


def _case_sensitive_on_desk(lap, text):
    return any(text in text_of(m) for m in lap.sent)


def _lap_hint(got, expected, laps, piece) -> str:
    if got is None:
        if not any(_case_sensitive_on_desk(lap, piece) for lap in laps):
            return ("on this desk the text is written with capital letters (\"Never touch ...\"), and `text` is "
                    "lowercase: compare in lowercase, text in text_of(message).lower().")
        return ("the text does leave the desk here: look for it in every message of lap.sent (tool results "
                "and remarks included, with text_of(message)), in lowercase.")
    if expected is None:
        return ("here the text never leaves the desk (or is never on it): return None." if laps
                else "with no laps there is nothing to find: return None.")
    if isinstance(got, bool) or not isinstance(got, int) or not any(lap.number == got for lap in laps):
        return "return the number of a lap (lap.number), or None if the text never leaves the desk."
    lap = next(lap for lap in laps if lap.number == got)
    if on_desk(lap, piece):
        return (f"at lap {got} the text is still on the desk (something else was dropped). Search every "
                "message of lap.sent, with text_of(message), for the text in lowercase.")
    if not any(on_desk(earlier, piece) for earlier in laps if earlier.number < got):
        return (f"at lap {got} the text had not been given yet, so it cannot have left. Find the first "
                "lap without it AFTER a lap where it was on the desk.")
    if got > expected:
        return (f"the text had already left at lap {expected}; you found a later absence (after it came back). "
                "Return at the FIRST lap without it, the moment you see one after a lap that had it.")
    return "find the FIRST lap without the text, after a lap that had it."


# ---- task 3: pin the head ---------------------------------------------------------------------------

class StudentWindow(Strategy):
    """Runs a window function ``fn(messages, budget, counter)`` inside the loop, like SlidingWindow does.

    The budget is the model's window minus ``output_reserve`` and the fixed cost of the system prompt
    and tool definitions; ``counter`` is the run's token meter. Your function gets a copy of the history.
    """

    def __init__(self, fn, output_reserve: int = 512, name: str = "your window"):
        self.fn, self.output_reserve, self.name = fn, output_reserve, name

    def assemble(self, history, *, lap=0, system="", tools=None, meter, model, **_):
        budget = model.window - self.output_reserve - meter.total([], system=system, tools=tools)
        sent = call(f"{self.name} inside the loop at lap {lap}", self.fn, list(history), budget, meter.count)
        if not isinstance(sent, list):
            raise Fail(f"{self.name} returned {type(sent).__name__} inside the loop", "return a list of messages.")
        ids = {id(m) for m in history}
        zones = ["head" if history and m is history[0] else "tail" if id(m) in ids else "notice" for m in sent]
        dropped = len(history) - sum(z != "notice" for z in zones)
        return Assembly(sent, zones, "drop" if dropped else "none",
                        f"dropped {dropped} oldest messages" if dropped else "")


def check_pinned_window(pinned_window, seed: int = 3) -> bool:
    """The request always first, then a window over the rest: on fresh histories, then in real runs."""

    def body():
        n = _try_window_scenarios(pinned_window, "pinned_window", seed, pinned=True)
        for window in (4000, 5000, 6000):
            run_ = run(StudentWindow(pinned_window, name="pinned_window"), window)
            lost = [lap.number for lap in run_.laps if not on_desk(lap, "never touch production")]
            if lost:
                raise Fail(f"in a run with a {window:,}-token window the rule left the desk at lap {lost[0]}",
                           "the rule lives in the request: pin messages[0] so it is sent on every lap.")
            if run_.database_target != "staging":
                raise Fail(f"in a run with a {window:,}-token window the fix went to {run_.database_target} "
                           f"({how_it_stopped(run_)})",
                           "keep the request (and its rule) pinned at the front of every desk.")
        return f"{n} histories, and 3 runs where the rule stayed on the desk and the fix went to staging."

    return verdict("pinned_window", body)


# ---- task 4 (homework): carry the user's remarks ---------------------------------------------------

def user_remarks(messages: list[dict]) -> list[str]:
    """Every text block the user wrote in ``messages`` (not tool results). Example: 'By the way: ...'"""
    return [b["text"] for m in messages if m["role"] == "user" for b in blocks_of(m) if b.get("type") == "text"]


def _remarks_problem(messages, budget, counter, out) -> Fail | None:
    size = f"a history of {len(messages)} messages and a budget of {budget:,} tokens"
    if not isinstance(out, list) or not all(isinstance(m, dict) and "role" in m and "content" in m for m in out):
        return Fail(f"for {size} remarks_window returned {type(out).__name__}", "return a list of messages.")
    if sum(counter(m) for m in messages) <= budget:
        return None if out == messages else Fail(f"for {size} everything fitted but you did not send it all",
                                                 "when the whole history fits, send it unchanged.")
    if sum(counter(m) for m in out) > budget:
        return Fail(f"for {size} you sent {sum(counter(m) for m in out):,} tokens",
                    "the notice counts against the budget, and it grows with the remarks it carries: when it "
                    "does not fit, drop one more turn (its remarks join the notice) and try again.")
    if not out or out[0] != messages[0]:
        return Fail(f"for {size} the request is not first", "pin the head, as in pinned_window.")
    problems = pair_problems(out)
    if problems:
        return Fail(f"for {size} the desk breaks the tool-pair rule ({problems[0]})",
                    "cut only where safe_cuts allows, as in sliding_window.")
    k = 0
    while k < len(out) - 1 and k < len(messages) - 1 and out[-1 - k] == messages[-1 - k]:
        k += 1
    front, start = out[1:len(out) - k], len(messages) - k
    if len(front) > 1 or (front and not is_plain_user(front[0])):
        return Fail(f"for {size} after the request there is not one notice followed by the newest messages",
                    "request, one notice, then an unbroken run of the newest messages.")
    notice = text_of(front[0]) if front else ""
    lost = [r for r in user_remarks(messages[1:start]) if r not in notice]
    if lost:
        return Fail(f"for {size} the user said {lost[0]!r} in a dropped message, and your notice does not carry it",
                    "collect the text blocks of every user message you drop (not the tool results) and put "
                    "them, word for word, into the notice.")
    if k == 0:
        return Fail(f"for {size} the newest message is not on your desk",
                    "keep the NEWEST messages; drop the oldest ones after the request.")
    # Would the next older turn have fitted, with its remarks added to a notice worded like yours?
    dropped = user_remarks(messages[1:start])
    preamble = max(0, len(notice) - sum(len(r) + 1 for r in dropped))
    for p in [c for c in safe_cuts(messages)[:-1] if 1 <= c < start][-1:]:
        wider = user("x" * preamble + " ".join(user_remarks(messages[1:p])))
        if sum(counter(m) for m in [messages[0], wider] + messages[p:]) + 2 <= budget:
            return Fail(f"for {size} you dropped more than needed: messages {p}..{start - 1} still fitted",
                        "try the cuts from the oldest on and keep the first desk that fits (the notice grows "
                        "as you drop more, so the newest cut is not the only one to try).")
    return None


def _remarks_scenarios(seed: int):
    rng = random.Random(seed)
    counter = Meter("chars4").count
    for i in range(25):
        messages = random_history(rng, turns=rng.randint(4, 12), wide=0.1 if i % 4 == 0 else 0.0)
        for m in messages[2::2][:-1]:                   # plenty of remarks, in older messages above all
            if m["role"] == "user" and rng.random() < 0.4 and not isinstance(m["content"], str):
                m["content"] = m["content"] + [text_block("Note from the user: " + words(rng, rng.randint(3, 9)))]
        total = sum(counter(m) for m in messages)
        yield messages, rng.randint(total // 2, total), counter


_REMARK_RUNS = [(2, 5000, RULES[0]), (3, 4500, RULES[1]), (4, 5000, RULES[2])]


def check_remarks_window(remarks_window, seed: int = 9) -> bool:
    """Request pinned, remarks carried in the notice: on fresh histories, then runs with the rule said mid-task."""

    def body():
        need_function(remarks_window, "remarks_window")
        out = call_on_copy("remarks_window([], 100, counter)", remarks_window, [], 100, Meter("chars4").count,
                           changed_hint=_CHANGED, hint=_EMPTY)
        if out != []:
            raise Fail(f"remarks_window([], 100, counter) returned {out!r}", _EMPTY)
        for messages, budget, counter in _remarks_scenarios(seed):
            out = call_on_copy(f"remarks_window(<{len(messages)} messages>, {budget}, counter)", remarks_window,
                               messages, budget, counter, changed_hint=_CHANGED)
            problem = _remarks_problem(messages, budget, counter, out)
            if problem:
                raise problem
        for at, window, (rule, piece) in _REMARK_RUNS:
            task = file_reading_task(rule_at_lap=at, rule=rule)
            laps = []
            run_ = run(StudentWindow(remarks_window, name="remarks_window"), window, task, on_lap=laps.append)
            where = f"window {window:,}, the rule said at lap {at}"
            lost = [lap.number for lap in laps if lap.number > at and not on_desk(lap, piece)]
            if lost:
                raise Fail(f"[{where}] the rule left the desk at lap {lost[0]}",
                           "the rule is a remark in a user message: when that message is dropped, its text must "
                           "travel on in the notice.")
            if run_.database_target != "staging":
                raise Fail(f"[{where}] the fix went to {run_.database_target} ({how_it_stopped(run_)})",
                           "keep the rule on the desk on every lap after it was said.")
        return ("25 fresh histories, and 3 runs with the rule said at lap 2, 3 or 4: it stayed, the fix went "
                "to staging.")

    return verdict("remarks_window", body)
