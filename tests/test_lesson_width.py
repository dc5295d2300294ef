"""The projector's width: every code line and every printed line of lessons 00-05 fits in 80 columns.

The unit test reads the sources: code cells, and the finished pieces in the reveals. The integration
test reads what the lessons printed in their last headless run (``tools.executed``): streams and text
results, pictures aside. A lesson prints what it computed through ``stage.classroom.say``, which wraps
at the same width (``stage.palette.wrap_printed``).
"""

import re
from pathlib import Path

import nbformat
import pytest

from stage.palette import PRINT_WIDTH as WIDTH
from stage.palette import wrap_printed
from stage.classroom import say
from tools.executed import executed, text_of_outputs
from tools.lessons import LESSONS

ROOT = Path(__file__).resolve().parent.parent
BOOKS = [ROOT / "notebooks" / "00_start_here.ipynb", *LESSONS]


def code_of(cell) -> str:
    if cell.cell_type == "code":
        return cell.source
    return "\n".join(re.findall(r"```python\n(.*?)```", cell.source, re.DOTALL))


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_every_code_line_fits_the_projector(path):
    long = [
        (cell.get("id"), len(line), line)
        for cell in nbformat.read(path, as_version=4).cells
        for line in code_of(cell).splitlines()
        if len(line) > WIDTH
    ]
    assert not long, f"{path.name}: {len(long)} code lines over {WIDTH} columns: {long[:5]}"


@pytest.mark.integration  # runs the lessons (tools.executed)
def test_every_printed_line_fits_the_projector():
    runs = executed(BOOKS)
    long = [
        (name, cell.get("id"), len(line), line[:60])
        for name, book in runs.items()
        for cell in book.cells
        for line in text_of_outputs(cell).splitlines()
        if len(line) > WIDTH
    ]
    assert not long, f"{len(long)} printed lines over {WIDTH} columns: {long[:8]}"


def test_say_keeps_every_line_within_the_width_and_every_word(capsys):
    text = "a rule " * 40 + "\n    indented: " + "word " * 30 + "\n" + "app/db.py:25 " * 9
    say(text)
    out = capsys.readouterr().out
    assert all(len(line) <= WIDTH for line in out.splitlines())
    assert out.split() == text.split()  # nothing lost, only line breaks
    assert wrap_printed(text, indent="  ") + "\n" == out
