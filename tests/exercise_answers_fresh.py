"""More answers to every task, written fresh for issue 34 (none is a copy of one in exercise_answers.py).

The wrong ones are of the kinds that slipped through the checks of issue 27: right only on the cases a
check happened to use (lap numbers from 1, a request that always fits, short summaries, ASCII text,
runs that never end the one way a rule is about), text matched in a way that is not what it looks like
(a pattern built from the text, its words anywhere, the JSON of the desk), prompts with a number typed
in or a template padded past a similarity cut-off, memories of joined copied lines, imports outside
the codebase, pointers into the repository, diary lines in the passive voice, and code that raises on
an input the old checks never gave. The right ones are unusual on purpose: numpy and Decimal numbers,
keyword calls with the documented names, deep copies, other notice formats, other loops.

Registered into the same WRONG and RIGHT lists (``exercise_answers`` imports this module last), so
``test_exercise_corpus.py`` runs them like the others.
"""

from __future__ import annotations

import collections
import copy
import itertools
import json
import re
from decimal import Decimal
from pathlib import Path

import numpy as np
from exercise_answers import (
    WRONG,
    Lap,
    right,
    sol_compact,
    sol_first_lap,
    sol_pinned,
    sol_promote,
    sol_sliding,
    sol_split,
    solution,
    wrong,
)

from exercises import checks
from harness.sliding_window import DROPPED_NOTICE
from harness.messages import blocks_of, safe_cuts, text_of, tool_results, user
from harness.prompts import COMPACTION_TEMPLATE
from harness.tools import WORKSPACE

# ---- 01 · tokens_of ------------------------------------------------------------------------------------


def tokens_in_bytes_inside_results(messages):
    """Counts characters everywhere but in tool results, where it counts UTF-8 bytes."""
    total = 0
    for m in messages:
        for b in blocks_of(m):
            part = text_of({"role": m["role"], "content": [b]})
            total += len(part.encode()) if b.get("type") == "tool_result" else len(part)
    return total // 4


def tokens_of_the_users_only(messages):
    """'The model wrote the rest, it knows it': only the user's messages are counted."""
    return sum(len(text_of(m)) for m in messages if m["role"] == "user") // 4


def tokens_rounded_per_block(messages):
    return sum(
        round(len(text_of({"role": m["role"], "content": [b]})) / 4)
        for m in messages
        for b in blocks_of(m)
    )


def tokens_as_numpy(messages):
    return np.int64(sum(len(text_of(m)) for m in messages)) // 4


def tokens_as_a_decimal(messages):
    return Decimal(sum(len(text_of(m)) for m in messages)) / 4


def tokens_by_reduce(messages):
    import functools

    return functools.reduce(lambda n, m: n + len(text_of(m)), messages, 0) / 4


T = "tokens_of"
wrong(T, tokens_in_bytes_inside_results, "UTF-8 bytes", "text")
wrong(T, tokens_of_the_users_only, "the assistant's too", "text")
wrong(T, tokens_rounded_per_block, "round each message")
right(T, tokens_as_numpy)
right(T, tokens_as_a_decimal)
right(T, tokens_by_reduce)


# ---- 01 · smallest_window and the overflow prediction ---------------------------------------------------


def window_of_the_last_bill(laps):
    """The last lap's bill minus the one before: 'the newest request is the bill's last step'."""
    return laps[-1].total_input - laps[-2].total_input


def window_as_an_array(laps):
    return np.array([max(lap.assembled_tokens for lap in laps)])


def window_of_lap_numbered_like_the_list(laps):
    """Looks the last lap up by its number, as if laps were numbered from 1."""
    return laps[laps[-1].number - 1].assembled_tokens


def window_as_numpy(laps):
    return np.max([lap.assembled_tokens for lap in laps])


def window_as_a_decimal(laps):
    return Decimal(max(lap.assembled_tokens for lap in laps))


def window_by_sorting_the_records(laps):
    return sorted(laps, key=lambda lap: lap.assembled_tokens)[-1].assembled_tokens


SW = "smallest_window"
wrong(SW, window_of_the_last_bill, "the smallest input", "one", "index")
wrong(SW, window_as_an_array, "return one number of tokens", "shape")
wrong(SW, window_of_lap_numbered_like_the_list, "reaches for an item the list does not have", "one")
right(SW, window_as_numpy)
right(SW, window_as_a_decimal)
right(SW, window_by_sorting_the_records)


OP = "overflow_prediction"
wrong(
    OP, (Lap(0, lambda n: f"lap {n}"), 6000), "whole lap number", "shape", name="'lap 11' as text"
)
wrong(OP, (Decimal("10.5"), 6000), "whole lap number", name="Decimal 10.5")
wrong(OP, (Lap(-4, np.int64), 6000), "how many more laps fit", name="numpy, four laps early")
right(OP, (Lap(0, np.int64), 6000), "numpy's int64")
right(OP, (Lap(0, Decimal), 6000), "a Decimal")
right(OP, (Lap(1, lambda n: np.float64(n)), 6000), "numpy's float64, one lap late")


# ---- 02 · sliding_window ---------------------------------------------------------------------------------


def window_in_pairs(messages, budget, counter):
    """Drops whole 'turns' two messages at a time from message 1: right only if every turn is a pair."""
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    notice = user(DROPPED_NOTICE)
    for cut in range(1, len(messages), 2):
        desk = [notice] + messages[cut:]
        if sum(counter(m) for m in desk) <= budget:
            return desk
    return []


def window_with_the_notice_as_the_model(messages, budget, counter):
    desk = sol_sliding(messages, budget, counter)
    if desk and desk[0] == user(DROPPED_NOTICE):
        return [{"role": "assistant", "content": DROPPED_NOTICE}] + desk[1:]
    return desk


def window_with_the_class_counter(messages, budget, counter):
    return sol_sliding(messages, budget, lambda m: len(text_of(m)) // 4 + 4)


def window_with_keyword_calls(messages, budget, counter):
    """Calls the counter with the documented parameter name, counter(message=...)."""
    size = lambda part: sum(counter(message=m) for m in part)  # noqa: E731
    if size(messages) <= budget:
        return messages.copy()
    notice = user(DROPPED_NOTICE)
    best = None
    for cut in safe_cuts(messages)[:-1][::-1]:
        if cut == 0 or size([notice] + messages[cut:]) > budget:
            break
        best = cut
    return [notice, *messages[best:]] if best else []


def window_from_a_deque(messages, budget, counter):
    """Takes messages from the newest back into a deque, remembering the last safe place to stop."""
    if sum(map(counter, messages)) <= budget:
        return [*messages]
    safe, desk = set(safe_cuts(messages)), collections.deque()
    used, best = counter(user(DROPPED_NOTICE)), None
    for i in range(len(messages) - 1, 0, -1):
        used += counter(messages[i])
        if used > budget:
            break
        desk.appendleft(messages[i])
        if i in safe:
            best = len(desk)
    return [user(DROPPED_NOTICE)] + list(desk)[len(desk) - best :] if best else []


W = "sliding_window"
wrong(W, window_in_pairs, "it is a safe cut too")
wrong(W, window_with_the_notice_as_the_model, "exactly user(DROPPED_NOTICE)")
wrong(W, window_with_the_class_counter, "the counter you are given", "param")
right(W, window_with_keyword_calls)
right(W, window_from_a_deque)


# ---- 02 · first_lap_without ------------------------------------------------------------------------------


def _first(laps, holds):
    seen = False
    for lap in laps:
        if holds(lap):
            seen = True
        elif seen:
            return lap.number
    return None


def first_lap_by_pattern(laps, text):
    return _first(laps, lambda lap: any(re.search(text, text_of(m).lower()) for m in lap.sent))


def first_lap_by_its_words(laps, text):
    return _first(
        laps,
        lambda lap: all(any(w in text_of(m).lower() for m in lap.sent) for w in text.split()),
    )


def first_lap_in_the_json(laps, text):
    return _first(laps, lambda lap: text in json.dumps(lap.sent).lower())


def first_lap_by_position(laps, text):
    """Counts laps from 1 itself instead of reading lap.number."""
    seen = False
    for i, lap in enumerate(laps, start=1):
        if any(text in text_of(m).lower() for m in lap.sent):
            seen = True
        elif seen:
            return i
    return None


def first_lap_in_the_joined_desk(laps, text):
    return _first(laps, lambda lap: text in " ".join(text_of(m) for m in lap.sent).lower())


def first_lap_as_numpy(laps, text):
    found = sol_first_lap(laps, text)
    return None if found is None else np.int64(found)


def first_lap_by_casefold(laps, text):
    return _first(laps, lambda lap: any(text.casefold() in text_of(m).casefold() for m in lap.sent))


def first_lap_with_find(laps, text):
    holding = [any(text_of(m).lower().find(text) >= 0 for m in lap.sent) for lap in laps]
    for i, here in enumerate(holding):
        if not here and True in holding[:i]:
            return laps[i].number
    return None


F = "first_lap_without"
wrong(F, first_lap_by_pattern, "not with re", "text")
wrong(F, first_lap_by_its_words, "not for each word on its own", "text")
wrong(F, first_lap_in_the_json, "not str(lap.sent) or json.dumps", "text")
wrong(F, first_lap_by_position, "return lap.number, not the position", "one")
wrong(F, first_lap_in_the_joined_desk, "not the whole desk joined into one string", "text")
right(F, first_lap_as_numpy)
right(F, first_lap_by_casefold)
right(F, first_lap_with_find)


# ---- 02 · pinned_window and remarks_window ---------------------------------------------------------------


def pinned_trusting_the_request_to_fit(messages, budget, counter):
    """'The request always fits': never looks at its size before pinning it."""
    if not messages:
        return []
    return messages[:1] + sol_sliding(messages[1:], budget - counter(messages[0]), counter)


def pinned_counting_the_notice_twice(messages, budget, counter):
    if not messages or counter(messages[0]) > budget:
        return []
    room = budget - counter(messages[0]) - counter(user(DROPPED_NOTICE))
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    return messages[:1] + sol_sliding(messages[1:], room, counter)


def pinned_with_keyword_calls(messages, budget, counter):
    head = messages[:1]
    if head and counter(message=head[0]) > budget:
        return []
    return head + sol_sliding(
        messages=messages[1:], budget=budget - sum(map(counter, head)), counter=counter
    )


def pinned_on_a_copy(messages, budget, counter):
    return sol_pinned(copy.deepcopy(messages), budget, counter)


P = "pinned_window"
wrong(P, pinned_trusting_the_request_to_fit, "when not even the request fits", "limits")
wrong(P, pinned_counting_the_notice_twice, "keep the newest messages that fit")
right(P, pinned_with_keyword_calls)
right(P, pinned_on_a_copy)


def _said(messages):
    return [
        b["text"]
        for m in messages
        if m["role"] == "user"
        for b in blocks_of(m)
        if b["type"] == "text"
    ]


def _remarks(messages, budget, counter, notice_of, order=lambda cuts: cuts):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    if not messages or counter(messages[0]) > budget:
        return []
    for cut in order(safe_cuts(messages, start=2)[:-1]):
        desk = messages[:1] + [notice_of(messages[1:cut])] + messages[cut:]
        if sum(counter(m) for m in desk) <= budget:
            return desk
    return messages[:1]


def remarks_sorted(messages, budget, counter):
    return _remarks(
        messages,
        budget,
        counter,
        lambda gone: user(DROPPED_NOTICE + " " + " ".join(sorted(_said(gone)))),
    )


def remarks_from_result_messages_only(messages, budget, counter):
    def notice(gone):
        said = [
            b["text"]
            for m in gone
            if m["role"] == "user" and tool_results(m)
            for b in blocks_of(m)
            if b["type"] == "text"
        ]
        return user(DROPPED_NOTICE + " " + " ".join(said))

    return _remarks(messages, budget, counter, notice)


def remarks_with_a_notice_of_its_own(messages, budget, counter):
    return _remarks(
        messages, budget, counter, lambda gone: user("Earlier: " + " ".join(_said(gone)))
    )


def remarks_with_bullets(messages, budget, counter):
    return _remarks(
        messages,
        budget,
        counter,
        lambda gone: user("\n".join([DROPPED_NOTICE] + [f"- {r}" for r in _said(gone)])),
    )


def remarks_with_the_notice_as_blocks(messages, budget, counter):
    """The notice as a user message of text blocks: the notice's line, then one block per remark."""
    return _remarks(
        messages,
        budget,
        counter,
        lambda gone: {
            "role": "user",
            "content": [{"type": "text", "text": t} for t in [DROPPED_NOTICE] + _said(gone)],
        },
    )


R = "remarks_window"
wrong(R, remarks_sorted, "in the order they were said", "partial")
wrong(R, remarks_from_result_messages_only, "plain string is what the user wrote too", "partial")
wrong(R, remarks_with_a_notice_of_its_own, "start the notice with DROPPED_NOTICE")
right(R, remarks_with_bullets)
right(R, remarks_with_the_notice_as_blocks)


# ---- 03 · split_zones and compact ------------------------------------------------------------------------


def split_one_short(messages, keep):
    """An off-by-one tail: keeps keep - 1 messages."""
    if not messages:
        return [], [], []
    cut = min(len(messages), max(1, len(messages) - keep + 1))
    while cut < len(messages) and tool_results(messages[cut]):
        cut -= 1
    return messages[:1], messages[1:cut], messages[cut:]


def split_reading_the_first_block(messages, keep):
    """Looks for a tool_result in content[0]["type"]: a plain string message has no such thing."""
    if not messages:
        return [], [], []
    cut = max(1, len(messages) - keep)
    while cut < len(messages) and messages[cut]["content"][0]["type"] == "tool_result":
        cut -= 1
    return messages[:1], messages[1:cut], messages[cut:]


def split_keeping_all_for_zero(messages, keep):
    """messages[-keep:] with keep = 0 is the whole list: here, everything after the request."""
    if not messages:
        return [], [], []
    cut = max(1, len(messages) - keep) if keep else 1
    while cut < len(messages) and tool_results(messages[cut]):
        cut -= 1
    return messages[:1], messages[1:cut], messages[cut:]


def split_walking_from_the_front(messages, keep):
    if not messages:
        return ([], [], [])
    cut = 1
    while len(messages) - cut > keep or (cut < len(messages) and tool_results(messages[cut])):
        if cut < len(messages) and tool_results(messages[cut]) and len(messages) - cut <= keep:
            cut -= 1
            break
        cut += 1
    return (messages[:1], messages[1:cut], messages[cut:])


S = "split_zones"
wrong(S, split_one_short, "one message MORE")
wrong(S, split_reading_the_first_block, "read the traceback", "text")
wrong(S, split_keeping_all_for_zero, "keep_messages=0 means no tail", "param")
right(S, split_walking_from_the_front)


def compact_with_a_card_without_content(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if not middle:
        return list(messages)
    return (
        head + [{"role": "user", "text": "[Summary of earlier work]\n" + summarize(middle)}] + tail
    )


def compact_on_one_line(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if not middle:
        return list(messages)
    return head + [user("[Summary of earlier work] " + summarize(middle))] + tail


def compact_summarizing_all_but_the_request(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if not middle:
        return list(messages)
    return head + [user("[Summary of earlier work]\n" + summarize(messages[1:]))] + tail


def compact_with_a_wrong_keyword(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if not middle:
        return list(messages)
    return head + [user("[Summary of earlier work]\n" + summarize(messages=middle))] + tail


def compact_with_the_documented_keyword(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if not middle:
        return messages[:]
    return [*head, user("[Summary of earlier work]\n" + summarize(middle=middle)), *tail]


def compact_with_the_card_as_a_block(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if not middle:
        return list(messages)
    text = "[Summary of earlier work]\n" + summarize(middle)
    return head + [{"role": "user", "content": [{"type": "text", "text": text}]}] + tail


CP = "compact"
wrong(CP, compact_with_a_card_without_content, "each a message dict", "shape")
wrong(CP, compact_on_one_line, "then a newline")
wrong(CP, compact_summarizing_all_but_the_request, "use your split_zones")
wrong(CP, compact_with_a_wrong_keyword, "read the traceback", "param")
right(CP, compact_with_the_documented_keyword)
right(CP, compact_with_the_card_as_a_block)
right(
    CP, lambda ms, summarize, keep: copy.deepcopy(sol_compact(ms, summarize, keep)), "a deep copy"
)


# ---- 03 · the prompts ------------------------------------------------------------------------------------

PADDED_TEMPLATE = (
    COMPACTION_TEMPLATE.replace("{focus}", "")
    + "\nBe thorough and careful and exact, and remember that the notes are read by a copy of you "
    "that knows nothing else, so write plainly and keep every name, every path, every number "
    "and every identifier exactly as it appears, because a small slip here costs a lot later."
)
NINETY_WORDS = """\
Summarize the transcript below in at most 90 words, under these headings:
- Standing constraints: every rule the user gave, in the user's own words.
- Facts: the cause and the fix, with exact paths.
- Done / pending: what is finished and what is left.
<transcript>
{transcript}
</transcript>"""
RULES_FIRST = """\
Fold this stretch of the session into notes of at most {max_words} words.
- Standing constraints: copy each rule the user laid down, as they said it.
- Facts: exact paths, line numbers and names that matter.
- Done / pending: the state of the work.
<transcript>
{transcript}
</transcript>"""
TERSE = """\
Summarise the transcript in no more than {max_words} words, these sections only:
- Standing constraints: the rules the user set, verbatim
- Facts: file:line and the cause
<transcript>
{transcript}
</transcript>"""

P3, P4 = "compaction_prompt", "two_rules_prompt"
wrong(P3, PADDED_TEMPLATE, "write the prompt yourself", "shuffled", name="the template, padded")
wrong(P3, NINETY_WORDS, "not a number of your own", "limits", name="90 words typed in")
right(P3, RULES_FIRST, "rules first, 'fold'")
right(P3, TERSE, "British spelling, terse sections")
wrong(P4, PADDED_TEMPLATE, "write the prompt yourself", name="the template, padded")
wrong(
    P4, NINETY_WORDS.replace("90", "40"), "not a number of your own", "limits", name="40 typed in"
)
right(P4, TERSE, "British spelling, terse sections")


# ---- 04 · running_summary, token_bill, cheapest_settings ---------------------------------------------------


def fold_keeping_the_old_summary_on_a_blank(events, fold, chunk_size=4, summary=""):
    """'An empty answer must be a glitch': keeps the old summary when a fold gives back ''."""
    for start in range(0, len(events), chunk_size):
        summary = fold(summary, events[start : start + chunk_size]) or summary
    return summary


def fold_cutting_the_summary_short(events, fold, chunk_size=4, summary=""):
    """Keeps the running summary under 80 characters: right only while summaries are short."""
    summary = summary[:80]
    for start in range(0, len(events), chunk_size):
        summary = fold(summary, events[start : start + chunk_size])[:80]
    return summary


def fold_with_wrong_keywords(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events), chunk_size):
        summary = fold(summary=summary, events=events[start : start + chunk_size])
    return summary


def fold_with_the_documented_keywords(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events), chunk_size):
        summary = fold(summary=summary, chunk=events[start : start + chunk_size])
    return summary


def fold_with_an_iterator(events, fold, chunk_size=4, summary=""):
    it = iter(events)
    while chunk := list(itertools.islice(it, chunk_size)):
        summary = fold(summary, chunk)
    return summary


RS = "running_summary"
wrong(RS, fold_keeping_the_old_summary_on_a_blank, "return the summary the last fold gave back")
wrong(RS, fold_cutting_the_summary_short, "or the one you were given")
wrong(RS, fold_with_wrong_keywords, "read the traceback", "param")
right(RS, fold_with_the_documented_keywords)
right(RS, fold_with_an_iterator)


def bill_by_lap_numbers(laps):
    """Walks the laps by number, as if they were numbered from 1."""
    billed = raw = 0
    for n in range(1, len(laps) + 1):
        lap = next((lap for lap in laps if lap.number == n), None)
        if lap:
            billed, raw = billed + lap.billed_input, raw + lap.raw_tokens
    return billed, raw


def bill_of_the_desk_and_the_last_fold(laps):
    return sum(lap.assembled_tokens for lap in laps) + (
        laps[-1].billed_input - laps[-1].assembled_tokens if laps else 0
    ), sum(lap.raw_tokens for lap in laps)


def bill_with_numpy(laps):
    return (
        np.sum([lap.billed_input for lap in laps], dtype=np.int64),
        np.sum([lap.raw_tokens for lap in laps], dtype=np.int64),
    )


def bill_with_decimals(laps):
    return (
        sum((Decimal(lap.billed_input) for lap in laps), Decimal(0)),
        sum((Decimal(lap.raw_tokens) for lap in laps), Decimal(0)),
    )


def bill_by_zipping(laps):
    """Both sums at once: zip the pairs of every lap, then add each column up."""
    return tuple(map(sum, zip(*((lap.billed_input, lap.raw_tokens) for lap in laps)))) or (0, 0)


TB = "token_bill"
wrong(TB, bill_by_lap_numbers, "lap 1 counts too", "one")
wrong(TB, bill_of_the_desk_and_the_last_fold, "fold calls included")
right(TB, bill_with_numpy)
right(TB, bill_with_decimals)
right(TB, bill_by_zipping)


def _pick(window, task, run_with, keep, key=lambda run: run.laps[-1].total_input):
    runs = {(c, k): run_with(c, k, window, task) for c in checks.CHUNKS for k in checks.KEEPS}
    return min((pair for pair in runs if keep(runs[pair])), key=lambda pair: key(runs[pair]))


def settings_on_staging_only(window, task, run_with):
    """Half the rule: the fix went to staging, whether or not the run finished."""
    return _pick(window, task, run_with, lambda run: run.database_target == "staging")


def settings_that_answered_only(window, task, run_with):
    """The other half: the run answered, wherever its fix went."""
    return _pick(window, task, run_with, lambda run: run.stopped == "answered")


def settings_by_the_last_laps_bill(window, task, run_with):
    return _pick(
        window,
        task,
        run_with,
        lambda run: run.stopped == "answered" and run.database_target == "staging",
        key=lambda run: run.laps[-1].billed_input,
    )


def settings_with_a_copy_of_the_task(window, task, run_with):
    own = copy.deepcopy(task)
    ok = lambda run: run.stopped == "answered" and run.database_target == "staging"  # noqa: E731
    return _pick(window, own, run_with, ok)


def settings_with_keywords_and_numpy(window, task, run_with):
    best = None
    for c, k in itertools.product(checks.CHUNKS, checks.KEEPS):
        run = run_with(chunk_turns=c, tail_turns=k, window=window, task=task)
        if run.stopped == "answered" and run.database_target == "staging":
            bill = solution("04_running_summary", "token_bill")(run.laps)[0]
            if best is None or bill < best[0]:
                best = (bill, (np.int64(c), np.int64(k)))
    return best[1]


CS = "cheapest_settings"
wrong(CS, settings_on_staging_only, "a cheap run that fails is not cheap", "staging")
wrong(CS, settings_that_answered_only, "a cheap run that fails is not cheap", "staging")
wrong(CS, settings_by_the_last_laps_bill, "compare the bills (your token_bill)")
right(CS, settings_with_a_copy_of_the_task)
right(CS, settings_with_keywords_and_numpy)


# ---- 05 · memory ----------------------------------------------------------------------------------------

WS, GH = WORKSPACE, checks.GREENHOUSE
_ws = (WS / "CLAUDE.md").read_text(encoding="utf-8").splitlines()
_gh = (GH / "CLAUDE.md").read_text(encoding="utf-8").splitlines()
JOINED = f"{_ws[1]} {_ws[2][2:]}\n- A migration not yet run says `-- status: pending` on line 2.\n"
PASSIVE = (
    "- Never touch production: database changes go to staging only.\n"
    "- The login bug was fixed in app/auth.py by lower-casing emails.\n"
    "- Data fixes are SQL files in migrations/; a pending one says `-- status: pending`.\n"
)
IMPORT_OUTSIDE = (
    "- Never touch production: database changes go to staging only.\n"
    "- Login code: app/auth.py. Data fixes: SQL files in migrations/.\n"
    "- More notes: @../README.md\n"
)
REPO_POINTER = (
    "- Never touch production: database changes go to staging only.\n"
    "- Login code: app/auth.py; the agent loop is in harness/loop.py.\n"
    "- Data fixes are SQL files in migrations/.\n"
)
FRESH_MEMORY = (
    "- Hands off prod: every database change runs on staging.\n"
    "- Email sign-in: app/auth.py. Pending SQL fixes: migrations/.\n"
)
M = "memory"
wrong(
    M,
    (JOINED, 150),
    "shuffling the words of a copied line is still a copy",
    "shuffled",
    name="two lines joined",
)
wrong(M, (PASSIVE, 150), "not what happened", "diary", name="a diary line in the passive")
wrong(M, (IMPORT_OUTSIDE, 150), "a file of this codebase", "import", name="an import outside it")
wrong(
    M,
    (REPO_POINTER, 150),
    "must exist in this codebase",
    "import",
    name="a pointer into the repository",
)
right(M, (FRESH_MEMORY, np.int64(60)), "a budget as numpy's int64")

TM = "tight_memory"
wrong(
    TM,
    "- Never touch production.\n- More: @../../README.md\n",
    "a file of this codebase",
    "import",
    name="an import outside, 0 tokens",
)
wrong(
    TM,
    "- Prod was never touched; staging only.\n- The bug was found in app/auth.py.\n",
    "not what happened",
    "diary",
    name="passive diary",
)
right(TM, "- Hands off prod.\n- Email login: app/auth.py, migrations/.", "hands off prod")

GM = "greenhouse_memory"
JOINED_GH = f"{_gh[1]} {_gh[2][2:]}\n"
wrong(GM, JOINED_GH, "still a copy", "shuffled", name="two of its lines joined")
wrong(
    GM,
    "- The live database is never touched: changes go to staging.\n"
    "- The Fahrenheit bug was traced to src/greenhouse/irrigation.py.\n",
    "not what happened",
    "diary",
    name="passive diary",
)
wrong(
    GM,
    "- Never run anything on the live database; use staging.\n"
    "- Fahrenheit watering: src/greenhouse/irrigation.py; see also exercises/README.md.\n",
    "must exist in this codebase",
    "import",
    name="a pointer into the repository",
)
right(
    GM,
    "- Keep every database change on staging; the live one is off limits.\n"
    "- Fahrenheit watering bugs: src/greenhouse/irrigation.py and sensors.py.\n"
    "- DB changes: dated SQL in db/changes/, pending ones say `-- state: not applied yet`.\n",
    "fresh wording",
)


# ---- 05 · promote --------------------------------------------------------------------------------------


def promote_splitting_on_the_heading(summary, memory_path):
    """Splits the summary at the heading: a summary without one has no [1]."""
    after = summary.split("Standing constraints:")[1]
    rules = list(
        itertools.takewhile(lambda line: line.startswith("- "), after.strip().splitlines())
    )
    return _append(memory_path, rules)


def promote_past_a_blank_line(summary, memory_path):
    lines, rules, inside = summary.splitlines(), [], False
    for line in lines:
        if line.strip() == "Standing constraints:":
            inside = True
        elif inside and line.startswith("- "):
            rules.append(line)
        elif inside and line.strip():
            inside = False
    return _append(memory_path, rules)


def promote_comparing_lines_with_their_dash(summary, memory_path):
    """Compares whole lines, dash included: a rule held without its dash is written again."""
    path = Path(memory_path)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    added = [r for r in dict.fromkeys(_under(summary)) if r not in text.splitlines()]
    with open(path, "a", encoding="utf-8") as file:
        file.write(
            ("\n" if text and not text.endswith("\n") else "") + "".join(a + "\n" for a in added)
        )
    return added


def promote_by_rewriting_the_file(summary, memory_path):
    path = Path(memory_path)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    held = {
        line.strip()[2:] if line.startswith("- ") else line.strip() for line in old.splitlines()
    }
    added = [r for r in dict.fromkeys(_under(summary)) if r[2:] not in held]
    with open(path, "w", encoding="utf-8") as file:  # empties the file first
        file.write(
            old
            + ("\n" if old and not old.endswith("\n") else "")
            + "".join(a + "\n" for a in added)
        )
    return added


def _under(summary):
    rules, inside = [], False
    for line in summary.splitlines():
        if line == "Standing constraints:":
            inside = True
        elif inside and line.startswith("- "):
            rules.append(line)
        else:
            inside = False
    return rules


def _append(memory_path, rules):
    path = Path(memory_path)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    held = {
        line[2:].strip() if line.startswith("- ") else line.strip() for line in text.splitlines()
    }
    added = [r for r in dict.fromkeys(rules) if r[2:] not in held]
    if added or not path.exists():
        with open(path, "a", encoding="utf-8") as file:
            file.write(
                ("\n" if text and not text.endswith("\n") else "")
                + "".join(a + "\n" for a in added)
            )
    return added


def promote_by_a_pattern(summary, memory_path):
    """Finds the section with one regular expression (on the heading the task fixes), then appends."""
    found = re.search(r"^Standing constraints:\n((?:- [^\n]*(?:\n|$))*)", summary, re.M)
    rules = found.group(1).splitlines() if found else []
    return _append(memory_path, rules)


def promote_with_path_open(summary, memory_path):
    return _append(memory_path, _under(summary))


PR = "promote"
wrong(PR, promote_splitting_on_the_heading, "reaches for an item the list does not have", "index")
wrong(PR, promote_past_a_blank_line, "so does a blank line", "next-heading")
wrong(PR, promote_comparing_lines_with_their_dash, "without the leading '- '", "duplicate")
wrong(PR, promote_by_rewriting_the_file, "never empty the old file", "in-place")
right(PR, promote_by_a_pattern)
right(PR, promote_with_path_open)
right(PR, lambda summary, path: sol_promote(summary, str(path)), "the path as a str")


# ---- the kinds of issue 34 each of these answers is (the coverage test reads them) -----------------------

ISSUE_34_KINDS = {
    ("tokens_of", "tokens_in_bytes_inside_results"): ("ascii",),
    ("smallest_window", "window_of_lap_numbered_like_the_list"): ("numbered",),
    ("first_lap_without", "first_lap_by_pattern"): ("pattern",),
    ("first_lap_without", "first_lap_by_its_words"): ("words",),
    ("first_lap_without", "first_lap_in_the_json"): ("json", "ascii"),
    ("first_lap_without", "first_lap_by_position"): ("numbered",),
    ("pinned_window", "pinned_trusting_the_request_to_fit"): ("always-fits",),
    ("split_zones", "split_reading_the_first_block"): ("unseen",),
    ("compaction_prompt", "the template, padded"): ("padded",),
    ("compaction_prompt", "90 words typed in"): ("typed-in",),
    ("two_rules_prompt", "the template, padded"): ("padded",),
    ("two_rules_prompt", "40 typed in"): ("typed-in",),
    ("running_summary", "fold_cutting_the_summary_short"): ("short",),
    ("token_bill", "bill_by_lap_numbers"): ("numbered",),
    ("cheapest_settings", "settings_on_staging_only"): ("half-rule",),
    ("cheapest_settings", "settings_that_answered_only"): ("half-rule",),
    ("memory", "two lines joined"): ("joined",),
    ("memory", "a diary line in the passive"): ("passive",),
    ("memory", "an import outside it"): ("outside",),
    ("memory", "a pointer into the repository"): ("outside",),
    ("tight_memory", "an import outside, 0 tokens"): ("outside",),
    ("tight_memory", "passive diary"): ("passive",),
    ("greenhouse_memory", "two of its lines joined"): ("joined",),
    ("greenhouse_memory", "passive diary"): ("passive",),
    ("greenhouse_memory", "a pointer into the repository"): ("outside",),
    ("promote", "promote_splitting_on_the_heading"): ("unseen",),
}
for _answer in WRONG:
    _answer.kinds = tuple(_answer.kinds) + ISSUE_34_KINDS.get((_answer.task, _answer.name), ())
