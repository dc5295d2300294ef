"""The student copy (class/student_build.py): what it leaves out, what it refuses, and that its checks still judge.

The fast tests transform a made-up checks module; the integration test builds the real copy the README's
way (class/testbed.py: the copy and its own venv), then runs every solution notebook against the STUDENT
copy of the checks (each check must still PASS) and every student notebook (each must say "Not done yet"),
so the checks judge the same in the student copy as in the instructor's.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load_class as load

REPO = Path(__file__).resolve().parent.parent


MODULE = '''"""Checks for a made-up exercise."""

from __future__ import annotations

INSTRUCTOR_ONLY = ("_expected_total",)


def reference_double(x):
    secret_marker = "the answer is x * 2"
    return x * 2


@staticmethod
def _expected_total(values):
    return sum(values) + 1


def check_double(double) -> bool:
    return all(double(x) == reference_double(x) for x in range(3))
'''


def test_instructor_only_code_is_found_by_name_and_by_list():
    student_build = load("student_build")
    import ast

    assert student_build.instructor_only_names(ast.parse(MODULE)) == [
        "reference_double",
        "_expected_total",
    ]
    assert (
        student_build.instructor_only_names(ast.parse("def check_x(x):\n    return x > 0\n")) == []
    )


@pytest.mark.parametrize(
    "name, source",
    [
        ("reference", MODULE),
        ("listed only", 'INSTRUCTOR_ONLY = ("_answer",)\n\ndef _answer():\n    return 42\n'),
        ("reference only", "def reference_fold(notes, event):\n    return notes + [event]\n"),
    ],
)
def test_the_build_refuses_checks_a_student_could_read_an_answer_from(tmp_path, name, source):
    """A checks module with a reference implementation stops the build, naming the file and the function."""
    student_build = load("student_build")
    (tmp_path / "exercises" / "checks").mkdir(parents=True)
    (tmp_path / "exercises" / "checks" / "__init__.py").write_text("")
    (tmp_path / "exercises" / "checks" / "ex09_made_up.py").write_text(source)
    with pytest.raises(
        RuntimeError, match=r"ex09_made_up\.py: (reference_|_)\w+.*judge by properties"
    ):
        student_build.student_checks(tmp_path)


def test_the_real_checks_go_to_students_unchanged():
    """The workbook's own checks hold no reference code, so the student copy's checks are the same files."""
    student_build = load("student_build")
    files = student_build.student_checks(REPO)
    real = sorted((REPO / "exercises" / "checks").glob("*.py"))
    assert len(real) >= 5 and sorted(files) == [f"exercises/checks/{p.name}" for p in real]
    assert all(files[f"exercises/checks/{p.name}"] == p.read_text() for p in real)


def test_the_copy_is_never_written_into_the_instructors_clone(tmp_path):
    student_build = load("student_build")
    with pytest.raises(ValueError, match="outside the instructor's clone"):
        student_build.build(REPO / "exercises")


# ---- the real copy ---------------------------------------------------------------------------------------

RUN_NOTEBOOKS = """
import asyncio, json, sys
import nbformat
from nbclient import NotebookClient
import exercises.checks

paths = sys.argv[1:]
books = {p: nbformat.read(p, as_version=4) for p in paths}

async def run(path, book):
    client = NotebookClient(book, timeout=180, kernel_name="python3",
                            resources={"metadata": {"path": path.rsplit("/", 1)[0]}})
    await client.async_execute()

async def run_all():
    return await asyncio.gather(*(run(p, b) for p, b in books.items()), return_exceptions=True)

errors = asyncio.run(run_all())
verdicts = {p: ["".join(o.get("text", "") for o in c.outputs if o.get("output_type") == "stream")
                for c in b.cells if c.cell_type == "code" and "checks.check_" in c.source] for p, b in books.items()}
print(json.dumps({"checks": exercises.checks.__file__, "errors": [repr(e) if e else None for e in errors],
                  "verdicts": verdicts}))
"""


@pytest.mark.integration
@pytest.mark.skipif(os.geteuid() != 0, reason="the class server copy is set up as root")
def test_the_student_copy_has_no_answers_and_its_checks_still_judge(tmp_path):
    """The server's student copy (built the README's way, with its own venv, whose editable install IS the
    student copy): the solutions, run there, pass every check; the student notebooks say "Not done yet"."""
    student_build, testbed = load("student_build"), load("testbed")
    dest = testbed.install_server()
    assert not (dest / "exercises" / "solutions").exists() and not (dest / "tests").exists()
    checks = sorted((dest / "exercises" / "checks").glob("*.py"))
    assert checks and not any("def reference_" in path.read_text() for path in checks)
    # one commit per build that changed something, on branch `student`, with no history of the clone
    git = ["git", "-C", str(dest)]
    assert (
        subprocess.run(
            git + ["rev-parse", "--abbrev-ref", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        == "student"
    )
    before = subprocess.run(
        git + ["rev-list", "--all"], capture_output=True, text=True
    ).stdout.split()
    result = student_build.build(dest, force=True)
    assert not result["skipped"] and student_build.build(dest)["skipped"]
    assert any(name.startswith("exercises/solutions/") for name in result["left_out"])
    assert (
        subprocess.run(git + ["rev-list", "--all"], capture_output=True, text=True).stdout.split()
        == before
    )
    mine = subprocess.run(
        ["git", "-C", str(REPO), "rev-list", "--all"], capture_output=True, text=True
    ).stdout.split()
    assert not set(before) & set(mine), (
        "the student copy's history shares commits with the instructor's"
    )

    solutions = tmp_path / "solutions"
    shutil.copytree(REPO / "exercises" / "solutions", solutions)
    paths = sorted(solutions.glob("*.ipynb")) + sorted((dest / "exercises").glob("0*.ipynb"))
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ANTHROPIC_", "VIRTUAL_ENV", "PYTHONPATH"))
        and k != "CONTEXT_DESK_MODEL"
    }
    done = subprocess.run(
        [str(dest / ".venv" / "bin" / "python"), "-c", RUN_NOTEBOOKS, *map(str, paths)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["checks"].startswith(str(dest)), (
        f"the notebooks ran the checks of {report['checks']}"
    )
    assert report["errors"] == [None] * len(paths), report["errors"]
    for path, verdicts in report["verdicts"].items():
        assert verdicts, path
        for text in verdicts:
            if path.startswith(str(solutions)):
                assert (
                    "FAIL" not in text and "Not done" not in text and "not recorded" not in text
                ), f"{path}: {text[:300]}"
            else:
                assert "Not done yet" in text, f"{path}: {text[:300]}"
