"""Answers to every exercise task, the way students write them: WRONG ones, each with the hint it must get
and the kinds of mistake it is (the kinds issue 27 lists), and RIGHT ones written unlike the solutions.

Instructor-only (listed in exercises/INSTRUCTOR_ONLY): the right answers ARE answers, and ``solution()``
reads the solution notebooks. ``tests/test_exercise_corpus.py`` runs them through the checks.

A wrong answer is usually the solution with one mistake put in, so each is wrong in one way only, and
the test shows that this one way is caught and named. Left out: answers that never return (a check has
no timeout), and answers that only differ from one here by their names.
"""

from __future__ import annotations

import functools
import json
import math
import os
import random
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

from exercises import checks, make_student_copies
from harness.sliding_window import DROPPED_NOTICE
from harness.context import FullHistory
from harness.messages import blocks_of, result_text, safe_cuts, text_of, tool_results, user
from harness.prompts import COMPACTION_TEMPLATE, NAIVE_PROMPT
from harness.tokens import Meter, chars4, tiktoken_count

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"
C = checks

# The kinds of wrong answer issue 27 lists, and the tasks where each can occur (every pair has a wrong answer).
KINDS = {
    "shape": "wrong shape, right content",
    "alias": "the caller's own list handed back, or changed",
    "one": "right on the class data, wrong on a one-lap session or a one-message history",
    "fits": "right on the class data, wrong on a window that fits everything",
    "raw": "counting from the raw history instead of what was sent",
    "index": "an index error on the smallest input",
    "text": "matching text instead of structure, or only some kinds of message or block",
    "hardcoded": "hard-coding the class result",
    "param": "ignoring a parameter",
    "limits": "limits never counted",
    "substring": "promote matching a substring of another line",
    "duplicate": "promote adding a duplicate",
    "next-heading": "promote writing what is under the next heading",
    "dash": "promote dropping a bullet's dash",
    "in-place": "promote writing in place (a crash mid-write loses the file)",
    "shuffled": "a memory or prompt copied with its words shuffled",
    "staging": "not filtering for staging",
    "laps": "the fewest laps instead of the fewest tokens",
    "import": "an import (or a pointer) to a file that does not exist",
    "diary": "a memory that is a diary of what happened",
    "partial": "a notice that carries only some of what was said",
    # the kinds issue 34 found slipping through (exercise_answers_fresh.py)
    "numbered": "right only when lap numbers start at 1",
    "always-fits": "right only when the request fits",
    "short": "right only on short summaries",
    "ascii": "right only on ASCII text",
    "half-rule": "a filter on half the rule",
    "pattern": "a regular expression built from the text, unescaped",
    "words": "the text's words found anywhere instead of the text",
    "json": "the JSON of the desk searched instead of its text",
    "typed-in": "a number typed in instead of the placeholder",
    "padded": "a template padded past a similarity cut-off",
    "joined": "a memory of copied lines joined together",
    "outside": "an import or a pointer outside the codebase",
    "passive": "a diary line in the passive voice",
    "unseen": "code that raises on an input the old checks never gave",
}
WHERE = {
    "shape": [
        "tokens_of",
        "smallest_window",
        "sliding_window",
        "first_lap_without",
        "split_zones",
        "compact",
        "compaction_prompt",
        "running_summary",
        "token_bill",
        "cheapest_settings",
        "memory",
        "tight_memory",
        "overflow_prediction",
    ],
    "alias": [
        "tokens_of",
        "smallest_window",
        "sliding_window",
        "first_lap_without",
        "pinned_window",
        "remarks_window",
        "split_zones",
        "compact",
        "running_summary",
        "token_bill",
    ],
    "one": [
        "tokens_of",
        "smallest_window",
        "sliding_window",
        "first_lap_without",
        "pinned_window",
        "split_zones",
        "running_summary",
        "token_bill",
    ],
    "fits": ["sliding_window", "pinned_window", "remarks_window", "compact"],
    "raw": ["sliding_window", "pinned_window", "token_bill"],
    "index": [
        "tokens_of",
        "smallest_window",
        "sliding_window",
        "first_lap_without",
        "pinned_window",
        "remarks_window",
        "split_zones",
        "compact",
        "running_summary",
        "token_bill",
        "promote",
    ],
    "text": ["tokens_of", "first_lap_without", "remarks_window"],
    "hardcoded": [
        "smallest_window",
        "first_lap_without",
        "cheapest_settings",
        "compaction_prompt",
        "two_rules_prompt",
        "token_bill",
    ],
    "param": [
        "sliding_window",
        "pinned_window",
        "split_zones",
        "compact",
        "running_summary",
        "cheapest_settings",
        "compaction_prompt",
        "two_rules_prompt",
        "promote",
    ],
    "limits": [
        "remarks_window",
        "pinned_window",
        "compaction_prompt",
        "two_rules_prompt",
        "memory",
        "tight_memory",
        "greenhouse_memory",
    ],
    "substring": ["promote"],
    "duplicate": ["promote"],
    "next-heading": ["promote"],
    "dash": ["promote"],
    "in-place": ["promote"],
    "shuffled": ["greenhouse_memory", "memory", "compaction_prompt"],
    "staging": ["cheapest_settings"],
    "laps": ["cheapest_settings"],
    "import": ["memory", "tight_memory", "greenhouse_memory"],
    "diary": ["memory", "tight_memory", "greenhouse_memory"],
    "partial": ["remarks_window"],
    "numbered": ["first_lap_without", "token_bill", "smallest_window"],
    "always-fits": ["pinned_window"],
    "short": ["running_summary"],
    "ascii": ["tokens_of", "first_lap_without"],
    "half-rule": ["cheapest_settings"],
    "pattern": ["first_lap_without"],
    "words": ["first_lap_without"],
    "json": ["first_lap_without"],
    "typed-in": ["compaction_prompt", "two_rules_prompt"],
    "padded": ["compaction_prompt", "two_rules_prompt"],
    "joined": ["memory", "greenhouse_memory"],
    "outside": ["memory", "tight_memory", "greenhouse_memory"],
    "passive": ["memory", "tight_memory", "greenhouse_memory"],
    "unseen": ["promote", "split_zones"],
}


@dataclass
class Wrong:
    task: str  # the check's name without "check_"
    answer: (
        tuple  # the arguments after the answer function/value itself: the check's positional args
    )
    hint: str  # a piece of the hint it must get
    kinds: tuple = ()
    name: str = ""


@dataclass
class Right:
    task: str
    answer: tuple
    name: str


WRONG: list[Wrong] = []
RIGHT: list[Right] = []


def wrong(task, answer, hint, *kinds, name=""):
    args = answer if isinstance(answer, tuple) else (answer,)
    WRONG.append(Wrong(task, args, hint, kinds, name or getattr(answer, "__name__", "") or hint))
    return answer


def right(task, answer, name=""):
    args = answer if isinstance(answer, tuple) else (answer,)
    RIGHT.append(Right(task, args, name or getattr(answer, "__name__", "")))
    return answer


def check_of(task: str):
    return getattr(checks, f"check_{task}")


# ---- the solutions, read from their notebooks ---------------------------------------------------------

_NAMESPACES: dict = {}


def solution(name: str, function: str):
    """A function or value from a solution notebook (its definition cells only, run in a fresh namespace)."""
    if name not in _NAMESPACES:
        namespace = {"checks": checks}
        book = nbformat.read(EXERCISES / "solutions" / f"{name}.ipynb", as_version=4)
        for cell in book.cells:
            if cell.cell_type != "code" or "checks.check_" in cell.source:
                continue
            if "def " in cell.source:
                exec(cell.source, namespace)
            elif make_student_copies.BEGIN in cell.source:
                try:  # a value answer; one worked out from a demo run is left out
                    exec(cell.source, namespace)
                except NameError:
                    pass
            else:  # a demo cell: only its imports, which the definitions may use
                exec(
                    "\n".join(
                        x for x in cell.source.splitlines() if x.startswith(("from ", "import "))
                    ),
                    namespace,
                )
        _NAMESPACES[name] = namespace
    return _NAMESPACES[name][function]


def load_solutions() -> None:
    """Read every solution notebook now, so that no check's time limit counts the first reading."""
    for path in sorted((EXERCISES / "solutions").glob("[0-9][0-9]_*.ipynb")):
        solution(path.stem, "checks")


def sol(name, function):
    """A lazy handle on a solution function (the notebook is read at the first call)."""

    def call(*args, **kwargs):
        return solution(name, function)(*args, **kwargs)

    return call


sol_tokens = sol("01_the_desk", "tokens_of")
sol_sliding = sol("02_sliding_window", "sliding_window")
sol_first_lap = sol("02_sliding_window", "first_lap_without")
sol_pinned = sol("02_sliding_window", "pinned_window")
sol_remarks = sol("02_sliding_window", "remarks_window")
sol_split = sol("03_three_zones", "split_zones")
sol_compact = sol("03_three_zones", "compact")
sol_fold = sol("04_running_summary", "running_summary")
sol_bill = sol("04_running_summary", "token_bill")
sol_promote = sol("05_memory", "promote")


def chars(messages):
    return sum(len(text_of(m)) for m in messages)


# ---- 01 · tokens_of ---------------------------------------------------------------------------------


def tokens_counting_words(messages):
    return sum(len(text_of(m).split()) for m in messages)


def tokens_counting_characters(messages):
    return chars(messages)


def tokens_of_text_blocks_only(messages):
    return (
        sum(
            len(b.get("text", ""))
            for m in messages
            for b in blocks_of(m)
            if b.get("type") == "text"
        )
        // 4
    )


def tokens_without_tool_inputs(messages):
    """Counts text and results, and only the name of each tool call: a write_file's file is missed."""
    total = 0
    for m in messages:
        for b in blocks_of(m):
            total += (
                len(b["text"])
                if b["type"] == "text"
                else len(b["name"])
                if b["type"] == "tool_use"
                else len(result_text(b))
            )
    return total // 4


def tokens_without_tool_names(messages):
    total = 0
    for m in messages:
        for b in blocks_of(m):
            total += (
                len(b["text"])
                if b["type"] == "text"
                else len(json.dumps(b["input"]))
                if b["type"] == "tool_use"
                else len(result_text(b))
            )
    return total // 4


def tokens_counting_bytes(messages):
    return sum(len(text_of(m).encode("utf-8")) for m in messages) // 4


def tokens_rounding_up_per_message(messages):
    return sum(-(-len(text_of(m)) // 4) for m in messages)


def tokens_rounding_down_per_message(messages):
    return sum(len(text_of(m)) // 4 for m in messages)


def tokens_rounding_per_message(messages):
    return sum(round(len(text_of(m)) / 4) for m in messages)


def tokens_with_the_meters_overhead(messages):
    return Meter("chars4").total(messages)  # the harness's meter adds 4 a message


def tokens_of_the_json(messages):
    return sum(len(json.dumps(m)) for m in messages) // 4


def tokens_crashing_on_empty(messages):
    first = messages[0]  # "there is always a request"
    return (len(text_of(first)) + chars(messages[1:])) // 4


def tokens_without_return(messages):
    chars(messages) // 4


def tokens_emptying_the_list(messages):
    total = 0
    while messages:
        total += len(text_of(messages.pop()))
    return total // 4


def tokens_counting_the_list(messages):
    return 1 + chars(messages) // 4


def tokens_of_string_contents_only(messages):
    return sum(len(m["content"]) for m in messages if isinstance(m["content"], str)) // 4


def tokens_of_the_first_block_only(messages):
    return (
        sum(len(text_of({"role": m["role"], "content": blocks_of(m)[:1]})) for m in messages) // 4
    )


def tokens_skipping_the_request(messages):
    return chars(messages[1:]) // 4


def tokens_from_a_real_tokenizer(messages):
    return sum(tiktoken_count(text_of(m)) for m in messages)


def tokens_as_text(messages):
    return f"{chars(messages) // 4} tokens"


def tokens_of_the_printed_content(messages):
    return sum(len(str(m["content"])) for m in messages) // 4


wrong("tokens_of", tokens_counting_words, "counting words")
wrong("tokens_of", tokens_counting_characters, "divide it by 4")
wrong("tokens_of", tokens_of_text_blocks_only, "every tool_result is on the desk too", "text")
wrong("tokens_of", tokens_without_tool_inputs, "input of every tool_use", "text")
wrong("tokens_of", tokens_without_tool_names, "the tool's name is on the desk too", "text")
wrong("tokens_of", tokens_counting_bytes, "UTF-8 bytes")
wrong("tokens_of", tokens_rounding_up_per_message, "round up each message")
wrong("tokens_of", tokens_rounding_down_per_message, "round down each message")
wrong("tokens_of", tokens_rounding_per_message, "round each message")
wrong("tokens_of", tokens_with_the_meters_overhead, "per-message overhead")
wrong("tokens_of", tokens_of_the_json, "JSON of the whole message")
wrong("tokens_of", tokens_crashing_on_empty, "it holds 0 tokens", "index")
wrong("tokens_of", tokens_without_return, "end the function with `return`")
wrong("tokens_of", tokens_emptying_the_list, "only read the messages", "alias")
wrong("tokens_of", tokens_counting_the_list, "add nothing for the list itself")
wrong(
    "tokens_of", tokens_of_string_contents_only, "content may be a list of blocks", "shape", "text"
)
wrong("tokens_of", tokens_of_the_first_block_only, "every block of a message counts", "text")
wrong("tokens_of", tokens_skipping_the_request, "the first one too", "one")
wrong("tokens_of", tokens_from_a_real_tokenizer, "real tokenizer")
wrong("tokens_of", tokens_as_text, "return one number", "shape")
wrong("tokens_of", tokens_of_the_printed_content, "printed form of the content")


def tokens_as_a_float(messages):
    return chars(messages) / 4


def tokens_rounded_once(messages):
    return round(chars(messages) / 4)


def tokens_rounded_up_once(messages):
    return math.ceil(chars(messages) / 4)


def tokens_of_the_joined_text(messages):
    return chars4("".join(text_of(m) for m in messages))  # one estimate over all the text


def tokens_walking_the_blocks(messages):
    """Counts every block by hand, the way text_of renders it, but without the newlines between blocks."""
    total = 0
    for m in messages:
        for b in blocks_of(m):
            if b["type"] == "text":
                total += len(b["text"])
            elif b["type"] == "tool_use":
                total += len(f"{b['name']} {json.dumps(b['input'], sort_keys=True)}")
            else:
                content = b.get("content", "")
                total += (
                    len(content)
                    if isinstance(content, str)
                    else sum(len(x.get("text", "")) for x in content)
                )
    return total / 4


right("tokens_of", sol_tokens, "the solution")
right("tokens_of", tokens_as_a_float)
right("tokens_of", tokens_rounded_once)
right("tokens_of", tokens_rounded_up_once)
right("tokens_of", tokens_of_the_joined_text)
right("tokens_of", tokens_walking_the_blocks)


# ---- 01 · the overflow prediction (numbers worked out from the check's own run, in the test) ------------


@functools.lru_cache(maxsize=1)
def overflow_lap(window: int = 6000) -> int:
    from exercises.checks.common import run

    return run(FullHistory(), window).laps[-1].number


class Lap:
    """A prediction relative to the real overflow lap, resolved when the test runs."""

    def __init__(self, offset, make=lambda n: n):
        self.offset, self.make = offset, make

    def value(self):
        return self.make(overflow_lap() + self.offset)


wrong("overflow_prediction", (Lap(-3), 6000), "how many more laps fit", name="three laps early")
wrong("overflow_prediction", (Lap(+4), 6000), "how many more laps fit", name="four laps late")
wrong("overflow_prediction", (1, 6000), "lap 1 only lists the files", name="lap 1")
wrong("overflow_prediction", ("11", 6000), "whole lap number", "shape", name="the text '11'")
wrong("overflow_prediction", (10.5, 6000), "whole lap number", name="10.5")
wrong("overflow_prediction", (True, 6000), "whole lap number", name="True")
wrong(
    "overflow_prediction", (6000, 6000), "number of tokens, not of laps", name="the window itself"
)
wrong("overflow_prediction", (0, 6000), "counted from 1", name="lap 0")
wrong("overflow_prediction", ([11], 6000), "whole lap number", "shape", name="a list")
wrong("overflow_prediction", (-3, 6000), "counted from 1", name="a negative lap")
right("overflow_prediction", (Lap(0), 6000), "the lap itself")
right("overflow_prediction", (Lap(-1), 6000), "one lap early")
right("overflow_prediction", (Lap(+1), 6000), "one lap late")
right("overflow_prediction", (Lap(0, float), 6000), "the lap as a float such as 11.0")


# ---- 01 · smallest_window -----------------------------------------------------------------------------


def window_from_the_bill(laps):
    return sum(lap.billed_input for lap in laps)


def window_from_the_first_lap(laps):
    return laps[0].assembled_tokens


def window_with_an_output_reserve(laps):
    return max(lap.assembled_tokens for lap in laps) + 1024


def window_counting_laps(laps):
    return len(laps)


def smallest_window_without_return(laps):
    max(lap.assembled_tokens for lap in laps)


def window_popping_the_last_lap(laps):
    return laps.pop().assembled_tokens


@functools.cache
def _what_the_notebooks_run_needed() -> int:
    """The number a student reads off the notebook's own run (FullHistory on the class request)."""
    from exercises.checks.common import run
    from stage.tasks import file_reading_task

    return max(
        lap.assembled_tokens for lap in run(FullHistory(), 100_000, file_reading_task()).laps
    )


def window_of_the_class_run(laps):
    return _what_the_notebooks_run_needed()  # the notebook's number, typed in


def window_one_token_roomier(laps):
    return max(lap.assembled_tokens for lap in laps) + 1


def window_from_the_lap_before_last(laps):
    return max(laps[-2].assembled_tokens, laps[-1].assembled_tokens)  # "the last two laps decide"


def window_as_text(laps):
    return str(max(lap.assembled_tokens for lap in laps))


def window_from_the_growth(laps):
    return laps[-1].assembled_tokens + (laps[-1].assembled_tokens - laps[-2].assembled_tokens)


wrong("smallest_window", window_from_the_bill, "bill of the whole run")
wrong("smallest_window", window_from_the_first_lap, "the emptiest desk")
wrong("smallest_window", window_with_an_output_reserve, "add nothing to it")
wrong("smallest_window", window_counting_laps, "number of laps")
wrong("smallest_window", smallest_window_without_return, "return one number of tokens")
wrong("smallest_window", window_popping_the_last_lap, "do not sort or edit", "alias")
wrong("smallest_window", window_of_the_class_run, "not from a number typed in", "hardcoded")
wrong("smallest_window", window_one_token_roomier, "add nothing to it")
wrong("smallest_window", window_from_the_lap_before_last, "the smallest input", "one", "index")
wrong("smallest_window", window_as_text, "return one number of tokens", "shape")
wrong("smallest_window", window_from_the_growth, "lap.assembled_tokens")


def window_of_the_last_lap(laps):
    return laps[-1].assembled_tokens  # FullHistory's desk only grows


def window_from_the_raw_history(laps):
    return max(
        lap.raw_tokens for lap in laps
    )  # the same for FullHistory: it sends the whole raw history


def window_by_sorting(laps):
    return sorted(lap.assembled_tokens for lap in laps)[-1]


right("smallest_window", sol("01_the_desk", "smallest_window"), "the solution")
right("smallest_window", window_of_the_last_lap)
right("smallest_window", window_from_the_raw_history)
right("smallest_window", window_by_sorting)


# ---- 02 · the windows ---------------------------------------------------------------------------------


def _walk(messages, room, counter, fits=lambda size, room: size <= room, first=1):
    start = len(messages)
    for cut in reversed(safe_cuts(messages)[:-1]):
        if cut < first or not fits(sum(counter(m) for m in messages[cut:]), room):
            break
        start = cut
    return start


def window_popping_from_the_front(messages, budget, counter):
    """Drops the oldest message, one at a time: may keep a tool_result whose tool_use is gone."""
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    kept = list(messages)
    while kept and sum(counter(m) for m in [user(DROPPED_NOTICE)] + kept) > budget:
        kept.pop(0)
    return [user(DROPPED_NOTICE)] + kept if kept else []


def window_without_a_notice(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    start = _walk(messages, budget, counter)
    return messages[start:]


def window_keeping_the_oldest(messages, budget, counter):
    fits = [c for c in safe_cuts(messages) if sum(counter(m) for m in messages[:c]) <= budget]
    return messages[: max(fits)]  # whole turns, from the front: the request stays, the newest go


def window_not_counting_its_notice(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    start = _walk(messages, budget, counter)
    return [user(DROPPED_NOTICE)] + messages[start:] if start < len(messages) else []


def window_strict_when_all_fits(messages, budget, counter):
    if sum(counter(m) for m in messages) < budget:  # < where <= belongs
        return list(messages)
    return sol_sliding(messages, budget - 1, counter) if budget else []


def window_strict_in_the_walk(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    room = budget - counter(user(DROPPED_NOTICE))
    start = _walk(messages, room, counter, fits=lambda size, room: size < room)
    return [user(DROPPED_NOTICE)] + messages[start:] if start < len(messages) else []


def window_reading_zero_as_no_limit(messages, budget, counter):
    if not budget:
        return list(messages)
    return sol_sliding(messages, budget, counter)


def window_keeping_an_oversize_newest_turn(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    room = budget - counter(user(DROPPED_NOTICE))
    start = min(
        _walk(messages, room, counter), safe_cuts(messages)[-2]
    )  # "always keep the newest turn"
    return [user(DROPPED_NOTICE)] + messages[max(start, 1) :]


def window_sending_a_lone_notice(messages, budget, counter):
    return sol_sliding(messages, budget, counter) or ([user(DROPPED_NOTICE)] if messages else [])


def window_crashing_on_empty(messages, budget, counter):
    request = messages[0]
    return (
        [request] + messages[1:]
        if sum(counter(m) for m in messages) <= budget
        else sol_sliding(messages, budget, counter)
    )


def window_popping_the_callers_list(messages, budget, counter):
    while messages and sum(counter(m) for m in messages) > budget:
        messages.pop(0)
    return sol_sliding(list(messages), budget, counter)


def window_without_return(messages, budget, counter):
    sol_sliding(messages, budget, counter)


def window_handing_back_the_callers_list(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return messages  # "nothing to do"
    return sol_sliding(messages, budget, counter)


def window_with_its_own_notice(messages, budget, counter):
    desk = sol_sliding(messages, budget, counter)
    return [user("[Older messages dropped.]")] + desk[1:] if desk and desk != messages else desk


def window_without_a_notice_before_a_user_message(messages, budget, counter):
    desk = sol_sliding(messages, budget, counter)
    if len(desk) > 1 and desk != messages and desk[1]["role"] == "user":
        return desk[1:]  # "the desk starts with a user message already"
    return desk


def window_ignoring_the_counter(messages, budget, counter):
    return sol_sliding(messages, budget, lambda m: len(text_of(m)) // 4)


def window_of_a_fixed_size(messages, budget, counter):
    return sol_sliding(messages, 5000, counter)  # the class window, typed in


def window_dropping_one_turn_when_the_raw_history_is_over(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    cuts = safe_cuts(messages)
    return [user(DROPPED_NOTICE)] + messages[cuts[2] :] if len(cuts) > 3 else []


def window_crashing_on_one_message(messages, budget, counter):
    if not messages or sum(counter(m) for m in messages) <= budget:
        return list(messages)
    cuts = safe_cuts(messages)[1:-1]
    newest = cuts[-1]  # "there is always a turn"
    return sol_sliding(messages, budget, counter) if newest else []


def window_cutting_before_assistants_only(messages, budget, counter):
    """Cuts only just before an assistant message: a cut before a plain user message is never tried."""
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    notice = user(DROPPED_NOTICE)
    start = len(messages)
    for cut in reversed(
        [c for c in safe_cuts(messages)[:-1] if messages[c]["role"] == "assistant"]
    ):
        if sum(counter(m) for m in [notice] + messages[cut:]) > budget:
            break
        start = cut
    return [] if start == len(messages) else [notice] + messages[start:]


def window_as_a_tuple(messages, budget, counter):
    return tuple(sol_sliding(messages, budget, counter))


W = "sliding_window"
wrong(W, window_popping_from_the_front, "never between a tool_use and its tool_result")
wrong(W, window_without_a_notice, "start with a user message")
wrong(W, window_keeping_the_oldest, "NEWEST")
wrong(W, window_not_counting_its_notice, "the notice included")
wrong(W, window_strict_when_all_fits, "exactly as big as the budget fits", "fits")
wrong(W, window_strict_in_the_walk, "brings the desk exactly to the budget")
wrong(W, window_reading_zero_as_no_limit, "not 'no limit'")
wrong(W, window_keeping_an_oversize_newest_turn, "even the newest turn alone")
wrong(W, window_sending_a_lone_notice, "a notice alone is no help")
wrong(W, window_crashing_on_empty, "an empty history is a real input", "index")
wrong(W, window_popping_the_callers_list, "never pop, insert", "alias")
wrong(W, window_without_return, "end the function with `return`")
wrong(
    W,
    window_handing_back_the_callers_list,
    "a copy of messages, not messages itself",
    "alias",
    "fits",
)
wrong(W, window_with_its_own_notice, "not your own words")
wrong(
    W,
    window_without_a_notice_before_a_user_message,
    "even when the first message you keep is a user message",
)
wrong(W, window_ignoring_the_counter, "the counter you are given", "param")
wrong(W, window_of_a_fixed_size, "budget", "param", "hardcoded")
wrong(W, window_dropping_one_turn_when_the_raw_history_is_over, "not the raw history", "raw")
wrong(W, window_crashing_on_one_message, "the smallest input", "one", "index")
wrong(W, window_as_a_tuple, "return a list of message dicts", "shape")
wrong(W, window_cutting_before_assistants_only, "a cut may fall before a user message")


def window_walking_forward(messages, budget, counter):
    """Drops whole turns from the front until the rest fits beside the notice."""
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    for cut in safe_cuts(messages)[1:-1]:
        desk = [user(DROPPED_NOTICE)] + messages[cut:]
        if sum(counter(m) for m in desk) <= budget:
            return desk
    return []


def window_by_bisection(messages, budget, counter):
    """Finds the oldest safe cut that fits by halving (the sizes shrink as the cut moves on)."""
    if sum(counter(m) for m in messages) <= budget:
        return messages[:]
    cuts = safe_cuts(messages)[1:-1]
    fits = lambda c: sum(counter(m) for m in [user(DROPPED_NOTICE)] + messages[c:]) <= budget  # noqa: E731
    low, high = 0, len(cuts)
    while low < high:
        mid = (low + high) // 2
        if fits(cuts[mid]):
            high = mid
        else:
            low = mid + 1
    return [user(DROPPED_NOTICE)] + messages[cuts[low] :] if low < len(cuts) else []


def window_with_running_sizes(messages, budget, counter):
    """Adds message sizes from the newest back, remembering the best safe cut seen so far."""
    notice = user(DROPPED_NOTICE)
    if not messages:
        return []
    sizes = [counter(m) for m in messages]
    if sum(sizes) <= budget:
        return list(messages)
    safe, used, best = set(safe_cuts(messages)), counter(notice), None
    for i in range(len(messages) - 1, 0, -1):
        used += sizes[i]
        if used > budget:
            break
        if i in safe:
            best = i
    return [notice] + messages[best:] if best else []


right(W, sol_sliding, "the solution")
right(W, window_walking_forward)
right(W, window_by_bisection)
right(W, window_with_running_sizes)


# ---- 02 · first_lap_without -------------------------------------------------------------------------------


def _holds(lap, text):
    return any(text in text_of(m).lower() for m in lap.sent)


def first_lap_counted_from_zero(laps, text):
    seen = False
    for i, lap in enumerate(laps):
        if _holds(lap, text):
            seen = True
        elif seen:
            return i
    return None


def first_lap_missing_at_all(laps, text):
    return next((lap.number for lap in laps if not _holds(lap, text)), None)


def first_lap_that_dropped_anything(laps, text):
    return next((lap.number for lap in laps if lap.kind == "drop"), None)


def lap_after_the_last_lap_with_it(laps, text):
    holding = [i for i, lap in enumerate(laps) if _holds(lap, text)]
    if not holding or holding[-1] + 1 >= len(laps):
        return None
    return laps[holding[-1] + 1].number


def _first_lap_with(on_desk, name):
    def first_lap_without(laps, text):
        seen = False
        for lap in laps:
            if on_desk(lap, text):
                seen = True
            elif seen:
                return lap.number
        return None

    first_lap_without.__name__ = name
    return first_lap_without


first_lap_case_sensitive = _first_lap_with(
    lambda lap, text: any(text in text_of(m) for m in lap.sent), "first_lap_case_sensitive"
)
first_lap_reading_only_plain_strings = _first_lap_with(
    lambda lap, text: any(
        isinstance(m["content"], str) and text in m["content"].lower() for m in lap.sent
    ),
    "first_lap_reading_only_plain_strings",
)
first_lap_searching_the_printed_desk = _first_lap_with(
    lambda lap, text: text in str(lap.sent).lower(), "first_lap_searching_the_printed_desk"
)
first_lap_reading_text_blocks_and_results = _first_lap_with(  # no tool calls
    lambda lap, text: any(
        text
        in (
            b.get("text", "")
            if b["type"] == "text"
            else result_text(b)
            if b["type"] == "tool_result"
            else ""
        ).lower()
        for m in lap.sent
        for b in blocks_of(m)
    ),
    "first_lap_reading_text_blocks_and_results",
)
first_lap_reading_only_the_user = _first_lap_with(
    lambda lap, text: any(text in text_of(m).lower() for m in lap.sent if m["role"] == "user"),
    "first_lap_reading_only_the_user",
)
first_lap_reading_string_results_only = _first_lap_with(
    lambda lap, text: any(
        text
        in (
            b.get("text", "")
            if b["type"] == "text"
            else b["content"]
            if b["type"] == "tool_result" and isinstance(b["content"], str)
            else f"{b.get('name')} {json.dumps(b.get('input'))}"
            if b["type"] == "tool_use"
            else ""
        ).lower()
        for m in lap.sent
        for b in blocks_of(m)
    ),
    "first_lap_reading_string_results_only",
)


def first_lap_crashing_without_laps(laps, text):
    assert laps[0].number == 1
    return sol_first_lap(laps, text)


def first_lap_as_a_yes_or_no(laps, text):
    return sol_first_lap(laps, text) is not None


def first_lap_popping_the_laps(laps, text):
    seen = False
    while laps:
        lap = laps.pop(0)
        if _holds(lap, text):
            seen = True
        elif seen:
            return lap.number
    return None


def first_lap_of_the_class_run(laps, text):
    return 9


def first_lap_returning_the_lap(laps, text):
    number = sol_first_lap(laps, text)
    return next((lap for lap in laps if lap.number == number), None)


def first_lap_comparing_neighbours(laps, text):
    """Looks at each lap and the next; a run of one lap has no next."""
    if laps and len(laps) == 1:
        return laps[1].number if not _holds(laps[0], text) else None
    for before, after in zip(laps, laps[1:]):
        if _holds(before, text) and not _holds(after, text):
            return after.number
    return None


F = "first_lap_without"
wrong(F, first_lap_counted_from_zero, "lap.number")
wrong(F, first_lap_missing_at_all, "had not been on the desk yet")
wrong(F, first_lap_that_dropped_anything, "still on the desk", "text")
wrong(F, lap_after_the_last_lap_with_it, "at the FIRST lap without it")
wrong(F, first_lap_case_sensitive, "compare in lowercase", "text")
wrong(F, first_lap_reading_only_plain_strings, "a remark", "text")
wrong(F, first_lap_searching_the_printed_desk, "not str(lap.sent)", "text")
wrong(F, first_lap_reading_text_blocks_and_results, "the input of a tool call", "text")
wrong(F, first_lap_reading_only_the_user, "an assistant message", "text")
wrong(F, first_lap_reading_string_results_only, "content is a list of text blocks", "text")
wrong(F, first_lap_crashing_without_laps, "empty list of laps", "index")
wrong(F, first_lap_as_a_yes_or_no, "return the number of a lap", "shape")
wrong(F, first_lap_popping_the_laps, "do not sort, pop or edit them", "alias")
wrong(F, first_lap_of_the_class_run, "the same whatever the laps", "hardcoded")
wrong(F, first_lap_returning_the_lap, "return the number of a lap", "shape")
wrong(F, first_lap_comparing_neighbours, "the smallest input", "one", "index")


def first_lap_by_index(laps, text):
    holds = [_holds(lap, text) for lap in laps]
    for i in range(1, len(laps)):
        if holds[i - 1] and not holds[i] and any(holds[:i]):
            return laps[i].number
    return None


def first_lap_by_dropwhile(laps, text):
    import itertools

    rest = itertools.dropwhile(lambda lap: not _holds(lap, text), laps)  # before it arrives
    rest = itertools.dropwhile(lambda lap: _holds(lap, text), rest)  # while it is there
    return next((lap.number for lap in rest), None)


def first_lap_by_blocks(laps, text):
    """Reads every block itself: text, a tool call's JSON input, a result's content in either form."""

    def words(block):
        if block["type"] == "text":
            return block["text"]
        if block["type"] == "tool_use":
            return block["name"] + " " + json.dumps(block["input"], ensure_ascii=False)
        content = block.get("content", "")
        return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)

    seen = False
    for lap in laps:
        here = any(text in words(b).lower() for m in lap.sent for b in blocks_of(m))
        if here:
            seen = True
        elif seen:
            return lap.number
    return None


right(F, sol_first_lap, "the solution")
right(F, first_lap_by_index)
right(F, first_lap_by_dropwhile)
right(F, first_lap_by_blocks)


# ---- 02 · pinned_window -----------------------------------------------------------------------------------


def pinned_window_that_forgets_the_head(messages, budget, counter):
    return sol_sliding(messages, budget, counter)


def pinned_window_over_budget(messages, budget, counter):
    return messages[:1] + sol_sliding(messages[1:], budget, counter)


def pinned_window_crashing_on_empty(messages, budget, counter):
    if counter(messages[0]) > budget:
        return []
    return [messages[0]] + sol_sliding(messages[1:], budget - counter(messages[0]), counter)


def pinned_window_dropping_a_lonely_head(messages, budget, counter):
    desk = sol_pinned(messages, budget, counter)
    return desk if len(desk) > 1 or len(messages) < 2 else []


def pinned_window_popping_the_head(messages, budget, counter):
    head = messages.pop(0) if messages else None
    if head is None or counter(head) > budget:
        return []
    return [head] + sol_sliding(messages, budget - counter(head), counter)


def pinned_window_sending_an_oversize_request(messages, budget, counter):
    head = messages[:1]
    return head + sol_sliding(messages[1:], budget - sum(counter(m) for m in head), counter)


def pinned_window_with_the_notice_first(messages, budget, counter):
    desk = sol_pinned(messages, budget, counter)
    if len(desk) > 2 and desk[1] == user(DROPPED_NOTICE):
        return [desk[1], desk[0]] + desk[2:]
    return desk


def pinned_window_handing_back_the_callers_list(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return messages
    return sol_pinned(messages, budget, counter)


def pinned_window_guessing_the_head(messages, budget, counter):
    if not messages:
        return []
    head = len(text_of(messages[0])) // 4  # the request's size, not by the counter
    if head > budget:
        return []
    return messages[:1] + sol_sliding(messages[1:], budget - head, counter)


def pinned_window_without_a_notice(messages, budget, counter):
    desk = sol_pinned(messages, budget, counter)
    return [m for m in desk if m != user(DROPPED_NOTICE)]


def pinned_window_measuring_the_raw_history(messages, budget, counter):
    if not messages or counter(messages[0]) > budget:
        return []
    room = budget - sum(counter(m) for m in messages[:1])
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    return (
        messages[:1] + [user(DROPPED_NOTICE)] + messages[safe_cuts(messages)[2] :]
        if room > 0 and len(safe_cuts(messages)) > 3
        else messages[:1]
    )


def pinned_window_crashing_on_one_message(messages, budget, counter):
    if not messages:
        return []
    first_turn = messages[1]  # "there is always a first turn"
    assert first_turn
    return sol_pinned(messages, budget, counter)


P = "pinned_window"
wrong(P, pinned_window_that_forgets_the_head, "pin the head")
wrong(P, pinned_window_over_budget, "pinned head counts against the budget too")
wrong(P, pinned_window_crashing_on_empty, "an empty history is a real input", "index")
wrong(P, pinned_window_dropping_a_lonely_head, "the request is always sent")
wrong(P, pinned_window_popping_the_head, "never pop, insert", "alias")
wrong(P, pinned_window_sending_an_oversize_request, "when not even the request fits", "limits")
wrong(P, pinned_window_with_the_notice_first, "the request goes first, before the notice")
wrong(
    P,
    pinned_window_handing_back_the_callers_list,
    "a copy of messages, not messages itself",
    "alias",
    "fits",
)
wrong(P, pinned_window_guessing_the_head, "the counter you are given", "param")
wrong(P, pinned_window_without_a_notice, "the notice goes first")
wrong(P, pinned_window_measuring_the_raw_history, "not the raw history", "raw")
wrong(P, pinned_window_crashing_on_one_message, "the smallest input", "one", "index")


def pinned_window_from_scratch(messages, budget, counter):
    """Walks back from the newest safe cut, counting the request, the notice and the kept turns."""
    if not messages or counter(messages[0]) > budget:
        return []
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    notice = user(DROPPED_NOTICE)
    best = None
    for cut in reversed(safe_cuts(messages)[2:-1]):
        if (
            counter(messages[0]) + counter(notice) + sum(counter(m) for m in messages[cut:])
            > budget
        ):
            break
        best = cut
    return [messages[0]] + ([notice] + messages[best:] if best else [])


def pinned_window_through_a_walk_forward(messages, budget, counter):
    if not messages or counter(messages[0]) > budget:
        return []
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    for cut in safe_cuts(messages)[2:-1]:
        desk = [messages[0], user(DROPPED_NOTICE)] + messages[cut:]
        if sum(counter(m) for m in desk) <= budget:
            return desk
    return messages[:1]


right(P, sol_pinned, "the solution")
right(P, pinned_window_from_scratch)
right(P, pinned_window_through_a_walk_forward)


# ---- 02 · remarks_window ------------------------------------------------------------------------------


def _said(messages):
    return [
        b["text"]
        for m in messages
        if m["role"] == "user"
        for b in blocks_of(m)
        if b.get("type") == "text"
    ]


def _remarks(notice_of, messages, budget, counter, keep_user=lambda m: m["role"] == "user"):
    """remarks_window with the notice made by ``notice_of(said)``; otherwise right."""
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    if counter(messages[0]) > budget:
        return []
    for cut in safe_cuts(messages, start=1)[:-1]:
        said = [
            b["text"]
            for m in messages[1:cut]
            if keep_user(m)
            for b in blocks_of(m)
            if b.get("type") == "text"
        ]
        desk = messages[:1] + [user(notice_of(said, messages[1:cut]))] + messages[cut:]
        if sum(counter(m) for m in desk) <= budget:
            return desk
    return messages[:1]


def remarks_window_forgetting_remarks(messages, budget, counter):
    return sol_pinned(messages, budget, counter)


def remarks_window_not_counting_the_remarks(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    rest = sol_pinned(messages, budget, counter)
    kept = [m for m in rest[1:] if m in messages]
    start = len(messages) - len(kept)
    return messages[:1] + [user(DROPPED_NOTICE + " " + " ".join(_said(messages[1:start])))] + kept


def remarks_window_keeping_only_the_newest_turn(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    cut = safe_cuts(messages)[-2]
    return (
        messages[:1]
        + [user(DROPPED_NOTICE + " " + " ".join(_said(messages[1:cut])))]
        + messages[cut:]
    )


def remarks_window_crashing_on_empty(messages, budget, counter):
    head = messages[0]
    return sol_remarks([head] + messages[1:], budget, counter)


def remarks_window_carrying_the_first_remark(messages, budget, counter):
    return _remarks(
        lambda said, _: DROPPED_NOTICE + " " + " ".join(said[:1]), messages, budget, counter
    )


def remarks_window_carrying_them_backwards(messages, budget, counter):
    return _remarks(
        lambda said, _: DROPPED_NOTICE + " " + " ".join(reversed(said)), messages, budget, counter
    )


def remarks_window_carrying_the_results_too(messages, budget, counter):
    return _remarks(
        lambda said, dropped: DROPPED_NOTICE + " " + " ".join(text_of(m) for m in dropped),
        messages,
        budget,
        counter,
        keep_user=lambda m: False,
    )


def remarks_window_handing_back_the_callers_list(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return messages
    return sol_remarks(messages, budget, counter)


def remarks_window_sending_an_oversize_request(messages, budget, counter):
    if counter(messages[0] if messages else user("")) > budget:
        return messages[:1]
    return sol_remarks(messages, budget, counter)


def remarks_window_with_its_own_notice(messages, budget, counter):
    return _remarks(
        lambda said, _: "Earlier the user said: " + " ".join(said), messages, budget, counter
    )


def remarks_window_reading_block_lists_only(messages, budget, counter):
    return _remarks(
        lambda said, _: DROPPED_NOTICE + " " + " ".join(said),
        messages,
        budget,
        counter,
        keep_user=lambda m: m["role"] == "user" and isinstance(m["content"], list),
    )


R = "remarks_window"
wrong(R, remarks_window_forgetting_remarks, "word for word and in order, into the notice")
wrong(R, remarks_window_not_counting_the_remarks, "request that alone is over the budget", "limits")
wrong(R, remarks_window_crashing_on_empty, "an empty history is a real input", "index")
wrong(R, remarks_window_keeping_only_the_newest_turn, "try the cuts from the oldest on")
wrong(R, remarks_window_carrying_the_first_remark, "collect the text blocks", "partial")
wrong(R, remarks_window_carrying_them_backwards, "in the order they were said", "partial")
wrong(R, remarks_window_carrying_the_results_too, "not the tool results", "text")
wrong(
    R,
    remarks_window_handing_back_the_callers_list,
    "a copy of messages, not messages itself",
    "alias",
    "fits",
)
wrong(
    R,
    remarks_window_sending_an_oversize_request,
    "a request that alone is over the budget",
    "limits",
)
wrong(R, remarks_window_with_its_own_notice, "start the notice with DROPPED_NOTICE")
wrong(
    R,
    remarks_window_reading_block_lists_only,
    "plain string is what the user wrote too",
    "text",
    "partial",
)


def remarks_window_one_remark_a_line(messages, budget, counter):
    return _remarks(lambda said, _: "\n".join([DROPPED_NOTICE] + said), messages, budget, counter)


def remarks_window_growing_the_notice(messages, budget, counter):
    """Walks forward, adding each dropped turn's remarks to the notice as it goes."""
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    if counter(messages[0]) > budget:
        return []
    said = []
    cuts = safe_cuts(messages, start=1)
    for before, cut in zip(cuts, cuts[1:-1]):
        said += _said(messages[before:cut])
        desk = [
            messages[0],
            user(DROPPED_NOTICE + " — the user said: " + " | ".join(said)),
        ] + messages[cut:]
        if sum(counter(m) for m in desk) <= budget:
            return desk
    return [messages[0]]


right(R, sol_remarks, "the solution")
right(R, remarks_window_one_remark_a_line)
right(R, remarks_window_growing_the_notice)


# ---- 03 · split_zones ---------------------------------------------------------------------------------


def split_with_a_naive_tail(messages, keep):
    cut = max(1, len(messages) - keep)
    return messages[:1], messages[1:cut], messages[cut:]


def split_with_two_messages_in_the_head(messages, keep):
    cut = max(2, len(messages) - keep)
    while cut < len(messages) and tool_results(messages[cut]):
        cut -= 1
    return messages[:2], messages[2:cut], messages[cut:]


def split_moving_the_cut_forward(messages, keep):
    cut = max(1, len(messages) - keep)
    while cut < len(messages) and tool_results(messages[cut]):
        cut += 1
    return messages[:1], messages[1:cut], messages[cut:]


def split_counting_turns(messages, keep):
    return sol_split(messages, 2 * keep)  # keep_messages read as turns of two messages


def split_crashing_on_empty(messages, keep):
    request = messages[0]
    return sol_split([request] + messages[1:], keep)


def split_with_negative_slices(messages, keep):
    tail = messages[-keep:]  # keep=0 makes the tail the whole history
    while tail and tool_results(tail[0]) and len(tail) < len(messages) - 1:
        tail = messages[-(len(tail) + 1) :]
    return messages[:1], messages[1 : len(messages) - len(tail)], tail


def split_popping_the_request(messages, keep):
    head = [messages.pop(0)] if messages else []
    _, middle, tail = sol_split(head + messages, keep)
    return head, middle, tail


def split_as_a_list_of_zones(messages, keep):
    return list(sol_split(messages, keep))


def split_into_one_list(messages, keep):
    head, middle, tail = sol_split(messages, keep)
    return head + middle + tail


def split_handing_back_the_request_alone(messages, keep):
    if len(messages) <= 1:
        return messages, [], []  # "nothing to split"
    return sol_split(messages, keep)


def split_keeping_four(messages, keep):
    return sol_split(messages, 4)


def split_without_a_bound(messages, keep):
    cut = max(1, len(messages) - keep)
    while tool_results(messages[cut]):  # keep=0 puts the cut past the end
        cut -= 1
    return messages[:1], messages[1:cut], messages[cut:]


def split_reaching_into_the_head(messages, keep):
    cut = max(0, len(messages) - keep)
    while 0 < cut < len(messages) and tool_results(messages[cut]):
        cut -= 1
    return messages[:1], messages[1:cut] if cut else [], messages[cut:]


def split_with_an_empty_head_for_one_message(messages, keep):
    if len(messages) == 1:
        return [], [], list(messages)
    return sol_split(messages, keep)


S = "split_zones"
wrong(S, split_with_a_naive_tail, "move the boundary back one message")
wrong(S, split_with_two_messages_in_the_head, "the request alone")
wrong(S, split_moving_the_cut_forward, "one message MORE")
wrong(S, split_counting_turns, "counts messages, not turns")
wrong(S, split_crashing_on_empty, "three empty zones", "index")
wrong(S, split_with_negative_slices, "nothing lost, nothing twice")
wrong(S, split_popping_the_request, "never pop from or edit the list", "alias")
wrong(S, split_as_a_list_of_zones, "a tuple of three lists", "shape")
wrong(S, split_into_one_list, "not one list of messages", "shape")
wrong(
    S, split_handing_back_the_request_alone, "never the list you were given itself", "alias", "one"
)
wrong(S, split_keeping_four, "keep_messages", "param")
wrong(S, split_without_a_bound, "three empty zones", "index")
wrong(S, split_reaching_into_the_head, "nothing lost, nothing twice", "one")
wrong(S, split_with_an_empty_head_for_one_message, "the request alone", "one")


def split_by_walking_back(messages, keep):
    if not messages:
        return [], [], []
    tail_start = len(messages)
    for _ in range(keep):
        if tail_start > 1:
            tail_start -= 1
    while tail_start < len(messages) and tool_results(messages[tail_start]):
        tail_start -= 1
    return messages[:1], messages[1:tail_start], messages[tail_start:]


def split_with_safe_cuts(messages, keep):
    """The tail starts at the newest safe cut that still keeps at least keep_messages messages."""
    if not messages:
        return [], [], []
    want = max(1, len(messages) - keep)
    cut = max((c for c in safe_cuts(messages) if 1 <= c <= want), default=1)
    return messages[:1], messages[1:cut], messages[cut:]


def split_counting_from_the_end(messages, keep):
    n = len(messages)
    size = min(keep, max(n - 1, 0))
    while size and size < n - 1 and tool_results(messages[n - size]):
        size += 1
    return tuple([messages[:1], messages[1 : n - size], messages[n - size :]])


right(S, sol_split, "the solution")
right(S, split_by_walking_back)
right(S, split_with_safe_cuts)
right(S, split_counting_from_the_end)


# ---- 03 · compact ---------------------------------------------------------------------------------------

HEADER = "[Summary of earlier work]"


def _compact(messages, summarize, keep, card=lambda text: user(HEADER + "\n" + text)):
    head, middle, tail = sol_split(messages, keep)
    return head + [card(summarize(middle))] + tail if middle else list(messages)


def compact_that_summarizes_the_request(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    return [user(HEADER + "\n" + summarize(head + middle))] + tail if middle else list(messages)


def compact_as_an_assistant_message(messages, summarize, keep):
    return _compact(
        messages,
        summarize,
        keep,
        lambda text: {"role": "assistant", "content": [{"type": "text", "text": text}]},
    )


def compact_that_keeps_the_middle(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    return (
        head + middle + [user(HEADER + "\n" + summarize(middle))] + tail
        if middle
        else list(messages)
    )


def compact_with_the_card_after_the_tail(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    return head + tail + [user(HEADER + "\n" + summarize(middle))] if middle else list(messages)


def compact_without_a_header(messages, summarize, keep):
    return _compact(messages, summarize, keep, user)


def compact_with_the_header_on_the_same_line(messages, summarize, keep):
    return _compact(messages, summarize, keep, lambda text: user(HEADER + " " + text))


def compact_splicing_the_callers_list(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if middle:
        messages[1 : 1 + len(middle)] = [user(HEADER + "\n" + summarize(middle))]
    return messages


def compact_without_return(messages, summarize, keep):
    _compact(messages, summarize, keep)


def compact_summarizing_an_empty_middle(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    return head + [user(HEADER + "\n" + summarize(middle))] + tail if messages else []


def compact_handing_back_the_callers_list(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    return head + [user(HEADER + "\n" + summarize(middle))] + tail if middle else messages


def compact_keeping_four(messages, summarize, keep):
    return _compact(messages, summarize, 4)


def compact_dressing_up_the_summary(messages, summarize, keep):
    return _compact(messages, summarize, keep, lambda text: user(HEADER + "\nSummary: " + text))


def compact_summarizing_twice(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if middle and not summarize(middle):  # "check it is not empty first"
        return list(messages)
    return _compact(messages, summarize, keep)


def compact_peeking_at_the_middle(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if middle[0]["role"] != "assistant":  # an empty middle has no first message
        return list(messages)
    return head + [user(HEADER + "\n" + summarize(middle))] + tail


def compact_returning_the_zones(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    return (head, [user(HEADER + "\n" + summarize(middle))], tail) if middle else list(messages)


K = "compact"
wrong(K, compact_that_summarizes_the_request, "summarize only the middle")
wrong(K, compact_as_an_assistant_message, "as a user message")
wrong(K, compact_that_keeps_the_middle, "ONE summary message")
wrong(K, compact_with_the_card_after_the_tail, "after the tail it reads as the newest")
wrong(K, compact_without_a_header, "header line [Summary of earlier work]")
wrong(K, compact_with_the_header_on_the_same_line, "then a newline")
wrong(K, compact_splicing_the_callers_list, "return a NEW list", "alias")
wrong(K, compact_without_return, "return the new list of messages")
wrong(K, compact_summarizing_an_empty_middle, "nothing to summarize")
wrong(K, compact_handing_back_the_callers_list, "a copy of messages", "alias", "fits")
wrong(K, compact_keeping_four, "use your split_zones", "param")
wrong(K, compact_dressing_up_the_summary, "unchanged")
wrong(K, compact_summarizing_twice, "one summary call per compaction")
wrong(K, compact_peeking_at_the_middle, "nothing to compact", "index")
wrong(K, compact_returning_the_zones, "return the new list of messages", "shape")


def compact_with_a_blank_line_after_the_header(messages, summarize, keep):
    return _compact(messages, summarize, keep, lambda text: user(HEADER + "\n\n" + text))


def compact_with_a_card_of_blocks(messages, summarize, keep):
    return _compact(
        messages,
        summarize,
        keep,
        lambda text: {"role": "user", "content": [{"type": "text", "text": HEADER + "\n" + text}]},
    )


def compact_by_slicing(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if not middle:
        return messages[:]
    out = messages[:1]
    out.append(user(f"{HEADER}\n{summarize(messages[1 : 1 + len(middle)])}"))
    out.extend(messages[1 + len(middle) :])
    return out


right(K, sol_compact, "the solution")
right(K, compact_with_a_blank_line_after_the_header)
right(K, compact_with_a_card_of_blocks)
right(K, compact_by_slicing)


# ---- 03 · the prompts -----------------------------------------------------------------------------------

NO_CONSTRAINTS_PROMPT = """Summarize the session into notes, in at most {max_words} words:
- Goal: the user's request.
- Facts: file paths and line numbers found.
- Done / pending: progress.
<transcript>
{transcript}
</transcript>"""
TINY_LIMIT_PROMPT = NO_CONSTRAINTS_PROMPT.replace("{max_words} words", "12 words").replace(
    "- Facts", "- Standing constraints: every rule, word for word.\n- Facts"
)
UNTAGGED_PROMPT = "Summarize this, keeping every rule the user gave:\n{transcript}"
BRACES_PROMPT = 'Summarize as JSON like {"goal": ...}:\n<transcript>\n{transcript}\n</transcript>'
MY_PROMPT = """Summarize the session as notes for a fresh copy of yourself, at most {max_words} words, with these bullets:
- Goal: the request, in a sentence.
- Standing constraints: every rule the user gave, word for word; never drop one.
- Facts: paths, line numbers and names found.
- Done / pending: what is finished, what is left.
<transcript>
{transcript}
</transcript>"""
HARD_LIMIT_PROMPT = MY_PROMPT.replace("{max_words}", "300")
NO_LIMIT_PROMPT = MY_PROMPT.replace(", at most {max_words} words,", "")
NO_ASK_PROMPT = MY_PROMPT.replace("Summarize the session as notes", "Write notes on the session")
RULE_IN_THE_PROMPT = MY_PROMPT.replace(
    "- Facts", "Remember: never touch production, staging only.\n- Facts"
)
TAGS_BESIDE_THE_TRANSCRIPT = MY_PROMPT.replace(
    "<transcript>\n{transcript}\n</transcript>", "<transcript></transcript>\n{transcript}"
)
RULES_IN_PROSE = """Summarize the session in at most {max_words} words. Always keep every rule the user gave.
- Goal: the request.
- Facts: paths and line numbers.
- Done / pending: progress.
<transcript>
{transcript}
</transcript>"""
SHUFFLED_TEMPLATE = "\n".join(
    " ".join(reversed(line.split())) if "{" not in line and "<" not in line else line
    for line in COMPACTION_TEMPLATE.splitlines()
)

P3 = "compaction_prompt"
wrong(P3, NAIVE_PROMPT, "a section that carries every rule", name="the naive prompt")
wrong(P3, NO_CONSTRAINTS_PROMPT, "a section that carries every rule", name="no constraints section")
wrong(P3, TINY_LIMIT_PROMPT, "use {max_words}", "limits", name="a 12-word limit")
wrong(P3, UNTAGGED_PROMPT, "<transcript>", name="no tags")
wrong(P3, BRACES_PROMPT, "doubled", name="stray braces")
wrong(P3, 42, "one string", "shape", name="a number")
wrong(P3, MY_PROMPT.splitlines(), "one string", "shape", name="a list of lines")
wrong(P3, HARD_LIMIT_PROMPT, "not a number of your own", "limits", "param", name="a limit typed in")
wrong(P3, NO_LIMIT_PROMPT, "not a number of your own", "limits", name="no limit at all")
wrong(
    P3,
    RULE_IN_THE_PROMPT,
    "do not write the class's rule",
    "hardcoded",
    name="the class rule written in",
)
wrong(
    P3,
    TAGS_BESIDE_THE_TRANSCRIPT,
    "with the transcript inside",
    name="empty tags beside the transcript",
)
wrong(P3, NO_ASK_PROMPT, "summarize, compact or fold", name="never asks for a summary")
wrong(P3, RULES_IN_PROSE, "in a bullet line of its own", name="the rule section asked for in prose")
wrong(P3, COMPACTION_TEMPLATE, "write the prompt yourself", name="the lesson's template")
wrong(
    P3,
    SHUFFLED_TEMPLATE,
    "write the prompt yourself",
    "shuffled",
    name="the lesson's template, words reversed",
)

right(P3, solution("03_three_zones", "MY_PROMPT"), "the solution")
right(P3, MY_PROMPT, "another wording")
right(
    P3,
    """Compact the middle of this session into at most {max_words} words. Sections, in this order:
1. Standing constraints: each instruction the user gave, word for word (always present).
2. Goal: what the user asked.
3. Facts: exact file paths and line numbers.
4. Done / pending: the next step.
<transcript>
{transcript}
</transcript>""",
    "numbered sections, constraints first",
)
right(
    P3,
    """Summary notes, no more than {max_words} words:
- Standing constraints: every rule the user stated, verbatim, always.
- Goal: the task.
- Files read: each path.
- Done / pending: progress.
- Pointers: what can be re-read.
<transcript>
{transcript}
</transcript>""",
    "'no more than', with files and pointers",
)

TWO_GOAL_FIRST = """Summarize, at most {max_words} words:
- Goal: the user's whole request, in full.
- Facts: the cause and the fix, with paths.
- Standing constraints: every rule the user gave, word for word.
<transcript>
{transcript}
</transcript>"""
TWO_HARD_LIMIT = solution("03_three_zones", "TWO_RULES_PROMPT").replace("{max_words}", "80")
TWO_NO_LIMIT = solution("03_three_zones", "TWO_RULES_PROMPT").replace(
    " in at most {max_words} words", ""
)
TWO_RULE_IN = solution("03_three_zones", "TWO_RULES_PROMPT").replace(
    "- Facts", "Keep this: never touch production.\n- Facts"
)
P4 = "two_rules_prompt"
wrong(P4, COMPACTION_TEMPLATE, "write the prompt yourself", name="the lesson's template")
wrong(P4, NAIVE_PROMPT, "in a bullet line of its own", name="the naive prompt at 40 words")
wrong(P4, UNTAGGED_PROMPT, "<transcript>", name="no tags")
wrong(P4, TWO_GOAL_FIRST, "spends them on the goal first", name="the goal first")
wrong(
    P4,
    solution("03_three_zones", "MY_PROMPT"),
    "spends them on the goal first",
    name="MY_PROMPT again",
)
wrong(
    P4, TWO_HARD_LIMIT, "not a number of your own", "limits", "param", name="a limit of 80 typed in"
)
wrong(P4, TWO_NO_LIMIT, "not a number of your own", "limits", name="no limit at all")
wrong(
    P4, TWO_RULE_IN, "do not write the class's rule", "hardcoded", name="the class rule written in"
)
wrong(P4, BRACES_PROMPT, "doubled", name="stray braces")
wrong(P4, 7, "one string", "shape", name="a number")

right(P4, solution("03_three_zones", "TWO_RULES_PROMPT"), "the solution")
right(
    P4,
    """Summarize in at most {max_words} words. Only this section:
- Standing constraints: every rule the user gave, word for word.
<transcript>
{transcript}
</transcript>""",
    "constraints alone",
)
right(
    P4,
    """Compact it; keep it under {max_words} words:
1. Standing constraints: each rule the user said, verbatim.
2. Files read: the paths.
<transcript>
{transcript}
</transcript>""",
    "constraints, then files",
)
right(
    P4,
    """Summarize in no more than {max_words} words.
- Standing constraints: every instruction from the user, word for word.
- Done / pending: what is left.
<transcript>
{transcript}
</transcript>""",
    "constraints, then progress",
)


# ---- 04 · running_summary ---------------------------------------------------------------------------------


def summary_that_grows(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events), chunk_size):
        summary = (summary + "\n" + fold(summary, events[start : start + chunk_size])).strip()
    return summary


def fold_everything_so_far(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events), chunk_size):
        summary = fold(summary, events[: start + chunk_size])
    return summary


def fold_forgetting_the_summary(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events), chunk_size):
        summary = fold("", events[start : start + chunk_size])
    return summary


def fold_every_event(events, fold, chunk_size=4, summary=""):
    for event in events:
        summary = fold(summary, [event])
    return summary


def fold_emptying_the_events(events, fold, chunk_size=4, summary=""):
    while events:
        summary = fold(summary, events[:chunk_size])
        del events[:chunk_size]
    return summary


def fold_without_return(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events), chunk_size):
        summary = fold(summary, events[start : start + chunk_size])


def fold_forgetting_the_summary_when_idle(events, fold, chunk_size=4, summary=""):
    if not events:
        return ""
    return sol_fold(events, fold, chunk_size, summary)


def fold_in_fours(events, fold, chunk_size=4, summary=""):
    return sol_fold(events, fold, 4, summary)


def fold_dropping_the_short_last_chunk(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events) - chunk_size + 1, chunk_size):
        summary = fold(summary, events[start : start + chunk_size])
    return summary


def fold_overlapping_chunks(events, fold, chunk_size=4, summary=""):
    step = max(1, chunk_size - 1)  # "keep one event of context"
    for start in range(0, len(events), step):
        summary = fold(summary, events[start : start + chunk_size])
    return summary


def fold_with_the_arguments_swapped(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events), chunk_size):
        summary = fold(events[start : start + chunk_size], summary)
    return summary


def fold_returning_every_summary(events, fold, chunk_size=4, summary=""):
    summaries = [summary]
    for start in range(0, len(events), chunk_size):
        summaries.append(fold(summaries[-1], events[start : start + chunk_size]))
    return summaries


def fold_peeking_at_the_first_event(events, fold, chunk_size=4, summary=""):
    assert events[0]["role"] in ("user", "assistant")
    return sol_fold(events, fold, chunk_size, summary)


def fold_missing_the_last_event(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events) - 1, chunk_size):
        summary = fold(
            summary, events[start : min(start + chunk_size, len(events) - 1)] or events[start:]
        )
    return summary


RS = "running_summary"
wrong(RS, summary_that_grows, "grows with the history")
wrong(RS, fold_everything_so_far, "only the NEW chunk")
wrong(RS, fold_forgetting_the_summary, "pass the summary so far in")
wrong(RS, fold_every_event, "one fold per chunk")
wrong(RS, fold_emptying_the_events, "never pop from or clear", "alias")
wrong(RS, fold_without_return, "end with `return summary`")
wrong(RS, fold_forgetting_the_summary_when_idle, "the one you were given")
wrong(RS, fold_in_fours, "use the chunk_size you were given", "param")
wrong(RS, fold_dropping_the_short_last_chunk, "the last chunk may be shorter", "one")
wrong(RS, fold_overlapping_chunks, "fold only the NEW chunk")
wrong(RS, fold_with_the_arguments_swapped, "hand fold a slice of the events", "shape")
wrong(RS, fold_returning_every_summary, "return the summary the last fold gave back", "shape")
wrong(RS, fold_peeking_at_the_first_event, "nothing to fold", "index")
wrong(RS, fold_missing_the_last_event, "fold it too", "one")


def fold_with_a_while_loop(events, fold, chunk_size=4, summary=""):
    i = 0
    while i < len(events):
        summary = fold(summary, events[i : i + chunk_size])
        i += chunk_size
    return summary


def fold_by_reduce(events, fold, chunk_size=4, summary=""):
    chunks = [events[i : i + chunk_size] for i in range(0, len(events), chunk_size)]
    return functools.reduce(fold, chunks, summary)


def fold_recursively(events, fold, chunk_size=4, summary=""):
    if not events:
        return summary
    return fold_recursively(
        events[chunk_size:], fold, chunk_size, fold(summary, events[:chunk_size])
    )


right(RS, sol_fold, "the solution")
right(RS, fold_with_a_while_loop)
right(RS, fold_by_reduce)
right(RS, fold_recursively)


# ---- 04 · token_bill --------------------------------------------------------------------------------------


def bill_of_the_desk_only(laps):
    return sum(lap.assembled_tokens for lap in laps), sum(lap.raw_tokens for lap in laps)


def bill_of_the_last_lap(laps):
    return sum(lap.billed_input for lap in laps), laps[-1].raw_tokens if laps else 0


def bill_summing_running_totals(laps):
    return sum(lap.total_input for lap in laps), sum(lap.raw_tokens for lap in laps)


def bill_the_wrong_way_round(laps):
    return sum(lap.raw_tokens for lap in laps), sum(lap.billed_input for lap in laps)


def bill_crashing_without_laps(laps):
    return laps[-1].total_input, sum(lap.raw_tokens for lap in laps)


def bill_sorting_the_laps(laps):
    laps.sort(key=lambda lap: -lap.raw_tokens)  # biggest first, "to look at them"
    return sum(lap.billed_input for lap in laps), sum(lap.raw_tokens for lap in laps)


def bill_as_a_list(laps):
    return [sum(lap.billed_input for lap in laps), sum(lap.raw_tokens for lap in laps)]


def bill_with_the_output(laps):
    return sum(lap.billed_input + lap.billed_output for lap in laps), sum(
        lap.raw_tokens for lap in laps
    )


def bill_skipping_lap_one(laps):
    return sum(lap.billed_input for lap in laps[1:]), sum(lap.raw_tokens for lap in laps[1:])


def bill_of_the_raw_history_twice(laps):
    return sum(lap.raw_tokens for lap in laps), sum(lap.raw_tokens for lap in laps)


def bill_of_the_last_raw_history_every_lap(laps):
    return sum(lap.billed_input for lap in laps), laps[-1].raw_tokens * len(laps) if laps else 0


def bill_of_the_class_run(laps):
    return 39124, 87014


def bill_as_a_dict(laps):
    return {
        "with": sum(lap.billed_input for lap in laps),
        "without": sum(lap.raw_tokens for lap in laps),
    }


def bill_from_the_growth_of_the_total(laps):
    """Each lap's bill as the step in the running total: the first lap has no step before it."""
    steps = [after.total_input - before.total_input for before, after in zip(laps, laps[1:])]
    return sum(steps), sum(lap.raw_tokens for lap in laps)


TB = "token_bill"
wrong(TB, bill_of_the_desk_only, "summary calls are billed too")
wrong(TB, bill_of_the_last_lap, "not the last lap's alone")
wrong(TB, bill_summing_running_totals, "already a running total")
wrong(TB, bill_the_wrong_way_round, "wrong way round")
wrong(TB, bill_crashing_without_laps, "return (0, 0)", "index")
wrong(TB, bill_as_a_list, "a tuple of two numbers", "shape")
wrong(TB, bill_sorting_the_laps, "do not sort, pop or edit them", "alias")
wrong(TB, bill_with_the_output, "input tokens only")
wrong(TB, bill_skipping_lap_one, "lap 1 counts too", "one")
wrong(TB, bill_of_the_raw_history_twice, "not the raw history", "raw")
wrong(TB, bill_of_the_last_raw_history_every_lap, "grows lap by lap")
wrong(TB, bill_of_the_class_run, "cost nothing", "hardcoded")
wrong(TB, bill_as_a_dict, "a tuple of two numbers", "shape")
wrong(TB, bill_from_the_growth_of_the_total, "lap 1 counts too", "one")


def bill_from_the_running_total(laps):
    return (laps[-1].total_input if laps else 0), sum(lap.raw_tokens for lap in laps)


def bill_in_one_loop(laps):
    paid = would = 0
    for lap in laps:
        paid, would = paid + lap.billed_input, would + lap.raw_tokens
    return paid, would


def bill_by_reduce(laps):
    return functools.reduce(
        lambda acc, lap: (acc[0] + lap.billed_input, acc[1] + lap.raw_tokens), laps, (0, 0)
    )


right(TB, sol_bill, "the solution")
right(TB, bill_from_the_running_total)
right(TB, bill_in_one_loop)
right(TB, bill_by_reduce)


# ---- 04 · cheapest_settings ------------------------------------------------------------------------------


def _bill_of(run):
    return sum(lap.billed_input for lap in run.laps)


def _ok(run):
    return run.stopped == "answered" and run.database_target == "staging"


def _sweep(window, task, run_with, keep=_ok, key=_bill_of, pick=min, grid=None):
    grid = grid or [(c, k) for c in checks.CHUNKS for k in checks.KEEPS]
    runs = {pair: run_with(pair[0], pair[1], window, task) for pair in grid}
    kept = [pair for pair in grid if keep(runs[pair])]
    return pick(kept, key=lambda pair: key(runs[pair]))


def settings(pair):
    def cheapest_settings(window, task, run_with):
        return pair

    cheapest_settings.__name__ = f"always_{pair}"
    return cheapest_settings


def settings_of_the_class_task_after_a_sweep(window, task, run_with):
    _sweep(window, task, run_with)
    return (1, 0)  # what the class request came to


def settings_not_filtered(window, task, run_with):
    return _sweep(window, task, run_with, keep=lambda run: True)


def settings_with_the_fewest_laps(window, task, run_with):
    return _sweep(window, task, run_with, key=lambda run: len(run.laps))


def settings_with_the_fewest_laps_unfiltered(window, task, run_with):
    return _sweep(window, task, run_with, keep=lambda run: True, key=lambda run: len(run.laps))


def settings_at_the_class_window(window, task, run_with):
    return _sweep(5000, task, run_with)


def settings_for_the_class_task(window, task, run_with):
    from stage.tasks import file_reading_task

    return _sweep(window, file_reading_task(), run_with)


def settings_most_expensive(window, task, run_with):
    return _sweep(window, task, run_with, pick=max)


def settings_with_the_fewest_folds(window, task, run_with):
    return _sweep(
        window,
        task,
        run_with,
        key=lambda run: (sum(lap.summary_calls for lap in run.laps), _bill_of(run)),
    )


def settings_as_a_list(window, task, run_with):
    return list(_sweep(window, task, run_with))


def settings_without_a_verbatim_tail(window, task, run_with):
    return _sweep(window, task, run_with, grid=[(c, 0) for c in checks.CHUNKS])


def settings_bill_not_pair(window, task, run_with):
    pair = _sweep(window, task, run_with)
    return _bill_of(run_with(pair[0], pair[1], window, task))


CS = "cheapest_settings"
wrong(CS, settings(None), "tuple of two whole numbers", "shape", name="None")
wrong(CS, settings((9, 0)), "sweep exactly the grid", name="(9, 0)")
wrong(CS, settings((1, 0)), "no pair can be typed in", "hardcoded", name="(1, 0) typed in")
# it runs the whole grid (so nothing is missing), then returns a pair that is not this request's cheapest
wrong(
    CS,
    settings_of_the_class_task_after_a_sweep,
    "of every run that finished on staging, and keep the smallest",
    "hardcoded",
)
wrong(CS, settings_not_filtered, "a cheap run that fails is not cheap", "staging")
wrong(CS, settings_with_the_fewest_laps, "the fewest laps is not the fewest tokens", "laps")
wrong(
    CS,
    settings_with_the_fewest_laps_unfiltered,
    "a cheap run that fails is not cheap",
    "laps",
    "staging",
)
wrong(CS, settings_at_the_class_window, "use the window and the task the caller passes in", "param")
wrong(CS, settings_for_the_class_task, "use the window and the task the caller passes in", "param")
wrong(CS, settings_most_expensive, "the most expensive")
wrong(CS, settings_with_the_fewest_folds, "fewer, bigger folds")
wrong(CS, settings_as_a_list, "tuple of two whole numbers", "shape")
wrong(CS, settings_without_a_verbatim_tail, "run every pair of the grid")
wrong(CS, settings_bill_not_pair, "tuple of two whole numbers", "shape")


def settings_by_sorting(window, task, run_with):
    runs = [((c, k), run_with(c, k, window, task)) for k in checks.KEEPS for c in checks.CHUNKS]
    finished = sorted((run.laps[-1].total_input, pair) for pair, run in runs if _ok(run))
    return finished[0][1]


def settings_from_a_table(window, task, run_with):
    table = {}
    for c in checks.CHUNKS:
        for k in checks.KEEPS:
            run = run_with(c, k, window, task)
            if run.stopped == "answered" and run.database_target == "staging":
                table[(c, k)] = solution("04_running_summary", "token_bill")(run.laps)[0]
    return min(table, key=table.get)


right(CS, sol("04_running_summary", "cheapest_settings"), "the solution")
right(CS, settings_by_sorting)
right(CS, settings_from_a_table)


# ---- 05 · memory -----------------------------------------------------------------------------------------

RULE_LINE = "- Never touch production: database changes go to staging only."
WHERE_LINES = (
    "- Login code: app/auth.py. Data fixes: SQL files in migrations/.\n"
    "- Pending migrations say `-- status: pending`."
)
MEMORY = RULE_LINE + "\n" + WHERE_LINES
TOO_LONG = "\n".join([RULE_LINE, WHERE_LINES] + [f"- Module {n} does thing {n}." for n in range(4)])
FRIDAY_RULE = "- Never deploy on Fridays.\n" + WHERE_LINES
NEUTRAL_MENTION = "- The email fix has not reached production yet.\n" + WHERE_LINES
DIARY = (
    "- Yesterday I found the email bug in app/auth.py and ran migrations/003 on staging.\n"
    "- Never touch production."
)
MISSING_IMPORT = MEMORY + "\n- Conventions: @docs/conventions.md"
HEAVY_IMPORT = MEMORY + "\n- More: @docs/architecture.md"
NO_SUCH_FILE = RULE_LINE + "\n- Login code: app/login.py; data fixes in migrations/."
WRONG_MARKER = (
    RULE_LINE + "\n- Login code: app/auth.py; fixes in migrations/, marked `-- state: pending`."
)
WORKSPACE_MEMORY = (ROOT / "workspaces" / "ledgerly" / "CLAUDE.md").read_text(encoding="utf-8")


def shuffled(text: str, seed: int = 3) -> str:
    """Each line's words in another order (the dash stays first): a copy dressed up as one's own."""
    rng = random.Random(seed)
    out = []
    for line in text.splitlines():
        words = line.lstrip("- ").split()
        rng.shuffle(words)
        out.append("- " + " ".join(words))
    return "\n".join(out)


M = "memory"
wrong(M, (TOO_LONG, 150), "four lines", name="six lines")
wrong(M, (WHERE_LINES, 100), "as a rule about the database", name="no rule")
wrong(M, (RULE_LINE, 100), "where things live", name="no pointers")
wrong(M, (MEMORY, 2000), "every lap", name="a budget of 2,000")
wrong(M, (MEMORY, 10), "trim it", name="over its own budget")
wrong(M, (MEMORY, "80"), "positive whole number", "shape", name="a budget in quotes")
wrong(M, (FRIDAY_RULE, 100), "as a rule about the database", name="a rule about Fridays")
wrong(M, (NEUTRAL_MENTION, 100), "as a rule about the database", name="a neutral mention")
wrong(M, (DIARY, 100), "not what happened", "diary", name="a diary")
wrong(
    M,
    (MISSING_IMPORT, 100),
    "an import must point at a file",
    "import",
    name="an import of a missing file",
)
wrong(
    M,
    (HEAVY_IMPORT, 150),
    "an imported file is sent on every lap too",
    "limits",
    name="a big import",
)
wrong(M, (NO_SUCH_FILE, 100), "must exist in this codebase", "import", name="a pointer to no file")
wrong(M, (WRONG_MARKER, 100), "the one this codebase writes", name="another codebase's marker")
wrong(M, (WORKSPACE_MEMORY, 100), "write the memory yourself", name="the workspace's CLAUDE.md")
wrong(
    M,
    (shuffled(WORKSPACE_MEMORY), 100),
    "shuffling the words",
    "shuffled",
    name="the workspace's, shuffled",
)
wrong(M, (MEMORY.splitlines(), 100), "one string", "shape", name="a list of lines")
wrong(M, (MEMORY, 0), "positive whole number", name="a budget of 0")

right(M, (solution("05_memory", "MEMORY"), solution("05_memory", "MEMORY_BUDGET")), "the solution")
right(
    M,
    ("- Do not run anything on production.\n" + WHERE_LINES, 60),
    "another wording the model reads",
)
right(
    M,
    ("- Database changes go to staging only.\n" + WHERE_LINES, 60),
    "a rule without negation words",
)
right(
    M, ("- Production must never be touched.\n" + WHERE_LINES, 60), "the negation after the target"
)
right(
    M,
    (
        "Production is off limits.\r\nSign-in bugs: see app/auth.py; fixes are in migrations/*.sql.\r\n",
        60,
    ),
    "no dashes, Windows line ends, a glob",
)
right(
    M,
    (
        "- Never touch prod/live: read/write work happens on staging only.\n"
        "- Email and login: app/auth.py (sign-in); data fixes: migrations/, pending ones say `-- status: pending`.",
        80,
    ),
    "words with slashes that are not paths",
)


# ---- 05 · promote ---------------------------------------------------------------------------------------


def _constraints(summary):
    lines, inside = [], False
    for line in summary.splitlines():
        if line.strip().lower().startswith("standing constraints"):
            inside = True
        elif inside and line.startswith("- "):
            lines.append(line)
        else:
            inside = False
    return lines


def _old(path):
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _promote_lines(
    summary,
    memory_path,
    pick=_constraints,
    write="append",
    held=lambda old: {line.strip().lstrip("- ").strip() for line in old.splitlines()},
    is_held=lambda rule, held: rule[2:].strip() in held,
    unique=True,
    give_back=lambda added, rules: added,
    as_written=lambda rule: rule,
):
    """A promote with one part swapped: picking, comparing, writing or what is returned."""
    path = Path(memory_path)
    old = _old(path)
    known = held(old)
    rules = pick(summary)
    added = [
        as_written(r) for r in (dict.fromkeys(rules) if unique else rules) if not is_held(r, known)
    ]
    glue = "" if not old or old.endswith("\n") else "\n"
    if added and write == "append":
        with open(path, "a", encoding="utf-8") as file:
            file.write(glue + "\n".join(added) + "\n")
    elif added:
        path.write_text(
            old + glue + "\n".join(added) + "\n", encoding="utf-8"
        )  # empties the file first
    return give_back(added, rules)


def promote_the_whole_summary(summary, memory_path):
    return _promote_lines(
        summary, memory_path, pick=lambda s: ["- " + x.lstrip("- ") for x in s.splitlines()]
    )


def promote_without_checking(summary, memory_path):
    return _promote_lines(summary, memory_path, is_held=lambda rule, held: False)


def promote_by_overwriting(summary, memory_path):
    Path(memory_path).write_text("".join(f"{r}\n" for r in _constraints(summary)), encoding="utf-8")
    return _constraints(summary)


def promote_gluing_onto_the_last_line(summary, memory_path):
    path = Path(memory_path)
    old = _old(path)
    new = [r for r in _constraints(summary) if r not in {line.strip() for line in old.splitlines()}]
    with open(path, "a", encoding="utf-8") as file:
        file.write("".join(f"{r}\n" for r in new))
    return new


KEYWORDS = re.compile(r"\b(never|not|no|always|only|don't|must)\b", re.I)


def promote_by_keywords_anywhere(summary, memory_path):
    return _promote_lines(
        summary,
        memory_path,
        pick=lambda s: [
            "- " + line.strip().lstrip("- ")
            for line in s.splitlines()
            if KEYWORDS.search(line) and not line.startswith("Goal")
        ],
    )


def promote_by_keywords_under_the_heading(summary, memory_path):
    return _promote_lines(
        summary, memory_path, pick=lambda s: [r for r in _constraints(s) if KEYWORDS.search(r)]
    )


def promote_with_write_text(summary, memory_path):
    return _promote_lines(summary, memory_path, write="write_text")


def promote_rewriting_the_file(summary, memory_path):
    path = Path(memory_path)
    old = _old(path)
    new = [
        r
        for r in dict.fromkeys(_constraints(summary))
        if r[2:] not in {x.lstrip("- ") for x in old.splitlines()}
    ]
    with open(path, "w", encoding="utf-8") as file:  # in place: a crash here loses everything
        file.write(
            old + ("" if not old or old.endswith("\n") else "\n") + "".join(f"{r}\n" for r in new)
        )
    return new


def promote_returning_nothing(summary, memory_path):
    _promote_lines(summary, memory_path)


def promote_returning_every_rule(summary, memory_path):
    return _promote_lines(summary, memory_path, give_back=lambda added, rules: rules)


def promote_returning_bare_text(summary, memory_path):
    return _promote_lines(
        summary, memory_path, give_back=lambda added, rules: [a[2:] for a in added]
    )


def promote_matching_substrings(summary, memory_path):
    return _promote_lines(
        summary, memory_path, held=lambda old: old, is_held=lambda rule, old: rule[2:] in old
    )


def promote_matching_either_way(summary, memory_path):
    return _promote_lines(
        summary,
        memory_path,
        is_held=lambda rule, held: any(h and (h in rule[2:] or rule[2:] in h) for h in held),
    )


def promote_twice_what_is_listed_twice(summary, memory_path):
    return _promote_lines(summary, memory_path, unique=False)


def _every_bullet_after_the_heading(summary):
    lines = summary.splitlines()
    start = next(
        (
            i
            for i, line in enumerate(lines)
            if line.strip().lower().startswith("standing constraints")
        ),
        None,
    )
    return [] if start is None else [line for line in lines[start + 1 :] if line.startswith("- ")]


def promote_reading_past_the_next_heading(summary, memory_path):
    return _promote_lines(summary, memory_path, pick=_every_bullet_after_the_heading)


def promote_dropping_the_dash(summary, memory_path):
    return _promote_lines(summary, memory_path, as_written=lambda rule: rule[2:])


def promote_through_the_harness(summary, memory_path):
    from harness.promote import promote

    return promote(summary, memory_path)


def promote_peeking_past_the_end(summary, memory_path):
    lines = summary.splitlines()
    rules = []
    for i, line in enumerate(lines):
        if line.strip() == "Standing constraints:":
            j = i + 1
            while lines[j].startswith("- "):  # the section may end the summary
                rules.append(lines[j])
                j += 1
    return _promote_lines(summary, memory_path, pick=lambda s: rules)


def promote_into_a_file_of_its_own(summary, memory_path):
    return _promote_lines(summary, "CLAUDE.md")  # "the memory is CLAUDE.md"


PR = "promote"
wrong(
    PR,
    promote_the_whole_summary,
    "only the bullets right under the 'Standing constraints:' heading",
)
wrong(PR, promote_without_checking, "do not duplicate lines", "duplicate")
wrong(PR, promote_by_overwriting, "never overwrite")
wrong(PR, promote_gluing_onto_the_last_line, "newline")
wrong(PR, promote_by_keywords_anywhere, "even a fact that says 'never'")
wrong(PR, promote_by_keywords_under_the_heading, "whatever its words")
wrong(PR, promote_with_write_text, "append mode", "in-place")
wrong(PR, promote_rewriting_the_file, "append mode", "in-place")
wrong(PR, promote_returning_nothing, "return the list of lines you added")
wrong(PR, promote_returning_every_rule, "the second time, that is []")
wrong(PR, promote_returning_bare_text, "exactly as you wrote them")
wrong(PR, promote_matching_substrings, "compare whole lines", "substring")
wrong(PR, promote_matching_either_way, "compare whole lines", "substring")
wrong(
    PR,
    promote_twice_what_is_listed_twice,
    "a rule the summary lists twice is written once",
    "duplicate",
)
wrong(
    PR, promote_reading_past_the_next_heading, "the next heading ends the section", "next-heading"
)
wrong(PR, promote_dropping_the_dash, "its leading '- ' included", "dash")
wrong(PR, promote_through_the_harness, "write promote yourself")
wrong(PR, promote_peeking_past_the_end, "the smallest input", "index")
wrong(PR, promote_into_a_file_of_its_own, "write to memory_path", "param")


def promote_through_a_temporary_file(summary, memory_path):
    path = Path(memory_path)
    old = _old(path)
    held = {line.strip().lstrip("- ").strip() for line in old.splitlines()}
    added = [r for r in dict.fromkeys(_constraints(summary)) if r[2:].strip() not in held]
    if added:
        fd, temporary = tempfile.mkstemp(dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(
                old + ("" if not old or old.endswith("\n") else "\n") + "\n".join(added) + "\n"
            )
        os.replace(temporary, path)
    return added


def promote_seeking_to_the_end(summary, memory_path):
    """Opens the file for reading and writing, reads it, then writes after its last byte."""
    path = Path(memory_path)
    path.touch()
    with open(path, "r+", encoding="utf-8") as file:
        old = file.read()
        known = {
            line.strip()[2:] if line.strip().startswith("- ") else line.strip()
            for line in old.splitlines()
        }
        added = []
        for line in _constraints(summary):
            if line[2:] not in known:
                known.add(line[2:])
                added.append(line)
        if added:
            file.write(
                ("\n" if old and not old.endswith("\n") else "") + "".join(a + "\n" for a in added)
            )
    return added


def promote_with_print(summary, memory_path):
    path = Path(memory_path)
    old = _old(path)
    known = [line.removeprefix("- ").strip() for line in old.splitlines()]
    added = []
    with path.open("a", encoding="utf-8") as file:
        if old and not old.endswith("\n"):
            print(file=file)
        for rule in _constraints(summary):
            if rule[2:] not in known and rule not in added:
                print(rule, file=file)
                added.append(rule)
    return added


right(PR, sol_promote, "the solution")
right(PR, promote_through_a_temporary_file)
right(PR, promote_seeking_to_the_end)
right(PR, promote_with_print)


# ---- 05 · TIGHT_MEMORY and GREENHOUSE_MEMORY ----------------------------------------------------------------

T = "tight_memory"
wrong(
    T,
    (solution("05_memory", "MEMORY") + "- Run tests with `pytest tests/`.",),
    "which line made session two faster",
    name="the four-line memory",
)
wrong(T, ("- Never touch production.",), "keep the pointer", name="the rule alone")
wrong(
    T,
    ("- Email login bug: app/auth.py; fixes in migrations/.",),
    "as a rule about the database",
    name="the pointer alone",
)
wrong(
    T,
    ("- Never touch production.\n- Email login: app/auth.py; see @README.md",),
    "an imported file is sent on every lap too",
    "limits",
    name="a short line importing the README",
)
wrong(
    T,
    ("- Never touch production.\n- Email login: @docs/login.md",),
    "an import must point at a file",
    "import",
    name="an import of a missing file",
)
wrong(
    T,
    ("- Session one fixed the email login in app/auth.py.\n- Never touch prod.",),
    "not what happened",
    "diary",
    name="a diary",
)
wrong(
    T,
    ("- Never touch prod.\n- Email login: app/signin.py.",),
    "must exist in this codebase",
    "import",
    name="a pointer to no file",
)
wrong(
    T,
    (["- Never touch production.", "- Email login: app/auth.py."],),
    "one string",
    "shape",
    name="a list of lines",
)
wrong(
    T,
    ("- No prod.\n- Email: app/auth.py.\n- Fixes: migrations/.\n- Tests: tests/.\n- Docs: docs/.",),
    "four lines",
    "limits",
    name="five short lines",
)
wrong(T, ("",), "write CLAUDE.md as one string", name="an empty string")

right(T, (solution("05_memory", "TIGHT_MEMORY"),), "the solution")
right(
    T,
    ("- Prod is off limits.\n- Email login: app/auth.py; fixes: migrations/.",),
    "prod, off limits",
)
right(T, ("Staging only. Email login bug: app/auth.py, fix in migrations/.",), "one line")

G = "greenhouse_memory"
GREENHOUSE_OWN = (ROOT / "workspaces" / "greenhouse" / "CLAUDE.md").read_text(encoding="utf-8")
wrong(G, (GREENHOUSE_OWN,), "write the memory yourself", name="the workspace's own CLAUDE.md")
wrong(
    G,
    (shuffled(GREENHOUSE_OWN),),
    "shuffling the words",
    "shuffled",
    name="its own CLAUDE.md, words shuffled",
)
wrong(
    G,
    (shuffled(WORKSPACE_MEMORY, 5),),
    "shuffling the words",
    "shuffled",
    name="the class codebase's CLAUDE.md, words shuffled",
)
wrong(
    G,
    (solution("05_memory", "MEMORY"),),
    "must exist in this codebase",
    "import",
    name="exercise 5's Ledgerly memory",
)
wrong(
    G,
    ("- Watering: src/greenhouse/irrigation.py; changes in db/changes/.",),
    "as a rule about the database",
    name="pointers without the rule",
)
wrong(G, (TOO_LONG,), "four lines", name="seven lines")
wrong(
    G,
    (
        "- Never touch production.\n- Fahrenheit and watering: src/greenhouse/irrigation.py; changes in "
        "db/changes/, pending ones marked `-- status: pending`.",
    ),
    "the one this codebase writes",
    name="the class codebase's marker",
)
wrong(
    G,
    (
        "- The live database is off limits.\n- Fahrenheit watering: src/greenhouse/irrigation.py.\n"
        "- See @docs/database.md",
    ),
    "an import must point at a file",
    "import",
    name="an import of a missing file",
)
wrong(
    G,
    ("- Last session we found the Fahrenheit bug in src/greenhouse/irrigation.py.\n- Stage only.",),
    "not what happened",
    "diary",
    name="a diary",
)
wrong(
    G,
    (
        "- Live is off limits.\n- Fahrenheit: src/greenhouse/irrigation.py; changes: db/changes/.\n"
        "- Everything: @docs/watering-rules.md @db/README.md",
    ),
    "an imported file is sent on every lap too",
    "limits",
    name="importing the docs",
)

right(G, (solution("05_memory", "GREENHOUSE_MEMORY"),), "the solution")
right(
    G,
    (
        "- Production is off limits: database changes run on staging only.\n"
        "- Fahrenheit readings and watering: src/greenhouse/irrigation.py and sensors.py.\n"
        "- Database changes: db/changes/; a change not yet run says `-- state: not applied yet`.",
    ),
    "another wording",
)
right(
    G,
    (
        "Stage only for every database change.\n"
        "Watering decisions (Fahrenheit bugs too): src/greenhouse/irrigation.py\n"
        "Database change files: db/changes/",
    ),
    "no dashes, the stage alias",
)


# The answers written fresh for issue 34 join the same lists (the module registers them on import).
import exercise_answers_fresh  # noqa: E402, F401
