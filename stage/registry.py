"""The lesson registry: which lessons exist, in which box of the morning, with which piece, exercise and deck.

One table, ``notebooks/lessons.toml``, one row per lesson, in class order; this module reads it. The
rehearsal clock, the runbook and the student view (``tools/``), the slide build (``slides/build.py``),
the class scripts (``class/sizing.py``, ``class/lesson_cost.py``) and the class's agent file
(``stage/pieces.py``) all ask it, so adding a lesson is adding a row and the lesson's own files.
Left out: anything a lesson's notebook already says about itself (its sections, cells and tags).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "notebooks" / "lessons.toml"
SPAN = re.compile(r"^\d{1,2}:\d\d[–-]\d{1,2}:\d\d$")


@dataclass(frozen=True)
class Entry:
    """One row of the table. Example: Entry("03", "three_zone_compaction", ..., piece="three_zones")"""

    number: str
    slug: str
    title: str
    box: str  # the box of seed 001's plan it is taught in, "7:20–7:50"
    piece: str  # the function its build cell has the class write ("" if none)
    exercise: str  # exercises/<exercise>.ipynb and exercises/solutions/<exercise>.ipynb
    deck: str  # slides/<deck>.ipynb
    knot: str = ""  # the box of its closing "Tie the knot" section, if it has one
    root: Path = ROOT  # the clone the row's files are in (not a column: where the table was read)

    @property
    def name(self) -> str:
        return f"{self.number}_{self.slug}"

    @property
    def path(self) -> Path:
        return self.root / "notebooks" / f"{self.name}.ipynb"

    @property
    def deck_path(self) -> Path:
        return self.root / "slides" / f"{self.deck}.ipynb"

    @property
    def exercise_path(self) -> Path:
        return self.root / "exercises" / f"{self.exercise}.ipynb"

    @property
    def solution_path(self) -> Path:
        return self.root / "exercises" / "solutions" / f"{self.exercise}.ipynb"


COLUMNS = {f.name for f in fields(Entry)} - {"root"}
REQUIRED = ("number", "slug", "box")


def registry(path: Path = REGISTRY) -> list[Entry]:
    """The rows of the table at ``path``, in class order; a malformed row is refused, saying what is wrong.

    Example: registry() -> [Entry("01", "the_filling_desk", ...), ..., Entry("05", ...)]
    """
    rows = tomllib.loads(path.read_text(encoding="utf-8")).get("lesson", [])
    entries = []
    for row in rows:
        unknown = sorted(set(row) - COLUMNS)
        missing = [key for key in REQUIRED if key not in row]
        if unknown or missing:
            raise ValueError(
                f"{path}: the row of lesson {row.get('number', '?')} has "
                + (f"unknown columns {unknown}" if unknown else f"no {missing}")
            )
        for span in filter(None, (row["box"], row.get("knot"))):
            if not SPAN.match(span):
                raise ValueError(
                    f"{path}: lesson {row['number']}: {span!r} is not a span like 7:20–7:50"
                )
        values = {"title": "", "piece": "", "exercise": "", "deck": "", **row}
        entries.append(Entry(**values, root=path.resolve().parent.parent))
    numbers = [entry.number for entry in entries]
    if numbers != sorted(set(numbers)):
        raise ValueError(f"{path}: lesson numbers must be unique and in order, not {numbers}")
    return entries


def lesson_of_piece(piece: str, path: Path = REGISTRY) -> str:
    """The number of the lesson whose build cell writes ``piece``. Example: "fold" -> "04" """
    return next((e.number for e in registry(path) if e.piece == piece), "")
