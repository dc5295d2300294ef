"""What collect takes from a student's submission folder (class/grading.py), checked on real files.

The student here is the account `nobody`; root plays the instructor whose files a submission must never
pull in. Each case is a submission folder made the way a student (or, for the hard link, a machine
without fs.protected_hardlinks) could make it; every one must be refused with a reason, and the copy
must refuse what slips in after the first look, without following it. Needs root (chown); the same with
real accounts and nbgrader's exchange is in tests/test_class_grading.py.
"""

import os
import pwd
import shutil
from pathlib import Path

import pytest
from conftest import load_class as load

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: files of two accounts"),
    pytest.mark.class_tools,  # the collector is nbgrader's, extended
]

STUDENT = "nobody"


@pytest.fixture
def made(tmp_path):
    """A submission folder of the student's with one honest notebook, and a file of the instructor's."""
    uid = pwd.getpwnam(STUDENT).pw_uid
    instructor_file = tmp_path / "course" / "source" / "03.ipynb"
    instructor_file.parent.mkdir(parents=True)
    instructor_file.write_text('{"the": "solution"}')
    folder = tmp_path / "inbound" / f"{STUDENT}+03+2026-12-03 08:00:00.000000 UTC+abc"
    folder.mkdir(parents=True)
    (folder / "03.ipynb").write_text('{"my": "answer"}')
    (folder / "timestamp.txt").write_text("2026-12-03 08:00:00.000000 UTC")
    for path in (folder, folder / "03.ipynb", folder / "timestamp.txt"):
        os.chown(path, uid, uid)
    return folder, instructor_file, uid


def own(path, uid):
    os.chown(path, uid, uid, follow_symlinks=False)


CASES = {
    "a symbolic link to the solution": (
        lambda f, solution, uid: (
            (f / "extra.ipynb").symlink_to(solution),
            own(f / "extra.ipynb", uid),
        ),
        "extra.ipynb: a symbolic link",
    ),
    "a symbolic link to a folder": (
        lambda f, solution, uid: ((f / "more").symlink_to(solution.parent), own(f / "more", uid)),
        "more: a symbolic link",
    ),
    "a hard link to the solution": (
        lambda f, solution, uid: os.link(solution, f / "extra.ipynb"),
        "extra.ipynb: a hard link to a file of root",
    ),
    "a pipe": (
        lambda f, solution, uid: (os.mkfifo(f / "pipe"), own(f / "pipe", uid)),
        "pipe: a special file",
    ),
    "a file someone else put in": (
        lambda f, solution, uid: (f / "planted.py").write_text("x = 1"),
        "planted.py: made by root, not by the student",
    ),
    "another account's folder inside": (
        lambda f, solution, uid: (f / "sub").mkdir(),
        "sub: made by root, not by the student",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_collect_refuses_what_the_student_did_not_make(made, case):
    grading = load("grading")
    folder, solution, uid = made
    assert grading.submission_problems(str(folder), STUDENT) == [], "the honest folder is refused"
    plant, reason = CASES[case]
    plant(folder, solution, uid)
    problems = grading.submission_problems(str(folder), STUDENT)
    assert any(reason in problem for problem in problems), problems


def test_a_folder_of_another_account_or_a_linked_folder_is_refused(made, tmp_path):
    grading = load("grading")
    folder, solution, uid = made
    os.chown(folder, 0, 0)
    assert "the account root submitted it" in grading.submission_problems(str(folder), STUDENT)[0]
    linked = folder.parent / f"{STUDENT}+03+2026-12-03 09:00:00.000000 UTC+lnk"
    linked.symlink_to(solution.parent)
    assert "not a folder" in grading.submission_problems(str(linked), STUDENT)[0]


def test_the_copy_takes_the_students_files_and_refuses_a_link_that_appears_later(made, tmp_path):
    grading = load("grading")
    folder, solution, uid = made
    grading.copy_submission(str(folder), str(tmp_path / "copy"), STUDENT, exclude=["*.pyc"])
    assert (tmp_path / "copy" / "03.ipynb").read_text() == '{"my": "answer"}'
    # between the first look and the copy, the notebook becomes a link to the solution
    (folder / "03.ipynb").unlink()
    (folder / "03.ipynb").symlink_to(solution)
    own(folder / "03.ipynb", uid)
    with pytest.raises(grading.SubmissionRefused, match="03.ipynb: cannot be opened as a file"):
        grading.copy_submission(str(folder), str(tmp_path / "again"), STUDENT)
    shutil.rmtree(tmp_path / "again", ignore_errors=True)
    # or a hard link to it (on a machine that allows one)
    (folder / "03.ipynb").unlink()
    os.link(solution, folder / "03.ipynb")
    with pytest.raises(grading.SubmissionRefused, match="a hard link to a file of root"):
        grading.copy_submission(str(folder), str(tmp_path / "third"), STUDENT)
    assert not Path(tmp_path / "third" / "03.ipynb").exists()
