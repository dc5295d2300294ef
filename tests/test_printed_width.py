"""What the stage prints fits the projector: lines of at most 80 characters, broken between words.

``stage.palette.wrap_printed`` is checked on generated text (nothing lost, nothing reordered, no line too
long unless one word alone is); then the stage's own printers -- ``setup_check`` (every lesson's first
cell) and ``class_piece`` (every build cell's announcement) -- through what they actually print.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from stage.classroom import setup_check
from stage.palette import PRINT_WIDTH, wrap_printed
from stage.pieces import class_piece

words = st.lists(
    st.text("abcdefghijklmnopqrstuvwxyz/._-", min_size=1, max_size=30), min_size=0, max_size=60
)


@settings(max_examples=300, deadline=None)
@given(st.lists(words, min_size=1, max_size=4), st.sampled_from(["", "  ", "     "]))
def test_wrapping_keeps_every_word_in_order_and_lines_short(paragraphs, indent):
    text = "\n".join(" ".join(paragraph) for paragraph in paragraphs)
    wrapped = wrap_printed(text, indent=indent)
    assert wrapped.split() == text.split(), "a word was lost, cut or moved"
    for line in wrapped.split("\n"):
        assert len(line) <= PRINT_WIDTH or len(line.split()) == 1, f"{line!r} is too long"


def test_a_short_line_is_left_exactly_as_it_was():
    assert wrap_printed("ok   tiktoken 0.12.0") == "ok   tiktoken 0.12.0"


def test_the_setup_check_and_the_build_cells_print_lines_that_fit(capsys):
    setup_check()
    class_piece("keep_newest", {})  # the build cell was not run: says so, with the harness's name

    def mine(history, room, count):
        raise NotImplementedError

    class_piece("keep_newest", {"keep_newest": mine})
    printed = capsys.readouterr().out
    assert "Active model:" in printed and "keep_newest" in printed
    too_long = [line for line in printed.splitlines() if len(line) > PRINT_WIDTH]
    assert not too_long, f"printed lines over {PRINT_WIDTH} characters: {too_long}"
