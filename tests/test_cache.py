"""Prompt caching's one rule: where the breakpoints go, and what a request reads from the cache."""

import copy

from harness.cache import PromptCache, breakpoints, mark
from harness.messages import user

A, B, C, D, S = (user(f"message {x} " * 25) for x in "ABCDS")


def reads_all_of(before: list[dict], now: list[dict]) -> bool:
    """True when the request ``now``, sent after ``before``, reads all of ``before`` from the cache."""
    cache = PromptCache(fixed=0)
    cache.send(before, [1] * len(before))
    read, _ = cache.send(now, [1] * len(now))
    return read == len(before)


def test_a_copy_of_the_same_messages_still_reads_the_cache():
    """The cache compares content, not Python objects: an equal message is the same prefix."""
    assert reads_all_of([A, B], [copy.deepcopy(A), copy.deepcopy(B), C])
    assert not reads_all_of([A, B, C], [A, S, C])  # the front was rewritten
    assert not reads_all_of([A, B], [A])  # a shorter request cannot contain the old one


def test_breakpoints_are_the_last_message_and_the_newest_mark():
    assert breakpoints([]) == []
    assert breakpoints([A, B, C]) == [2]
    assert breakpoints([mark(A), mark(B), C, D]) == [1, 3]  # the API allows four in all
    assert reads_all_of([mark(A), B], [A, B, C])  # a breakpoint is not content


def test_a_mark_copies_the_message_and_leaves_the_original_alone():
    marked = mark(A)
    assert marked["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert A == user("message A " * 25)  # not changed in place: the meter's cache relies on it


def test_the_cache_reads_the_longest_stored_front_within_the_look_back():
    """Fixed 10 tokens; each message 100. Lap 1 stores [A]; lap 2 sends [A, B]: reads 110, writes 100.
    Lap 3 rewrites B as S: only the front [A] is found again (110), the rest is written."""
    cache = PromptCache(fixed=10)
    assert cache.send([A], [100]) == (0, 110)
    assert cache.send([A, B], [100, 100]) == (110, 100)
    assert cache.send([A, S, C], [100, 100, 100]) == (110, 200)
