"""nbgrader 0.9 end to end: source assignment from the solutions, generate, submit, autograde, read the scores.

class/nbgrader_assignments.py turns exercises/solutions/03_three_zones.ipynb into nbgrader's source
assignment; `nbgrader generate_assignment` makes the student copy; three students submit: the solution
(every check passes), a copy whose `compact` leaves the history unchanged (exactly one check fails),
and the untouched student copy (nothing answered). `nbgrader autograde` runs the same check functions the
students see, and the gradebook must hold full marks, full marks less one point (check_compact), and zero.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import nbgrader_assignments
import pytest

pytestmark = pytest.mark.integration      # nbgrader in subprocesses

ASSIGNMENT = "03_three_zones"
NOTEBOOK = f"{ASSIGNMENT}.ipynb"


def nbgrader(course: Path, *args: str) -> str:
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout + done.stderr


def submit(course: Path, student: str, notebook: nbformat.NotebookNode) -> None:
    folder = course / "submitted" / student / ASSIGNMENT
    shutil.copytree(course / "release" / ASSIGNMENT, folder)    # what `nbgrader collect` would bring back
    nbformat.write(notebook, folder / NOTEBOOK)


def with_wrong_compact(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The correct answers, except compact(), which returns the history unchanged (no card)."""
    wrong = nbformat.from_dict(notebook)
    cell = next(c for c in wrong.cells if c.cell_type == "code" and "def compact(" in c.source)
    cell.source, count = re.subn(r"### BEGIN SOLUTION\n.*?### END SOLUTION",
                                 "### BEGIN SOLUTION\n    return list(messages)\n    ### END SOLUTION",
                                 cell.source, flags=re.DOTALL)
    assert count == 1
    return wrong


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    assert nbgrader_assignments.build(course, [ASSIGNMENT]) == [ASSIGNMENT]
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    source = nbformat.read(course / "source" / ASSIGNMENT / NOTEBOOK, as_version=4)
    released = nbformat.read(course / "release" / ASSIGNMENT / NOTEBOOK, as_version=4)
    submit(course, "right", source)
    submit(course, "wrong", with_wrong_compact(source))
    submit(course, "blank", released)
    nbgrader(course, "autograde", ASSIGNMENT, "--create", "--force")

    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {}
        for student in ("right", "wrong", "blank"):
            submission = gradebook.find_submission(ASSIGNMENT, student)
            notebook = submission.notebooks[0]
            scores[student] = (submission.score, submission.max_score,
                               {grade.name: grade.score for grade in notebook.grades})
    return course, source, released, scores


def test_the_student_copy_has_no_answers_and_locked_checks(graded):
    _, source, released, _ = graded
    text = "\n".join(c.source for c in released.cells if c.cell_type == "code")
    assert "### BEGIN SOLUTION" not in text and "NotImplementedError" in text
    assert "max(1, len(messages) - keep_messages)" not in text          # split_zones's answer is gone
    assert "MY_PROMPT = None  # your answer" in text      # the check below it meets None, not a NameError
    graded_cells = [c for c in released.cells if c.metadata.get("nbgrader", {}).get("grade")]
    checks_in_solutions = [c for c in source.cells if c.cell_type == "code" and "checks.check_" in c.source]
    assert len(graded_cells) == len(checks_in_solutions) >= 2
    assert all(c.metadata["nbgrader"]["locked"] for c in graded_cells)


def test_autograde_gives_full_marks_to_the_solution(graded):
    *_, scores = graded
    score, max_score, per_check = scores["right"]
    assert max_score == len(per_check) and score == max_score, per_check


def test_autograde_takes_exactly_the_compact_point_from_the_wrong_copy(graded):
    *_, scores = graded
    score, max_score, per_check = scores["wrong"]
    assert score == max_score - 1, per_check
    assert [name for name, points in per_check.items() if points == 0] == \
        [name for name in per_check if name.startswith("check_compact-")]


def test_autograde_gives_nothing_to_an_unanswered_copy(graded):
    *_, scores = graded
    score, max_score, per_check = scores["blank"]
    assert score == 0 and max_score > 0, per_check
