"""Checks for exercise 01, the desk: ``tokens_of``, the overflow prediction, ``smallest_window``.

``check_tokens_of`` holds your count to chars/4 within one token per history -- so rounding each
message, adding a per-message overhead, counting UTF-8 bytes or skipping tool calls all show, even on
short histories. Its histories include non-ASCII text and tool calls with big inputs.

Left out: comparing with a real tokenizer (``compare_with_tokenizer`` only prints the table).
"""

from __future__ import annotations

import json
import math
import numbers
import random

from harness.context import FullHistory
from harness.messages import blocks_of, text_of, user
from harness.tokens import tiktoken_count
from harness.tools import WORKSPACE
from stage.tasks import file_reading_task

from .common import (GOALS, RULES, Fail, NotDone, call_on_copy, how_it_stopped, need_function, once, random_history,
                     run, verdict, worked_history)

_CHANGED = "only read the messages: build nothing into them and remove nothing from the list."


# ---- task 1: tokens_of --------------------------------------------------------------------------------

def _token_cases(seed: int):
    """(where, history): the worked example, then fresh histories, some wide (non-ASCII), some with big inputs."""
    yield "the worked example", worked_history()
    rng = random.Random(seed)
    for n in range(15):
        history = random_history(rng, turns=rng.randint(4, 12), wide=0.3 if n % 3 == 0 else 0.0,
                                 big_inputs=n % 3 == 1)
        kind = ", non-ASCII text" if n % 3 == 0 else ", big tool inputs" if n % 3 == 1 else ""
        yield f"a fresh history of {len(history)} messages{kind}", history


def check_tokens_of(tokens_of, seed: int = 1) -> bool:
    """tokens_of(messages) must be (characters of all the text) / 4, within one token, on fresh histories."""

    def body():
        need_function(tokens_of, "tokens_of")
        empty = call_on_copy("tokens_of([])", tokens_of, [], changed_hint=_CHANGED,
                             hint="an empty desk is a real case (before lap 1): it holds 0 tokens.")
        if empty is None:
            raise Fail("tokens_of returned None", "end the function with `return` and the number.")
        if empty != 0:
            raise Fail(f"tokens_of([]) is {empty!r}, not 0",
                       "an empty desk holds no tokens: add nothing for the list itself.")
        for where, history in _token_cases(seed):
            got = call_on_copy(f"tokens_of on {where}", tokens_of, history, changed_hint=_CHANGED)
            if isinstance(got, bool) or not isinstance(got, numbers.Real):
                raise Fail(f"tokens_of returned {got!r} on {where}, not a number",
                           "return one number: characters / 4.")
            chars = sum(len(text_of(m)) for m in history)
            if abs(got - chars / 4) > 1:
                raise Fail(f"tokens_of gave {got:,} for {where}, holding {chars:,} characters "
                           f"(chars/4 = {chars / 4:,.2f})", tokens_hint(got, history))
        return "tokens_of is chars/4 on the worked example and 15 fresh histories (non-ASCII, big tool inputs)."

    return verdict("tokens_of", body)


def tokens_hint(got, history) -> str:
    """Name the usual mistake behind a wrong count: recompute each mistake, take the one nearest to ``got``.

    A mistake is named only if ``got`` is within 3% of it (one token for the exact ones) and clearly
    nearer to it than to the right answer; otherwise the hint restates the recipe.
    """
    texts = [text_of(m) for m in history]
    chars = sum(len(t) for t in texts)
    blocks = [b for m in history for b in blocks_of(m)]
    calls = [b for b in blocks if b["type"] == "tool_use"]
    no_inputs = chars - sum(len(json.dumps(b["input"], sort_keys=True)) + 1 for b in calls)
    text_only = sum(len(b.get("text", "")) for b in blocks if b.get("type") == "text")
    extra = round((got - chars / 4) / len(history))
    mistakes = [
        (sum(len(t.split()) for t in texts), "you are counting words. Tokens are pieces of words, about four "
                                             "characters each: count the characters and divide by 4."),
        (chars, "that is the number of characters: divide it by 4."),
        (sum(len(t.encode("utf-8")) for t in texts) / 4,
         "you are counting UTF-8 bytes, and a character such as é or 東 takes two to four of them. Count "
         "characters: len(text), not len(text.encode())."),
        (sum(math.ceil(len(t) / 4) for t in texts),
         "you round up each message, so every message adds up to one token too many. Add up the characters "
         "first, then divide once."),
        (sum(len(t) // 4 for t in texts), "you round down each message, so every message loses up to one token. "
                                          "Add up the characters first, then divide once."),
        (sum(round(len(t) / 4) for t in texts), "you round each message, and the roundings add up. Add up the "
                                                "characters first, then divide once."),
        (no_inputs / 4, "the input of every tool_use is on the desk too (the whole file of a write_file call): "
                        "text_of(message) includes it, as `name {json of the input}`."),
        (text_only / 4, "tool calls and every tool_result are on the desk too, not only text blocks: "
                        "harness.messages.text_of(message) gives all of a message's text."),
        (sum(len(json.dumps(m)) for m in history) / 4,
         "you are counting the JSON of the whole message (keys, quotes, ids). Count the text a reader sees: "
         "text_of(message)."),
        (chars / 4 + extra * len(history) if extra >= 1 else None,
         f"you add about {extra} token(s) per message. The task is chars/4 alone: no per-message overhead (the "
         "real API adds a few, but that is not this meter)."),
    ]
    right = chars / 4
    scored = [(abs(got - value), value, hint) for value, hint in mistakes if value is not None]
    distance, value, hint = min(scored, key=lambda s: s[0])
    if distance <= max(1, 0.03 * value) and distance < abs(got - right) / 2:
        return hint
    return "add up len(text_of(m)) over all the messages, then divide by 4 once, at the end."


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
        print(f"All files: chars/4 says {sum(numbers.values()):,.0f}, cl100k says {sum(r[3] for r in rows):,}. "
              f"The biggest miss is {worst[0]}.")


# ---- task 3: predict the wall -------------------------------------------------------------------------

def check_overflow_prediction(predicted_lap, window: int = 6000, tolerance: int = 1) -> bool:
    """Run FullHistory at ``window`` and compare the lap it overflowed at with the prediction."""

    def body():
        if predicted_lap is None:
            raise NotDone("set predicted_overflow_lap to the lap number you expect, then run this cell.")
        if isinstance(predicted_lap, bool) or not isinstance(predicted_lap, int):
            raise Fail(f"predicted_overflow_lap is {predicted_lap!r}", "give a whole lap number, like 7.")
        run_ = once(("full history", window), lambda: run(FullHistory(), window))
        if run_.stopped != "overflow":
            raise Fail(f"with a {window:,}-token window the run did not overflow ({how_it_stopped(run_)})",
                       "pick a window smaller than the whole task, for example 6000.")
        lap = run_.laps[-1]
        print(f"You predicted lap {predicted_lap}. The run overflowed at lap {lap.number}: "
              f"the desk held {lap.raw_tokens:,} tokens for a {window:,}-token window.")
        if abs(predicted_lap - lap.number) > tolerance:
            side = "early" if predicted_lap < lap.number else "late"
            raise Fail(f"lap {predicted_lap} is too {side} (the run overflowed at lap {lap.number})",
                       "the desk grows by about one file and one note a lap. Take the growth of the last "
                       "probe laps (lap 1 only lists the files), then count how many more laps fit.")
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


def check_smallest_window(smallest_window) -> bool:
    """On three fresh probe runs: the largest request sent (lap.assembled_tokens); then proved by running."""

    def body():
        need_function(smallest_window, "smallest_window")
        wants = []
        for where, goal, rule, at in _PROBES:
            probe = once(("probe", goal, at), lambda: _probe(goal, rule, at))
            want = max(lap.assembled_tokens for lap in probe.laps)
            got = call_on_copy(f"smallest_window(laps) [{where}]", smallest_window, list(probe.laps),
                               changed_hint="only read the lap records; do not sort or edit the list in place.")
            if isinstance(got, bool) or not isinstance(got, numbers.Real):
                raise Fail(f"[{where}] smallest_window returned {got!r}", "return one number of tokens.")
            if got != want:
                raise Fail(f"[{where}] you said {got:,}, the largest request of that run was {want:,} tokens",
                           _window_hint(got, want, probe.laps))
            wants.append(want)
        where, goal, rule, at = _PROBES[0]
        want = wants[0]
        task = file_reading_task(rule_at_lap=at, goal=goal, rule=rule)
        fits = once(("full at", want), lambda: run(FullHistory(), want, task))
        short = once(("full at", want - 1), lambda: run(FullHistory(), want - 1, task))
        if fits.stopped != "answered" or short.stopped != "overflow":   # the lap records and the model disagree
            raise Fail(f"at {want:,} tokens {how_it_stopped(fits)}; at {want - 1:,} {how_it_stopped(short)}",
                       "this is a bug in the checks, not in your answer: please tell the instructor.")
        return (f"3 fresh runs. Proof on the first: at {want:,} tokens FullHistory finishes, at {want - 1:,} it "
                f"overflows at lap {short.laps[-1].number}.")

    return verdict("smallest_window", body)


def _window_hint(got, want, laps) -> str:
    if got == sum(lap.billed_input for lap in laps) or got == laps[-1].total_input:
        return "that is the bill of the whole run (every lap's request added up); the window holds ONE request."
    if got == laps[0].assembled_tokens:
        return "that is the first lap, the emptiest desk. The desk only grows: look at the largest request."
    if got > want and got - want in (512, 1024, 4096):
        return ("the model refuses a request whose INPUT is over the window; the reply's tokens do not count "
                "here, so add no reserve for the output.")
    if got == len(laps):
        return "that is the number of laps; the window is counted in tokens."
    return ("the model checks what each lap sends: the system prompt, the tools and the messages, which is "
            "lap.assembled_tokens. The window must hold the largest of them.")
