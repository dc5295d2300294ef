"""The three meters, and the cache that keeps a long session from re-tokenizing its history."""

import pytest

from harness.messages import user
from harness.messages import text_of
from harness.tokens import PER_MESSAGE_OVERHEAD, Meter, chars4, cl100k, tiktoken_count
from harness.tools import WORKSPACE


def test_chars4_is_characters_over_four():
    assert chars4("a" * 40) == 10
    assert chars4("abc") == 0


def test_tiktoken_loads_offline_and_counts():
    # cl100k's known split: "hello world" is two tokens; the file was checked against its sha256
    assert tiktoken_count("hello world") == 2
    assert cl100k().name == "cl100k_base"


def test_meter_caches_each_message_once(meter):
    fresh = Meter("tiktoken")
    history = [user(f"message number {i} " * 20) for i in range(50)]
    first = fresh.total(history)
    assert fresh.tokenized == 50
    for _ in range(10):
        assert fresh.total(history) == first
    assert fresh.tokenized == 50  # no message was counted twice
    history.append(user("one more"))
    fresh.total(history)
    assert fresh.tokenized == 51


def test_cached_total_equals_naive_recount():
    history = [user("the desk fills up " * (i + 1)) for i in range(20)]
    for counter, count_text in [("tiktoken", tiktoken_count), ("chars4", chars4)]:
        recounted = sum(count_text(text_of(m)) + PER_MESSAGE_OVERHEAD for m in history)
        assert Meter(counter).total(history) == recounted


def test_chars4_and_tokenizer_disagree_on_code(meter):
    code = (WORKSPACE / "app" / "auth.py").read_text()
    assert chars4(code) != tiktoken_count(code)


def test_unknown_counter_is_a_clear_error():
    with pytest.raises(ValueError, match="Unknown token counter"):
        Meter("words")
