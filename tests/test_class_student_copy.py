"""The student copy (class/student_build.py): what it leaves out, what it replaces, and that its checks still judge.

The fast tests transform a made-up checks module; the integration test builds the real copy from this
clone into a temporary folder, then runs every solution notebook against the STUDENT copy of the checks
(each check must still PASS) and every student notebook (each must say "Not done yet"), so the recorded
outcomes stand in for the reference code without changing a verdict.
"""

import asyncio
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
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

def stream_text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


@pytest.mark.integration
def test_the_student_copy_has_no_answers_and_its_checks_still_judge(tmp_path):
    student_build = load("student_build")
    dest = tmp_path / "student-copy"
    result = student_build.build(dest)
    assert not (dest / "exercises" / "solutions").exists() and not (dest / "tests").exists()
    assert (dest / "exercises" / "checks" / "recorded.json").exists()
    assert set(result["replaced"]) >= {"ex03_three_zones.reference_split"}
    for path in (dest / "exercises" / "checks").glob("*.py"):
        text = path.read_text()
        assert "def reference_" not in text or "return _recorded(" in text, path
    # one commit per build that changed something, on branch `student`, with no history of the clone
    git = ["git", "-C", str(dest)]
    assert subprocess.run(git + ["rev-parse", "--abbrev-ref", "HEAD"], capture_output=True, text=True).stdout.strip() \
        == "student"
    first = subprocess.run(git + ["rev-list", "--all"], capture_output=True, text=True).stdout.split()
    assert len(first) == 1
    student_build.build(dest)
    assert subprocess.run(git + ["rev-list", "--all"], capture_output=True, text=True).stdout.split() == first

    # The solutions, run against the student checks: every check passes. The stubs: every check says not done.
    shutil.copytree(REPO / "exercises" / "solutions", dest / "exercises" / "solutions")
    from nbclient import NotebookClient

    books = {path: nbformat.read(path, as_version=4) for path in
             sorted((dest / "exercises" / "solutions").glob("*.ipynb")) + sorted((dest / "exercises").glob("0*.ipynb"))}
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_") and k != "CONTEXT_DESK_MODEL"}
    env["PYTHONPATH"] = str(dest)        # `from exercises import checks` finds the STUDENT copy's checks
    check_path = "import exercises.checks, sys; print(exercises.checks.__file__)"
    where = subprocess.run([sys.executable, "-c", check_path], env=env, capture_output=True, text=True)
    assert where.stdout.strip().startswith(str(dest)), where

    async def run_all():
        async def run(path, book):
            client = NotebookClient(book, timeout=180, kernel_name="python3",
                                    resources={"metadata": {"path": str(path.parent)}})
            await client.async_execute(env=env)
        return await asyncio.gather(*(run(p, b) for p, b in books.items()), return_exceptions=True)

    errors = asyncio.run(run_all())
    for (path, book), error in zip(books.items(), errors):
        assert error is None, f"{path.name}: {error}"
        verdicts = [stream_text(c) for c in book.cells if c.cell_type == "code" and "checks.check_" in c.source]
        assert verdicts, path
        for text in verdicts:
            if "solutions" in path.parts:
                assert "FAIL" not in text and "Not done" not in text and "not recorded" not in text, \
                    f"{path.name}: {text[:300]}"
            else:
                assert "Not done yet" in text, f"{path.name}: {text[:300]}"
