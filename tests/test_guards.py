"""The guards around the class's pieces: a piece's own mistake becomes ``PieceFailed`` with what went
wrong; the model's errors pass through; a returned desk must be messages with every tool pair whole."""

import pytest

from harness.guards import PieceFailed, call_piece, checked_messages
from harness.messages import assistant, user
from harness.model import ContextOverflow


def keep_newest(history, room, count):
    return history[99]


def test_a_mistake_in_a_piece_is_named_with_the_piece():
    with pytest.raises(PieceFailed, match="keep_newest raised IndexError"):
        call_piece(keep_newest, [], 100, len)


def test_the_models_errors_are_not_the_pieces_fault():
    def fold(summary, events, write):
        raise ContextOverflow(9000, 5000)

    with pytest.raises(ContextOverflow):
        call_piece(fold, "", [], None)


def test_a_desk_must_be_a_list_of_messages_with_whole_tool_pairs():
    call = {"type": "tool_use", "id": "t1", "name": "list_files", "input": {}}
    answer = user([{"type": "tool_result", "tool_use_id": "t1", "content": "a.py"}])
    assert checked_messages(keep_newest, (user("go"), assistant([call]), answer), "here") == [
        user("go"),
        assistant([call]),
        answer,
    ]
    with pytest.raises(PieceFailed, match="must return a list of messages, not str"):
        checked_messages(keep_newest, "go", "here")
    with pytest.raises(PieceFailed, match="split a tool call from its result .after the notice"):
        checked_messages(keep_newest, [user("go"), answer], "after the notice")
