"""Hand out, collect and autograde exercise 03 for three students with real Unix accounts, through nbgrader's
exchange, as the README says; nobody can game the grade, and no student copy holds an answer.

Set-up (class/testbed.py, class/nbgrader_assignments.py): the student copy with its venv, three students
and an instructor with real accounts, the course built from this (the instructor's) clone into the
instructor's home, 0700, and an exchange folder made the way the hub makes it (1777). Then, each command
run AS its person with runuser: the instructor generates and releases; each student fetches, answers and
submits; the instructor collects and autogrades.

- ada submits the solution; bob a `compact` that forgets the card; cy bob's wrong compact plus two cheats:
  `checks.check_compact = lambda *a, **k: True` in an answer cell, and an `exercises/checks/` package of
  her own beside the notebook (imported instead of the installed checks; every check passes). Graded with the instructor's checks, ada gets full marks, bob and cy lose the compact point.
  The control: cy graded without class/grading.py's UseGraderChecks gets full marks, so the cheat is real.
- bob also submits a blank copy under ada's name (`--student`): collect refuses it (its folder is bob's),
  ada's grade comes from her own submission. No student can list the exchange's inbound folder.
- No file a student receives (the student copy that nbgitpuller hands out, nbgrader's release, each fetched
  copy) holds a run of four lines of any solution block, nor a one-to-three-line solution block in the
  exercises, nor a reference function of the checks.
Needs root; skipped otherwise.
"""

import os
import pwd
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import nbformat
import pytest
from conftest import load_class as load

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: real Unix accounts"),
]

REPO = Path(__file__).resolve().parent.parent
STUDENTS = ["cdgrade_ada", "cdgrade_bob", "cdgrade_cy"]
ADA, BOB, CY = STUDENTS
INSTRUCTOR = "cdgrade_grace"
ASSIGNMENT = "03_three_zones"
NOTEBOOK = f"{ASSIGNMENT}.ipynb"
COURSE_ID = "context-desk"


class Class:
    def __init__(self, server: Path, folder: Path):
        self.server, self.folder = server, folder
        self.bin = server / ".venv" / "bin"
        self.exchange = folder / "exchange"

    def home(self, name: str) -> Path:
        return Path(pwd.getpwnam(name).pw_dir)

    def as_user(self, name: str, *command: str, cwd: Path | None = None, check: bool = True):
        env = {
            "HOME": str(self.home(name)),
            "USER": name,
            "LOGNAME": name,
            "LANG": "C.UTF-8",
            "PATH": f"{self.bin}:/usr/local/bin:/usr/bin:/bin",
        }
        done = subprocess.run(
            [
                "runuser",
                "-u",
                name,
                "--",
                "env",
                "-i",
                *[f"{k}={v}" for k, v in env.items()],
                *command,
            ],
            cwd=cwd or self.home(name),
            capture_output=True,
            text=True,
            timeout=900,
        )
        if check:
            assert done.returncode == 0, (
                f"{name}: {' '.join(command)}\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
            )
        return done

    def nbgrader(self, name: str, *args: str, cwd: Path | None = None, check: bool = True):
        return self.as_user(name, str(self.bin / "nbgrader"), *args, cwd=cwd, check=check)

    def student_nbgrader(self, name: str, *args: str, check: bool = True):
        return self.nbgrader(
            name, *args, "--course", COURSE_ID, f"--Exchange.root={self.exchange}", check=check
        )


def in_parallel(work, names):
    """work(name) for every name at once (each is a separate nbgrader process, a few seconds to start)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(names)) as pool:
        for future in [pool.submit(work, name) for name in names]:
            future.result()


def with_wrong_compact(notebook):
    """The correct answers, except compact(), which returns the history unchanged (no card)."""
    wrong = nbformat.from_dict(notebook)
    cell = next(c for c in wrong.cells if c.cell_type == "code" and "def compact(" in c.source)
    cell.source, count = re.subn(
        r"### BEGIN SOLUTION\n.*?### END SOLUTION",
        "### BEGIN SOLUTION\n    return list(messages)\n    ### END SOLUTION",
        cell.source,
        flags=re.DOTALL,
    )
    assert count == 1
    return wrong


def with_cheat(notebook):
    """Bob's wrong compact, and in the same answer cell, the check replaced by one that always passes."""
    cheat = with_wrong_compact(notebook)
    cell = next(c for c in cheat.cells if c.cell_type == "code" and "def compact(" in c.source)
    cell.source += (
        "\n\nimport sys\nchecks.check_compact = lambda *a, **k: True   # always PASS\n"
        "sys.modules['checks'].check_compact = checks.check_compact"
    )
    return cheat


@pytest.fixture(scope="module")
def graded():
    testbed = load("testbed")
    server = testbed.install_server()
    folder = Path(
        tempfile.mkdtemp(prefix="context-desk-grading-")
    )  # pytest's own tmp is closed to students
    os.chmod(folder, 0o755)
    people = STUDENTS + [INSTRUCTOR]
    for name in people:
        testbed.remove_account(name)
    roster = folder / "roster.txt"
    roster.write_text("".join(f"{n}\n" for n in STUDENTS) + f"{INSTRUCTOR} instructor\n")
    subprocess.run(
        [
            str(server / ".venv" / "bin" / "python"),
            str(server / "class" / "roster.py"),
            "--state",
            str(folder / "state"),
            "add",
            str(roster),
        ],
        check=True,
        capture_output=True,
    )
    room = Class(server, folder)
    try:
        room.exchange.mkdir()
        os.chmod(room.exchange, 0o1777)  # as class/jupyterhub_config.py makes it
        course = room.home(INSTRUCTOR) / "context-desk-course"
        # As root, from the instructor's clone (this repository): the course, given to the instructor.
        nbgrader_assignments = load("nbgrader_assignments")
        assert nbgrader_assignments.build(
            course, [ASSIGNMENT], exchange=str(room.exchange), owner=INSTRUCTOR
        ) == [ASSIGNMENT]
        room.nbgrader(INSTRUCTOR, "generate_assignment", ASSIGNMENT, "--force", cwd=course)
        room.nbgrader(INSTRUCTOR, "release_assignment", ASSIGNMENT, "--force", cwd=course)

        source = nbformat.read(course / "source" / ASSIGNMENT / NOTEBOOK, as_version=4)
        answers = {ADA: source, BOB: with_wrong_compact(source), CY: with_cheat(source)}
        fetched_texts = {}
        in_parallel(
            lambda name: room.student_nbgrader(name, "fetch_assignment", ASSIGNMENT), STUDENTS
        )
        for name in STUDENTS:
            fetched = room.home(name) / ASSIGNMENT
            assert (fetched / NOTEBOOK).exists()
            fetched_texts.update(
                normalized_texts(fetched)
            )  # what the student received, before answering
            text = nbformat.writes(answers[name])
            subprocess.run(
                ["runuser", "-u", name, "--", "tee", str(fetched / NOTEBOOK)],
                input=text,
                text=True,
                capture_output=True,
                check=True,
            )
        # cy also puts checks of her own beside her notebook, where `from exercises import checks` finds them
        # before the installed ones: every check passes whatever it is given.
        planted = room.home(CY) / ASSIGNMENT / "exercises"
        room.as_user(CY, "mkdir", "-p", str(planted / "checks"))
        room.as_user(CY, "touch", str(planted / "__init__.py"))
        room.as_user(
            CY,
            "sh",
            "-c",
            f"echo 'def __getattr__(name): return lambda *a, **k: True' > "
            f"{planted / 'checks' / '__init__.py'}",
        )
        in_parallel(lambda name: room.student_nbgrader(name, "submit", ASSIGNMENT), STUDENTS)
        # bob submits a blank copy in ada's name, after her
        blank = room.home(BOB) / "blank" / ASSIGNMENT
        room.as_user(BOB, "mkdir", "-p", str(blank))
        room.as_user(
            BOB,
            "cp",
            "-r",
            str(room.exchange / COURSE_ID / "outbound" / ASSIGNMENT / "."),
            str(blank),
        )
        spoof = room.nbgrader(
            BOB,
            "submit",
            ASSIGNMENT,
            "--course",
            COURSE_ID,
            f"--Exchange.root={room.exchange}",
            f"--student={ADA}",
            cwd=blank.parent,
        )
        bob_lists_inbound = room.as_user(
            BOB, "ls", str(room.exchange / COURSE_ID / "inbound"), check=False
        )

        collect = room.nbgrader(INSTRUCTOR, "collect", ASSIGNMENT, cwd=course)
        # The control first: cy graded WITHOUT the instructor's checks (the cheat works there) ...
        room.nbgrader(
            INSTRUCTOR,
            "autograde",
            ASSIGNMENT,
            "--create",
            "--force",
            f"--student={CY}",
            "--UseGraderChecks.enabled=False",
            cwd=course,
        )
        control = scores(course, [CY])[CY]
        # ... then everyone, as the course is configured.
        autograde = room.nbgrader(
            INSTRUCTOR, "autograde", ASSIGNMENT, "--create", "--force", cwd=course
        )
        yield {
            "room": room,
            "course": course,
            "scores": scores(course, STUDENTS),
            "control": control,
            "answers": answers,
            "collect": collect.stdout + collect.stderr,
            "spoof": spoof,
            "bob_lists_inbound": bob_lists_inbound,
            "fetched": fetched_texts,
            "autograde": autograde.stdout + autograde.stderr,
        }
    finally:
        for name in people:
            testbed.remove_account(name)
        shutil.rmtree(folder, ignore_errors=True)


def scores(course: Path, students):
    from nbgrader.api import Gradebook

    found = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in students:
            submission = gradebook.find_submission(ASSIGNMENT, student)
            grades = {grade.name: grade.score for grade in submission.notebooks[0].grades}
            found[student] = (submission.score, submission.max_score, grades)
    return found


def compact_points(per_check):
    return [points for name, points in per_check.items() if name.startswith("check_compact-")]


# ---- the grades ------------------------------------------------------------------------------------------


def test_the_solution_gets_full_marks(graded):
    score, max_score, per_check = graded["scores"][ADA]
    assert max_score >= 4 and score == max_score, per_check


def test_a_wrong_compact_loses_exactly_its_point(graded):
    score, max_score, per_check = graded["scores"][BOB]
    assert score == max_score - 1 and compact_points(per_check) == [0], per_check


def test_redefining_or_editing_a_check_gains_nothing(graded):
    score, max_score, per_check = graded["scores"][CY]
    assert score == max_score - 1 and compact_points(per_check) == [0], per_check


def test_the_cheat_is_real_without_the_instructors_checks(graded):
    score, max_score, per_check = graded["control"]
    assert score == max_score and compact_points(per_check) == [1], per_check


def test_the_tampering_is_flagged_for_the_instructor(graded):
    grading = load("grading")
    course = graded["course"]
    flagged = grading.tampering(course / "submitted" / CY / ASSIGNMENT / NOTEBOOK)
    assert "file: exercises" in flagged and any(
        "checks.check_compact = lambda" in cell for cell in flagged
    )
    assert grading.tampering(course / "submitted" / ADA / ASSIGNMENT / NOTEBOOK) == []


# ---- each student's own submission ---------------------------------------------------------------------------


def test_each_student_keeps_their_own_submission(graded):
    course = graded["course"]
    for name in STUDENTS:
        collected = nbformat.read(course / "submitted" / name / ASSIGNMENT / NOTEBOOK, as_version=4)
        mine = [c.source for c in graded["answers"][name].cells]
        assert [c.source for c in collected.cells] == mine, (
            f"{name}'s collected notebook is not what {name} submitted"
        )
        owner = pwd.getpwuid((course / "submitted" / name).stat().st_uid).pw_name
        assert owner == INSTRUCTOR


def test_a_submission_in_another_students_name_is_refused(graded):
    assert graded["spoof"].returncode == 0  # nbgrader itself let bob submit it
    assert f"it says it is {ADA}'s, but the account {BOB} submitted it" in graded["collect"], (
        graded["collect"]
    )


def test_no_student_can_list_the_inbound_folder(graded):
    assert graded["bob_lists_inbound"].returncode != 0
    assert "Permission denied" in graded["bob_lists_inbound"].stderr


def test_the_course_is_closed_to_students(graded):
    course = graded["course"]
    assert course.stat().st_mode & 0o777 == 0o700
    room = graded["room"]
    denied = room.as_user(ADA, "cat", str(course / "source" / ASSIGNMENT / NOTEBOOK), check=False)
    assert denied.returncode != 0 and "Permission denied" in denied.stderr


# ---- no answers handed out ------------------------------------------------------------------------------------


def solution_blocks():
    blocks = []
    for path in sorted((REPO / "exercises" / "solutions").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            block = None
            for line in cell.source.split("\n") if cell.cell_type == "code" else []:
                if line.strip() == "### BEGIN SOLUTION":
                    block = []
                elif line.strip() == "### END SOLUTION":
                    blocks.append((path.name, block))
                    block = None
                elif block is not None and line.strip() and not line.strip().startswith("#"):
                    block.append(" ".join(line.split()))
    return blocks


def reference_functions():
    import ast

    found = []
    for path in sorted((REPO / "exercises" / "checks").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("reference_"):
                body = ast.get_source_segment(path.read_text(), node).split("\n")[1:]
                found.append((node.name, [" ".join(line.split()) for line in body if line.strip()]))
    return found


def normalized_texts(folder: Path) -> dict[str, str]:
    texts = {}
    for path in folder.rglob("*"):
        if not path.is_file() or {
            ".git",
            ".venv",
            "node_modules",
            "__pycache__",
            "server-files",
        } & set(path.parts):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, PermissionError):
            continue
        if path.suffix == ".ipynb":
            text = "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells)
        texts[str(path)] = "\n".join(
            " ".join(line.split()) for line in text.split("\n") if line.strip()
        )
    return texts


def test_no_student_copy_holds_a_solution_or_a_reference_answer(graded):
    room = graded["room"]
    places = [room.server, graded["course"] / "release", room.exchange / COURSE_ID / "outbound"]
    texts = dict(graded["fetched"])
    assert len(texts) == 3, "each student's fetched notebook should be scanned"
    for place in places:
        assert place.exists(), place
        texts.update(normalized_texts(place))
    assert not any("/exercises/solutions/" in name for name in texts)
    blocks, references = solution_blocks(), reference_functions()
    assert len(blocks) >= 10, "nothing to look for: the scan would pass by itself"
    leaks = []
    for notebook, block in blocks:
        runs = (
            ["\n".join(block[i : i + 4]) for i in range(len(block) - 3)] if len(block) >= 4 else []
        )
        whole = "\n".join(block) if len(block) < 4 else None
        for name, text in texts.items():
            if any(run in text for run in runs):
                leaks.append((notebook, name))
            if whole and "/exercises/" in name and whole in text:
                leaks.append((notebook, name))
    for function, body in references:
        for name, text in texts.items():
            if "\n".join(body[:3]) in text:
                leaks.append((function, name))
    assert not leaks, leaks
    # the scan finds what it looks for: the instructor's own solution notebooks would have been caught
    instructor = normalized_texts(REPO / "exercises" / "solutions")
    assert (
        sum(
            any(run in text for text in instructor.values())
            for run in (
                "\n".join(block[i : i + 4])
                for _, block in blocks
                for i in range(max(len(block) - 3, 0))
            )
        )
        >= 10
    )


def test_students_get_checks_without_answers_and_grading_uses_the_grader_copy(graded):
    course = graded["course"]
    checks = sorted((graded["room"].server / "exercises" / "checks").glob("*.py"))
    assert checks and not any("def reference_" in path.read_text() for path in checks)
    autograded = nbformat.read(course / "autograded" / ADA / ASSIGNMENT / NOTEBOOK, as_version=4)
    assert any("_grader_checks" in c.source for c in autograded.cells)
