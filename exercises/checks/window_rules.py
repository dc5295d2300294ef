"""What a right sliding window looks like, checked piece by piece (exercise 02 shares it with nothing else).

``window_problem`` never builds a window itself. It reads yours and asks what must hold of any right
one: everything sent when everything fits; otherwise exactly one ``user(DROPPED_NOTICE)`` first, then
an unbroken run of the newest messages that starts at a safe cut; within the budget; and not one turn
shorter than the budget allows (the next older safe cut would not have fitted). With ``head`` (the
pinned window) the same must hold of what follows the request, in what the request leaves of the budget.

``remarks_problem`` does the same for the window whose notice carries what the user said.

``window_cases`` makes the cases a window is tried on: a made-up history, one of three counters, and
a budget drawn near the edges that decide a window (the whole history exactly, each cut's desk
exactly and one token short of it, the request alone, 0) or anywhere up to the whole history.

Left out: windows that reorder messages, or keep an older turn in place of a newer one on purpose.
"""

from __future__ import annotations

import copy

import hypothesis.strategies as st

from harness.sliding_window import DROPPED_NOTICE
from harness.messages import (
    blocks_of,
    is_plain_user,
    pair_problems,
    safe_cuts,
    text_of,
    tool_results,
    user,
)

from .cases import SEED, STYLE, build_history, histories, show_messages, turns
from .common import (
    PER_CALL,
    Fail,
    TooSlow,
    is_messages,
    not_messages,
    safe_equal,
    time_limit,
)

NOTICE = user(DROPPED_NOTICE)
HEAD_HINT = (
    "the pinned head counts against the budget too: the window over the rest only gets what the "
    "head leaves of the budget."
)
COUNTER_HINT = _COUNTER = (
    "count every message with the counter you are given, counter(message): the check tries two different "
    "counters, and a desk measured another way can be over the budget, or shorter than it need be."
)


class Counter:
    """A token counter for one message, as a window gets it: len(text_of(message)) // per + overhead.

    A window must use the counter it is given; the checks hand it three different ones.
    """

    def __init__(self, per: int, overhead: int, words: bool = False, times: int = 1):
        self.per, self.overhead, self.words, self.times = per, overhead, words, times

    def __call__(self, message) -> int:
        text = text_of(message)
        size = len(text.split()) if self.words else len(text) // self.per
        return (size + self.overhead) * self.times

    def __repr__(self) -> str:
        size = "1 a word" if self.words else f"chars/{self.per}"
        return f"{size} + {self.overhead} a message" + (
            f", times {self.times}" if self.times > 1 else ""
        )

    def scaled(self, times: int) -> "Counter":
        return Counter(self.per, self.overhead, self.words, self.times * times)


def measures_the_request_its_own_way(window_fn) -> bool:
    """On a request of one long word, counted by words (2 tokens; by its characters, 500), does the
    pinned window drop a turn that fits exactly beside it and the notice? Then it measured the
    request some other way than with its counter."""
    counter = COUNTERS[2]
    call_ = {"type": "tool_use", "id": "toolu_0001", "name": "read_file", "input": {"path": "a.py"}}
    older = [
        {"role": "assistant", "content": [{"type": "text", "text": "Note: " + "word " * 40}]},
        user("Answer: " + "word " * 40),
    ]
    newest = [
        {"role": "assistant", "content": [call_]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_0001", "content": "x = 1"}],
        },
    ]
    messages = [user("x" * 2000)] + older + newest
    budget = size_of([messages[0], NOTICE] + newest, counter)
    try:
        with time_limit(PER_CALL):
            out = window_fn(copy.deepcopy(messages), budget, counter)
    except (Exception, SystemExit, TooSlow):
        return False
    return is_messages(out) and len(out) < 4


def ignores_the_counter(window_fn, messages, budget, counter, out) -> bool:
    """Does the window answer differently when every count and the budget are ten times as big? A
    window that measures with the counter it is given cannot tell the two apart; one that measures
    anything its own way -- the request, the notice, every message -- answers otherwise."""
    if not isinstance(counter, Counter) or not messages:
        return False
    try:
        with time_limit(PER_CALL):
            again = window_fn(copy.deepcopy(messages), 10 * budget, counter.scaled(10))
    except (Exception, SystemExit, TooSlow):  # a hint's diagnosis, never a verdict's
        return False
    return is_messages(again) and not safe_equal(again, out)


COUNTERS = (Counter(4, 4), Counter(3, 2), Counter(1, 1, words=True))


@st.composite
def window_cases(draw, pinned: bool):
    """(messages, budget, counter): a made-up history, a counter, and a budget near an edge or anywhere."""
    messages = draw(histories())
    counter = draw(st.sampled_from(COUNTERS))
    head = counter(messages[0]) if pinned else 0
    total = size_of(messages, counter)
    edges = []
    for cut in reversed(safe_cuts(messages)[:-1]):  # the newest cut first: the tightest desks
        if cut >= 1 + pinned:
            fits = head + counter(NOTICE) + size_of(messages[cut:], counter)
            edges += [fits, fits - 1]
    edges += [total, total - 1, 0] + ([head, head - 1] if pinned else [])
    budget = draw(st.one_of(st.sampled_from(edges), st.integers(0, total + 50)))
    return messages, max(budget, 0), counter


@st.composite
def remarks_cases(draw):
    """(messages, budget, counter) for remarks_window: histories where most results carry a remark."""
    recipe = turns(extras=st.sampled_from((4, 5, 6, 7, 0)))
    piece = st.tuples(STYLE, st.integers(0, 6), SEED)
    messages = build_history(draw(piece), draw(st.lists(recipe, max_size=7)), None)
    counter = draw(st.sampled_from(COUNTERS))
    request, total = counter(messages[0]), size_of(messages, counter)
    edges = [total, total - 1, request, request - 1]
    budget = draw(st.one_of(st.sampled_from(edges), st.integers(max(request - 1, 0), total + 20)))
    return messages, max(budget, 0), counter


def show_window_case(case) -> list[str]:
    messages, budget, counter = case
    return show_messages(messages, counter=counter) + [
        f"budget = {budget:,} tokens; counter(message) = {counter!r}"
    ]


def _plain(message) -> int:
    """chars/4 of one message: the count a window that ignores its ``counter`` is likely to use."""
    return len(text_of(message)) // 4


def size_of(messages, counter) -> int:
    return sum(counter(m) for m in messages)


def window_problem(
    messages, budget, counter, out, pinned: bool, name: str, counted: bool = False
) -> Fail | None:
    """What is wrong with ``out`` as ``name(messages, budget, counter)``, or None if it is right.

    ``counted``: the window is known to measure with its counter (``ignores_the_counter`` said so),
    so no hint guesses that it measured another way.
    """
    size = f"a history of {len(messages)} message{'' if len(messages) == 1 else 's'} and a budget of {budget:,} tokens"
    if out is None:
        return Fail(
            f"for {size} {name} returned None", "end the function with `return` and the list."
        )
    if not is_messages(out):
        return Fail(
            f"for {size} {name} returned {not_messages(out)}",
            "return a list of message dicts: the ones you send, in order.",
        )
    if not messages:
        return (
            None
            if out == []
            else Fail(
                f"for an empty history {name} returned {len(out)} messages",
                "an empty history is a real input (nothing has happened yet): return [].",
            )
        )
    sent, total = size_of(out, counter), size_of(messages, counter)
    if total <= budget:
        if out == messages:
            return None
        if total == budget:
            return Fail(
                f"for {size} everything fitted exactly ({total:,} tokens) but you did not send it all",
                "a history exactly as big as the budget fits: compare with <=, not <.",
            )
        return Fail(
            f"for {size} everything fitted ({total:,} tokens) but you did not send it all",
            "when the whole history fits the budget, send all of it, unchanged.",
        )
    head = messages[:1] if pinned else []
    if pinned and counter(messages[0]) > budget:
        if not out:
            return None
        return Fail(
            f"for {size} the request alone ({counter(messages[0]):,} tokens) is over the budget, yet you "
            f"sent {len(out)} message(s)",
            "when not even the request fits, nothing fits: return [] "
            "(the loop then stops honestly; a desk over the budget is refused).",
        )
    if sent > budget:
        return Fail(
            f"for {size} you sent {sent:,} tokens",
            _over_hint(messages, budget, counter, out, head, counted),
        )
    if pinned:
        if not out or out[0] != messages[0]:
            return _head_problem(messages, out, size)
        return _rest_problem(
            messages, budget - counter(messages[0]), counter, out[1:], 1, size, counted
        )
    return _rest_problem(messages, budget, counter, out, 0, size, counted)


def _over_hint(messages, budget, counter, out, head, counted=False) -> str:
    newest = safe_cuts(messages)[-2]
    newest_fits = (
        newest > len(head) and size_of(head + [NOTICE] + messages[newest:], counter) <= budget
    )
    if budget == 0:
        return "a budget of 0 is not 'no limit': it leaves room for nothing, so return []."
    if head and out[:1] == head and size_of(out[1:], counter) <= budget:
        measured = (_plain(head[0]), len(text_of(head[0])) // 3)
        if not counted and any(size_of(out[1:], counter) + guess <= budget for guess in measured):
            return (
                _COUNTER  # it did leave room for the request, but measured the request another way
            )
        return HEAD_HINT
    if out == messages:
        return "the whole history is over the budget you were given: drop the oldest messages until what you send fits."
    if out[-1:] == messages[-1:] and not newest_fits:
        return (
            "even the newest turn alone does not fit beside "
            + ("the request and " if head else "")
            + "the notice, so nothing more fits: return "
            + ("[request]" if head else "[]")
            + " rather than a desk over the budget (the API would refuse it)."
        )
    if NOTICE in out and size_of([m for m in out if m != NOTICE], counter) <= budget:
        return "count every message you send against the budget, the notice included."
    if not counted and (
        size_of(out, _plain) <= budget or size_of(out, lambda m: len(text_of(m)) // 3) <= budget
    ):
        return _COUNTER
    return (
        "measure what you send (the notice and the messages you keep) against the budget, not the raw "
        "history."
    )


def _head_problem(messages, out, size) -> Fail:
    if not out:
        return Fail(
            f"for {size} you sent nothing, though the request fits",
            "pin the head: the request is always sent, even when nothing after it fits: return [request].",
        )
    if messages[0] in out:
        return Fail(
            f"for {size} the request is message {out.index(messages[0])} of your desk, not the first",
            "the request goes first, before the notice: [messages[0], notice, ...newest messages].",
        )
    return Fail(
        f"for {size} the request (message 0) is not on your desk",
        "pin the head: the request is the mission, so messages[0] is always sent first, and the window "
        "slides over what comes after it.",
    )


def _rest_problem(messages, budget, counter, rest, base, size, counted=False) -> Fail | None:
    """``rest`` is what follows the head (``base`` = 1) or the whole desk (``base`` = 0), for ``budget``."""
    cuts = [c for c in safe_cuts(messages)[:-1] if c > base]  # where a dropping window may start
    fits = [c for c in cuts if size_of([NOTICE] + messages[c:], counter) <= budget]
    if base and not rest:
        if fits:
            return Fail(
                f"for {size} you sent only the request, though the newest turn fits beside it and the notice",
                "after the request, keep the newest messages that fit, with the notice in front.",
            )
        return None
    if not rest:
        if fits:
            return Fail(
                f"for {size} you sent nothing, though the newest turn fits beside the notice",
                "drop only the oldest turns: keep the newest ones that fit, with the notice in front.",
            )
        return None
    if not fits:
        if len(rest) == 1 and rest[0] == NOTICE:
            return Fail(
                f"for {size} you sent a notice and nothing after it",
                "when not even the newest turn "
                "fits, a notice alone is no help: return " + ("[request]." if base else "[]."),
            )
        return Fail(
            f"for {size} not even the newest turn fits, yet you sent {len(rest)} message(s) after "
            + ("the request" if base else "nothing"),
            "keep one unbroken run of the NEWEST messages: when the newest turn does not fit, nothing "
            "older may take its place. Return " + ("[request]." if base else "[]."),
        )
    if rest[-1] != messages[-1]:
        return Fail(
            f"for {size} the newest message is not on your desk",
            "a sliding window keeps the NEWEST messages and drops the oldest ones.",
        )
    first = rest[0]
    if first != NOTICE:
        kept = first in messages[base:]
        if kept and base:
            hint = (
                "after the request, the notice goes first whenever you drop anything: exactly "
                "user(DROPPED_NOTICE), then the newest messages."
            )
        elif kept and first["role"] == "assistant":
            hint = (
                "the API wants the desk to start with a user message. When you drop messages, put exactly "
                "user(DROPPED_NOTICE) in front, and count it in the budget."
            )
        elif kept and tool_results(first):
            hint = (
                "you kept a tool_result but dropped the tool_use it answers. Cut only where safe_cuts allows "
                "(never between a call and its result), and put user(DROPPED_NOTICE) in front."
            )
        elif kept:
            hint = (
                "when you drop anything, the notice goes first -- even when the first message you keep is a "
                "user message: exactly user(DROPPED_NOTICE)."
            )
        elif is_plain_user(first):
            hint = (
                f"the notice is exactly user(DROPPED_NOTICE), {DROPPED_NOTICE!r}: not your own words (the "
                "budget of every window is worked out with that notice)."
            )
        else:
            hint = "put exactly user(DROPPED_NOTICE) first, then the newest messages, unchanged."
        return Fail(
            f"for {size} your desk starts with {text_of(first)[:40]!r}, not the notice", hint
        )
    kept = rest[1:]
    if not kept or kept[-1] != messages[-1]:
        return Fail(
            f"for {size} the newest message is not on your desk",
            "a sliding window keeps the NEWEST messages and drops the oldest ones.",
        )
    start = len(messages) - len(kept)
    if start <= base or kept != messages[start:]:
        return Fail(
            f"for {size} after the notice there is not one unbroken run of the newest messages",
            "after the notice, send messages[cut:] for one cut: the newest messages, in order, none "
            "skipped, none repeated, none edited.",
        )
    if start not in cuts:
        return Fail(
            f"for {size} your desk starts at message {start}, a tool_result whose tool_use was dropped",
            "cut only where safe_cuts(messages) allows: never between a tool_use and its tool_result.",
        )
    older = [c for c in fits if c < start]
    if older:
        p = older[-1]
        exact = size_of([NOTICE] + messages[p:], counter) == budget
        if not counted and size_of([NOTICE] + messages[p:], _plain) > budget >= size_of(
            rest, _plain
        ):
            return Fail(
                f"for {size} you dropped more than needed: from message {p} on, it still fitted",
                _COUNTER,
            )
        if exact:
            hint = "a turn that brings the desk exactly to the budget fits: compare with <=, not <."
        elif is_plain_user(messages[p]) and messages[start]["role"] == "assistant":
            hint = (
                "a cut may fall before a user message that carries no tool result (an answer, a remark): "
                "it is a safe cut too, so keep the messages from there."
            )
        else:
            hint = (
                "keep as much as fits: take the oldest safe cut whose desk (notice + messages[cut:]) fits, "
                "not a newer one."
            )
        return Fail(
            f"for {size} you dropped more than needed: from message {p} on, it still fitted"
            + (" exactly" if exact else ""),
            hint,
        )
    return None


# ---- the window that carries the remarks (task 4) --------------------------------------------------


PREAMBLE_ROOM = 12  # tokens a notice may spend on its own words before the remarks


def user_remarks(messages: list[dict]) -> list[str]:
    """Every text block the user wrote in ``messages`` (not tool results). Example: 'By the way: ...'"""
    return [
        b["text"]
        for m in messages
        if m["role"] == "user"
        for b in blocks_of(m)
        if b.get("type") == "text"
    ]


def _carries(notice: str, remarks: list[str]) -> str | None:
    """The first remark the notice does not carry word for word, in order; None if it carries them all."""
    at = 0
    for remark in remarks:
        found = notice.find(remark, at)
        if found < 0:
            return remark
        at = found + len(remark)
    return None


def remarks_problem(messages, budget, counter, out) -> Fail | None:
    size = f"a history of {len(messages)} messages and a budget of {budget:,} tokens"
    if not is_messages(out):
        return Fail(
            f"for {size} remarks_window returned {not_messages(out)}",
            "return a list of messages.",
        )
    if not messages or counter(messages[0]) > budget:
        return (
            None
            if out == []
            else Fail(
                f"for {size} you sent {len(out)} message(s)",
                "an empty history, or a "
                "request that alone is over the budget, gives [] (nothing fits).",
            )
        )
    if size_of(messages, counter) <= budget:
        return (
            None
            if out == messages
            else Fail(
                f"for {size} everything fitted but you did not send it all",
                "when the whole history fits, send all of it, unchanged.",
            )
        )
    sent = size_of(out, counter)
    if sent > budget:
        return Fail(
            f"for {size} you sent {sent:,} tokens",
            "the notice counts against the budget, and it grows with the remarks it carries: when it "
            "does not fit, drop one more turn (its remarks join the notice) and try again.",
        )
    if not out or out[0] != messages[0]:
        return Fail(f"for {size} the request is not first", "pin the head, as in pinned_window.")
    if pair_problems(out):
        return Fail(
            f"for {size} the desk breaks the tool-pair rule ({pair_problems(out)[0]})",
            "cut only where safe_cuts allows, as in sliding_window.",
        )
    kept = out[2:]
    start = len(messages) - len(kept)
    cuts = [c for c in safe_cuts(messages)[:-1] if c > 1]
    if out == messages[:1]:
        smallest = (
            user(DROPPED_NOTICE + " " + " ".join(user_remarks(messages[1 : cuts[-1]])))
            if cuts
            else None
        )
        # Your notice may say more than DROPPED_NOTICE and the remarks ("The user said: ..."):
        # a few tokens of room are left for that.
        spare = PREAMBLE_ROOM
        if (
            cuts
            and size_of([messages[0], smallest] + messages[cuts[-1] :], counter) + spare <= budget
        ):
            return Fail(
                f"for {size} you sent only the request, though the newest turn fits beside it and its "
                "notice",
                "keep the newest messages that fit after the request and the notice (the notice "
                "carries only what the user wrote, not the tool results, so it stays small).",
            )
        return None
    notice = out[1]
    if not (
        is_plain_user(notice)
        and notice not in messages
        and kept == messages[start:]
        and start in cuts
    ):
        return Fail(
            f"for {size} after the request there is not one notice followed by the newest messages",
            "request, one notice, then messages[cut:] for one safe cut: the newest messages, unbroken.",
        )
    text = text_of(notice)
    if not text.startswith(DROPPED_NOTICE):
        return Fail(
            f"for {size} your notice starts {text[:30]!r}",
            f"start the notice with DROPPED_NOTICE ({DROPPED_NOTICE!r}), then the user's words.",
        )
    missing = _carries(text, user_remarks(messages[1:start]))
    if missing is not None:
        strings = {
            m["content"]
            for m in messages[1:start]
            if m["role"] == "user" and isinstance(m["content"], str)
        }
        lost = [r for r in user_remarks(messages[1:start]) if r not in text]
        plain = (
            lost
            and all(r in strings for r in lost)
            and len(lost) < len(user_remarks(messages[1:start]))
        )
        return Fail(
            f"for {size} the user said {missing!r} in a dropped message, and your notice does not carry "
            "it" + (" in the order it was said" if missing in text else ""),
            "put the remarks into the notice in the order they were said."
            if missing in text
            else "a user message whose content is a plain string is what the user wrote too (an answer, a "
            "remark): carry it as well."
            if plain
            else "collect the text blocks of every user message you drop (not the tool results) and put "
            "them, word for word and in order, into the notice.",
        )
    results = [
        text_of({"role": "user", "content": [b]})
        for m in messages[1:start]
        for b in blocks_of(m)
        if b.get("type") == "tool_result"
    ]
    if any(len(r) > 40 and r in text for r in results):
        return Fail(
            f"for {size} your notice carries the text of a dropped tool result",
            "carry only what the user wrote (text blocks), not the tool results: a file can be read again.",
        )
    older = [c for c in cuts if c < start][-1:]
    for p in older:  # would the next older cut have fitted, with a notice worded like yours?
        narrower = text  # your notice, less the remarks that cut would have kept on the desk
        for remark in reversed(user_remarks(messages[p:start])):
            at = narrower.rfind(remark)
            if at >= 0:
                narrower = narrower[:at] + narrower[at + len(remark) :]
        if size_of([messages[0], user(narrower)] + messages[p:], counter) + 2 <= budget:
            return Fail(
                f"for {size} you dropped more than needed: from message {p} on, it still fitted",
                "try the cuts from the oldest on and keep the first desk that fits (the notice grows "
                "as you drop more, so the newest cut is not the only one to try).",
            )
    return None
