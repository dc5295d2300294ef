"""Hand out, collect and autograde exercise 03 for five students with real Unix accounts, through nbgrader's
exchange, as the README says; nobody can game the grade, and no student copy holds an answer.

Set-up (class/testbed.py, class/nbgrader_assignments.py): the student copy with its venv, five students
and an instructor with real accounts, the course built from this (the instructor's) clone into the
instructor's home, 0700, and an exchange folder made the way the hub makes it (1777). Then, each command
run AS its person with runuser: the instructor generates and releases; each student fetches, answers and
submits; the instructor collects and autogrades.

- ada submits the solution (the honest control: full marks, nothing flagged); bob a `compact` that
  forgets the card (loses exactly that point).
- cy submits bob's wrong compact plus two cheats: `checks.check_compact = lambda *a, **k: True` in an
  answer cell, and an `exercises/checks/` package of her own beside the notebook (imported instead of the
  installed checks). dan submits the handed-out stubs and, in his first answer cell, an IPython input
  transformer that turns every `assert` in the cells after it into `pass`. eve submits the stubs and an
  import hook (a `sys.meta_path` finder) that answers any exercise module of the checks with one whose
  every check passes. Each of the three scores 0 and is flagged with what it did; graded without the
  grader's protections (the controls), each gets full marks, so every cheat is real.
- Then dan hands in, by hand, a later submission folder whose notebook is a symbolic link to the
  instructor's own source notebook, and eve one whose notebook is a hard link to it (made by root here:
  Linux's fs.protected_hardlinks keeps a student from linking a file they cannot write; collect must not
  depend on that setting). nbgrader's own collect (the control) takes both as the solution itself; the
  course's collect refuses both, says why, and takes each one's earlier submission.
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
STUDENTS = ["cdgrade_ada", "cdgrade_bob", "cdgrade_cy", "cdgrade_dan", "cdgrade_eve"]
ADA, BOB, CY, DAN, EVE = STUDENTS
INSTRUCTOR = "cdgrade_grace"
ASSIGNMENT = "03_three_zones"
NOTEBOOK = f"{ASSIGNMENT}.ipynb"
COURSE_ID = "context-desk"


class Class:
    def __init__(self, server: Path, shared: Path):
        self.server = server
        self.bin = server / ".venv" / "bin"
        self.exchange = shared / "exchange"

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


def with_stubs(notebook):
    """What a student who answered nothing hands in: every solution block is the handed-out stub."""
    stubbed = nbformat.from_dict(notebook)
    for cell in stubbed.cells:
        if cell.cell_type == "code" and "### BEGIN SOLUTION" in cell.source:
            cell.source = re.sub(
                r"### BEGIN SOLUTION\n.*?### END SOLUTION",
                'raise NotImplementedError("Your code here")',
                cell.source,
                flags=re.DOTALL,
            )
    return stubbed


def in_first_answer(notebook, code):
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution"))
    cell.source += "\n\n" + code
    return notebook


# dan's cheat: every `assert` in the cells after this one becomes `pass`, before Python sees it
ASSERTS_AWAY = """def _no_asserts(lines):
    return ["pass  # " + line if line.lstrip().startswith("assert ") else line for line in lines]
get_ipython().input_transformers_cleanup.append(_no_asserts)"""

# eve's cheat: any exercise module of the checks, wherever it is imported from, passes everything
EVERY_CHECK_PASSES = """import sys, types
from importlib.machinery import ModuleSpec
class _Passes:
    def find_spec(self, name, path=None, target=None):
        return ModuleSpec(name, self) if name.rsplit(".", 1)[-1].startswith("ex0") else None
    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        def anything(attribute):
            if attribute.startswith("__"):
                raise AttributeError(attribute)
            return lambda *a, **k: True
        module.__getattr__ = anything
        return module
    def exec_module(self, module):
        pass
sys.meta_path.insert(0, _Passes())"""


def hand_made_submission(room, name, course):
    """An inbound folder named like nbgrader's, later than the student's own submission (made as them)."""
    import datetime

    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)
    stamp = later.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    folder = room.exchange / COURSE_ID / "inbound" / f"{name}+{ASSIGNMENT}+{stamp}+handmade"
    room.as_user(name, "mkdir", str(folder))
    room.as_user(name, "sh", "-c", f"echo '{stamp}' > '{folder / 'timestamp.txt'}'")
    return folder


@pytest.fixture(scope="module")
def graded():
    testbed = load("testbed")
    server = testbed.install_server()
    folder = Path(tempfile.mkdtemp(prefix="context-desk-grading-"))  # 0700: the roster, the state
    shared = Path(tempfile.mkdtemp(prefix="context-desk-grading-shared-"))  # the exchange only
    os.chmod(shared, 0o755)
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
    room = Class(server, shared)
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
        answers = {
            ADA: source,
            BOB: with_wrong_compact(source),
            CY: with_cheat(source),
            DAN: in_first_answer(with_stubs(source), ASSERTS_AWAY),
            EVE: in_first_answer(with_stubs(source), EVERY_CHECK_PASSES),
        }
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
        # dan's and eve's later, hand-made submissions: the instructor's own solution, linked in
        solution = course / "source" / ASSIGNMENT / NOTEBOOK
        linked = hand_made_submission(room, DAN, course)
        room.as_user(DAN, "ln", "-s", str(solution), str(linked / NOTEBOOK))
        hard_linked = hand_made_submission(room, EVE, course)
        os.link(solution, hard_linked / NOTEBOOK)  # root, standing in for a machine that allows it

        # The control: nbgrader's own collect takes both links as the students' work ...
        stock = "--ExchangeFactory.collect=nbgrader.exchange.default.collect.ExchangeCollect"
        room.nbgrader(INSTRUCTOR, "collect", ASSIGNMENT, stock, cwd=course)
        stock_collected = {
            name: (course / "submitted" / name / ASSIGNMENT / NOTEBOOK).read_bytes()
            for name in (DAN, EVE)
        }
        room.as_user(INSTRUCTOR, "rm", "-rf", str(course / "submitted"))
        # ... the course's own collect refuses them.
        collect = room.nbgrader(INSTRUCTOR, "collect", ASSIGNMENT, cwd=course)

        # The controls: each cheat graded WITHOUT the grader's protections (each works there) ...
        room.nbgrader(
            INSTRUCTOR,
            "autograde",
            ASSIGNMENT,
            "--create",
            "--force",
            f"--student={CY}",
            "--UseGraderChecks.enabled=False",
            "--GuardedExecute.guard=False",
            cwd=course,
        )
        room.nbgrader(  # dan and eve in one run: --student is a file glob
            INSTRUCTOR,
            "autograde",
            ASSIGNMENT,
            "--create",
            "--force",
            "--student=cdgrade_[de]*",
            "--GuardedExecute.guard=False",
            cwd=course,
        )
        controls = scores(course, [CY, DAN, EVE])
        # ... then everyone, as the course is configured.
        autograde = room.nbgrader(
            INSTRUCTOR, "autograde", ASSIGNMENT, "--create", "--force", cwd=course
        )
        yield {
            "room": room,
            "course": course,
            "scores": scores(course, STUDENTS),
            "controls": controls,
            "solution": solution.read_bytes(),
            "stock_collected": stock_collected,
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
        shutil.rmtree(shared, ignore_errors=True)


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


def errors_in(graded, name) -> str:
    """What the graded notebook printed as errors: the reason a check lost its point."""
    path = graded["course"] / "autograded" / name / ASSIGNMENT / NOTEBOOK
    if not path.exists():
        return f"no autograded notebook at {path}; autograde said:\n{graded['autograde'][-3000:]}"
    book = nbformat.read(path, as_version=4)
    return "\n".join(
        f"{o.get('ename')}: {o.get('evalue')}"
        for cell in book.cells
        for o in cell.get("outputs", [])
        if o.get("output_type") == "error"
    )


def test_the_solution_gets_full_marks(graded):
    score, max_score, per_check = graded["scores"][ADA]
    assert max_score >= 4 and score == max_score, (per_check, errors_in(graded, ADA))


def test_a_wrong_compact_loses_exactly_its_point(graded):
    score, max_score, per_check = graded["scores"][BOB]
    assert score == max_score - 1 and compact_points(per_check) == [0], per_check


def flagged(graded, name):
    grading = load("grading")
    return grading.tampering(graded["course"] / "autograded" / name / ASSIGNMENT / NOTEBOOK)


@pytest.mark.parametrize(
    "name, reason",
    [
        (CY, "the module exercises.checks comes from the submission's own files"),
        (DAN, "an input transformer (cleanup) was added: <function _no_asserts"),
        (EVE, "an import hook (sys.meta_path) was added: <__main__._Passes object"),
    ],
)
def test_a_cheat_scores_zero_and_says_why(graded, name, reason):
    score, max_score, per_check = graded["scores"][name]
    assert score == 0 and max_score >= 4, per_check
    reasons = flagged(graded, name)
    assert any(reason in line for line in reasons), reasons


@pytest.mark.parametrize("name", [CY, DAN, EVE])
def test_each_cheat_is_real_without_the_graders_protections(graded, name):
    score, max_score, per_check = graded["controls"][name]
    assert score == max_score, per_check


def test_the_graded_cells_ran_as_written_despite_the_transformer(graded):
    """dan's transformer was taken out before each graded cell: its assert ran, and failed."""
    notebook = nbformat.read(
        graded["course"] / "autograded" / DAN / ASSIGNMENT / NOTEBOOK, as_version=4
    )
    tests = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade")]
    tests = [c for c in tests if not c.metadata["nbgrader"].get("solution")]
    assert len(tests) >= 4
    for cell in tests:
        names = [o.get("ename") for o in cell.outputs if o.output_type == "error"]
        assert names[0] == "Tampering" and "AssertionError" in names, names


def test_the_tampering_is_flagged_for_the_instructor(graded):
    grading = load("grading")
    course = graded["course"]
    submitted = grading.tampering(course / "submitted" / CY / ASSIGNMENT / NOTEBOOK)
    assert any(line.startswith("file: exercises") for line in submitted) and any(
        "checks.check_compact = lambda" in line for line in submitted
    )
    assert grading.tampering(course / "submitted" / ADA / ASSIGNMENT / NOTEBOOK) == []
    assert flagged(graded, ADA) == [] and flagged(graded, BOB) == []
    assert "Scored 0, the grading machinery was tampered with" in graded["autograde"]


# ---- collect takes only what each student made ---------------------------------------------------------


def test_linked_submissions_are_refused_and_the_earlier_ones_collected(graded):
    assert graded["stock_collected"] == {DAN: graded["solution"], EVE: graded["solution"]}, (
        "the control failed: nbgrader's own collect should take the linked solution"
    )
    collect = graded["collect"]
    assert f"{NOTEBOOK}: a symbolic link" in collect and f"Refused {DAN}+" in collect, collect
    assert f"{NOTEBOOK}: a hard link to a file of {INSTRUCTOR}" in collect, collect
    assert f"Refused {EVE}+" in collect
    course = graded["course"]
    for name in (DAN, EVE):
        collected = (course / "submitted" / name / ASSIGNMENT / NOTEBOOK).read_bytes()
        assert collected != graded["solution"]


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
    assert len(texts) == len(STUDENTS), "each student's fetched notebook should be scanned"
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
