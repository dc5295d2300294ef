"""The show script's clock: how long each box of the morning takes to teach, from the notebooks themselves.

    python -m tools.rehearsal          # one row per box of seed 001's plan, and the total

The formula, one line per kind of work (the paces are stated once, here, and printed with the table):

* **speaking** -- every word of student-facing prose in the box, at ``WORDS_PER_MINUTE``;
* **instructor notes** -- ``NOTE_SECONDS`` each (a board drawing or one question to the room);
* **code shown and read** -- every line of a code cell the instructor shows (comments too, they are read),
  at ``CODE_LINE_SECONDS`` a line; a build cell's skeleton is shown the same way;
* **live typing** -- the characters of the finished piece that its skeleton does not hold (comments,
  docstrings and indentation left out: said, not typed), and of a cell tagged ``typed`` (what the room
  dictates, strings included), at ``TYPING_CHARS_PER_SECOND``;
* **runs** -- ``RUN_SECONDS`` a code cell, plus the reading of its output by its size: ``OUTPUT_LINE_SECONDS``
  a printed line and ``FIGURE_SECONDS`` a picture, taken from the last headless run (``tools.executed``);
* **checkpoint** -- ``CHECKPOINT_SECONDS`` (ask, wait, take two answers) plus its model answer read out;
* **exercises** -- the minutes of the exercise tasks the plan gives students in class (the ``in class`` rows
  of each exercise notebook's task table); the ``homework`` rows are not counted.

A box holds the core of its lessons (everything but ``## Deeper`` sections); 05's last section, Tie the
knot, is the 8:55 box of its own. The finished piece hidden in a ``piece`` reveal is for self-study and
is not read out. Left out: questions beyond the checkpoint and a slow laptop -- that is what the slack
between estimate and box is for.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, fields

from tools.executed import executed, figures_of, text_of_outputs
from tools.lessons import LESSONS, ROOT, SEGMENTS, Lesson, Segment, read, tags

WORDS_PER_MINUTE = 130
NOTE_SECONDS = 45
CODE_LINE_SECONDS = 3
TYPING_CHARS_PER_SECOND = 2.0
RUN_SECONDS = 5
OUTPUT_LINE_SECONDS = 2.5
FIGURE_SECONDS = 30
CHECKPOINT_SECONDS = 120
CLASS_MINUTES = 120


@dataclass
class Estimate:
    """Seconds of each kind of work in a box, a lesson, or a few cells."""

    speaking: float = 0
    notes: float = 0
    code: float = 0
    typing: float = 0
    runs: float = 0
    checkpoint: float = 0
    exercises: float = 0

    @property
    def total(self) -> float:
        return sum(getattr(self, f.name) for f in fields(self))

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


def words(markdown: str) -> int:
    """Words a person would say: code fences, reveals, tables' rules, links' targets and HTML tags left out."""
    text = re.sub(r"```.*?```|<details>.*?</details>", " ", markdown, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>|\]\([^)]*\)|\|[-: |]+\|", " ", text)
    return len(re.findall(r"[A-Za-z0-9][\w'’.-]*", text))


def code_lines(source: str) -> list[str]:
    """The lines of code that are typed: no comments, no docstrings, no blank lines, no indentation."""
    source = re.sub(r'("""|\'\'\').*?\1', "", source, flags=re.DOTALL)
    return [code for line in source.splitlines() if (code := _without_comment(line).strip())]


def typed_characters(skeleton: str, finished: str) -> int:
    """Characters typed live: the finished version's code lines the skeleton does not already hold.

    Example: skeleton "def f():\\n    raise NotImplementedError", finished "def f():\\n    return 1  # one" -> 8
    """
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


def piece_code(markdown: str) -> str:
    """The finished piece inside a ``piece`` reveal: the first fenced python block."""
    found = re.search(r"```python\n(.*?)```", markdown, re.DOTALL)
    return found.group(1) if found else ""


def shown_lines(source: str) -> int:
    """Lines of a code cell the class is shown and has read to it (blank lines are not read)."""
    return sum(1 for line in source.splitlines() if line.strip())


def estimate_cells(cells: list, ran: dict | None = None) -> Estimate:
    """The formula, applied to cells; ``ran`` maps a cell id to the same cell after a headless run."""
    e, ran = Estimate(), ran or {}
    for i, cell in enumerate(cells):
        cell_tags = tags(cell)
        if cell.cell_type == "markdown":
            if "instructor" in cell_tags:
                e.notes += NOTE_SECONDS
            elif "checkpoint" in cell_tags:
                e.checkpoint += CHECKPOINT_SECONDS + 60 * words(cell.source) / WORDS_PER_MINUTE
            elif "answer" in cell_tags:
                e.checkpoint += 60 * words(cell.source) / WORDS_PER_MINUTE
            elif "piece" not in cell_tags:
                e.speaking += 60 * words(cell.source) / WORDS_PER_MINUTE
            continue
        if "setup" not in cell_tags:
            e.code += CODE_LINE_SECONDS * shown_lines(cell.source)
        if "typed" in cell_tags:
            e.typing += (
                sum(
                    len(line.strip())
                    for line in cell.source.splitlines()
                    if line.strip() and not line.strip().startswith(("#", "print("))
                )
                / TYPING_CHARS_PER_SECOND
            )
        if "build" in cell_tags:
            reveal = next((c for c in cells[i + 1 : i + 3] if "piece" in tags(c)), None)
            if reveal is not None:
                e.typing += (
                    typed_characters(cell.source, piece_code(reveal.source))
                    / TYPING_CHARS_PER_SECOND
                )
        after = ran.get(cell.get("id"), cell)
        printed = text_of_outputs(after).strip()
        e.runs += RUN_SECONDS + OUTPUT_LINE_SECONDS * (len(printed.splitlines()) if printed else 0)
        e.runs += FIGURE_SECONDS * figures_of(after)
    return e


def in_class_minutes(prefix: str) -> float:
    """The minutes of the exercise tasks done in class, from the task table of exercise ``prefix``.

    A row reads ``| 1 · `name` | in class | 7 min |``; "in class if there is time" counts as homework.
    """
    found = sorted((ROOT / "exercises").glob(f"{prefix}*.ipynb"))
    if not found:
        return 0.0
    text = found[0].read_text(encoding="utf-8")
    minutes = 0.0
    for where, mins in re.findall(r"\|[^|\n]*\|\s*(in class[^|]*?)\s*\|\s*(\d+)\s*min", text):
        if where.strip() == "in class":
            minutes += float(mins)
    return minutes


def box_minutes(span: str) -> int:
    """Minutes in a span like "7:20–7:50". Example: "7:50–8:30" -> 40"""
    (h1, m1), (h2, m2) = (map(int, t.split(":")) for t in re.split(r"[–-]", span))
    return (h2 * 60 + m2) - (h1 * 60 + m1)


def ran_cells(lesson: Lesson, runs: dict) -> dict:
    book = runs.get(lesson.name)
    return {c.get("id"): c for c in book.cells} if book else {}


def segment_estimate(segment: Segment, lessons: list[Lesson], runs: dict) -> tuple[list, Estimate]:
    """(the lessons of a box with each one's estimate, the box's total) -- exercises counted once per lesson."""
    rows, total = [], Estimate()
    for lesson in lessons:
        e = estimate_cells(lesson.core_part(segment.part), ran_cells(lesson, runs))
        if segment.part != "knot":
            e.exercises = 60 * in_class_minutes(lesson.name[:3])
        rows.append((lesson, e))
        total = total + e
    return rows, total


def segments(runs: dict | None = None) -> list[tuple[Segment, list, Estimate]]:
    """(box, [(lesson, estimate)], total) for each box of the morning."""
    lessons = [read(p) for p in LESSONS]
    runs = executed() if runs is None else runs
    found = []
    for segment in SEGMENTS:
        mine = [lesson for lesson in lessons if lesson.path.name.startswith(segment.prefixes)]
        rows, total = segment_estimate(segment, mine, runs)
        found.append((segment, rows, total))
    return found


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def paces() -> str:
    return (
        f"paces: {WORDS_PER_MINUTE} words/min spoken, {NOTE_SECONDS} s per instructor note, "
        f"{CODE_LINE_SECONDS} s per line of code shown, {TYPING_CHARS_PER_SECOND:g} typed chars/s, "
        f"{RUN_SECONDS} s per cell run + {OUTPUT_LINE_SECONDS:g} s per printed line + {FIGURE_SECONDS} s "
        f"per picture, {CHECKPOINT_SECONDS} s per checkpoint plus its answer, in-class exercise minutes"
    )


def report(runs: dict | None = None) -> tuple[str, bool]:
    """The printed table, and whether every box fits and the morning is at most two hours."""
    columns = ("speak", "notes", "code", "type", "runs", "chkpt", "exer")
    lines = [
        paces(),
        "",
        f"{'box':<10} {'lesson':<28} " + " ".join(f"{c:>6}" for c in columns) + f" {'total':>6}",
    ]
    fits, morning = True, 0.0
    for segment, rows, total in segments(runs):
        for lesson, e in rows:
            part = {"before-knot": " (to the knot)", "knot": " (the knot)"}.get(segment.part, "")
            lines.append(
                f"{segment.span:<10} {(lesson.name[: 28 - len(part)] + part):<28} "
                + " ".join(f"{minutes(getattr(e, f.name)):>6}" for f in fields(e))
                + f" {minutes(e.total):>6}"
            )
        box = box_minutes(segment.span) * 60
        ok = total.total <= box
        fits &= ok
        morning += total.total
        lines.append(
            f"{segment.start:<10} {'box total':<28} {'':>48} {minutes(total.total):>6}  of "
            f"{minutes(box)}  " + ("fits" if ok else "OVER THE BOX")
        )
    within = morning <= CLASS_MINUTES * 60
    lines += [
        "",
        f"the morning: {minutes(morning)} of {CLASS_MINUTES}:00 "
        + ("(fits)" if within else "(OVER TWO HOURS)"),
    ]
    return "\n".join(lines), fits and within


def main() -> int:
    text, fits = report()
    print(text)
    print(
        "\nevery box fits, and the morning fits two hours"
        if fits
        else "\nat least one box is over its time"
    )
    return 0 if fits else 1


if __name__ == "__main__":
    sys.exit(main())


NOTE_TIME = re.compile(r"\*(\d{1,2}):(\d\d)\.\*")


def note_times(runs: dict | None = None) -> list[tuple[str, str, str]]:
    """(lesson, the time an instructor note says, the time the clock puts that note at) for every note that
    opens with a time like *7:19.*: the clock is the box's start plus the estimate of the cells before it."""
    runs = executed() if runs is None else runs
    found = []
    for segment, rows, _ in segments(runs):
        start_h, start_m = map(int, segment.start.split(":"))
        elapsed = 0.0
        for lesson, e in rows:
            ran, cells, exercise = (
                ran_cells(lesson, runs),
                lesson.core_part(segment.part),
                e.exercises,
            )
            for i, cell in enumerate(cells):
                if (
                    cell.cell_type == "markdown"
                    and exercise
                    and "exercise" in cell.source.lower()
                    and cell.source.startswith("## ")
                ):
                    elapsed, exercise = elapsed + exercise, 0
                said = NOTE_TIME.search(cell.source) if "instructor" in tags(cell) else None
                if said:
                    at = start_h * 60 + start_m + elapsed / 60
                    found.append(
                        (
                            lesson.name,
                            f"{said.group(1)}:{said.group(2)}",
                            f"{int(at // 60)}:{int(at % 60):02d}",
                        )
                    )
                elapsed += (
                    estimate_cells(cells[i : i + 2], ran).total
                    - estimate_cells(cells[i + 1 : i + 2], ran).total
                )
            elapsed += exercise
    return found
