"""The message array: the tool-pair rule, where a list may be cut, where turns start, the one way
a message becomes text (what the meter counts and what a summary prompt quotes), and the one way a
tool call is shown to a person."""

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.messages import (
    assistant,
    block_text,
    call_words,
    pair_problems,
    safe_cuts,
    text_of,
    tool_uses,
    turn_starts,
    user,
)
from harness.prompts import render


def call(i, name="read_file"):
    return {"type": "tool_use", "id": f"t{i}", "name": name, "input": {"path": f"f{i}.py"}}


def result(i, text="x = 1"):
    return {"type": "tool_result", "tool_use_id": f"t{i}", "content": text}


@st.composite
def histories(draw):
    """A request, then laps: a reply (a note, maybe tool calls), and the results that answer them."""
    history = [user("Find the bug.")]
    for lap in range(draw(st.integers(0, 12))):
        calls = [call(f"{lap}_{k}") for k in range(draw(st.integers(0, 2)))]
        history.append(assistant([{"type": "text", "text": f"note {lap}"}] + calls))
        if calls:
            history.append(user([result(c["id"][1:]) for c in calls]))
    return history


@settings(max_examples=150, deadline=None)
@given(histories())
def test_every_safe_cut_keeps_both_halves_valid(history):
    assert pair_problems(history) == []
    for cut in safe_cuts(history):
        rest = history[cut:]
        assert pair_problems(history[:cut]) == []
        if rest and rest[0]["role"] == "user":
            assert pair_problems(rest) == []


@settings(max_examples=150, deadline=None)
@given(histories())
def test_a_turn_starts_at_each_reply(history):
    replies = [i for i, m in enumerate(history) if m["role"] == "assistant"]
    assert turn_starts(history) == replies


def test_a_result_cut_from_its_call_is_named():
    history = [user("go"), assistant([call(1)]), user([result(1)])]
    assert pair_problems(history[:2]) == []  # a call at the very end: the reply is still coming
    assert pair_problems([user("go"), user([result(1)])]) == [
        "message 1 answers tool_use t1, which is not in message 0"
    ]
    assert safe_cuts(history) == [0, 1, 3]


@settings(max_examples=100, deadline=None)
@given(histories())
def test_text_of_and_the_summary_transcript_say_the_same_blocks(history):
    """One message-to-text function: the summary transcript is the same text, each block labelled."""
    rendered = render(history)
    for message in history:
        for block in message["content"] if isinstance(message["content"], list) else []:
            assert block_text(block) in rendered
    assert all(text_of(m) in rendered or "\n" in text_of(m) for m in history)


def test_blocks_with_no_text_are_left_out():
    message = assistant([{"type": "compaction", "content": "..."}, {"type": "text", "text": "Hi."}])
    assert text_of(message) == "Hi." and tool_uses(message) == []


@settings(max_examples=200, deadline=None)
@given(
    name=st.text(min_size=1, max_size=20).filter(lambda n: n.strip() == n),
    values=st.lists(st.one_of(st.text(max_size=400), st.integers(), st.booleans()), max_size=4),
)
def test_a_call_in_words_is_its_name_then_each_value_cut_at_200(name, values):
    given = {f"k{i}": v for i, v in enumerate(values)}
    words = call_words({"type": "tool_use", "id": "t1", "name": name, "input": given})
    assert words == " ".join([name] + [str(v)[:200] for v in values]).strip()
    assert len(words) <= len(name) + sum(min(len(str(v)), 200) + 1 for v in values)


def test_a_call_whatever_its_shape_still_reads_as_words():
    """A misbehaving model may send no name, a string input or none: shown, never a crash."""
    assert call_words({"name": "read_file", "input": {"path": "app/auth.py"}}) == (
        "read_file app/auth.py"
    )
    assert call_words({"name": "read_file", "input": "app/auth.py"}) == "read_file app/auth.py"
    assert call_words({"name": "list_files", "input": None}) == "list_files"
    assert call_words({"input": {"text": "x"}}) == "? x"
