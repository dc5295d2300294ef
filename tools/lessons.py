"""Read a lesson notebook the way the class uses it: its setup cell, its `##` sections, its tagged cells.

The lessons mark their cells with metadata tags (View -> Property Inspector in JupyterLab):

* ``setup``       -- the one cell that imports everything and builds the shared objects; it runs first
* ``instructor``  -- an instructor note: in the runbook, not in the student view
* ``checkpoint``  -- the checkpoint question, asked before the run that answers it
* ``reveal``      -- the first cell whose output (or text) answers the checkpoint
* ``answer``      -- the hidden model answer, after the reveal
* ``live-code``   -- the skeleton the instructor types into; ``live-code-finished`` is the finished version
* ``build``       -- the build cell: the class writes this lesson's piece of the agent (goal, interface, hint)
* ``piece``       -- the markdown cell after it that hides one finished version in a ``<details>`` reveal
* ``verdict``     -- a cell whose printed lines say what the run of the class's piece did

A section is a markdown cell with a ``## `` heading and everything up to the next one. Sections whose
heading starts with ``Deeper`` are optional: they come after the checkpoint and are left out when late.
Left out: nested (``###``) sections are part of their ``##`` section; nothing here runs any code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SLIDES = ROOT / "slides"
LESSONS = sorted(p for p in NOTEBOOKS.glob("0[1-5]_*.ipynb"))

KNOT = "Tie the knot"  # the title of 05's last core section: the 8:55–9:00 box


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


# The class clock (seed 001): 01 and 02 share the first twenty minutes; 05 ends with the five-minute knot.
SEGMENTS = [
    Segment("7:00–7:20", ("01_", "02_")),
    Segment("7:20–7:50", ("03_",)),
    Segment("7:50–8:30", ("04_",)),
    Segment("8:30–8:55", ("05_",), "before-knot"),
    Segment("8:55–9:00", ("05_",), "knot"),
]


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
    deck = SLIDES / lesson.path.name
    for cell in nbformat.read(deck, as_version=4).cells:
        if cell.cell_type == "markdown" and re.match(r"\s*## Checkpoint", cell.source):
            body = cell.source.split("\n", 1)[1].strip()
            return plain(body.split("\n\n")[0])
    return ""
