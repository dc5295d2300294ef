"""No lesson uses a word before the lesson that introduces it (notebooks/GLOSSARY.md says which).

Checked on what the class reads in each lesson's core: its markdown, links and instructor notes aside
(a link names the lesson it points to; a note is for the instructor), and its code comments and printouts
(the strings in its code). 03 introduces at most nine words (the eighth and ninth: the template, and *hydrate*, the half of
compaction that splices the card back). Left out: the Deeper parts, which come after
the whole morning in a self-study reading.
"""

import re
from pathlib import Path

import nbformat
import pytest

from tools.lessons import read, tags

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "notebooks" / "GLOSSARY.md"
ROW = re.compile(r"^\| ([^|]+?) \| (\d\d) \|", re.M)


def glossary() -> dict[str, int]:
    return {
        term.strip(): int(lesson)
        for term, lesson in ROW.findall(GLOSSARY.read_text(encoding="utf-8"))
    }


def readable(cells) -> str:
    """The words the class reads: markdown minus links and reveals, code minus its code (strings and comments)."""
    parts = []
    for cell in cells:
        if "instructor" in tags(cell) or "piece" in tags(cell):
            continue
        if cell.cell_type == "markdown":
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", " ", cell.source)  # links name other lessons
            parts.append(re.sub(r"<details>.*?</details>", " ", text, flags=re.S))
        else:
            parts += re.findall(r"#[^\n]*|\"[^\"\n]*\"|'[^'\n]*'", cell.source)
    return "\n".join(parts).lower()


def lesson_text(number: int) -> str:
    path = next((ROOT / "notebooks").glob(f"{number:02d}_*.ipynb"))
    if number == 0:
        return readable(nbformat.read(path, as_version=4).cells)
    return readable(read(path).core)


NAMES = ("offline model", "desk model", "context desk")  # names, not the words they contain


def uses(text: str, term: str) -> bool:
    for name in NAMES:
        text = text.replace(name, " ")
    return re.search(r"(?<![\w-])" + re.escape(term.lower()) + r"(?![\w-])", text) is not None


def test_the_glossary_reads():
    terms = glossary()
    assert len(terms) >= 20 and set(terms.values()) <= {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize("number", [0, 1, 2, 3, 4])
def test_no_lesson_uses_a_word_before_it_is_introduced(number):
    text = lesson_text(number)
    early = [term for term, lesson in glossary().items() if lesson > number and uses(text, term)]
    assert early == [], f"lesson {number:02d} uses {early} before the lesson that introduces them"


def test_lesson_03_introduces_at_most_nine_words():
    new = [term for term, lesson in glossary().items() if lesson == 3]
    assert len(new) <= 9, new


def test_the_checker_finds_an_early_word():
    assert uses("then we compact the middle with compaction.", "compaction")
    assert not uses("the pre-compaction desk", "compaction")
