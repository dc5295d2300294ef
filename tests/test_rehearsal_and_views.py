"""The rehearsal estimate keeps every segment inside its time box, and the runbook and the student view
build from the notebooks (the student view with no instructor notes left in it)."""

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tools import build_views, rehearsal
from tools.lessons import LESSONS, read, tags

ROOT = Path(__file__).resolve().parent.parent


def test_every_segment_fits_its_box():
    text, fits = rehearsal.report()
    print("\n" + text)
    for span, lessons, total in rehearsal.segments():
        assert lessons, f"no lesson found for {span}"
        assert total.total <= rehearsal.box_minutes(span) * 60, f"{span}: {rehearsal.minutes(total.total)}"
    assert fits


@pytest.mark.integration      # the command, in a process
def test_the_command_prints_the_estimate_and_its_paces():
    done = subprocess.run([sys.executable, "-m", "tools.rehearsal"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "words/min" in done.stdout and "every segment fits" in done.stdout


def test_the_formula_on_a_worked_example():
    """A note (60 s), 140 spoken words (60 s), a skeleton and its finished version that adds
    'return 1' (8 characters at 2.5 a second: 3.2 s) and two cell runs (40 s): 163.2 s."""
    md = nbformat.v4.new_markdown_cell
    code = nbformat.v4.new_code_cell
    note = md("> **Instructor note** — draw a desk", metadata={"tags": ["instructor"]})
    prose = md(" ".join(["word"] * 140))
    skeleton = code("def f():\n    return 0", metadata={"tags": ["live-code"]})
    finished = code("def f():\n    return 1  # typed", metadata={"tags": ["live-code-finished"]})
    e = rehearsal.estimate_cells([note, prose, skeleton, finished])
    assert (e.notes, e.speaking, e.runs) == (60, 60, 40)
    assert abs(e.typing - 3.2) < 1e-9 and abs(e.total - 163.2) < 1e-9


def test_the_runbook_has_a_page_per_lesson_with_plan_notes_typing_checkpoint_and_skips(tmp_path, monkeypatch):
    monkeypatch.setattr(build_views, "BUILD", tmp_path)
    pages = build_views.build_runbook()
    assert len(pages) == len(LESSONS) + 1
    for path in LESSONS:
        lesson = read(path)
        page = (tmp_path / "runbook" / f"{lesson.name}.md").read_text(encoding="utf-8")
        for part in ("## Minute by minute", "## What to say and do", "## What to type", "## The checkpoint",
                     "## If you are late, skip"):
            assert part in page, f"{lesson.name}: no {part!r}"
        assert lesson.checkpoint_question in page
        for index in lesson.tagged("instructor"):
            first_words = " ".join(lesson.cells[index].source.split()[4:10])
            assert first_words in " ".join(page.split()), f"{lesson.name}: a note is missing: {first_words!r}"


def test_the_student_view_has_every_lesson_and_no_instructor_notes(tmp_path, monkeypatch):
    monkeypatch.setattr(build_views, "BUILD", tmp_path)
    written = build_views.build_student_view()
    assert [p.name for p in written] == [p.name for p in LESSONS]
    for path in written:
        notebook = nbformat.read(path, as_version=4)
        original = nbformat.read(ROOT / "notebooks" / path.name, as_version=4)
        assert not any("instructor" in tags(c) for c in notebook.cells)
        assert not any("Instructor note" in c.source for c in notebook.cells), f"{path.name} keeps a note"
        kept = [c.source for c in original.cells if "instructor" not in tags(c)]
        assert [c.source for c in notebook.cells] == kept, f"{path.name}: student cells differ from the lesson's"


def test_make_targets_exist():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "\nrunbook:" in makefile and "\nstudent-view:" in makefile and "\nrehearsal:" in makefile
