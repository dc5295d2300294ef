"""Build the instructor runbook and the student view from the lesson notebooks, so neither can drift.

    python -m tools.build_views runbook        # build/runbook/<lesson>.md, one page per lesson, and index.md
    python -m tools.build_views student-view   # build/student/<lesson>.ipynb, without the instructor notes

The runbook page of a lesson: the minute-by-minute plan (each section's clock time, from the rehearsal
estimate of ``tools.rehearsal``), what to say and do (the cells tagged ``instructor``), what to type
(the ``live-code-finished`` cells), the checkpoint with its model answer, and what to skip when late
(the ``## Deeper`` sections). The student view is each lesson minus its ``instructor`` cells, no outputs.
Left out: HTML or PDF rendering (the pages are plain Markdown; JupyterLab and any browser extension show them).
"""

from __future__ import annotations

import re
import sys

import nbformat

from tools.lessons import LESSONS, ROOT, SEGMENTS, Lesson, heading, read, tags
from tools.rehearsal import box_minutes, estimate, estimate_cells, minutes

BUILD = ROOT / "build"


def clock(start: str, seconds: float) -> str:
    """A wall-clock time, seconds after ``start``. Example: clock("7:20", 95) -> "7:21" """
    hours, mins = map(int, start.split(":"))
    total = hours * 60 + mins + int(seconds // 60)
    return f"{total // 60}:{total % 60:02d}"


def _starts() -> dict[str, tuple[str, float]]:
    """Lesson name -> (segment start time, seconds into the segment at which the lesson starts)."""
    found = {}
    lessons = [read(p) for p in LESSONS]
    for span, prefixes in SEGMENTS.items():
        offset = 0.0
        for lesson in (x for x in lessons if x.path.name.startswith(prefixes)):
            found[lesson.name] = (re.split(r"[–-]", span)[0], offset, span)
            offset += estimate(lesson).total
    return found


def _quote(markdown: str) -> str:
    return "\n".join(line[1:].lstrip() if line.startswith(">") else line for line in markdown.splitlines())


def runbook_page(lesson: Lesson, start: str, offset: float, span: str) -> str:
    title = lesson.cells[0].source.splitlines()[0].lstrip("# ").strip()
    total = estimate(lesson).total
    lines = [f"# Runbook · {title}", "",
             (f"Segment {span} ({box_minutes(span)} min). This lesson: from about {clock(start, offset)}, "
              f"an estimated {minutes(total)} of class time (`python -m tools.rehearsal` says how that is counted)."),
             "", "## Minute by minute", "", "| clock | section | about |", "| --- | --- | --- |"]
    elapsed = offset
    parts = [("Opening (title, setup cell)", lesson.preamble)] + [(s.title, s.cells) for s in lesson.sections
                                                                   if not s.deeper]
    for name, cells in parts:
        seconds = estimate_cells(cells).total
        lines.append(f"| {clock(start, elapsed)} | {name} | {minutes(seconds)} |")
        elapsed += seconds
    lines.append(f"| {clock(start, elapsed)} | end of the lesson | |")

    lines += ["", "## What to say and do", ""]
    where = "Opening"
    for cell in lesson.cells:
        where = heading(cell) or where
        if "instructor" in tags(cell):
            note = _quote(cell.source).replace("**Instructor note** — ", "")
            lines += [f"**{where}.** {note}", ""]

    lines += ["## What to type", ""]
    typed = [c for c in lesson.core if "live-code-finished" in tags(c)]
    for cell in typed:
        lines += ["```python", cell.source, "```", ""]
    if not typed:
        lines += ["Nothing in the core of this lesson.", ""]

    lines += ["## The checkpoint", "", f"Ask: **{lesson.checkpoint_question}**", ""]
    for index in lesson.tagged("answer"):
        answer = lesson.cells[index].source
        found = re.search(r"<summary>.*?</summary>(.*?)</details>", answer, re.DOTALL)
        lines += ["Listen for:", "", (found.group(1) if found else answer).strip(), ""]

    lines += ["## If you are late, skip", ""]
    deeper = [s.title for s in lesson.sections if s.deeper]
    lines += [f"- {t}" for t in deeper] or ["- nothing: this lesson has no Deeper part"]
    lines += ["", "These come after the checkpoint and are optional; self-study readers take them later.", ""]
    return "\n".join(lines)


def build_runbook() -> list:
    folder = BUILD / "runbook"
    folder.mkdir(parents=True, exist_ok=True)
    written, starts = [], _starts()
    for path in LESSONS:
        lesson = read(path)
        start, offset, span = starts[lesson.name]
        target = folder / f"{lesson.name}.md"
        target.write_text(runbook_page(lesson, start, offset, span), encoding="utf-8")
        written.append(target)
    index = folder / "index.md"
    index.write_text("# Runbook · the 7:00–9:00 morning\n\n" + "\n".join(
        f"- [{p.stem}]({p.name})" for p in written) + "\n", encoding="utf-8")
    return written + [index]


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
        target = folder / path.name
        nbformat.write(notebook, target)
        written.append(target)
    return written


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
