"""Checks for exercise 03, three zones: ``split_zones``, ``compact``, ``MY_PROMPT``, ``TWO_RULES_PROMPT``.

``keep_messages`` counts MESSAGES (an assistant message and the user message that answers it are two).
The harness's ``ThreeZoneCompaction(tail_turns=...)`` counts TURNS instead; the exercise counts
messages so that the orphaned tool_result -- the trap of this lesson -- can happen.

The checks never split a history themselves. ``tail_problem`` asks what must hold of any right tail
(it does not start with a tool_result, holds at least ``keep_messages`` messages, and is longer only when
every shorter one would start with a tool_result); ``compact`` is judged by what it handed ``summarize``
and what it returned. The summary card is one user message: ``CARD_HEADER``, a newline, then exactly
the text ``summarize`` returned. The prompts are judged by runs of ThreeZoneCompaction with them: the
rule kept, the fix on staging, every card within its word limit.

Left out: a second compaction folding the first card in (the harness does it; the exercise does not).
"""

from __future__ import annotations

import random
import re

import hypothesis.strategies as st

from harness.compaction import ThreeZoneCompaction
from harness.messages import is_plain_user, text_of, tool_results
from harness.prompts import COMPACTION_TEMPLATE, FOLD_PROMPT, compaction_prompt
from stage.offline.view import sentences
from stage.offline.summaries import asked_sections
from stage.offline.rules import ruled_out
from stage.tasks import GOAL, RULE, Task, file_reading_task

from .cases import SEED, STYLE, file_lines, histories, phrase, short, show_messages
from .common import (
    COPIED,
    copied_lines,
    covered,
    RULES,
    Fail,
    NotDone,
    call_on_copy,
    how_it_stopped,
    is_messages,
    need_function,
    not_messages,
    once,
    random_history,
    run,
    show,
    verdict,
    word_bag,
    worked_history,
)
from .search import hunt

CARD_HEADER = "[Summary of earlier work]"
_CHANGED = (
    "return a NEW list (head + [card] + tail); never insert into, delete from or edit the list you were "
    "given -- the raw history stays whole, the strategy only decides what is sent."
)
_SPLIT_CHANGED = (
    "slice the history into three new lists; never pop from or edit the list you were given -- it is "
    "the raw history."
)
_SPLIT_ALIAS = (
    "each zone is a new list (a slice), never the list you were given itself: a later change to one would "
    "change the other."
)
_COMPACT_ALIAS = (
    "return a copy of messages, not messages itself, even when there is nothing to compact: the caller keeps appending to "
    "its history, and what was sent must not change with it."
)


def tail_problem(messages, keep, tail) -> str | None:
    """What is wrong with ``tail`` as the verbatim tail of ``messages`` for ``keep`` messages, or None.

    It never picks the tail itself: it asks whether yours starts at a message that is not a tool_result,
    holds at least the last ``keep`` messages (all after the head, if there are fewer), and is longer only
    because each shorter tail would have started with a tool_result.
    """
    n, length = len(messages), len(tail)
    at_least = min(keep, max(n - 1, 0))
    if length > max(n - 1, 0):
        return "head"
    if tail and tool_results(tail[0]):
        return "orphan"
    if length < at_least:
        return "short"
    # A shorter tail, of `shorter` messages, would have been right unless it started with a result.
    for shorter in range(at_least, length):
        if shorter == 0 or not tool_results(messages[n - shorter]):
            return "long"
    return None


def _split_scenarios(seed: int):
    yield worked_history(), 3  # the notebook's example: the last 3 would start with a tool_result
    yield [], 3  # nothing yet
    yield worked_history()[:1], 2  # the request alone
    yield worked_history()[:3], 1  # the request and one turn: the last message is a tool_result
    yield worked_history(), 0  # no tail at all
    yield worked_history(), 6  # a tail of everything after the request
    yield worked_history(), 20  # a tail longer than the history
    rng = random.Random(seed)
    for _ in range(10):
        yield random_history(rng, wide=0.1), rng.randint(0, 7)


@st.composite
def split_cases(draw):
    """(messages, keep_messages): a made-up history, and a tail from none to longer than it."""
    messages = draw(histories())
    return messages, draw(st.integers(0, len(messages) + 2))


@st.composite
def compact_cases(draw):
    """(messages, keep_messages, what summarize returns): long, many-lined, non-ASCII, header-like."""
    messages, keep = draw(split_cases())
    card = draw(
        st.one_of(
            phrase(),
            st.builds(file_lines, st.integers(1, 40), STYLE, SEED),
            st.just(CARD_HEADER + "\nGoal: a card that starts like a card."),
            st.just(""),
        )
    )
    return messages, keep, card


def _show_split(case) -> list[str]:
    return show_messages(case[0]) + [f"keep_messages = {case[1]}"]


def _show_compact(case) -> list[str]:
    messages, keep, card = case
    return _show_split((messages, keep)) + [f"summarize(middle) returns {short(card, 40)}"]


_ZONES = "return a tuple of three lists, (head, middle, tail): the zones, not one list of messages."
_TAIL_HINTS = {
    "head": "the tail never reaches into the head: the request stays in the head alone, even when keep_messages "
    "is as long as the history.",
    "orphan": "if the tail would start with a tool_result, move the boundary back one message so the assistant's "
    "tool_use stays with its result.",
    "short": "your tail is too short: it keeps at least the last keep_messages messages, and when those would "
    "start with a tool_result, one message MORE (move the boundary back, towards the head).",
    "long": "keep_messages counts messages, not turns: the tail is the last keep_messages messages, or one more "
    "when it would otherwise start with a tool_result. keep_messages=0 means no tail.",
}


def check_split_zones(split_zones, seed: int = 4) -> bool:
    """Checks split_zones(messages, keep_messages), the rules as the task states them:

    - Return a tuple of three lists, `(head, middle, tail)`; never change `messages`.
    - head: the request, `messages[:1]`.
    - tail: the last `keep_messages` messages -- but if that would start with a tool_result, one more message so its tool_use comes along; the tail never reaches into the head; `keep_messages=0` means no tail.
    - middle: everything in between. `head + middle + tail` is the history, nothing lost, nothing twice.
    - An empty history gives `([], [], [])`.

    On the notebook's example, the edges (no history, the request alone, one turn, no tail, a tail longer
    than the history), then 100 made-up histories (tool results, remarks, plain answers, non-ASCII) with
    tails from none to longer than the history.
    """

    def body():
        need_function(split_zones, "split_zones")

        def three_zones(case):
            messages, keep = case
            size = (
                f"{len(messages)} message{'' if len(messages) == 1 else 's'}, keep_messages={keep}"
            )
            got = call_on_copy(
                f"split_zones(<{size}>)",
                split_zones,
                messages,
                keep,
                changed_hint=_SPLIT_CHANGED,
                alias_hint=_SPLIT_ALIAS,
                hint="an empty history splits into three empty zones: ([], [], [])."
                if not messages
                else None,
            )
            if not (isinstance(got, tuple) and len(got) == 3 and all(is_messages(z) for z in got)):
                raise Fail(
                    f"[{size}] split_zones returned {type(got).__name__}"
                    + (f" of {len(got)} items" if isinstance(got, (list, tuple)) else ""),
                    _ZONES,
                )
            head, middle, tail = got
            if head != messages[:1]:
                raise Fail(
                    f"[{size}] the head holds {len(head)} messages",
                    "the pinned head is the request alone, messages[:1] (the system prompt travels "
                    "beside the list, not in it).",
                )
            if head + middle + tail != messages:
                raise Fail(
                    f"[{size}] head + middle + tail is not the history",
                    "every message lands in exactly one zone, in order: nothing lost, nothing twice.",
                )
            problem = tail_problem(messages, keep, tail)
            if problem:
                raise Fail(
                    f"[{size}] the tail holds {len(tail)} message{'' if len(tail) == 1 else 's'}"
                    + (
                        ", starting with a tool_result whose tool_use is in the summarized middle"
                        if problem == "orphan"
                        else ""
                    ),
                    _TAIL_HINTS[problem],
                )

        edges = once(("split cases", seed), lambda: list(_split_scenarios(seed)))
        tried = hunt(split_cases(), three_zones, _show_split, seed=seed, explicit=edges)
        return (
            f"{tried} histories (the example, the edges, made-up ones): request pinned, tail the "
            "right size, no pair split."
        )

    return verdict("split_zones", body)


def check_compact(compact, seed: int = 5) -> bool:
    """Checks compact(messages, summarize, keep_messages), the rules as the task states them:

    - Split the history as `split_zones` does, call `summarize(middle)` once, and return a new list: head + one card + tail.
    - The card is a user message whose text is exactly the header line `[Summary of earlier work]`, a newline, then what `summarize` returned, unchanged.
    - When the middle is empty there is nothing to summarize: do not call `summarize`, and return a copy of the list, unchanged.
    - Never insert into, delete from or edit the list you were given.

    On the same histories as split_zones, then 100 made-up ones, with a summarize that records what it
    was given and returns a card of any kind: empty, long, many-lined, non-ASCII, one that starts with
    the header itself.
    """

    def body():
        need_function(compact, "compact")

        def one_card(case):
            messages, keep, card = case
            seen = []

            def summarize(middle):  # the parameter's name is the one the task gives
                seen.append(list(middle) if isinstance(middle, list) else middle)
                return card

            size = (
                f"{len(messages)} message{'' if len(messages) == 1 else 's'}, keep_messages={keep}"
            )
            out = call_on_copy(
                f"compact(<{size}>, summarize, {keep})",
                compact,
                messages,
                summarize,
                keep,
                changed_hint=_CHANGED,
                alias_hint=_COMPACT_ALIAS,
                hint="an empty history has nothing to compact: return []."
                if not messages
                else None,
            )
            problem = compact_problem(messages, keep, out, seen, card, size)
            if problem:
                raise problem

        edges = [
            (messages, keep, f"Goal: task {n}.\nDone: read the files.")
            for n, (messages, keep) in enumerate(
                once(("split cases", seed), lambda: list(_split_scenarios(seed)))
            )
        ]
        tried = hunt(compact_cases(), one_card, _show_compact, seed=seed, explicit=edges)
        return (
            f"{tried} histories: the request pinned, one headed summary card for the middle, "
            "the tail word for word."
        )

    return verdict("compact", body)


def compact_problem(messages, keep, out, seen, returned, size) -> Fail | None:
    if out is None:
        return Fail(
            f"[{size}] compact returned None",
            "return the new list of messages: head + [card] + tail.",
        )
    if not is_messages(out):
        return Fail(
            f"[{size}] compact returned {not_messages(out)}",
            "return the new list of messages: head + [card] + tail, each a message dict.",
        )
    if not seen:
        nothing_between = len(messages) <= 1 or tail_problem(messages, keep, messages[1:]) is None
        if not nothing_between:
            return Fail(
                f"[{size}] summarize was never called, though there was a middle to summarize",
                "split with your split_zones and summarize the middle: head + [card] + tail.",
            )
        if out != messages:
            return Fail(
                f"[{size}] there was nothing between head and tail, yet the list changed",
                "when the middle is empty there is nothing to summarize: return a copy of the list as it is.",
            )
        return None
    if len(seen) != 1:
        return Fail(
            f"[{size}] summarize was called {len(seen)} times", "one summary call per compaction."
        )
    middle = seen[0]
    if not isinstance(middle, list) or not middle:
        return Fail(
            f"[{size}] summarize was given {middle!r:.40}",
            "when the middle is empty there is nothing "
            "to summarize: do not call summarize, return a copy of the list as it is.",
        )
    if messages[:1] == middle[:1]:
        return Fail(
            f"[{size}] summarize got {len(middle)} messages, starting with the request",
            "summarize only the middle: the request stays pinned and the tail stays word for word.",
        )
    if messages[1 : 1 + len(middle)] != middle:
        return Fail(
            f"[{size}] summarize got {len(middle)} messages that are not the middle of the history",
            "summarize only the middle, messages[1:cut]: the request stays pinned and the tail stays "
            "word for word.",
        )
    tail = messages[1 + len(middle) :]
    if tail_problem(messages, keep, tail):
        return Fail(
            f"[{size}] summarize got {len(middle)} messages, so your tail holds {len(tail)}",
            "use your split_zones: the tail is the last keep_messages messages, moved back one if it "
            "would start with a tool_result; the middle is what lies between it and the request.",
        )
    new = [i for i, m in enumerate(out) if m not in messages]
    if any(m in out for m in middle):
        return Fail(
            f"[{size}] the middle is still on the compacted desk",
            "replace the whole middle with ONE summary message: head + [card] + tail.",
        )
    if len(new) != 1:
        return Fail(
            f"[{size}] the compacted list holds {len(new)} new messages",
            "replace the whole middle with ONE summary message: head + [card] + tail.",
        )
    where = new[0]
    if where != 1:
        if where == len(out) - 1 and tail:
            hint = (
                "the card goes between the head and the tail, where the middle was: after the tail it reads "
                "as the newest thing said, and the order of events is lost."
            )
        elif where == 0:
            hint = "the request stays first, untouched; the card comes right after it."
        else:
            hint = "head + [card] + tail: the card sits where the middle was."
        return Fail(f"[{size}] the card is message {where} of {len(out)}", hint)
    if out[0] != messages[0]:
        return Fail(
            f"[{size}] the compacted list does not start with the request",
            "the request stays pinned at the front, untouched; only the middle becomes a summary.",
        )
    card = out[1]
    if card.get("role") != "user" or not is_plain_user(card):
        return Fail(
            f"[{size}] the card has the role {card.get('role')!r}",
            "send the summary as a user message (the harness's note to the model): "
            "the header line, a newline, then the summary's text.",
        )
    text = text_of(card)
    if not text.startswith(CARD_HEADER + "\n"):
        return Fail(
            f"[{size}] the card starts {text[:30]!r}",
            f"start the card with the header line {CARD_HEADER}, then a newline, then the summary: the "
            "header tells the model this is the harness's note, not a new request from the user.",
        )
    if (
        text[len(CARD_HEADER) + 1 :].strip() != returned.strip()
    ):  # a blank line more or less is fine
        return Fail(
            f"[{size}] after the header the card holds something other than what summarize returned",
            "put the text summarize(middle) returned after the header, unchanged.",
        )
    if out[2:] != tail:
        return Fail(
            f"[{size}] the tail after the card is not the last messages, word for word",
            "after the card, the tail exactly as split_zones gives it: nothing dropped, nothing edited.",
        )
    return None


# ---- task 3: the prompt that decides what survives -----------------------------------------------------

_PROMPT_SCENARIOS = [(3, 5000, RULES[0], 220), (2, 4500, RULES[1], 220), (4, 5500, RULES[2], 100)]


def check_compaction_prompt(prompt) -> bool:
    """Checks MY_PROMPT, the rules as the task states them:

    - One string, with a `{transcript}` placeholder inside `<transcript>` ... `</transcript>` tags; any other brace doubled.
    - It asks for sections as bullet lines, and one of them always carries the standing constraints.
    - Every card stays within the card's word limit: say it with `{max_words}`, never a number of your own.
    - It asks for a summary in so many words -- summarize, compact or fold: the offline model reads nothing else as a summary request.
    - It names no rule of its own: the card carries the rules the user gave.
    - Your own words: the lesson's `COMPACTION_TEMPLATE`, copied, is refused.

    ThreeZoneCompaction(prompt=yours) on three runs: the rule said at lap 2, 3 or 4 in three wordings,
    one of them with a 100-word limit. Each run must finish with the fix on staging, its last card must
    carry the rule, and no card may be over the limit.
    """

    def body():
        prompt_shape(prompt)
        for number, (at, window, (rule, piece), limit) in enumerate(_PROMPT_SCENARIOS):
            task = file_reading_task(rule_at_lap=at, rule=rule)
            run_ = run(ThreeZoneCompaction(prompt=prompt, max_words=limit), window, task)
            where = f"window {window:,}, rule said at lap {at}, {limit} words a card"
            last = _last_summary(run_, where, limit)
            kept = piece in last.lower()
            if run_.database_target != "staging" or not kept:
                show(f"The last summary of that run:\n{last}\n")
                stated = re.search(r"(\d+)\s+words", prompt)
                if stated and int(stated.group(1)) < 60:
                    hint = f"your word limit ({stated.group(1)}) leaves no room for the rule: use {{max_words}}."
                else:
                    hint = _NO_RULES
                raise Fail(
                    f"[{where}] the fix went to {run_.database_target}; the last summary "
                    f"{'kept' if kept else 'lost'} the rule",
                    hint,
                )
            if number == 0:
                show(f"The last summary of the first run:\n{last}\n")
        limit_problem(prompt)
        return "3 runs with the rule said mid-task: every card carried it within its limit, every fix went to staging."

    return verdict("your compaction prompt", body)


_NO_RULES = (
    "the rules arrived mid-task, so they sit in the summarized middle, and your card did not keep them: ask, "
    "in a bullet line of its own, for a section that carries every rule the user gave, and say that it is "
    "never left out."
)


def _asks_for_rules(prompt: str) -> bool:
    """Does a bullet line of the prompt ask for the rules? (How the offline model reads a prompt's sections.)"""
    return any(kind == "constraints" for _, kind in asked_sections(prompt))


def _last_summary(run_, where, limit) -> str:
    """The last card of a finished run; FAIL if the run did not finish, never compacted, or a card is too long."""
    summaries = [lap.summary for lap in run_.laps if lap.kind == "compact" and lap.summary]
    if run_.stopped != "answered":
        if run_.stopped == "overflow":
            hint = (
                "a summary must stay short enough to make room: ask for at most {max_words} words."
            )
        elif run_.stopped == "max_laps":
            hint = (
                "the agent went round in circles: the card must tell it what it has already read and what is "
                "pending, or it reads the same files again after every compaction."
            )
        else:
            hint = "read the problem above; the summary call itself failed."
        raise Fail(f"[{where}] the run did not finish ({how_it_stopped(run_)})", hint)
    if not summaries:
        raise Fail(
            f"[{where}] the run never compacted", "ask the model to summarize the transcript."
        )
    longest = max(summaries, key=lambda card: len(card.split()))
    if len(longest.split()) > limit:
        raise Fail(
            f"[{where}] a card was {len(longest.split())} words, over the limit of {limit}",
            "the harness gives the card's word limit as {max_words}: put that placeholder in your prompt "
            '("at most {max_words} words"), not a number of your own -- and not no limit at all.',
        )
    return summaries[-1]


def limit_problem(prompt: str) -> None:
    """FAIL unless the card's limit is said with {max_words}: a number typed in holds for one limit only."""
    outside = re.sub(r"<transcript>.*?</transcript>", " ", prompt, flags=re.S)
    typed = re.search(r"\b(\d+)\s+words", outside)
    if typed or "{max_words}" not in prompt:
        raise Fail(
            f"the prompt asks for {typed.group(0)}"
            if typed
            else "the prompt never says how long the card may be",
            "the harness gives the card's word limit as {max_words}: put that placeholder in your "
            'prompt ("at most {max_words} words"), not a number of your own -- and not no limit '
            "at all.",
        )


def prompt_shape(prompt, name: str = "your compaction prompt") -> None:
    """The prompt must be a string the harness can fill, the model reads as a summary request, and yours."""
    if prompt is None:
        raise NotDone(f"write {name} as a string, then run this cell.")
    if not isinstance(prompt, str):
        raise Fail(
            f"the prompt is {type(prompt).__name__}, not a string",
            "write the prompt as one string.",
        )
    if "{transcript}" not in prompt:
        raise Fail(
            "the prompt has no {transcript} placeholder",
            "the harness puts the middle of the conversation where {transcript} is.",
        )
    inside = re.search(r"<transcript>(.*?)</transcript>", prompt, re.S)
    if not inside or "{transcript}" not in inside.group(1):
        raise Fail(
            "the prompt does not wrap {transcript} in <transcript> ... </transcript> tags",
            "the offline model treats a message as a request to summarize only when it holds a "
            "<transcript> block with the transcript inside (Claude likes the tags too).",
        )
    if not re.search(
        r"\bsummar|\bcompact|\bfold\b",
        re.sub(r"<transcript>.*?</transcript>", " ", prompt, flags=re.S),
        re.I,
    ):
        raise Fail(
            "the prompt never asks for a summary in so many words",
            "say what you want -- summarize, compact or fold: the offline model writes a summary only when "
            "the prompt asks for one with such a word (Claude reads more, but say it anyway).",
        )
    try:
        compaction_prompt("user: hello", 200, "", template=prompt)
    except (KeyError, IndexError, ValueError) as problem:
        raise Fail(
            f"the prompt cannot be filled in ({type(problem).__name__}: {problem})",
            "only {transcript}, {max_words} and {focus} are filled in; write any other brace doubled, "
            "{{ or }}.",
        ) from None
    for lesson, original in (
        ("COMPACTION_TEMPLATE", COMPACTION_TEMPLATE),
        ("FOLD_PROMPT", FOLD_PROMPT),
    ):
        lines = [word_bag(line) for line in original.splitlines()]
        lines = [words for words in lines if len(words) >= 5]
        if (
            covered(word_bag(prompt), word_bag(original)) >= COPIED  # the whole, perhaps padded
            or len(copied_lines(prompt, lines)) * 2 >= len(lines)  # half its lines, perhaps padded
        ):
            raise Fail(
                f"the prompt is the lesson's {lesson}, nearly word for word",
                "write the prompt yourself: which sections does a fresh copy of the agent need, and which "
                "one must never be left out?",
            )
    own = [
        s
        for s in sentences(re.sub(r"<transcript>.*?</transcript>", " ", prompt, flags=re.S))
        if ruled_out([s], ["production", "staging"])
    ]  # a sentence the model reads as a database rule
    if own:
        raise Fail(
            f"the prompt itself states a rule: {own[0]!r}",
            "do not write the class's rule into the prompt (that only works for this one task): ask the "
            "card to carry whatever rules the user gave.",
        )


# ---- task 4 (homework): two rules on a 40-word card ---------------------------------------------------

TIGHT_WORDS = 40
SECOND_RULES = [  # rules the lessons never use, and the lowercase piece that shows each is kept
    (
        "Do not edit any file under migrations/; only run the pending one.",
        "do not edit any file under migrations/",
    ),
    ("Always run `pytest tests/` before you say a change is done.", "always run `pytest tests/`"),
]
_TWO_RULE_RUNS = [  # (production rule, said at lap, second rule, said at lap, window)
    (RULES[0], 2, SECOND_RULES[0], 5, 5000),
    (RULES[2], 3, SECOND_RULES[1], 4, 4500),
]


def two_rules_task(first: str, first_at: int, second: str, second_at: int) -> Task:
    """The class task with two rules said in passing, at two different laps."""
    said = lambda rule: f"One more thing: {rule[0].lower()}{rule[1:]}"  # noqa: E731
    return Task(GOAL, {first_at: said(first), second_at: said(second)}, RULE)


def check_two_rules_prompt(prompt) -> bool:
    """Checks TWO_RULES_PROMPT, the rules as the task states them:

    - Every rule of MY_PROMPT: one string, `{transcript}` inside `<transcript>` tags, the word limit as `{max_words}`, a summary asked for in so many words, no rule of its own, your own words.
    - With `max_words=40`, the last card holds both rules the user said in passing, word for word, and the fix goes to staging.
    - No card is over 40 words.

    ThreeZoneCompaction(prompt=yours, max_words=40) on two runs you have not seen, each with the production
    rule and a rule the lessons never use, said at two different laps.
    """

    def body():
        prompt_shape(prompt, "TWO_RULES_PROMPT")
        for (rule, piece), at, (second, second_piece), second_at, window in _TWO_RULE_RUNS:
            task = two_rules_task(rule, at, second, second_at)
            run_ = run(ThreeZoneCompaction(prompt=prompt, max_words=TIGHT_WORDS), window, task)
            where = f"window {window:,}, rules said at laps {at} and {second_at}, {TIGHT_WORDS} words a card"
            last = _last_summary(run_, where, TIGHT_WORDS)
            missing = [p for p in (piece, second_piece) if p not in last.lower()]
            if missing or run_.database_target != "staging":
                show(f"The last card of that run:\n{last}\n")
                goal_first = last.lstrip().lower().startswith(("goal", "- goal", "task"))
                if missing and not _asks_for_rules(prompt):
                    hint = _NO_RULES
                elif not missing:
                    hint = "both rules are on the card, yet the fix went elsewhere: keep the production rule's words."
                elif goal_first:
                    hint = (
                        f"{TIGHT_WORDS} words go fast, and your card spends them on the goal first. The request "
                        "is pinned in the head, so the card need not repeat it: what does the desk already "
                        "show without the card's help?"
                    )
                else:
                    hint = (
                        "the model keeps the sections in the order you ask for them and cuts at the limit: "
                        "what must come first, and what can go?"
                    )
                raise Fail(
                    f"[{where}] the last card lost {missing[0]!r}"
                    if missing
                    else f"[{where}] the fix went to {run_.database_target}",
                    hint,
                )
        limit_problem(prompt)
        return f"2 runs, two rules each, {TIGHT_WORDS}-word cards: both rules on every last card, fix on staging."

    return verdict("TWO_RULES_PROMPT", body)
