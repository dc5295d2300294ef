"""The instructor's runbook, the instructor's copy and the student view, built from the lessons themselves.

    python -m tools.build_views runbook        # build/runbook/: a page per box of the morning, and index.md
                                               # build/instructor/: the lessons with every build cell filled in
    python -m tools.build_views student-view   # build/student/<lesson>.ipynb, without the instructor notes

A runbook page holds, for one box of seed 001's plan: the minute marks (from the rehearsal clock,
``tools.rehearsal``); the slide ↔ cell map (each slide's ``lesson_section``); per section what to say, what
to type and the expected output, figures included, from the lessons' last headless run (``tools.executed``);
what to do when a cell fails; which cells to drop when the class runs late and the minutes each saves; and
the checkpoint with the answer the class has just seen. The index states the clock's formula and paces.
Left out: HTML or PDF rendering (the pages are plain Markdown, shown by JupyterLab and any browser extension).
"""

from __future__ import annotations

import base64
import html
import os
import re
import sys
from pathlib import Path

import nbformat

from tools import rehearsal
from tools.executed import executed, text_of_outputs
from tools.lessons import LESSONS, ROOT, SLIDES, Lesson, heading, tags

BUILD = ROOT / "build"
OUTPUT_LINES = 12  # expected output shown per cell; longer outputs are cut, with a note


def clock(start: str, seconds: float) -> str:
    """A wall-clock time, seconds after ``start``. Example: clock("7:20", 95) -> "7:21" """
    hours, mins = map(int, start.split(":"))
    total = hours * 60 + mins + int(seconds // 60)
    return f"{total // 60}:{total % 60:02d}"


def sections_of(cells: list) -> list[tuple[str, list]]:
    """(title, cells) for the part of a lesson a box holds; the cells before the first heading are the opening."""
    found = [("Opening (title, setup cell)", [])]
    for cell in cells:
        title = heading(cell)
        if title is not None:
            found.append((title, [cell]))
        else:
            found[-1][1].append(cell)
    return [(title, cells) for title, cells in found if cells]


def finished_piece(cells: list, index: int) -> str:
    """The finished version of a build cell: the code of the ``piece`` reveal right after it."""
    reveal = next((c for c in cells[index + 1 : index + 3] if "piece" in tags(c)), None)
    return rehearsal.piece_code(reveal.source).rstrip() if reveal is not None else ""


def slide_map(lesson: Lesson) -> list[tuple[int, str, str]]:
    """(slide number, slide title, lesson section) for every slide of the lesson's deck."""
    deck = SLIDES / lesson.path.name
    if not deck.exists():
        return []
    rows, number = [], 0
    for cell in nbformat.read(deck, as_version=4).cells:
        if cell.get("metadata", {}).get("slideshow", {}).get("slide_type") not in (
            "slide",
            "subslide",
        ):
            continue
        number += 1
        first = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        title = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"picture: \1", first).lstrip("# ").strip()
        rows.append((number, title[:90], cell.metadata.get("lesson_section", "")))
    return rows


def _figure(lesson: Lesson, number: int, output: dict, folder: Path) -> str:
    name = f"{lesson.name}-cell{number:02d}.png"
    (folder / "figures").mkdir(parents=True, exist_ok=True)
    (folder / "figures" / name).write_bytes(base64.b64decode(output["data"]["image/png"]))
    return f"![expected picture, cell {number}](figures/{name})"


def expected(lesson: Lesson, number: int, cell, folder: Path) -> list[str]:
    """The cell's output from the last run, as Markdown: text (cut to OUTPUT_LINES) and its pictures."""
    text = text_of_outputs(cell).rstrip()
    lines = []
    if text:
        shown = text.splitlines()
        cut = shown[:OUTPUT_LINES] + (
            [f"... ({len(shown) - OUTPUT_LINES} more lines)"] if len(shown) > OUTPUT_LINES else []
        )
        lines += ["```text", *cut, "```"]
    lines += [
        _figure(lesson, number, o, folder)
        for o in cell.get("outputs", [])
        if "image/png" in o.get("data", {})
    ]
    return lines or ["(no output)"]


RECOVERY = {
    "setup": "A line that does not start with `ok` names what is missing: `make lab` again, or carry on offline.",
    "build": (
        "Still raising `NotImplementedError` when you run on? Nothing breaks: the next cell says it uses the "
        "harness's own piece. Say so, and type the finished piece below after class."
    ),
    "verdict": (
        "A run that stops with *a piece the class wrote failed* names the piece's mistake: fix it and run "
        "the build cell and this one again, or empty the build cell's body to fall back to the harness."
    ),
}
ANY_CELL = (
    "**When any cell fails:** Kernel → Restart, run the setup cell, then the section again: every section runs "
    "after setup on its own. With a key set and a strange answer: unset `ANTHROPIC_API_KEY` and restart."
)


def recovery(cell) -> list[str]:
    """What to do when this cell fails in front of the class, where it differs from ANY_CELL."""
    found = [RECOVERY[kind] for kind in ("setup", "build", "verdict") if kind in tags(cell)]
    return [f"*If it fails:* {found[0]}", ""] if found else []


def walkthrough(
    lesson: Lesson, cells: list, ran: dict, folder: Path, start: str, elapsed: float
) -> tuple[list, float]:
    """Per section: its clock time, what to say, what to type, the expected output, what to do if it fails."""
    lines, numbers = [], {id(c): i for i, c in enumerate(lesson.cells, start=1)}
    for title, part in sections_of(cells):
        seconds = rehearsal.estimate_cells(part, ran).total
        lines += [
            f"### {clock(start, elapsed)} · {lesson.name} · {title} ({rehearsal.minutes(seconds)})",
            "",
        ]
        elapsed += seconds
        for index, cell in enumerate(part):
            number = numbers.get(id(cell), 0)
            if "instructor" in tags(cell):
                lines += [
                    "> "
                    + cell.source.replace("**Instructor note** — ", "")
                    .lstrip("> ")
                    .replace("\n", "\n"),
                    "",
                ]
            elif "checkpoint" in tags(cell):
                lines += [f"**Ask (cell {number}):** {lesson.checkpoint_question}", ""]
            elif cell.cell_type == "code":
                after = ran.get(cell.get("id"), cell)
                if "build" in tags(cell):
                    lines += [
                        f"**Cell {number}, the build: the room writes it; one finished version:**",
                        "",
                        "```python",
                        finished_piece(part, index),
                        "```",
                        "",
                    ]
                elif "typed" in tags(cell):
                    lines += [
                        f"**Cell {number}, typed from what the room dictates (this is the example):**",
                        "",
                        "```python",
                        cell.source.rstrip(),
                        "```",
                        "",
                    ]
                else:
                    lines += [f"**Cell {number}:** run it. Expected:", ""]
                lines += expected(lesson, number, after, folder) + [""] + recovery(cell)
    return lines, elapsed


def checkpoint_part(lesson: Lesson, ran: dict) -> list[str]:
    """The question, the output of the cell that answers it in the last run, and the model answer."""
    if not lesson.tagged("checkpoint"):
        return []
    lines = ["#### The checkpoint", "", f"Ask: **{lesson.checkpoint_question}**", ""]
    for index in lesson.tagged("reveal"):
        cell = ran.get(lesson.cells[index].get("id"), lesson.cells[index])
        if cell.cell_type == "code":
            lines += [
                "What the class has just seen (the last run):",
                "",
                "```text",
                *text_of_outputs(cell).rstrip().splitlines()[:OUTPUT_LINES],
                "```",
                "",
            ]
    for index in lesson.tagged("answer"):
        found = re.search(
            r"<summary>.*?</summary>(.*?)</details>", lesson.cells[index].source, re.DOTALL
        )
        if found:
            lines += ["Listen for:", "", found.group(1).strip(), ""]
    return lines


def drops(lesson: Lesson, cells: list, ran: dict, exercise_minutes: float) -> list[str]:
    """What to leave out when late, and the minutes each saves: the sections that hold no build, no checkpoint and
    nothing the room dictates, and the in-class exercise task (it becomes homework)."""
    lines = []
    for title, part in sections_of(cells)[1:]:
        keep = any(t in tags(c) for c in part for t in ("build", "checkpoint", "reveal", "typed"))
        if (
            not keep
            and not title.startswith(("Practise", "8:55"))
            and "exercise" not in title.lower()
        ):
            saved = rehearsal.estimate_cells(part, ran).total
            lines.append(f"- drop *{title}* ({lesson.name}): saves {rehearsal.minutes(saved)}")
    if exercise_minutes:
        lines.append(
            f"- move the in-class exercise task to homework: saves {int(exercise_minutes)}:00"
        )
    return lines


def box_page(segment, rows, total, runs, folder: Path) -> str:
    box = rehearsal.box_minutes(segment.span) * 60
    lines = [
        f"# Runbook · {segment.span}",
        "",
        f"Estimate {rehearsal.minutes(total.total)} of a {rehearsal.minutes(box)} box "
        f"({'fits' if total.total <= box else 'OVER THE BOX'}); the clock's formula is on the [index](index.md).",
        "",
        "## Minute by minute",
        "",
        "| clock | lesson | part | minutes |",
        "| --- | --- | --- | --- |",
    ]
    elapsed = 0.0
    for lesson, e in rows:
        ran = rehearsal.ran_cells(lesson, runs)
        exercise = e.exercises
        for title, part in sections_of(lesson.core_part(segment.part)):
            seconds = rehearsal.estimate_cells(part, ran).total
            if (
                exercise and "exercise" in title.lower()
            ):  # the exercise's minutes belong to its section
                seconds, exercise = seconds + exercise, 0
            lines.append(
                f"| {clock(segment.start, elapsed)} | {lesson.name} | {title} | {rehearsal.minutes(seconds)} |"
            )
            elapsed += seconds
        if exercise:
            lines.append(
                f"| {clock(segment.start, elapsed)} | {lesson.name} | the in-class exercise task | "
                f"{rehearsal.minutes(exercise)} |"
            )
            elapsed += exercise
    lines += [f"| {clock(segment.start, elapsed)} | | end of the box | |", ""]
    for lesson, e in rows:
        ran = rehearsal.ran_cells(lesson, runs)
        cells = lesson.core_part(segment.part)
        slides = [r for r in slide_map(lesson) if segment.part != "knot" or r[2].startswith("8:55")]
        lines += [
            f"## {lesson.name}",
            "",
            "#### Slides ↔ cells",
            "",
            "| slide | on the slide | with the lesson's |",
            "| --- | --- | --- |",
        ]
        lines += [
            f"| {n} | {title} | {section or 'opening'} |" for n, title, section in slides
        ] or ["| | no deck | |"]
        lines += [""] + checkpoint_part(lesson, ran)
        lines += ["#### If the class runs late", ""] + (
            drops(lesson, cells, ran, e.exercises / 60)
            or ["- nothing to drop here: every part carries the build or the checkpoint"]
        )
        lines += ["", "#### Cell by cell", "", ANY_CELL, ""]
        body, _ = walkthrough(lesson, cells, ran, folder, segment.start, 0.0)
        lines += body
    return "\n".join(lines)


def index_page(pages: list[Path]) -> str:
    text, fits = rehearsal.report(executed())
    return "\n".join(
        [
            "# Runbook · the 7:00–9:00 morning",
            "",
            *[f"- [{p.stem}]({p.name})" for p in pages],
            "",
            "## The clock",
            "",
            "```text",
            text,
            "```",
            "",
            "How it is counted (`tools/rehearsal.py`):",
            "",
            rehearsal.__doc__.split("The formula,", 1)[1].split("\n", 1)[1].strip(),
            "",
        ]
    )


def build_runbook() -> list[Path]:
    folder = BUILD / "runbook"
    folder.mkdir(parents=True, exist_ok=True)
    runs = executed()
    written = []
    for segment, rows, total in rehearsal.segments(runs):
        hours, minutes = segment.start.split(":")
        lessons = "-".join(lesson.name[:2] for lesson, _ in rows)
        target = (
            folder
            / f"{int(hours):02d}{minutes}_{lessons}{'_knot' if segment.part == 'knot' else ''}.md"
        )
        target.write_text(
            no_wrap_code(box_page(segment, rows, total, runs, folder)), encoding="utf-8"
        )
        written.append(target)
    index = folder / "index.md"
    index.write_text(index_page(written), encoding="utf-8")
    return written + [index] + build_instructor_copies()


def build_instructor_copies() -> list[Path]:
    """The lessons with every build cell holding its finished piece: what the instructor has open in class."""
    folder = BUILD / "instructor"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for path in LESSONS:
        notebook = nbformat.read(path, as_version=4)
        for index, cell in enumerate(notebook.cells):
            if "build" in tags(cell):
                cell.source = finished_piece(notebook.cells, index) or cell.source
        target = folder / path.name
        nbformat.write(notebook, target)
        written.append(target)
    return written


def build_student_view() -> list:
    folder = BUILD / "student"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for path in LESSONS:
        notebook = nbformat.read(path, as_version=4)
        notebook.cells = [c for c in notebook.cells if "instructor" not in tags(c)]
        for cell in notebook.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
            else:
                cell.source = relink(cell.source, path.parent, folder, {p.name for p in LESSONS})
        target = folder / path.name
        nbformat.write(notebook, target)
        written.append(target)
    return written


# ---- code that does not wrap --------------------------------------------------------------------------

FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
NO_WRAP = "white-space: pre; overflow-x: auto"


def no_wrap_code(markdown: str) -> str:
    """Every fenced code block as a ``<pre>`` that never wraps: a long line scrolls sideways instead.

    JupyterLab's Markdown preview wraps code blocks, and breaks lines at hyphens and slashes, so
    ``app/auth.py`` or ``x-1`` could split across two lines. It keeps inline styles but drops ``<style>``
    blocks, so the rule goes on each block. Other Markdown viewers show the same block unwrapped.
    Example: "```python\nx = a-b\n```" -> '<pre data-lang="python" style="white-space: pre; …"><code …>x = a-b</code></pre>'
    """

    def block(found: re.Match) -> str:
        language, code = (
            found.group(1).strip(),
            html.escape(found.group(2).rstrip("\n"), quote=False),
        )
        return f'<pre data-lang="{language}" style="{NO_WRAP}"><code style="white-space: pre">{code}</code></pre>'

    return FENCE.sub(block, markdown)


# ---- links in the student view ------------------------------------------------------------------------

LINK = re.compile(r"(\]\()([^)\s]+)|((?:href|src)=[\"'])([^\"']+)")


def relink(markdown: str, source: Path, target: Path, copied: set[str]) -> str:
    """Point the relative links of a lesson cell, written for ``source``, at the same files from ``target``.

    A link to another lesson of the student view stays as it is (that copy sits beside it); any other
    relative link -- ../exercises/, ../slides/, a notebook the view leaves out -- is rewritten to reach the
    original file. Web links, anchors and links to files that do not exist are left alone.
    Example: relink("[the exercise](../exercises/01_the_desk.ipynb)", notebooks/, build/student/, {...})
    -> "[the exercise](../../exercises/01_the_desk.ipynb)"
    """

    def moved(found: re.Match) -> str:
        before, link = (
            (found.group(1), found.group(2)) if found.group(1) else (found.group(3), found.group(4))
        )
        path, hash_, anchor = link.partition("#")
        if not path or re.match(r"^[a-z]+:", path) or path.startswith("/") or path in copied:
            return found.group(0)
        original = (source / path).resolve()
        if not original.exists():
            return found.group(0)
        return (
            before + Path(os.path.relpath(original, target.resolve())).as_posix() + hash_ + anchor
        )

    return LINK.sub(moved, markdown)


def main(argv: list[str]) -> int:
    builders = {"runbook": build_runbook, "student-view": build_student_view}
    if len(argv) != 1 or argv[0] not in builders:
        print(f"usage: python -m tools.build_views {{{'|'.join(builders)}}}")
        return 2
    for path in builders[argv[0]]():
        print("wrote", path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
