"""The model protocol: a reply's text, and the overflow error that says what to do."""

from harness.model import CLASS_WINDOW, ContextOverflow, Reply


def test_a_reply_text_joins_its_text_blocks_only():
    reply = Reply(
        [
            {"type": "text", "text": "Reading it."},
            {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.py"}},
            {"type": "text", "text": "Then the tests."},
        ],
        "tool_use",
    )
    assert reply.text == "Reading it.\nThen the tests."
    assert reply.usage == {"input_tokens": 0, "output_tokens": 0}


def test_an_overflow_says_the_sizes_and_what_to_do():
    problem = ContextOverflow(6200, CLASS_WINDOW)
    assert "6,200 tokens were sent to a 5,000-token window" in str(problem)
    assert "context strategy" in str(problem) and problem.sent == 6200
    assert "prompt is too long" in str(ContextOverflow(None, None, "prompt is too long"))
