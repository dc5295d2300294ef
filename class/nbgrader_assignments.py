"""Build nbgrader's course from the one source of the exercises, the solution notebooks (instructor's clone).

    .venv/bin/python class/nbgrader_assignments.py COURSE_DIR --owner grace     # as root; then, as grace:
    cd COURSE_DIR && nbgrader generate_assignment '*'                            # release/ gets the student copies

For each exercises/solutions/NN_name.ipynb this writes COURSE_DIR/source/NN_name/NN_name.ipynb and, once
for the course, COURSE_DIR/grader/ (the instructor's own checks, class/grading.py and the guard it runs
in the grading kernel, class/grading_guard.py) and an
nbgrader_config.py that grades with them. The notebooks import the checks installed with the workbook
(`from exercises import checks`): on the class server that is the student copy's (class/student_build.py,
checks that hold no answer); the grader's copy is used only by autograde.

* a code cell with `### BEGIN SOLUTION` / `### END SOLUTION` (the markers nbgrader itself reads) becomes
  an nbgrader solution cell. Where the answer is a top-level value (`MY_PROMPT = "..."`), a line
  `MY_PROMPT = None  # your answer` goes above the block, so the check cell below never meets a NameError.
* a check cell, `checks.check_x(answer);`, becomes a locked, autograded test cell worth one point:
  `assert checks.check_x(answer), ...`. In class it calls the student's copy of the check, with the
  same message; at `nbgrader autograde`, class/grading.py points it at COURSE_DIR/grader/checks, so a
  student who redefines or edits a check gains nothing.
* `--owner NAME` gives the course to that (instructor's) account, mode 0700: students cannot read it.
* `--exchange DIR` sets nbgrader's exchange (the hub's CLASS_EXCHANGE, /srv/nbgrader/exchange by default).

Nothing in exercises/ is changed. Left out: hidden tests (the checks already run on fresh scenarios) and
manually graded cells.
"""

import argparse
import ast
import os
import pwd
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SOLUTIONS = REPO / "exercises" / "solutions"
CHECKS = REPO / "exercises" / "checks"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
# A check cell: the call, perhaps after the import that lets it run alone (exercises/checks/in_notebook.py).
CHECK_CELL = re.compile(
    r"^(?:from exercises import checks[^\n]*\n)?checks\.(check_\w+)\((.*)\);?$", re.DOTALL
)
STUB = 'raise NotImplementedError("Your code here")'
SCHEMA = 3


def grading_cell(
    cell, grade_id: str, *, solution=False, grade=False, points=0, locked=False
) -> None:
    cell.metadata["nbgrader"] = {
        "schema_version": SCHEMA,
        "grade_id": grade_id,
        "solution": solution,
        "grade": grade,
        "locked": locked,
        "task": False,
    }
    if grade:
        cell.metadata["nbgrader"]["points"] = points


def top_level_names(source: str) -> list[str]:
    """Names assigned by the top-level solution blocks of a cell, in order.

    Example: '### BEGIN SOLUTION\\nMY_PROMPT = "..."\\n### END SOLUTION' -> ['MY_PROMPT']
    """
    names, block = [], None
    for line in source.split("\n"):
        if line == BEGIN:
            block = []
        elif line == END and block is not None:
            for node in ast.parse("\n".join(block)).body:
                targets = (
                    node.targets
                    if isinstance(node, ast.Assign)
                    else [node.target]
                    if isinstance(node, ast.AnnAssign)
                    else []
                )
                names += [t.id for t in targets if isinstance(t, ast.Name) and t.id not in names]
            block = None
        elif block is not None:
            block.append(line)
    return names


def with_placeholders(source: str) -> str:
    """Put `NAME = None  # your answer` above each top-level block, so the stub leaves NAME defined."""
    out, placed = [], False
    for line in source.split("\n"):
        if line == BEGIN and not placed:
            out += [f"{name} = None  # your answer" for name in top_level_names(source)]
            placed = True
        out.append(line)
    return "\n".join(out)


def to_assignment(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The solution notebook with nbgrader's metadata: solution cells and autograded check cells."""
    notebook = nbformat.from_dict(notebook)
    answers = tests = 0
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            # Prose that names the markers would read to nbgrader as a solution region: a no-break
            # space keeps the words, and nbgrader's line scan passes them by.
            cell.source = cell.source.replace(
                BEGIN, BEGIN.replace(" SOLUTION", "\u00a0SOLUTION")
            ).replace(END, END.replace(" SOLUTION", "\u00a0SOLUTION"))
        if cell.cell_type != "code":
            continue
        check = CHECK_CELL.match(cell.source.strip())
        if BEGIN in cell.source:
            answers += 1
            cell.source = with_placeholders(cell.source)
            grading_cell(cell, f"answer-{answers}", solution=True)
        elif check:
            tests += 1
            name, arguments = check.groups()
            cell.source = (
                "from exercises import checks\n"
                f"# Graded: the same check as in class. It printed what went wrong above, if anything.\n"
                f'assert checks.{name}({arguments}), "{name} did not pass: see its message above"'
            )
            grading_cell(cell, f"{name}-{tests}", grade=True, points=1, locked=True)
        cell.outputs, cell.execution_count = [], None
    if not tests:
        raise ValueError("no check cells (checks.check_...(...);) found: nothing to grade")
    return notebook


def course_config(course: Path, exchange: str | None) -> str:
    return (
        "# Made by class/nbgrader_assignments.py: one course per class.\n"
        "import importlib.util\n"
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        "c.CourseDirectory.course_id = 'context-desk'\n"
        f"c.ClearSolutions.code_stub = {{'python': {STUB!r}}}\n"
        "c.ClearSolutions.enforce_metadata = True\n"
        # The checks run small agent sessions on fresh scenarios: a few seconds a cell, not nbgrader's 30.
        "c.ExecutePreprocessor.timeout = 300\n"
        + (f"c.Exchange.root = {exchange!r}\n" if exchange else "")
        + "# Grade with the instructor's checks (grader/checks), collect only submissions their owner made.\n"
        f"_spec = importlib.util.spec_from_file_location('context_desk_grading', {str(course / 'grader' / 'grading.py')!r})\n"
        "_grading = importlib.util.module_from_spec(_spec)\n"
        "_spec.loader.exec_module(_grading)\n"
        f"_grading.configure(c, {str(course)!r})\n"
    )


def build(
    course: Path,
    lessons: list[str] | None = None,
    exchange: str | None = None,
    owner: str | None = None,
) -> list[str]:
    """Write the course (source assignments, grader/, nbgrader_config.py); the names of the assignments."""
    course = course.resolve()
    names = []
    for solution in sorted(SOLUTIONS.glob("*.ipynb")):
        name = solution.stem
        if lessons and not any(name.startswith(lesson) for lesson in lessons):
            continue
        folder = course / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(to_assignment(nbformat.read(solution, as_version=4)), folder / solution.name)
        shutil.rmtree(
            folder / "checks", ignore_errors=True
        )  # the notebooks import the installed checks
        names.append(name)
    grader = course / "grader"
    shutil.rmtree(grader / "checks", ignore_errors=True)
    shutil.copytree(CHECKS, grader / "checks", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(HERE / "grading.py", grader / "grading.py")
    shutil.copy(HERE / "grading_guard.py", grader / "grading_guard.py")
    (course / "nbgrader_config.py").write_text(course_config(course, exchange))
    if owner:
        give_to(course, owner)
    return names


def give_to(course: Path, owner: str) -> None:
    """The course belongs to the instructor's account, and only they may open it."""
    try:
        account = pwd.getpwnam(owner)
    except KeyError:
        raise ValueError(
            f"--owner {owner}: no such account (add the instructor with class/roster.py first)"
        )
    subprocess.run(["chown", "-R", f"{account.pw_uid}:{account.pw_gid}", str(course)], check=True)
    os.chmod(course, 0o700)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "course", type=Path, help="the nbgrader course folder to write (e.g. /home/grace/course)"
    )
    parser.add_argument("lessons", nargs="*", help="only these exercises, by prefix (e.g. 03)")
    parser.add_argument("--exchange", help="nbgrader's exchange folder (the hub's CLASS_EXCHANGE)")
    parser.add_argument(
        "--owner", help="the instructor's account that will own the course (run as root)"
    )
    args = parser.parse_args()
    try:
        names = build(args.course, args.lessons, exchange=args.exchange, owner=args.owner)
    except (ValueError, RuntimeError, subprocess.CalledProcessError) as problem:
        print(f"nbgrader_assignments: {problem}", file=sys.stderr)
        return 1
    print(f"{len(names)} source assignments in {args.course / 'source'}: {', '.join(names)}")
    print(
        f"next, as {args.owner or 'the instructor'}: cd {args.course} && nbgrader generate_assignment '*'"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
