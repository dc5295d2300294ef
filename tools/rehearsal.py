"""A rehearsal estimate: how long each segment's core takes to teach, from the notebooks themselves.

    python -m tools.rehearsal          # one table per segment, and whether it fits its time box

The formula (one line per kind of work, the paces stated once, here):

* **speaking**: every word of student-facing prose in the core, at ``WORDS_PER_MINUTE`` (140, a calm
  lecture pace; the instructor paraphrases the prose rather than reading it, which is not slower);
* **instructor notes**: ``NOTE_SECONDS`` each (60 s: a board drawing or one question to the room;
  their words are cues for the instructor, not read aloud);
* **live code**: the characters the instructor types, i.e. the lines of the finished version that the
  skeleton does not already hold, without comments and indentation (the editor indents, and the
  comments are said, not typed), at ``TYPING_CHARS_PER_SECOND`` (2.5: typing while talking);
* **cell runs**: ``RUN_SECONDS`` for every core code cell (20 s: run it, wait, point at the output),
  plus ``FIGURE_SECONDS`` (30 s) for a cell that draws a plot, a desk or the dashboard;
* **checkpoint**: ``CHECKPOINT_SECONDS`` (120 s: ask, wait, take two answers) plus its model answer
  read out at the speaking pace.

The core is everything but the ``## Deeper`` sections. Left out: questions from the room beyond the
checkpoint, and a slow laptop; that is what the slack between estimate and box is for.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from tools.lessons import LESSONS, SEGMENTS, Lesson, read, tags

WORDS_PER_MINUTE = 140
NOTE_SECONDS = 60
TYPING_CHARS_PER_SECOND = 2.5
RUN_SECONDS = 20
FIGURE_SECONDS = 30
CHECKPOINT_SECONDS = 120
DRAWS = re.compile(r"\b(plot_tokens|draw_desk|show_dashboard|live_plot|Dashboard|plt\.subplots)\(")


@dataclass
class Estimate:
    """Seconds of each kind of work in one lesson's core (or a part of it)."""

    speaking: float = 0
    notes: float = 0
    typing: float = 0
    runs: float = 0
    checkpoint: float = 0

    @property
    def total(self) -> float:
        return self.speaking + self.notes + self.typing + self.runs + self.checkpoint

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(self.speaking + other.speaking, self.notes + other.notes, self.typing + other.typing,
                        self.runs + other.runs, self.checkpoint + other.checkpoint)


def words(markdown: str) -> int:
    """Words a person would say: code fences, tables' rules, links' targets and HTML tags left out."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>|\]\([^)]*\)|\|[-: |]+\|", " ", text)
    return len(re.findall(r"[A-Za-z0-9][\w'’.-]*", text))


def typed_characters(skeleton: str, finished: str) -> int:
    """Characters the instructor types: the finished version's code lines the skeleton does not hold.

    Comments and indentation are not counted. Example: skeleton "def f():\n    return 0", finished
    "def f():\n    return 1  # one" -> 8 ("return 1")
    """
    def code_lines(source):
        lines = []
        for line in source.splitlines():
            code = _without_comment(line).strip()
            if code:
                lines.append(code)
        return lines

    given = set(code_lines(skeleton))
    return sum(len(line) for line in code_lines(finished) if line not in given)


def _without_comment(line: str) -> str:
    """The line up to a ``#`` that is not inside a string (quotes counted naively, enough for lesson code)."""
    quote = None
    for i, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:i]
    return line


def estimate_cells(cells: list) -> Estimate:
    """The formula above, applied to a list of cells (a lesson's core, or one section)."""
    e, skeleton = Estimate(), ""
    for cell in cells:
        cell_tags = tags(cell)
        if cell.cell_type == "markdown":
            if "instructor" in cell_tags:
                e.notes += NOTE_SECONDS
            elif "answer" in cell_tags:
                e.checkpoint += CHECKPOINT_SECONDS + 60 * words(cell.source) / WORDS_PER_MINUTE
            else:
                e.speaking += 60 * words(cell.source) / WORDS_PER_MINUTE
            continue
        e.runs += RUN_SECONDS + (FIGURE_SECONDS if DRAWS.search(cell.source) else 0)
        if "live-code" in cell_tags:
            skeleton = cell.source
        elif "live-code-finished" in cell_tags:
            e.typing += typed_characters(skeleton, cell.source) / TYPING_CHARS_PER_SECOND
    return e


def estimate(lesson: Lesson) -> Estimate:
    return estimate_cells(lesson.core)


def box_minutes(span: str) -> int:
    """Minutes in a span like "7:20–7:50". Example: "7:50–8:30" -> 40"""
    (h1, m1), (h2, m2) = (map(int, t.split(":")) for t in re.split(r"[–-]", span))
    return (h2 * 60 + m2) - (h1 * 60 + m1)


def segments() -> list[tuple[str, list[Lesson], Estimate]]:
    """(time box, its lessons, their summed estimate) for each segment of the morning."""
    lessons = [read(p) for p in LESSONS]
    found = []
    for span, prefixes in SEGMENTS.items():
        mine = [lesson for lesson in lessons if lesson.path.name.startswith(prefixes)]
        total = Estimate()
        for lesson in mine:
            total = total + estimate(lesson)
        found.append((span, mine, total))
    return found


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def report() -> tuple[str, bool]:
    """The printed table, and whether every segment fits its box."""
    lines = [(f"paces: {WORDS_PER_MINUTE} words/min spoken, {NOTE_SECONDS} s per instructor note, "
              f"{TYPING_CHARS_PER_SECOND} typed chars/s, {RUN_SECONDS} s per cell run (+{FIGURE_SECONDS} s "
              f"if it draws), {CHECKPOINT_SECONDS} s per checkpoint plus its answer"), ""]
    header = f"{'segment':<10} {'lesson':<28} {'speak':>6} {'notes':>6} {'type':>6} {'runs':>6} {'chkpt':>6} {'total':>6}"
    lines.append(header)
    fits = True
    for span, lessons, total in segments():
        for lesson in lessons:
            e = estimate(lesson)
            lines.append(f"{span:<10} {lesson.name:<28} " + " ".join(
                f"{minutes(x):>6}" for x in (e.speaking, e.notes, e.typing, e.runs, e.checkpoint, e.total)))
        box = box_minutes(span) * 60
        ok = total.total <= box
        fits &= ok
        lines.append(f"{'':<10} {'segment total':<28} {'':>34} {minutes(total.total):>6}  of {minutes(box)}  "
                     + ("fits" if ok else "OVER THE BOX"))
    return "\n".join(lines), fits


def main() -> int:
    text, fits = report()
    print(text)
    print("\nevery segment fits its time box" if fits else "\nat least one segment is over its time box")
    return 0 if fits else 1


if __name__ == "__main__":
    sys.exit(main())
