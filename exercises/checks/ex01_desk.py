"""Checks for exercise 01, the desk: ``tokens_of``, the overflow prediction, ``smallest_window``.

``check_tokens_of`` first tries messages whose size it knows because it built them (plain text, text
blocks, tool results, many small messages, non-ASCII) and parts that grow by a known number of
characters (a tool call's name and input, a second block, one more message); then made-up histories
of every shape (``cases.histories``), where your count must be within a token of the characters of
their text, as ``text_of`` renders it, divided by 4.

``check_smallest_window`` judges by what a window must do -- hold every request the run sent, and not
hold them one token smaller -- on made-up FullHistory lap records numbered from any lap, and on real
runs; then it proves it by running FullHistory at your window and one token below.

Left out: comparing with a real tokenizer (``compare_with_tokenizer`` only prints the table).
"""

from __future__ import annotations

import json
import random

from harness.context import FullHistory
from harness.laps import Lap
from harness.messages import assistant, blocks_of, text_of, user
from harness.tokens import tiktoken_count
from harness.tools import WORKSPACE
from stage.tasks import file_reading_task

from .cases import full_history_laps, histories, show_laps, show_messages
from .common import (
    GOALS,
    RULES,
    Fail,
    NotDone,
    call,
    call_on_copy,
    clip,
    how_it_stopped,
    is_whole,
    need_function,
    number,
    once,
    random_history,
    run,
    say,
    text_block,
    verdict,
)
from .search import hunt

_CHANGED = "only read the messages: build nothing into them and remove nothing from the list."
_RECIPE = (
    "add up the characters of text_of(m) over all the messages, then divide by 4 once, at the end."
)


# ---- task 1: tokens_of --------------------------------------------------------------------------------


def _result(content) -> dict:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_0001", "content": content}],
    }


def _call(name: str, tool_input: dict) -> dict:
    return assistant([{"type": "tool_use", "id": "toolu_0001", "name": name, "input": tool_input}])


def _known_cases():
    """(where, messages, characters, what a known mistake gives, its hint): cases of a size known by construction."""
    a = "a" * 1000
    wide = "é東🙂a" * 250  # 1,000 characters, 2,500 bytes in UTF-8
    yield "one user message of 1,000 characters", [user(a)], 1000, None, None
    yield (
        "one message of 1,000 characters such as é, 東 and 🙂",
        [user(wide)],
        1000,
        len(wide.encode()) / 4,
        "you are counting UTF-8 bytes, and a character such as é or 東 takes two to four of them. Count "
        "characters: len(text), not len(text.encode()).",
    )
    yield (
        "an assistant message holding one text block of 1,000 characters",
        [assistant([text_block(a)])],
        1000,
        0,
        "count every message -- the assistant's too -- and every block: a message's content may "
        "be a list of blocks, not only a string: text_of(message) reads both.",
    )
    yield (
        "one tool result of 1,000 characters",
        [_result(a)],
        1000,
        0,
        "every tool_result is on the desk too (a file the agent read is most of it): text_of(message) "
        "includes them.",
    )
    yield (
        "one tool result whose content is a list holding one text block of 1,000 characters",
        [_result([text_block(a)])],
        1000,
        0,
        "a tool_result's content may be a list of text blocks as well as a string: text_of(message) reads both.",
    )
    yield "an empty user message", [user("")], 0, None, None


_SMALL = [("40 messages of 5 characters each", 5), ("40 messages of 7 characters each", 7)]


def _growth_cases(seed: int):
    """(where, smaller, bigger, characters added, hint): one part grows by a known number of characters."""
    rng = random.Random(seed)
    pad = "a" * 1200
    yield (
        "a write_file call whose input content grows by 1,200 characters",
        [_call("write_file", {"path": "app/x.py", "content": "x"})],
        [_call("write_file", {"path": "app/x.py", "content": "x" + pad})],
        1200,
        "the input of every tool_use is on the desk too (the whole file of a write_file call): "
        "text_of(message) includes it, as `name {json of the input}`.",
    )
    yield (
        "a tool call whose name grows by 400 characters",
        [_call("r", {"path": "a"})],
        [_call("r" + "a" * 400, {"path": "a"})],
        400,
        "the tool's name is on the desk too: text_of(message) gives `name {json of the input}`.",
    )
    history = random_history(rng, turns=6, chat=False)
    last = history[-1] if history[-1]["role"] == "user" else history[-2]
    grown = [
        m if m is not last else {"role": "user", "content": list(m["content"]) + [text_block(pad)]}
        for m in history
    ]
    yield (
        "a fresh history whose last user message gets a second block of 1,200 characters",
        history,
        grown,
        1200,
        "every block of a message counts, not only the first: a message may hold tool results and a remark.",
    )
    yield (
        "a fresh history with one more message of 1,200 characters",
        history,
        history + [user(pad)],
        1200,
        None,
    )


def _fresh_histories(seed: int):
    """(where, history): fresh histories, some with non-ASCII text, some with big tool inputs."""
    rng = random.Random(seed + 1000)
    for n in range(12):
        history = random_history(
            rng, turns=rng.randint(3, 12), wide=0.3 if n % 3 == 0 else 0.0, big_inputs=n % 3 == 1
        )
        kind = ", non-ASCII text" if n % 3 == 0 else ", big tool inputs" if n % 3 == 1 else ""
        yield f"a fresh history of {len(history)} messages{kind}", history


def check_tokens_of(tokens_of, seed: int = 1) -> bool:
    """Checks tokens_of(messages), the rules as the task states them:

    - Return one number: the characters of all the text of `messages`, divided by 4 once, at the end.
    - All the text: text blocks, tool calls (the tool's name and its whole input) and tool results -- `text_of(message)` gives exactly that (the newlines it puts between blocks may be counted or not).
    - Characters, not bytes: `len("é")` is 1.
    - No per-message overhead and no rounding per message: within one token of chars/4.
    - An empty list holds 0 tokens.
    - Do not change `messages`.

    On messages whose size it knows because it built them, on parts that grow by a known number of
    characters (a tool's name and input, a second block, one more message), then on 100 made-up
    histories (empty, one message, tool calls with big inputs, results as text or as blocks, remarks,
    non-ASCII and regex-special text).
    """

    def body():
        need_function(tokens_of, "tokens_of")

        def count(where, messages):
            got = call_on_copy(
                f"tokens_of on {where}",
                tokens_of,
                messages,
                changed_hint=_CHANGED,
                hint="an empty desk is a real case (before lap 1): it holds 0 tokens."
                if not messages
                else None,
            )
            if got is None:
                raise Fail(
                    f"tokens_of returned None on {where}",
                    "end the function with `return` and the number.",
                )
            if number(got) is None:
                raise Fail(
                    f"tokens_of returned {got!r:.60} on {where}, not a number",
                    "return one number: characters / 4.",
                )
            return number(got)

        empty = count("[]", [])
        if empty != 0:
            raise Fail(
                f"tokens_of([]) is {empty!r}, not 0",
                "an empty desk holds no tokens: add nothing for the list itself.",
            )
        for where, messages, chars, mistaken, hint in _known_cases():
            got = count(where, messages)
            if abs(got - chars / 4) > 1:
                named = mistaken is not None and abs(got - mistaken) <= max(1.0, 0.03 * mistaken)
                raise Fail(
                    f"tokens_of gave {got:,} for {where} ({chars:,} characters, so "
                    f"{chars / 4:,.2f} tokens)",
                    hint if named else _count_hint(got, messages, chars),
                )
        small = [
            (where, size, count(where, [user("abcdefg"[:size]) for _ in range(40)]))
            for where, size in _SMALL
        ]
        off = [(where, size, got) for where, size, got in small if abs(got - 10 * size) > 1]
        if off:
            where, size, got = off[0]
            raise Fail(
                f"tokens_of gave {got:,} for {where} ({40 * size} characters, so {10 * size} "
                "tokens)",
                _small_hint([got for _, _, got in small]),
            )
        for where, smaller, bigger, added, hint in once(
            ("growth cases", seed), lambda: list(_growth_cases(seed))
        ):
            before, after = count(where + " (before)", smaller), count(where, bigger)
            if abs((after - before) - added / 4) > 2:
                raise Fail(
                    f"on {where} your count went from {before:,} to {after:,}: it should grow by "
                    f"about {added // 4:,}",
                    hint or _RECIPE,
                )

        def about_a_quarter(history):
            got = count(f"the {len(history)} message(s) below", history)
            chars = sum(len(text_of(m)) for m in history)
            low = chars - _separators(history)
            if not low / 4 - 1 <= got <= chars / 4 + 1:
                raise Fail(
                    f"tokens_of gave {got:,} for the {len(history)} message(s) below, whose text "
                    f"holds {chars:,} characters"
                    + (f" ({low:,} without the newlines between blocks)" if low < chars else ""),
                    _count_hint(got, history, chars),
                )

        tried = hunt(histories(), about_a_quarter, show_messages, seed=seed)
        return (
            f"tokens_of is chars/4: on {len(list(_known_cases())) + 6} cases built to a known "
            f"size or growth, and {tried} made-up histories (empty, one message, big tool "
            "inputs, results as blocks, non-ASCII and regex-special text)."
        )

    return verdict("tokens_of", body)


def _separators(messages) -> int:
    """The newlines text_of puts between blocks, and between a result's text blocks (counting them is optional)."""
    n = 0
    for m in messages:
        blocks = blocks_of(m)
        n += max(len(blocks) - 1, 0)
        for b in blocks:
            if b.get("type") == "tool_result" and isinstance(b.get("content"), list):
                n += max(len(b["content"]) - 1, 0)
    return n


def _small_hint(got: list) -> str:
    """Name the rounding behind the counts of 40 messages of 5 and of 7 characters (50 and 70 tokens)."""
    if got == [40, 40]:
        return (
            "you round down each message, so every message loses up to one token. Add up the characters "
            "first, then divide once."
        )
    if got == [80, 80]:
        return (
            "you round up each message, so every message adds up to one token too many. Add up the "
            "characters first, then divide once."
        )
    if got == [40, 80]:
        return "you round each message, and the roundings add up. Add up the characters first, then divide once."
    if all(g > 10 * size for g, (_, size) in zip(got, _SMALL)):
        return (
            "you add something for every message: the task is chars/4 alone, no per-message overhead (the "
            "real API adds a few, but that is not this meter)."
        )
    return _RECIPE


def _count_hint(got, messages, chars) -> str:
    """Name the usual mistake behind a wrong count on a case of known size, by the number it gives."""
    n = len(messages)
    each = [len(text_of(m)) for m in messages]
    in_bytes = sum(len(text_of(m).encode()) for m in messages)
    if in_bytes > chars and chars / 4 + 1 < got <= in_bytes / 4 + 1:
        return (
            "you are counting UTF-8 bytes somewhere, and a character such as é or 東 takes two to "
            "four of them. Count characters: len(text), not len(text.encode())."
        )
    mistakes = [
        (chars, "that is the number of characters: divide it by 4."),
        (
            sum(len(str(m["content"]).split()) for m in messages),
            "you are counting words. Tokens are pieces of words, about four characters each: count the characters "
            "and divide by 4.",
        ),
        (
            sum(-(-c // 4) for c in each),
            "you round up each message, so every message adds up to one token too "
            "many. Add up the characters first, then divide once.",
        ),
        (
            sum(c // 4 for c in each),
            "you round down each message, so every message loses up to one token. Add "
            "up the characters first, then divide once.",
        ),
        (
            sum(round(c / 4) for c in each),
            "you round each message, and the roundings add up. Add up the "
            "characters first, then divide once.",
        ),
        (
            sum(len(json.dumps(m)) for m in messages) / 4,
            "you are counting the JSON of the whole message (keys, quotes, ids). Count the text a reader sees: "
            "text_of(message).",
        ),
        (
            sum(len(str(m["content"])) for m in messages) / 4,
            "you are counting the printed form of the content (brackets, keys, quotes). Count the text a reader "
            "sees: text_of(message).",
        ),
        (
            tiktoken_count("\n".join(str(m["content"]) for m in messages)),
            "that looks like a real tokenizer's count. This meter is the estimate you can do in your head: "
            "characters divided by 4.",
        ),
    ]
    mistakes += [
        (
            chars / 4 + k * n,
            f"you add {k} token(s) per message. The task is chars/4 alone: no per-message "
            "overhead (the real API adds a few, but that is not this meter).",
        )
        for k in range(1, 7)
    ]
    if got == 0:
        return "you counted nothing for those messages: every message of the list counts, the first one too."
    distance, hint = min(((abs(got - value), hint) for value, hint in mistakes), key=lambda s: s[0])
    if distance <= max(1.0, 0.03 * abs(got)) and distance < abs(got - chars / 4) / 2:
        return hint
    return _RECIPE


def compare_with_tokenizer(tokens_of) -> None:
    """Print, for each workspace file, the chars/4 estimate (your tokens_of) beside the cl100k tokenizer."""
    rows = []
    for path in sorted(
        p for p in WORKSPACE.rglob("*") if p.is_file() and not p.name.startswith(".")
    ):
        text = path.read_text(encoding="utf-8")
        rows.append((str(path.relative_to(WORKSPACE)), len(text), text, tiktoken_count(text)))
    estimates, note = {}, ""
    try:
        need_function(tokens_of, "tokens_of")
        for name, _, text, _ in rows:
            estimates[name] = number(call(f"tokens_of on {name}", tokens_of, [user(text)]))
    except (NotImplementedError, NotDone):
        note = "write tokens_of above, then run this cell again to fill the chars/4 column."
    except Fail as failed:
        note = f"{failed.what}. The chars/4 column stays empty."
    numbers = {name: n for name, n in estimates.items() if n is not None}
    print(f"{'file':36} {'chars':>6} {'chars/4':>8} {'cl100k':>7} {'off by':>7}")
    for name, chars, _, real in rows:
        guess = numbers.get(name)
        shown = f"{guess:>8,.0f}" if guess is not None else f"{'-':>8}"
        off = f"{(guess - real) / real:>+7.0%}" if guess is not None and real else ""
        print(f"{clip(name, 36):36} {chars:>6,} {shown} {real:>7,} {off}")
    if note:
        say(None, note) if "write tokens_of" in note else say(False, note)
    elif len(numbers) == len(rows):
        worst = max(rows, key=lambda r: abs(numbers[r[0]] - r[3]) / max(r[3], 1))
        print(
            f"All files: chars/4 says {sum(numbers.values()):,.0f}, cl100k says "
            f"{sum(r[3] for r in rows):,}.\nThe biggest miss is {worst[0]}."
        )


# ---- task 3: predict the wall -------------------------------------------------------------------------


def check_overflow_prediction(predicted_lap, window: int = 6000, tolerance: int = 1) -> bool:
    """Checks predicted_overflow_lap, the rules as the task states them:

    - A whole lap number, counted from 1: the first lap whose desk does not fit a `WINDOW`-token window.
    - One lap either way is accepted.

    It runs FullHistory at that window itself and compares the lap it overflowed at.
    """

    def body():
        if predicted_lap is None:
            raise NotDone(
                "set predicted_overflow_lap to the lap number you expect, then run this cell."
            )
        if not is_whole(predicted_lap):
            raise Fail(
                f"predicted_overflow_lap is {predicted_lap!r}",
                "give a whole lap number, like 7 (a number, not text in quotes, not a list).",
            )
        if not is_whole(window) or number(window) <= 0:
            raise Fail(
                f"the window is {window!r}",
                "run the cell above that sets WINDOW (a whole number of tokens), then this one.",
            )
        predicted, window_ = int(number(predicted_lap)), int(number(window))
        run_ = once(("full history", window_), lambda: run(FullHistory(), window_))
        if run_.stopped != "overflow":
            raise Fail(
                f"with a {window_:,}-token window the run did not overflow ({how_it_stopped(run_)})",
                "pick a window smaller than the whole task, for example 6000.",
            )
        wall = run_.laps[-1]
        if predicted < 1:
            raise Fail(
                f"lap {predicted} does not exist",
                "laps are counted from 1, the first lap of the run.",
            )
        if predicted >= window_ / 10:
            raise Fail(
                f"lap {predicted:,} is far beyond the run",
                "that is a number of tokens, not of laps: "
                "the answer is the number of the lap, counted from 1.",
            )
        if abs(predicted - wall.number) > tolerance:
            # Say what happened at the predicted lap, never at which lap the wall was.
            hint = (
                "the desk grows by about one file and one note a lap. Take the growth of the last "
                "probe laps (lap 1 only lists the files), then count how many more laps fit."
            )
            if predicted < wall.number:
                desk = next(lap for lap in run_.laps if lap.number == predicted).assembled_tokens
                raise Fail(
                    f"lap {predicted} is too early: at lap {predicted} the desk held {desk:,} "
                    f"tokens, which a {window_:,}-token window still holds",
                    hint,
                )
            raise Fail(
                f"lap {predicted} is too late: the desk was over the {window_:,}-token window "
                "before that lap, and the run had already stopped",
                hint,
            )
        print(
            f"You predicted lap {predicted}. The run overflowed at lap {wall.number}:\n"
            f"the desk held {wall.raw_tokens:,} tokens for a {window_:,}-token window."
        )
        return f"within {tolerance} lap of the run."

    return verdict("the overflow prediction", body)


# ---- task 4 (homework): the smallest window that finishes ------------------------------------------

_PROBES = [  # (where, goal, rule wording, rule_at_lap)
    ("the class request", GOALS[0], RULES[0][0], None),
    ("another wording, the rule said at lap 3", GOALS[1], RULES[1][0], 3),
    ("a third wording, the rule said at lap 5", GOALS[2], RULES[2][0], 5),
]


def _probe(goal, rule, at):
    return run(FullHistory(), 100_000, file_reading_task(rule_at_lap=at, goal=goal, rule=rule))


def _one_lap() -> list[Lap]:
    """The lap record of a run that answered at once (made up: the offline model always reads first)."""
    return [
        Lap(1, 1210, 1210, billed_input=1210, billed_output=35, total_input=1210, total_output=35)
    ]


def check_smallest_window(smallest_window, seed: int = 12) -> bool:
    """Checks smallest_window(laps), the rules as the task states them:

    - `laps` are the lap records of a FullHistory run that finished, in order; their numbers need not start at 1.
    - Return the smallest window, in tokens, in which that run would still have finished: the model refuses a request whose input -- `lap.assembled_tokens` -- is over its window.
    - Do not change `laps`.

    On three probe runs you have not seen, a run of one lap, and 100 made-up FullHistory runs (one lap
    or many, numbered from any lap): every lap's request must fit your window, and one token less must
    not hold them all. Then the proof: FullHistory run at your window finishes, one token below it
    overflows.
    """

    def body():
        need_function(smallest_window, "smallest_window")
        answers = []

        def holds_every_request(laps, where="the laps below"):
            got = call_on_copy(
                f"smallest_window(laps) on {where}",
                smallest_window,
                laps,
                changed_hint="only read the lap records; do not sort or edit the list in place.",
            )
            value = number(got)
            if value is None:
                raise Fail(
                    f"on {where} smallest_window returned {got!r:.60}",
                    "return one number of tokens.",
                )
            too_big = [lap for lap in laps if lap.assembled_tokens > value]
            if too_big:
                lap = too_big[0]
                raise Fail(
                    f"on {where}, at lap {lap.number} the model was sent "
                    f"{lap.assembled_tokens:,} tokens, more than your window of {value:,}: that "
                    "request would have been refused",
                    _window_hint(value, laps, answers),
                )
            if all(lap.assembled_tokens <= value - 1 for lap in laps):
                raise Fail(
                    f"on {where}, a window of {value - 1:,} tokens would still have held every "
                    f"request, so your {value:,} is not the smallest",
                    _window_hint(value, laps, answers),
                )
            answers.append(value)

        for where, goal, rule, at in _PROBES:
            laps = list(once(("probe", goal, at), lambda: _probe(goal, rule, at)).laps)
            holds_every_request(laps, f"a probe run ({where})")
        holds_every_request(_one_lap(), "a run that answered at lap 1")
        tried = hunt(
            full_history_laps(),
            holds_every_request,
            lambda laps: show_laps(laps, ("assembled_tokens", "billed_input")),
            seed=seed,
        )
        want = int(answers[0])
        where, goal, rule, at = _PROBES[0]
        task = file_reading_task(rule_at_lap=at, goal=goal, rule=rule)
        fits = once(("full at", want), lambda: run(FullHistory(), want, task))
        short = once(("full at", want - 1), lambda: run(FullHistory(), want - 1, task))
        if fits.stopped != "answered" or short.stopped != "overflow":
            raise Fail(  # the lap records and the model disagree
                f"at {want:,} tokens {how_it_stopped(fits)}; at {want - 1:,} "
                f"{how_it_stopped(short)}",
                "this is a bug in the checks, not in your answer: please tell the instructor.",
            )
        return (
            f"3 fresh runs, a one-lap run and {tried} made-up ones. Proof on the first: at "
            f"{want:,} tokens FullHistory finishes, at {want - 1:,} it overflows at lap "
            f"{short.laps[-1].number}."
        )

    return verdict("smallest_window", body)


def _window_hint(got, laps, earlier) -> str:
    """Name the mistake behind a wrong window by the number it matches."""
    if earlier and got == earlier[0]:
        return (
            "that is the number of the class run, and this run is another: work the window out from the "
            "laps you are given, not from a number typed in."
        )
    if got == sum(lap.billed_input for lap in laps) or got == laps[-1].total_input:
        return "that is the bill of the whole run (every lap's request added up); the window holds ONE request."
    if len(laps) > 1 and got == laps[0].assembled_tokens:
        return "that is the first lap, the emptiest desk. The desk only grows: look at the largest request."
    if got == len(laps) or got == laps[-1].number:
        return "that is the number of laps; the window is counted in tokens."
    top = max(lap.assembled_tokens for lap in laps)
    if got > top and got - top in (1, 512, 1024, 2048, 4096):
        return (
            "a window that holds the largest request exactly is enough: the model refuses a request whose "
            "INPUT is over the window, and the reply's tokens do not count here, so add nothing to it."
        )
    if len(laps) > 1 and got in (laps[-2].assembled_tokens, laps[-2].raw_tokens):
        return "that is the lap before the last one: the last request of a FullHistory run is its largest."
    return (
        "the model checks what each lap sends: the system prompt, the tools and the messages, which is "
        "lap.assembled_tokens. The window must hold every one of them."
    )
