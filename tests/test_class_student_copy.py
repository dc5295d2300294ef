"""The student copy (class/student_build.py): what it leaves out, what it replaces, and that its checks still judge.

The fast tests transform a made-up checks module; the integration test builds the real copy the README's
way (class/testbed.py: the copy and its own venv), then runs every solution notebook against the STUDENT
copy of the checks (each check must still PASS) and every student notebook (each must say "Not done yet"),
so the recorded outcomes stand in for the reference code without changing a verdict.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CLASS = REPO / "class"


def load(name):
    key = f"context_desk_class_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, CLASS / f"{name}.py")
        sys.modules[key] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[key])
    return sys.modules[key]


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


def test_reference_and_instructor_only_functions_are_replaced_by_lookups():
    student_build = load("student_build")
    text, names = student_build.without_instructor_code(MODULE, "ex09_made_up")
    assert names == ["reference_double", "_expected_total"]
    assert "x * 2" not in text and "sum(values) + 1" not in text and "secret_marker" not in text
    assert "_recorded('ex09_made_up.reference_double', args, kwargs)" in text
    assert "from .recorded import recorded as _recorded" in text
    assert text.index("from __future__") < text.index("from .recorded import")
    assert "def check_double(double)" in text           # the check itself stays
    compile(text, "ex09_made_up.py", "exec")


def test_a_module_without_instructor_code_is_left_as_it_is():
    student_build = load("student_build")
    source = '"""Nothing secret."""\n\n\ndef check_x(x):\n    return x > 0\n'
    assert student_build.without_instructor_code(source, "ex08") == (source, [])


def test_instructor_only_names_must_be_functions():
    student_build = load("student_build")
    with pytest.raises(ValueError, match="not top-level functions"):
        student_build.without_instructor_code('INSTRUCTOR_ONLY = ("ANSWER",)\nANSWER = 42\n', "ex07")


def test_the_recorded_lookup_answers_recorded_inputs_and_refuses_others(tmp_path):
    student_build = load("student_build")
    namespace = {"__file__": str(tmp_path / "recorded.py")}
    exec(compile(student_build.RECORDED_MODULE, "recorded.py", "exec"), namespace)
    key = namespace["fingerprint"](([{"role": "user", "content": "hi"}], 3), {})
    (tmp_path / "recorded.json").write_text('{"ex03.reference_split": {"%s": [[1], [], [2]]}}' % key)
    assert namespace["recorded"]("ex03.reference_split", ([{"role": "user", "content": "hi"}], 3), {}) == [[1], [], [2]]
    with pytest.raises(LookupError, match="not recorded"):
        namespace["recorded"]("ex03.reference_split", ([{"role": "user", "content": "hi"}], 4), {})


def test_the_copy_is_never_written_into_the_instructors_clone(tmp_path):
    student_build = load("student_build")
    with pytest.raises(ValueError, match="outside the instructor's clone"):
        student_build.build(REPO / "exercises", table={})


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
    assert (dest / "exercises" / "checks" / "recorded.json").exists()
    for path in (dest / "exercises" / "checks").glob("*.py"):
        text = path.read_text()
        assert "def reference_" not in text or "return _recorded(" in text, path
    # one commit per build that changed something, on branch `student`, with no history of the clone
    git = ["git", "-C", str(dest)]
    assert subprocess.run(git + ["rev-parse", "--abbrev-ref", "HEAD"], capture_output=True, text=True).stdout.strip() \
        == "student"
    before = subprocess.run(git + ["rev-list", "--all"], capture_output=True, text=True).stdout.split()
    result = student_build.build(dest, force=True)
    assert not result["skipped"] and student_build.build(dest)["skipped"]
    assert set(result["replaced"]) >= {"ex03_three_zones.reference_split"}
    assert subprocess.run(git + ["rev-list", "--all"], capture_output=True, text=True).stdout.split() == before
    mine = subprocess.run(["git", "-C", str(REPO), "rev-list", "--all"], capture_output=True, text=True).stdout.split()
    assert not set(before) & set(mine), "the student copy's history shares commits with the instructor's"

    solutions = tmp_path / "solutions"
    shutil.copytree(REPO / "exercises" / "solutions", solutions)
    paths = sorted(solutions.glob("*.ipynb")) + sorted((dest / "exercises").glob("0*.ipynb"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "VIRTUAL_ENV", "PYTHONPATH"))
           and k != "CONTEXT_DESK_MODEL"}
    done = subprocess.run([str(dest / ".venv" / "bin" / "python"), "-c", RUN_NOTEBOOKS, *map(str, paths)],
                          env=env, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["checks"].startswith(str(dest)), f"the notebooks ran the checks of {report['checks']}"
    assert report["errors"] == [None] * len(paths), report["errors"]
    for path, verdicts in report["verdicts"].items():
        assert verdicts, path
        for text in verdicts:
            if path.startswith(str(solutions)):
                assert "FAIL" not in text and "Not done" not in text and "not recorded" not in text, \
                    f"{path}: {text[:300]}"
            else:
                assert "Not done yet" in text, f"{path}: {text[:300]}"
