"""The lesson registry (notebooks/lessons.toml): one row per lesson, and a row is all a new lesson needs.

The fast tests read the table: every row's files exist, its piece is one the class's agent knows, and a
malformed row is refused with what is wrong. The last test copies what reads the table (tools/, the
slide build, the class scripts, the registry reader) and the lessons into a temporary folder, adds a
fake lesson 06 there -- a row and its files, nothing else -- and asks each reader what it sees.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from stage.pieces import PIECES
from stage.registry import registry
from tools.lessons import LESSONS, SEGMENTS, segments_of

ROOT = Path(__file__).resolve().parent.parent


def test_every_row_names_files_that_exist_and_a_piece_the_agent_knows():
    entries = registry()
    assert [e.number for e in entries] == ["01", "02", "03", "04", "05"]
    for entry in entries:
        for path in (entry.path, entry.deck_path, entry.exercise_path, entry.solution_path):
            assert path.exists(), f"lesson {entry.number}: no {path.relative_to(ROOT)}"
        assert entry.piece in PIECES, f"lesson {entry.number}: no piece {entry.piece!r}"
    assert LESSONS == [e.path for e in entries]


def test_the_boxes_come_from_the_table():
    assert [(s.span, s.prefixes, s.part) for s in SEGMENTS] == [
        ("7:00–7:20", ("01_", "02_"), "all"),
        ("7:20–7:50", ("03_",), "all"),
        ("7:50–8:30", ("04_",), "all"),
        ("8:30–8:55", ("05_",), "before-knot"),
        ("8:55–9:00", ("05_",), "knot"),
    ]
    assert segments_of(registry()) == SEGMENTS


@pytest.mark.parametrize(
    "row, says",
    [
        ('number = "01"\nslug = "a"\nbox = "7:00–7:20"\ncolour = "red"', "unknown columns"),
        ('number = "01"\nslug = "a"', "no ['box']"),
        ('number = "01"\nslug = "a"\nbox = "seven"', "not a span"),
    ],
)
def test_a_malformed_row_is_refused_saying_what_is_wrong(tmp_path, row, says):
    table = tmp_path / "notebooks" / "lessons.toml"
    table.parent.mkdir()
    table.write_text(f"[[lesson]]\n{row}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=says.replace("[", r"\[").replace("]", r"\]")):
        registry(table)


def test_lessons_out_of_order_are_refused(tmp_path):
    table = tmp_path / "lessons.toml"
    rows = [f'[[lesson]]\nnumber = "{n}"\nslug = "x"\nbox = "7:00–7:20"\n' for n in ("02", "01")]
    table.write_text("\n".join(rows), encoding="utf-8")
    with pytest.raises(ValueError, match="unique and in order"):
        registry(table)


# ---- a new lesson is a row and its files -----------------------------------------------------------

FAKE_ROW = """
[[lesson]]
number = "06"
slug = "fake_lesson"
title = "A fake lesson"
box = "9:00–9:10"
piece = ""
exercise = "06_fake"
deck = "06_fake_lesson"
"""

DRIVER = """
import json, sys
from pathlib import Path
from importlib.util import module_from_spec, spec_from_file_location

from slides.build import decks
from tools import build_views, rehearsal
from tools.lessons import LESSONS, SEGMENTS

def script(name):
    spec = spec_from_file_location(name, Path("class") / f"{name}.py")
    module = sys.modules[name] = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

table, fits = rehearsal.report(runs={})
build_views.BUILD = Path("build")
print(json.dumps({
    "lessons": [p.name for p in LESSONS],
    "boxes": [[s.span, list(s.prefixes)] for s in SEGMENTS],
    "decks": [p.name for p in decks()],
    "clock": [line for line in table.splitlines() if line.startswith("9:00")],
    "student view": [p.name for p in build_views.build_student_view()],
    "sizing": [str(path.relative_to(Path.cwd())) for _, path, _ in script("sizing").evening_notebooks(Path.cwd())],
    "lesson cost": script("lesson_cost").LESSONS,
}))
"""


def fake_files(root: Path) -> None:
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    lesson = nbformat.v4.new_notebook(
        cells=[
            md("# 06 · A fake lesson\n\n**Time box:** 9:00–9:10"),
            code("print('ok: set up')", metadata={"tags": ["setup"]}),
            md("## The one idea\n\n" + " ".join(["word"] * 260)),
            code("print('two lines')\nprint('of output')"),
        ]
    )
    deck = nbformat.v4.new_notebook(
        cells=[
            md("# A fake lesson\n\n**9:00–9:10**", metadata={"slideshow": {"slide_type": "slide"}})
        ]
    )
    solution = nbformat.v4.new_notebook(
        cells=[
            md(
                "# Exercise 6\n\n| task | where | about |\n| --- | --- | --- |\n| 1 · `f` | in class | 3 min |"
            ),
            md("## Task 1 · `f`\n\nWrite f. " + " ".join(["rule"] * 130)),
            code("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION"),
        ]
    )
    nbformat.write(lesson, root / "notebooks" / "06_fake_lesson.ipynb")
    nbformat.write(deck, root / "slides" / "06_fake_lesson.ipynb")
    nbformat.write(solution, root / "exercises" / "solutions" / "06_fake.ipynb")
    nbformat.write(solution, root / "exercises" / "06_fake.ipynb")


def test_adding_a_row_is_all_a_new_lesson_needs(tmp_path):
    copy = tmp_path / "clone"
    for folder in ("tools", "notebooks", "exercises/solutions"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for file in (
        "slides/__init__.py",
        "slides/build.py",
        "class/sizing.py",
        "class/lesson_cost.py",
    ):
        (copy / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / file, copy / file)
    for deck in (ROOT / "slides").glob("0*.ipynb"):
        shutil.copy(deck, copy / "slides" / deck.name)
    for exercise in (ROOT / "exercises").glob("0*.ipynb"):
        shutil.copy(exercise, copy / "exercises" / exercise.name)
    (copy / "stage").mkdir()
    for file in ("__init__.py", "registry.py"):
        shutil.copy(ROOT / "stage" / file, copy / "stage" / file)

    def seen():
        done = subprocess.run(
            [sys.executable, "-c", DRIVER], cwd=copy, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    before = seen()
    with open(copy / "notebooks" / "lessons.toml", "a", encoding="utf-8") as table:
        table.write(FAKE_ROW)
    fake_files(copy)
    after = seen()

    assert before["lessons"][-1] == "05_memory_claude_md.ipynb"
    assert after["lessons"] == before["lessons"] + ["06_fake_lesson.ipynb"]
    assert after["boxes"] == before["boxes"] + [["9:00–9:10", ["06_"]]]
    assert after["decks"] == before["decks"] + ["06_fake_lesson.ipynb"]
    assert not before["clock"] and len(after["clock"]) == 2, after["clock"]  # its row and its box
    assert "06_fake_lesson" in after["clock"][0]
    assert after["student view"] == before["student view"] + ["06_fake_lesson.ipynb"]
    assert after["sizing"][-2:] == [
        "notebooks/06_fake_lesson.ipynb",
        "exercises/solutions/06_fake.ipynb",
    ]
    assert (
        "06_fake_lesson" in after["lesson cost"] and "06_fake_lesson" not in before["lesson cost"]
    )
