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
from tools.executed import executed, text_of_outputs, with_piece
from tools.lessons import KNOT, LESSONS, ROOT, Lesson, heading, read, tags, with_piece_in
from tools.mistakes import mistakes_for

BUILD = ROOT / "build"
OUTPUT_LINES = 12  # expected output shown per cell; longer outputs are cut, with a note


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
    deck = lesson.entry.deck_path
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


def _figure(name: str, output: dict, folder: Path, caption: str) -> str:
    (folder / "figures").mkdir(parents=True, exist_ok=True)
    (folder / "figures" / name).write_bytes(base64.b64decode(output["data"]["image/png"]))
    return f"![{caption}](figures/{name})"


def expected(
    lesson: Lesson, number: int, cell, folder: Path, lines_shown: int = OUTPUT_LINES, tag: str = ""
) -> list[str]:
    """The cell's output from the last run, as Markdown: text (cut to ``lines_shown``) and its pictures."""
    text = text_of_outputs(cell).rstrip()
    lines = []
    if text:
        shown = text.splitlines()
        cut = shown[:lines_shown] + (
            [f"... ({len(shown) - lines_shown} more lines)"] if len(shown) > lines_shown else []
        )
        lines += ["```text", *cut, "```"]
    pictures = [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
    for k, output in enumerate(pictures, start=1):
        name = f"{lesson.name}-cell{number:02d}{tag}-{k}.png"
        lines.append(_figure(name, output, folder, f"expected picture, cell {number}"))
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


def walkthrough(lesson: Lesson, cells: list, ran: dict, folder: Path, times: dict) -> list:
    """Per section: its clock time, what to say, what to type, the expected output, what to do if it fails.

    ``times`` maps a cell's index in ``cells`` to its slot on the box's clock (``rehearsal.timeline``),
    and ``"exercise"`` to the slot of the lesson's in-class exercise task.
    """
    lines, numbers = [], {id(c): i for i, c in enumerate(lesson.cells, start=1)}
    index_of = {id(c): i for i, c in enumerate(cells)}
    for title, part in sections_of(cells):
        first = times[index_of[id(part[0])]]
        seconds = sum(times[index_of[id(c)]].seconds for c in part)
        task = times.get("exercise")
        if task is not None and rehearsal.is_exercise_heading(part[0]):
            seconds += task.seconds
        lines += [
            f"### {rehearsal.clock(box_start(times), first.start)} · {lesson.name} · {title} "
            f"({rehearsal.minutes(seconds)})",
            "",
        ]
        for index, cell in enumerate(part):
            number = numbers.get(id(cell), 0)
            if "instructor" in tags(cell):
                lines += [
                    "> " + cell.source.replace("**Instructor note** — ", "").lstrip("> "),
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
        if task is not None and rehearsal.is_exercise_heading(part[0]):
            lines += [
                f"**{rehearsal.clock(box_start(times), task.start)} · the exercise task, in class "
                f"({rehearsal.minutes(task.seconds)}):** the room works; walk round, read the checks' "
                "verdicts over shoulders.",
                "",
            ]
    return lines


def box_start(times: dict) -> str:
    return times["box"]


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


def mistakes_part(lesson: Lesson, found: list, folder: Path) -> list[str]:
    """For the build cell: what the room's most common wrong pieces print and draw, and what to say.

    ``found`` is [(Mistake, the verdict cells run with it)], from ``build_runbook``.
    """
    if not found:
        return []
    numbers = {c.get("id"): i for i, c in enumerate(lesson.cells, start=1)}
    lines = [
        "#### When the room's piece is wrong",
        "",
        "The pieces a room most often writes wrong here, each run through this lesson's verdict "
        "cells when this runbook was built: what the screen shows, and what to say.",
        "",
    ]
    for k, (mistake, cells) in enumerate(found, start=1):
        lines += [f"**{k} · {mistake.label}**", "", "```python", mistake.source.rstrip(), "```", ""]
        verdicts = [c for c in lesson.cells if "verdict" in tags(c)]
        for original, ran in zip(verdicts, cells):
            number = numbers.get(original.get("id"), 0)
            lines += [f"Cell {number} shows:", ""]
            lines += expected(lesson, number, ran, folder, 6, tag=f"-wrong{k}") + [""]
        lines += [f"*Say:* {mistake.say}", ""]
    return lines


# Cells a late class still must see: the build, the checkpoint and what answers it (its reveal, its
# model answer, and any cell tagged ``answers``: a run the discussion of the answer stands on).
PROTECTED = ("build", "checkpoint", "reveal", "answer", "answers", "typed")


def drops(lesson: Lesson, cells: list, ran: dict, exercise_seconds: float) -> list[str]:
    """What to leave out when late, and the minutes each saves: the sections that hold no build, no
    checkpoint, nothing that answers it and nothing the room dictates; and the in-class exercise task
    (it becomes homework). The closing sections (Practise and present, Tie the knot) are never offered."""
    lines = []
    for title, part in sections_of(cells)[1:]:
        keep = any(t in tags(c) for c in part for t in PROTECTED)
        closing = (
            title.startswith("Practise") or KNOT in title or rehearsal.is_exercise_heading(part[0])
        )
        if not keep and not closing:
            saved = rehearsal.estimate_cells(part, ran).total
            lines.append(f"- drop *{title}* ({lesson.name}): saves {rehearsal.minutes(saved)}")
    if exercise_seconds:
        lines.append(
            "- move the in-class exercise task to homework: saves "
            f"{rehearsal.minutes(exercise_seconds)}"
        )
    return lines


def box_page(segment, rows, total, runs, folder: Path, mistakes: dict | None = None) -> str:
    """One box of the morning: the minute marks, then per lesson its slides, checkpoint, cut list and cells."""
    box = rehearsal.box_minutes(segment.span) * 60
    verdict = "fits" if rehearsal.slack_ok(box, total.total) else "does NOT fit"
    lines = [
        f"# Runbook · {segment.span}",
        "",
        f"Estimate {rehearsal.minutes(total.total)} of a {rehearsal.minutes(box)} box, slack "
        f"{rehearsal.minutes(box - total.total)} ({verdict}); the clock's paces are on the "
        "[index](index.md).",
        "",
        "## Minute by minute",
        "",
        "| clock | lesson | part | minutes |",
        "| --- | --- | --- | --- |",
    ]
    slots = rehearsal.timeline(segment, rows, runs)
    end = 0.0
    for lesson, _ in rows:
        cells = lesson.core_part(segment.part)
        times = lesson_times(slots, lesson, segment)
        index_of = {id(c): i for i, c in enumerate(cells)}
        for title, part in sections_of(cells):
            first = times[index_of[id(part[0])]]
            seconds = sum(times[index_of[id(c)]].seconds for c in part)
            lines.append(
                f"| {rehearsal.clock(segment.start, first.start)} | {lesson.name} | {title} | "
                f"{rehearsal.minutes(seconds)} |"
            )
            task = times.get("exercise")
            if task is not None and rehearsal.is_exercise_heading(part[0]):
                lines.append(
                    f"| {rehearsal.clock(segment.start, task.start)} | {lesson.name} | the exercise "
                    f"task, in class | {rehearsal.minutes(task.seconds)} |"
                )
        task = times.get("exercise")
        if task is not None and not any(rehearsal.is_exercise_heading(c) for c in cells):
            lines.append(
                f"| {rehearsal.clock(segment.start, task.start)} | {lesson.name} | the exercise task, "
                f"in class | {rehearsal.minutes(task.seconds)} |"
            )
    end = max((s.start + s.seconds for s in slots), default=0.0)
    lines += [
        f"| {rehearsal.clock(segment.start, end)} | | end of the plan; the rest is slack | |",
        "",
    ]
    for lesson, e in rows:
        ran = rehearsal.ran_cells(lesson, runs)
        cells = lesson.core_part(segment.part)
        slides = [r for r in slide_map(lesson) if segment.part != "knot" or r[2].startswith(KNOT)]
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
            drops(lesson, cells, ran, e.exercises)
            or ["- nothing to drop here: every part carries the build or the checkpoint"]
        )
        if segment.part != "knot":
            lines += ["", *mistakes_part(lesson, (mistakes or {}).get(lesson.name, []), folder)]
        lines += ["", "#### Cell by cell", "", ANY_CELL, ""]
        lines += walkthrough(lesson, cells, ran, folder, lesson_times(slots, lesson, segment))
    return "\n".join(lines)


def lesson_times(slots: list, lesson: Lesson, segment) -> dict:
    """{cell index: slot, "exercise": the exercise's slot, "box": the box's start} for one lesson."""
    times: dict = {"box": segment.start}
    for slot in slots:
        if slot.lesson is lesson:
            times["exercise" if slot.index is None else slot.index] = slot
    return times


ROOM = """\
## Setting up the room

- **One server or two.** With one machine (the projector's), students watch and dictate, and do the
  in-class exercise tasks on their own laptops after `make lab`, or on the class hub (`class/README.md`).
  With two (the projector's laptop and a class hub for the students), open the same lessons on both;
  the projector's copy is where the room's pieces are typed. Check both with `make test` the day before.
- **Students typing along, or not.** The clock above assumes the instructor types each build cell while
  the room dictates, and students type only in the in-class exercise tasks. If they type the build cells
  too, they wait for the slowest: count about a minute more per build, and take it from the cut list.
- **The class's agent file.** Each build cell keeps its piece in `my_agent.py` beside the lessons (or the
  file `$CONTEXT_DESK_AGENT` names); the later lessons run on it. Start the morning with none (delete it),
  so no piece from a rehearsal carries into the class. A piece kept wrong shows in every later lesson:
  fix it in its build cell and run that cell again.
- **Before each box** run the lesson's setup cell; after it every `##` section runs on its own.
"""


def index_page(pages: list[Path], runs: dict) -> str:
    text, fits = rehearsal.report(runs)
    return "\n".join(
        [
            "# Runbook · the 7:00–9:00 morning",
            "",
            *[f"- [{p.stem}]({p.name})" for p in pages],
            "",
            ROOM,
            "## The clock",
            "",
            "```text",
            text,
            "```",
            "",
            "How it is counted (`tools/rehearsal.py`):",
            "",
            rehearsal.__doc__.split("python -m tools.rehearsal", 1)[1].split("\n", 1)[1].strip(),
            "",
        ]
    )


def build_runbook() -> list[Path]:
    folder = BUILD / "runbook"
    folder.mkdir(parents=True, exist_ok=True)
    runs = executed()
    found = {
        path.stem: [(m, with_piece(path, m.source)) for m in mistakes_for(entry.piece)]
        for entry, path in ((read(p).entry, p) for p in LESSONS)
    }
    written = []
    for segment, rows, total in rehearsal.segments(runs):
        hours, minutes = segment.start.split(":")
        lessons = "-".join(lesson.name[:2] for lesson, _ in rows)
        target = (
            folder
            / f"{int(hours):02d}{minutes}_{lessons}{'_knot' if segment.part == 'knot' else ''}.md"
        )
        page = box_page(segment, rows, total, runs, folder, found)
        target.write_text(no_wrap_code(page), encoding="utf-8")
        written.append(target)
    index = folder / "index.md"
    index.write_text(index_page(written, runs), encoding="utf-8")
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
                piece = finished_piece(notebook.cells, index)
                cell.source = with_piece_in(cell.source, piece) if piece else cell.source
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
