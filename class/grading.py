"""Grading the class's exercises so that it cannot be gamed: nbgrader plug-ins the course config loads.

class/nbgrader_assignments.py copies this file into the course (COURSE/grader/grading.py, beside the
instructor's own copy of the checks in COURSE/grader/checks) and its nbgrader_config.py installs:

- `UseGraderChecks`, a step of `nbgrader autograde` run after nbgrader has put back the locked test cells
  from its gradebook: each graded cell `assert checks.check_x(answer), ...` is rewritten to load the
  checks afresh, by path, from COURSE/grader/checks, under a private module name, and to call the check
  from there. So a student who writes `checks.check_compact = lambda *a, **k: True` in an answer cell,
  swaps `sys.modules["checks"]`, or submits an edited checks/ folder beside the notebook, is graded by
  the instructor's check anyway; so is one who submits an `exercises/checks/` folder of their own beside
  the notebook (it would be imported instead of the installed checks). The student never sees the
  rewritten cell (only the instructor's autograded copy has it).
- `OwnerCheckedCollect`, nbgrader's own collect step, except that a submission whose folder in the
  exchange is not owned by the Unix account it names (`nbgrader submit --student ada` run by bob, or
  USER=ada) is refused and logged, so each student's grade comes from their own latest submission.
  nbgrader itself only warns about such a submission and collects it.

Left out, and what to know: nbgrader runs a student's code in the grading kernel, as the account that
runs `nbgrader autograde`. Code that patches Python itself or the harness (not the checks) can still
fool a check, and can read what that account can read: grade as the instructor's own account (not
root), read the flagged submissions (`tampering(...)` below lists the answer cells that touch checks,
sys.modules, builtins or importlib, and files that shadow the workbook), and keep the course folder 0700.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import re
from collections import defaultdict
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import Unicode

PRIVATE_NAME = "_context_desk_grader_checks"
CHECK_CALL = re.compile(r"\bchecks\.(check_\w+)\(")
LOADER = """# Graded with the instructor's own checks (loaded afresh from the grader's folder, not the student's).
def _context_desk_grader_checks(path={path!r}, name={name!r}):
    import importlib.util, os, sys
    here = os.path.realpath(os.getcwd())
    # Modules the submission's own files provided (an exercises/ or harness/ folder beside the notebook) go:
    # the checks import the installed workbook, never the submission's.
    for key, module in list(sys.modules.items()):
        origin = os.path.realpath(getattr(module, "__file__", None) or "/")
        if key == name or key.startswith(name + ".") or origin.startswith(here + os.sep):
            del sys.modules[key]
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if p not in ("", ".") and os.path.realpath(p) != here]
    try:
        spec = importlib.util.spec_from_file_location(name, path + "/__init__.py",
                                                      submodule_search_locations=[path])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module
_grader_checks = _context_desk_grader_checks()
"""


class UseGraderChecks(NbGraderPreprocessor):
    """Points every graded cell's `checks.check_x(...)` at the instructor's copy of the checks."""

    grader_checks = Unicode("", help="the folder of the instructor's checks package").tag(
        config=True
    )

    def preprocess(self, nb, resources):
        if not self.grader_checks or not (Path(self.grader_checks) / "__init__.py").is_file():
            raise ValueError(
                f"UseGraderChecks.grader_checks = {self.grader_checks!r}: no checks package there; "
                "rebuild the course with class/nbgrader_assignments.py"
            )
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader", {})
        if (
            cell.cell_type == "code"
            and meta.get("grade")
            and not meta.get("solution")
            and CHECK_CALL.search(cell.source)
        ):
            cell.source = LOADER.format(
                path=self.grader_checks, name=PRIVATE_NAME
            ) + CHECK_CALL.sub(r"_grader_checks.\1(", cell.source)
        return cell, resources


class OwnerCheckedCollect(ExchangeCollect):
    """nbgrader's collect, taking only submissions whose folder belongs to the student they name."""

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not os.access(self.inbound_path, os.R_OK | os.X_OK):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        student_id = self.coursedir.student_id if self.coursedir.student_id else "*"
        pattern = os.path.join(self.inbound_path, f"{student_id}+{self.coursedir.assignment_id}+*")
        by_student = defaultdict(list)
        for path in glob.glob(pattern):
            record = self._path_to_record(path)
            owner = owner_name(path)
            if owner != record["username"]:
                self.log.warning(
                    "Refused %s: it says it is %s's, but the account %s submitted it",
                    record["filename"],
                    record["username"],
                    owner,
                )
                continue
            by_student[record["username"]].append(record)
        from nbgrader.api import Gradebook, MissingEntry

        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gradebook:
            try:
                self.duedate = gradebook.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                self.duedate = None
        self.src_records = []
        for records in by_student.values():
            records = sorted(records, key=lambda r: r["timestamp"], reverse=True)
            if self.duedate is not None and self.before_duedate:
                on_time = [r for r in records if r["timestamp"] <= self.duedate]
                records = on_time or records
            self.src_records.append(records[0])


def owner_name(path: str) -> str:
    try:
        return pwd.getpwuid(os.stat(path).st_uid).pw_name
    except KeyError:
        return f"uid {os.stat(path).st_uid}"


SUSPICIOUS = re.compile(
    r"\bchecks\s*\.\s*\w+\s*=|setattr\(\s*checks|sys\.modules|\bbuiltins\b|__builtins__|"
    r"\bimportlib\b|_grader_checks"
)


SHADOWING = ("exercises", "harness", "stage", "checks")


def tampering(notebook_path: Path) -> list[str]:
    """What in a submission touches the grading machinery, for the instructor to read: answer cells that
    assign to checks or reach into sys.modules, builtins or importlib, and files beside the notebook that
    would be imported instead of the installed workbook (an `exercises/` folder, a `harness.py`, ...)."""
    notebook = json.loads(Path(notebook_path).read_text())
    flagged = [
        f"file: {path.name}"
        for path in sorted(Path(notebook_path).parent.iterdir())
        if path.stem in SHADOWING and (path.is_dir() or path.suffix == ".py")
    ]
    for cell in notebook.get("cells", []):
        source = "".join(cell.get("source", ""))
        if (
            cell.get("cell_type") == "code"
            and cell.get("metadata", {}).get("nbgrader", {}).get("solution")
            and SUSPICIOUS.search(source)
        ):
            flagged.append(source)
    return flagged


def configure(c, course: Path) -> None:
    """What the course's nbgrader_config.py calls: the two plug-ins above, pointed at this course."""
    from nbgrader.converters.autograde import Autograde

    c.UseGraderChecks.grader_checks = str(Path(course) / "grader" / "checks")
    c.Autograde.sanitize_preprocessors = list(
        Autograde.class_traits()["sanitize_preprocessors"].default()
    ) + [UseGraderChecks]
    c.ExchangeFactory.collect = OwnerCheckedCollect
