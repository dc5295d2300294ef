"""Read a lesson notebook the way the class uses it: its setup cell, its `##` sections, its tagged cells.

Which lessons exist, in which box of the morning, with which piece, exercise and deck, is one table:
``notebooks/lessons.toml``, read by ``stage.registry``. Everything here that lists lessons reads it.

The lessons mark their cells with metadata tags (View -> Property Inspector in JupyterLab):

* ``setup``       -- the one cell that imports everything and builds the shared objects; it runs first
* ``instructor``  -- an instructor note: in the runbook, not in the student view
* ``checkpoint``  -- the checkpoint question, asked before the run that answers it
* ``reveal``      -- the first cell whose output (or text) answers the checkpoint
* ``answer``      -- the hidden model answer, after the reveal
* ``typed``       -- a cell the instructor types from what the room dictates
* ``build``       -- the build cell: the class writes this lesson's piece of the agent (goal, interface, hint)
* ``piece``       -- the markdown cell after it that hides one finished version in a ``<details>`` reveal
* ``verdict``     -- a cell whose printed lines say what the run of the class's piece did
* ``answers``     -- a run the checkpoint's answer stands on, besides its reveal: never on the cut list

A section is a markdown cell with a ``## `` heading and everything up to the next one. Sections whose
heading starts with ``Deeper`` are optional: they come after the checkpoint and are left out when late.
Left out: nested (``###``) sections are part of their ``##`` section; nothing here runs any code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from stage.registry import Entry, registry

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SLIDES = ROOT / "slides"

KNOT = "Tie the knot"  # the title of the section a lesson with a `knot` ends on: a box of its own


@dataclass(frozen=True)
class Segment:
    """One box of seed 001's plan: its span, the lessons (by prefix) it teaches, and which part of them.

    ``part`` is "all", "before-knot" (everything up to the Tie the knot section) or "knot" (that section).
    """

    span: str
    prefixes: tuple[str, ...]
    part: str = "all"

    @property
    def start(self) -> str:
        return re.split(r"[–-]", self.span)[0]


def segments_of(entries: list[Entry]) -> list[Segment]:
    """The boxes of the morning from the table: lessons that share a box share a segment; a knot is its own.

    Example: 01 and 02 in 7:00–7:20, 05 in 8:30–8:55 with knot 8:55–9:00
    -> [7:00–7:20 (01_, 02_), ..., 8:30–8:55 (05_, before-knot), 8:55–9:00 (05_, knot)]
    """
    found: list[Segment] = []
    for entry in entries:
        prefix = f"{entry.number}_"
        if entry.knot:
            found += [
                Segment(entry.box, (prefix,), "before-knot"),
                Segment(entry.knot, (prefix,), "knot"),
            ]
        elif found and found[-1].span == entry.box and found[-1].part == "all":
            found[-1] = Segment(entry.box, found[-1].prefixes + (prefix,))
        else:
            found.append(Segment(entry.box, (prefix,)))
    return found


ENTRIES = registry()
LESSONS = [entry.path for entry in ENTRIES]
SEGMENTS = segments_of(ENTRIES)


def entry_of(lesson_name: str) -> Entry:
    """The registry row of a lesson, by its notebook's name. Example: "03_three_zone_compaction" -> Entry(...)"""
    return next(e for e in ENTRIES if e.name == lesson_name)


def tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def heading(cell) -> str | None:
    """The text of a cell's ``## `` heading, or None."""
    if cell.cell_type != "markdown":
        return None
    match = re.search(r"^## (.+)$", cell.source, re.MULTILINE)
    return match.group(1).strip() if match else None


@dataclass
class Section:
    title: str
    cells: list = field(default_factory=list)

    @property
    def deeper(self) -> bool:
        return self.title.lower().startswith("deeper")

    @property
    def code(self) -> list:
        return [c for c in self.cells if c.cell_type == "code"]


@dataclass
class Lesson:
    path: Path
    cells: list
    preamble: list  # the cells before the first ## heading (title, setup cell, notes)
    sections: list[Section]

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def entry(self) -> Entry:
        """This lesson's row of the registry."""
        return entry_of(self.name)

    @property
    def setup(self):
        found = [c for c in self.cells if "setup" in tags(c)]
        return found[0] if len(found) == 1 else None

    def tagged(self, tag: str) -> list[int]:
        return [i for i, c in enumerate(self.cells) if tag in tags(c)]

    @property
    def core(self) -> list:
        """Every cell the class sees in its time box: all but the Deeper sections."""
        cells = list(self.preamble)
        for section in self.sections:
            if not section.deeper:
                cells += section.cells
        return cells

    def core_part(self, part: str = "all") -> list:
        """The core cells of one part: all, everything before the Tie the knot section, or that section."""
        if part == "all":
            return self.core
        knot = next((s for s in self.sections if s.title.startswith(KNOT) or KNOT in s.title), None)
        if part == "knot":
            return list(knot.cells) if knot else []
        cells = list(self.preamble)
        for section in self.sections:
            if section is knot:
                break
            if not section.deeper:
                cells += section.cells
        return cells

    @property
    def checkpoint_question(self) -> str:
        index = self.tagged("checkpoint")
        return question_in(self.cells[index[0]].source) if index else ""


def read(path: Path) -> Lesson:
    notebook = nbformat.read(path, as_version=4)
    preamble, sections = [], []
    for cell in notebook.cells:
        title = heading(cell)
        if title is not None:
            sections.append(Section(title, [cell]))
        elif sections:
            sections[-1].cells.append(cell)
        else:
            preamble.append(cell)
    return Lesson(path, list(notebook.cells), preamble, sections)


def with_piece_in(skeleton: str, piece: str) -> str:
    """A build cell as the room leaves it: ``piece`` in place of the skeleton's function, and the lines
    the skeleton has after its function (the ``keep(...)`` that saves the piece) kept as they were.

    Example: ("def f():\n    raise ...\n\n\nkeep(f)", "def f():\n    return 1")
    -> "def f():\n    return 1\n\n\nkeep(f)"
    """
    lines = skeleton.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("def ")), None)
    if start is None:
        return piece
    after = next(
        (i for i in range(start + 1, len(lines)) if lines[i].strip() and not lines[i][0].isspace()),
        len(lines),
    )
    tail = "\n".join(lines[after:]).strip()
    return piece.rstrip() + ("\n\n\n" + tail if tail else "")


def question_in(markdown: str) -> str:
    """The first bold line of a checkpoint cell, as plain words.

    Example: "### Checkpoint\\n\\n**Why keep the tail?**" -> "Why keep the tail?"
    """
    match = re.search(r"\*\*(.+?)\*\*", markdown, re.DOTALL)
    return plain(match.group(1)) if match else ""


def plain(text: str) -> str:
    """Markdown emphasis and line breaks gone, spaces squeezed: for comparing the same sentence."""
    text = re.sub(r"[*_`]", "", text)
    return " ".join(text.split())


def deck_question(lesson: Lesson) -> str:
    """The checkpoint question on the lesson's slide deck (the slide headed ## Checkpoint)."""
    for cell in nbformat.read(lesson.entry.deck_path, as_version=4).cells:
        if cell.cell_type == "markdown" and re.match(r"\s*## Checkpoint", cell.source):
            body = cell.source.split("\n", 1)[1].strip()
            return plain(body.split("\n\n")[0])
    return ""
