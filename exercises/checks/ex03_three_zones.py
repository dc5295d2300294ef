"""Checks for exercise 03, three zones: ``split_zones``, ``compact``, ``MY_PROMPT``, ``TWO_RULES_PROMPT``.

``keep_messages`` counts MESSAGES (an assistant message and the user message that answers it are two).
The harness's ``ThreeZoneCompaction(tail_turns=...)`` counts TURNS instead; the exercise counts
messages so that the orphaned tool_result -- the trap of this lesson -- can happen.

The summary card ``compact`` makes is one user message: ``CARD_HEADER``, a newline, then exactly
the text ``summarize`` returned.
Left out: a second compaction folding the first card in (the harness does it; the exercise does not).
"""

from __future__ import annotations

import random
import re

from harness.compaction import ThreeZoneCompaction
from harness.messages import is_plain_user, text_of, tool_results
from harness.prompts import compaction_prompt
from stage.tasks import GOAL, RULE, Task, file_reading_task

from .common import (RULES, Fail, NotDone, call_on_copy, how_it_stopped, need_function, random_history, run, verdict,
                     worked_history)

CARD_HEADER = "[Summary of earlier work]"
_CHANGED = ("return a NEW list (head + [card] + tail); never insert into, delete from or edit the list you were "
            "given -- the raw history stays whole, the strategy only decides what is sent.")
_SPLIT_CHANGED = ("slice the history into three new lists (messages[:1], messages[1:cut], messages[cut:]); never "
                  "pop from or edit the list you were given -- it is the raw history.")


def reference_split(messages, keep_messages):
    cut = max(1, len(messages) - keep_messages)
    while cut < len(messages) and tool_results(messages[cut]):
        cut -= 1            # the tail may not start with a result: take its tool_use along
    return messages[:1], messages[1:cut], messages[cut:]


def _split_scenarios(seed: int):
    yield worked_history(), 3          # the notebook's example: the last 3 would start with a tool_result
    yield [], 3                        # nothing yet
    yield worked_history()[:1], 2      # the request alone
    yield worked_history(), 0          # no tail at all
    yield worked_history(), 20         # a tail longer than the history
    rng = random.Random(seed)
    for _ in range(40):
        yield random_history(rng, wide=0.1), rng.randint(0, 7)


def check_split_zones(split_zones, seed: int = 4) -> bool:
    """(head, middle, tail): the request, the part to summarize, the newest keep_messages, pairs whole."""

    def body():
        need_function(split_zones, "split_zones")
        count = 0
        for messages, keep in _split_scenarios(seed):
            size = f"{len(messages)} message{'' if len(messages) == 1 else 's'}, keep_messages={keep}"
            got = call_on_copy(f"split_zones(<{size}>)", split_zones, messages, keep, changed_hint=_SPLIT_CHANGED,
                               hint="an empty history splits into three empty zones: ([], [], [])."
                               if not messages else None)
            if not (isinstance(got, (tuple, list)) and len(got) == 3 and all(isinstance(z, list) for z in got)):
                raise Fail(f"[{size}] split_zones returned {type(got).__name__}",
                           "return a tuple of three lists: head, middle, tail.")
            head, middle, tail = got
            if tail and tool_results(tail[0]):
                raise Fail(f"[{size}] your tail starts with a tool_result whose tool_use is in the summarized middle",
                           "if the tail would start with a tool_result, move the boundary back one message so the "
                           "assistant's tool_use stays with its result.")
            if head != messages[:1]:
                raise Fail(f"[{size}] the head holds {len(head)} messages",
                           "the pinned head is the request alone, messages[:1] (the system prompt travels beside "
                           "the list, not in it).")
            if head + middle + tail != messages:
                raise Fail(f"[{size}] head + middle + tail is not the history",
                           "every message lands in exactly one zone, in order: nothing lost, nothing twice.")
            want = reference_split(messages, keep)[2]
            if len(tail) != len(want):
                if len(tail) < len(want):
                    hint = ("your tail is too short: when the last keep_messages messages would start with a "
                            "tool_result, take one message MORE (move the boundary back, towards the head), "
                            "so the tool_use comes along.")
                else:
                    hint = ("keep_messages counts messages, not turns: the tail is the last keep_messages "
                            "messages, or one more when it would otherwise start with a tool_result. It never "
                            "reaches into the head.")
                raise Fail(f"[{size}] the tail holds {len(tail)} messages, {len(want)} expected", hint)
            count += 1
        return (f"{count} histories (the example, edges, 40 fresh): request pinned, tail the right size, "
                "no pair split.")

    return verdict("split_zones", body)


def check_compact(compact, seed: int = 5) -> bool:
    """head + one summary card + tail; the summarizer sees exactly the middle, once; the input untouched."""

    def body():
        need_function(compact, "compact")
        count = 0
        for n, (messages, keep) in enumerate(_split_scenarios(seed)):
            seen = []

            def summarize(part, n=n):
                seen.append(list(part))
                return f"Goal: task {n}.\nDone: read {len(part)} messages."

            size = f"{len(messages)} message{'' if len(messages) == 1 else 's'}, keep_messages={keep}"
            out = call_on_copy(f"compact(<{size}>, summarize, {keep})", compact, messages, summarize, keep,
                               changed_hint=_CHANGED,
                               hint="an empty history has nothing to compact: return []." if not messages else None)
            problem = compact_problem(messages, keep, out, seen, summarize_text(n, seen), size)
            if problem:
                raise problem
            count += 1
        return (f"{count} histories: the request pinned, one headed summary card for the middle, the tail "
                "word for word.")

    return verdict("compact", body)


def summarize_text(n, seen) -> str:
    return f"Goal: task {n}.\nDone: read {len(seen[0])} messages." if seen else ""


def compact_problem(messages, keep, out, seen, card_text, size) -> Fail | None:
    head, middle, tail = reference_split(messages, keep)
    if out is None:
        return Fail(f"[{size}] compact returned None", "return the new list of messages: head + [card] + tail.")
    if not isinstance(out, list):
        return Fail(f"[{size}] compact returned {type(out).__name__}", "return the new list of messages.")
    if not middle:
        if seen or out != messages:
            return Fail(f"[{size}] there was nothing between head and tail, yet "
                        + ("summarize was called" if seen else "the list changed"),
                        "when the middle is empty there is nothing to summarize: return the list as it is.")
        return None
    if len(seen) != 1:
        return Fail(f"[{size}] summarize was called {len(seen)} times", "one summary call per compaction.")
    if seen[0] != middle:
        extra = ("the request" if seen[0][:1] == head else
                 "the recent tail" if tail and seen[0][-len(tail):] == tail else "")
        return Fail(f"[{size}] summarize got {len(seen[0])} messages, the middle has {len(middle)}"
                    + (f" (you also gave it {extra})" if extra else ""),
                    "summarize only the middle: the request stays pinned and the tail stays word for word.")
    new = [i for i, m in enumerate(out) if m not in messages]
    if any(m in out for m in middle if m not in head + tail):
        return Fail(f"[{size}] the middle is still on the compacted desk",
                    "replace the whole middle with ONE summary message: head + [card] + tail.")
    if len(new) != 1:
        return Fail(f"[{size}] the compacted list holds {len(new)} new messages",
                    "replace the whole middle with ONE summary message: head + [card] + tail.")
    where = new[0]
    if where != 1:
        if where == len(out) - 1 and tail:
            hint = ("the card goes between the head and the tail, where the middle was: after the tail it reads "
                    "as the newest thing said, and the order of events is lost.")
        elif where == 0:
            hint = "the request stays first, untouched; the card comes right after it."
        else:
            hint = "head + [card] + tail: the card sits where the middle was."
        return Fail(f"[{size}] the card is message {where} of {len(out)}", hint)
    if not out or out[0] != messages[0]:
        return Fail(f"[{size}] the compacted list does not start with the request",
                    "the request stays pinned at the front, untouched; only the middle becomes a summary.")
    card = out[1]
    if card.get("role") != "user" or not is_plain_user(card):
        return Fail(f"[{size}] the card has the role {card.get('role')!r}",
                    "send the summary as a user message (the harness's note to the model): "
                    f"user('{CARD_HEADER}\\n' + text).")
    text = text_of(card)
    if not text.startswith(CARD_HEADER + "\n"):
        return Fail(f"[{size}] the card starts {text[:30]!r}",
                    f"start the card with the header line {CARD_HEADER}, then a newline, then the summary: the "
                    "header tells the model this is the harness's note, not a new request from the user.")
    if text[len(CARD_HEADER) + 1:].strip() != card_text.strip():      # a blank line more or less is fine
        return Fail(f"[{size}] after the header the card holds something other than what summarize returned",
                    "put the text summarize(middle) returned after the header, unchanged.")
    if out[2:] != tail:
        return Fail(f"[{size}] the tail after the card is not the last messages, word for word",
                    "use your split_zones: the tail is the last keep_messages messages, moved back one if it "
                    "would start with a tool_result.")
    return None


# ---- task 3: the prompt that decides what survives -----------------------------------------------------

_PROMPT_SCENARIOS = [(3, 5000, RULES[0]), (2, 4500, RULES[1]), (4, 5500, RULES[2])]


def check_compaction_prompt(prompt) -> bool:
    """ThreeZoneCompaction(prompt=yours), the rule said mid-task: staging, and the rule in the summary."""

    def body():
        prompt_shape(prompt)
        for number, (at, window, (rule, piece)) in enumerate(_PROMPT_SCENARIOS):
            task = file_reading_task(rule_at_lap=at, rule=rule)
            run_ = run(ThreeZoneCompaction(prompt=prompt), window, task)
            where = f"window {window:,}, rule said at lap {at}"
            last = _last_summary(run_, where, prompt)
            kept = piece in last.lower()
            if run_.database_target != "staging" or not kept:
                print(f"The last summary of that run:\n{last}\n")
                limit = re.search(r"(\d+)\s+words", prompt)
                if limit and int(limit.group(1)) < 60:
                    hint = f"your word limit ({limit.group(1)}) leaves no room for the rule: allow more."
                else:
                    hint = ("the rule arrived mid-task, so it sits in the summarized middle. Ask for a "
                            "standing-constraints section as a bullet ('- Standing constraints: every rule the "
                            "user gave, word for word') and say it must always be included.")
                raise Fail(f"[{where}] the fix went to {run_.database_target}; the last summary "
                           f"{'kept' if kept else 'lost'} the rule", hint)
            if number == 0:
                print(f"The last summary of the first run:\n{last}\n")
        return "3 runs with the rule said mid-task: every summary carried it, every fix went to staging."

    return verdict("your compaction prompt", body)


def _last_summary(run_, where, prompt) -> str:
    summaries = [lap.summary for lap in run_.laps if lap.kind == "compact" and lap.summary]
    if run_.stopped != "answered":
        if run_.stopped == "overflow":
            hint = "a summary must stay short enough to make room: ask for a word limit ({max_words})."
        elif run_.stopped == "max_laps":
            hint = ("the agent went round in circles: the card must tell it what it has already read and what is "
                    "pending, or it reads the same files again after every compaction.")
        else:
            hint = "read the problem above; the summary call itself failed."
        raise Fail(f"[{where}] the run did not finish ({how_it_stopped(run_)})", hint)
    if not summaries:
        raise Fail(f"[{where}] the run never compacted", "ask the model to summarize the transcript.")
    return summaries[-1]


def prompt_shape(prompt, name: str = "your compaction prompt") -> None:
    """The prompt must be a string the harness can fill and the model will read as a summary request."""
    if prompt is None:
        raise NotDone(f"write {name} as a string, then run this cell.")
    if not isinstance(prompt, str):
        raise Fail(f"the prompt is {prompt!r}, not a string", "write the prompt as one string.")
    if "{transcript}" not in prompt:
        raise Fail("the prompt has no {transcript} placeholder",
                   "the harness puts the middle of the conversation where {transcript} is.")
    if "<transcript>" not in prompt:
        raise Fail("the prompt does not wrap the transcript in <transcript> tags",
                   "write <transcript>\\n{transcript}\\n</transcript>: the offline model treats a message as a "
                   "request to summarize only when it holds a <transcript> (Claude likes the tags too).")
    try:
        compaction_prompt("user: hello", 200, "", template=prompt)
    except (KeyError, IndexError, ValueError) as problem:
        raise Fail(f"the prompt cannot be filled in ({type(problem).__name__}: {problem})",
                   "only {transcript}, {max_words} and {focus} are filled in; write any other brace doubled, "
                   "{{ or }}.") from None


# ---- task 4 (homework): two rules on a 40-word card ---------------------------------------------------

TIGHT_WORDS = 40
SECOND_RULES = [   # rules the lessons never use, and the lowercase piece that shows each is kept
    ("Do not edit any file under migrations/; only run the pending one.", "do not edit any file under migrations/"),
    ("Always run `pytest tests/` before you say a change is done.", "always run `pytest tests/`"),
]
_TWO_RULE_RUNS = [  # (production rule, said at lap, second rule, said at lap, window)
    (RULES[0], 2, SECOND_RULES[0], 5, 5000),
    (RULES[2], 3, SECOND_RULES[1], 4, 4500),
]


def two_rules_task(first: str, first_at: int, second: str, second_at: int) -> Task:
    """The class task with two rules said in passing, at two different laps."""
    said = lambda rule: f"One more thing: {rule[0].lower()}{rule[1:]}"   # noqa: E731
    return Task(GOAL, {first_at: said(first), second_at: said(second)}, RULE)


def check_two_rules_prompt(prompt) -> bool:
    """ThreeZoneCompaction(prompt=yours, max_words=40), two rules said mid-task: both on the last card."""

    def body():
        prompt_shape(prompt, "TWO_RULES_PROMPT")
        for (rule, piece), at, (second, second_piece), second_at, window in _TWO_RULE_RUNS:
            task = two_rules_task(rule, at, second, second_at)
            run_ = run(ThreeZoneCompaction(prompt=prompt, max_words=TIGHT_WORDS), window, task)
            where = f"window {window:,}, rules said at laps {at} and {second_at}, {TIGHT_WORDS} words a card"
            last = _last_summary(run_, where, prompt)
            missing = [p for p in (piece, second_piece) if p not in last.lower()]
            if missing or run_.database_target != "staging":
                print(f"The last card of that run:\n{last}\n")
                goal_first = last.lstrip().lower().startswith(("goal", "- goal", "task"))
                if not missing:
                    hint = "both rules are on the card, yet the fix went elsewhere: keep the production rule's words."
                elif goal_first:
                    hint = (f"{TIGHT_WORDS} words go fast, and your card spends them on the goal first. The request "
                            "is pinned in the head, so the card need not repeat it: put the standing constraints "
                            "first and leave out what the desk already shows.")
                else:
                    hint = ("ask for the standing constraints first, every rule word for word, and little else: "
                            "the model keeps the sections in the order you ask for them and cuts at the limit.")
                raise Fail(f"[{where}] the last card lost {missing[0]!r}" if missing else
                           f"[{where}] the fix went to {run_.database_target}", hint)
        return f"2 runs, two rules each, {TIGHT_WORDS}-word cards: both rules on every last card, fix on staging."

    return verdict("TWO_RULES_PROMPT", body)
