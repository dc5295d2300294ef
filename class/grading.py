"""Grading the class's exercises so that it cannot be gamed: nbgrader plug-ins the course config loads.

class/nbgrader_assignments.py copies this file into the course (COURSE/grader/grading.py, beside
grading_guard.py and the instructor's own copy of the checks in COURSE/grader/checks) and its
nbgrader_config.py installs:

- `UseGraderChecks`, a step of `nbgrader autograde` run after nbgrader has put back the locked test cells
  from its gradebook: each graded cell `assert checks.check_x(answer), ...` is rewritten to load the
  checks afresh, by path, from COURSE/grader/checks, under a private module name, and to call the check
  from there. So a student who writes `checks.check_compact = lambda *a, **k: True` in an answer cell,
  swaps `sys.modules["checks"]`, or submits an edited checks/ folder beside the notebook, is graded by
  the instructor's check anyway. The student never sees the rewritten cell.
- `GuardedExecute`, nbgrader's own Execute step with a guard around the graded cells
  (class/grading_guard.py, run in the grading kernel): before and after each graded cell it puts back
  IPython's input and AST transformers, the import system (meta path, path hooks, importlib's loaders),
  builtins and the kernel's own methods, and records what the answers had changed. A submission with
  any such change, or whose cells reach for the grading machinery by name (`tampering`, below), scores
  0: every graded cell gets an error that says why, and the reasons are kept in the graded notebook.
- `OwnerCheckedCollect`, nbgrader's own collect step, taking from the exchange only what the student
  made: a submission whose folder is not owned by the account it names (`nbgrader submit --student ada`
  run by bob), or that holds a symbolic link, a hard link to or a file of another account, or a special
  file, is refused and reported, and the student's latest submission without any of that is used. The
  copy itself never follows a link and checks each file again as it opens it. nbgrader itself only warns
  about the first, and its copy follows links, as the instructor: a link to the instructor's solution
  would be collected as the student's work.

Left out, and what to know: nbgrader runs a student's code in the grading kernel, as the account that
runs `nbgrader autograde`. The guard runs in that same process, so a student who goes after the guard
itself can still defeat it (grading_guard.py says how far it goes), and the code can read what that
account can read: grade as the instructor's own account (not root), keep the course folder 0700, and
read what `tampering` reports.
"""

from __future__ import annotations

import ast
import fnmatch
import glob
import importlib.util
import json
import os
import pwd
import re
import secrets
import shutil
import stat
from collections import defaultdict
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.preprocessors import Execute
from nbgrader.preprocessors.base import NbGraderPreprocessor
from nbformat import NotebookNode
from traitlets import Bool, Unicode

HERE = Path(__file__).resolve().parent

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


def is_graded_test(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and meta.get("grade") and not meta.get("solution")


def workbook_folder() -> str:
    """Where the workbook (harness, stage, exercises) is installed for nbgrader's own Python."""
    spec = importlib.util.find_spec("harness")
    if spec is None or not spec.origin:
        raise ValueError(
            "GuardedExecute: the workbook (harness) is not installed in nbgrader's environment; "
            "run nbgrader from the class venv"
        )
    return str(Path(spec.origin).resolve().parent.parent)


class GuardedExecute(Execute):
    """nbgrader's Execute, with class/grading_guard.py around every graded cell; 0 when it finds anything."""

    guard = Bool(
        True, help="put back and report what the answers changed (off: plain Execute)"
    ).tag(config=True)
    grader_checks = Unicode("", help="the folder of the instructor's checks package").tag(
        config=True
    )

    def preprocess(self, nb, resources=None, km=None):
        self.found: dict[str, None] = {}  # what flags this submission, in the order it was found
        self.installed = False
        self.nonce = secrets.token_hex(16)
        if self.guard:
            folder = Path((resources or {}).get("metadata", {}).get("path") or ".")
            self.found.update(dict.fromkeys(static_findings(nb, folder)))
        nb, resources = super().preprocess(nb, resources, km)
        if self.guard and self.found:
            reasons = list(self.found)
            self.log.warning(
                "Scored 0, the grading machinery was tampered with: %s", "; ".join(reasons)
            )
            nb.metadata["context_desk"] = {"tampering": reasons}
            for cell in nb.cells:
                if is_graded_test(cell):  # the reason first; what the check said stays below it
                    cell.outputs.insert(
                        0,
                        NotebookNode(
                            output_type="error",
                            ename="Tampering",
                            evalue="not graded: " + "; ".join(reasons),
                            traceback=[
                                "Not graded (0 points): the submission changed how it is graded:"
                            ]
                            + [f"- {reason}" for reason in reasons],
                        ),
                    )
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        if not self.guard:
            return super().preprocess_cell(cell, resources, index)
        if not self.installed:  # before the notebook's first cell: nothing of the student's has run
            trusted = [workbook_folder()] + ([self.grader_checks] if self.grader_checks else [])
            source = (HERE / "grading_guard.py").read_text()
            answer = self.ask(source, f"_context_desk_install({self.nonce!r}, {trusted!r})")
            if answer != "installed":
                raise RuntimeError(
                    f"GuardedExecute: the guard did not start in the kernel ({answer})"
                )
            self.installed = True
        graded = is_graded_test(cell)
        if graded:
            self.check(f"before cell {index}")
        cell, resources = super().preprocess_cell(cell, resources, index)
        if graded or index == len(self.nb.cells) - 1:
            self.check(f"after cell {index}")
        return cell, resources

    def ask(self, code: str, expression: str):
        """Run `code` (silently), then evaluate `expression` with no input transformer in the way."""
        try:
            msg_id = self.kc.execute(
                code, silent=True, store_history=False, user_expressions={"answer": expression}
            )
            reply = self.wait_for_reply(msg_id)
        except Exception:  # noqa: BLE001 -- a dead or stuck kernel: the guard did not answer
            return None
        answer = (reply or {}).get("content", {}).get("user_expressions", {}).get("answer", {})
        if answer.get("status") != "ok":
            return None
        try:
            return ast.literal_eval(answer["data"]["text/plain"])
        except (KeyError, ValueError, SyntaxError):
            return None

    def check(self, when: str) -> None:
        """Call the guard in the kernel: it puts things back and says what it put back."""
        try:
            report = json.loads(self.ask("", "_context_desk_guard()"))
            honest = report["nonce"] == self.nonce  # a stand-in guard would not know it
        except (TypeError, ValueError, KeyError):
            honest = False
        if not honest:
            reason = f"the grader's guard did not answer {when}: the answers removed or replaced it"
            self.found[reason] = None
            return
        self.found.update(dict.fromkeys(report["found"]))


class OwnerCheckedCollect(ExchangeCollect):
    """nbgrader's collect, taking only what each student made: their own folder, with nothing in it that
    is a link, a special file, or another account's; copied without following anything."""

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
        self.refused = []
        for path in glob.glob(pattern):
            record = self._path_to_record(path)
            problems = submission_problems(path, record["username"], self.max_bytes())
            if problems:
                self.refuse(record, problems)
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

    def max_bytes(self) -> int:
        return int(1000 * self.coursedir.max_dir_size) if self.coursedir.max_dir_size else 0

    def refuse(self, record, problems: list[str]) -> None:
        self.refused.append((record["filename"], problems))
        self.log.warning("Refused %s: %s", record["filename"], "; ".join(problems))

    def do_copy(self, src, dest, log=None):
        """Copy a submission as its student made it, following no link (see `copy_submission`)."""
        student = os.path.basename(src).split("+")[0]
        try:
            copy_submission(
                src,
                dest,
                student,
                exclude=self.coursedir.ignore,
                include=self.coursedir.include,
                max_file_bytes=int(1000 * self.coursedir.max_file_size)
                if self.coursedir.max_file_size
                else 0,
            )
        except SubmissionRefused as problem:
            shutil.rmtree(dest, ignore_errors=True)
            self.refuse({"filename": os.path.basename(src)}, [str(problem)])

    def copy_files(self):
        super().copy_files()
        if self.refused:
            self.log.warning(
                "Collect refused %d submission(s), listed above; the students' latest other "
                "submissions were collected instead, if they had any",
                len(self.refused),
            )


class SubmissionRefused(Exception):
    """A submission holds something its student did not make; the message says what."""


def account_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def what_it_is(info: os.stat_result, owner_uid: int) -> str | None:
    """Why an entry does not belong in a submission by `owner_uid`, or None if it does."""
    if stat.S_ISLNK(info.st_mode):
        return "a symbolic link"
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        return "a special file (a pipe, socket or device)"
    if info.st_uid != owner_uid:
        made_by = account_name(info.st_uid)
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            return f"a hard link to a file of {made_by}"
        return f"made by {made_by}, not by the student"
    return None


def submission_problems(folder: str, student: str, max_bytes: int = 0) -> list[str]:
    """What in a submission folder its student did not make, walking it without following links.

    Example: inbound/ada+03+TS+x/ holding 03.ipynb -> /home/grace/course/source/03/03.ipynb
    -> ["03.ipynb: a symbolic link"]"""
    try:
        uid = pwd.getpwnam(student).pw_uid
    except KeyError:
        return [f"no account is named {student}"]
    top = os.lstat(folder)
    if stat.S_ISLNK(top.st_mode) or not stat.S_ISDIR(top.st_mode):
        return ["the submission is not a folder (a link, or a file)"]
    if top.st_uid != uid:
        return [
            f"it says it is {student}'s, but the account {account_name(top.st_uid)} submitted it"
        ]
    problems, total = [], 0
    for root, folders, files, root_fd in os.fwalk(folder, follow_symlinks=False):
        for name in folders + files:
            info = os.stat(name, dir_fd=root_fd, follow_symlinks=False)
            reason = what_it_is(info, uid)
            if reason:
                problems.append(f"{os.path.relpath(os.path.join(root, name), folder)}: {reason}")
            elif stat.S_ISREG(info.st_mode):
                total += info.st_size
    if max_bytes and total > max_bytes:
        problems.append(f"it holds {total} bytes, more than the course allows ({max_bytes})")
    return problems


def copy_submission(src, dest, student, exclude=(), include=(), max_file_bytes=0) -> None:
    """Copy a submission, following no link: each folder is opened by descriptor (os.fwalk), each file
    with O_NOFOLLOW, and the open file is checked again (a regular file of the student's) before a byte
    is read, so a link swapped in after the first look is refused, not followed."""
    uid = pwd.getpwnam(student).pw_uid
    os.makedirs(dest)
    for root, folders, files, root_fd in os.fwalk(src, follow_symlinks=False):
        folders[:] = [f for f in folders if not any(fnmatch.fnmatch(f, g) for g in exclude or ())]
        target = os.path.join(dest, os.path.relpath(root, src))
        os.makedirs(target, exist_ok=True)
        for name in files:
            if any(fnmatch.fnmatch(name, g) for g in exclude or ()):
                continue
            if include and not any(fnmatch.fnmatch(name, g) for g in include):
                continue
            try:
                fd = os.open(
                    name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=root_fd
                )
            except OSError as error:
                raise SubmissionRefused(f"{name}: cannot be opened as a file ({error.strerror})")
            with os.fdopen(fd, "rb") as source:
                reason = what_it_is(os.fstat(fd), uid)
                if reason:
                    raise SubmissionRefused(
                        f"{os.path.relpath(os.path.join(root, name), src)}: {reason}"
                    )
                if max_file_bytes and os.fstat(fd).st_size > max_file_bytes:
                    continue  # nbgrader's own rule: files over max_file_size are left out
                with open(os.path.join(target, name), "xb") as copy:
                    shutil.copyfileobj(source, copy)


# Answer cells that reach for the grading machinery by name: the checks, the import system, IPython's
# transformers and hooks, the guard itself, and the ways to run code that hides where it came from.
SUSPICIOUS = re.compile(
    r"\bchecks\s*\.\s*\w+\s*=|setattr\(\s*checks|sys\.modules|\bbuiltins\b|__builtins__|"
    r"\bimportlib\b|_grader_checks|_context_desk|\bmeta_path\b|\bpath_hooks\b|path_importer_cache|"
    r"input_transformer|ast_transformers|prefilter_manager|\.events\.register|\bsettrace\b|"
    r"\bsetprofile\b|__closure__|__code__|\bgc\.|(?<![\w.])(?:exec|eval|compile)\s*\("
)


SHADOWING = ("exercises", "harness", "stage", "checks")


def static_findings(notebook, folder: Path) -> list[str]:
    """Files beside the notebook that would be imported instead of the installed workbook (an
    `exercises/` folder, a `harness.py`, ...), and answer cells that match SUSPICIOUS, quoted."""
    flagged = []
    if Path(folder).is_dir():
        flagged = [
            f"file: {path.name} (beside the notebook, it would be imported instead of the workbook's)"
            for path in sorted(Path(folder).iterdir())
            if path.stem in SHADOWING and (path.is_dir() or path.suffix == ".py")
        ]
    for cell in notebook.get("cells", []):
        source = "".join(cell.get("source", ""))
        if (
            cell.get("cell_type") == "code"
            and cell.get("metadata", {}).get("nbgrader", {}).get("solution")
            and SUSPICIOUS.search(source)
        ):
            flagged.append(f"an answer cell reaches into the grading machinery: {source}")
    return flagged


def tampering(notebook_path: Path) -> list[str]:
    """Why a submission scores 0, for the instructor to read: in a graded notebook, what the grader
    recorded (the guard's findings and the static ones); in a submitted one, the static findings."""
    notebook = json.loads(Path(notebook_path).read_text())
    recorded = notebook.get("metadata", {}).get("context_desk", {}).get("tampering")
    if recorded is not None:
        return list(recorded)
    return static_findings(notebook, Path(notebook_path).parent)


def configure(c, course: Path) -> None:
    """What the course's nbgrader_config.py calls: the two plug-ins above, pointed at this course."""
    from nbgrader.converters.autograde import Autograde

    c.UseGraderChecks.grader_checks = str(Path(course) / "grader" / "checks")
    c.GuardedExecute.grader_checks = str(Path(course) / "grader" / "checks")
    c.Autograde.sanitize_preprocessors = list(
        Autograde.class_traits()["sanitize_preprocessors"].default()
    ) + [UseGraderChecks]
    c.Autograde.autograde_preprocessors = [
        GuardedExecute if step is Execute else step
        for step in Autograde.class_traits()["autograde_preprocessors"].default()
    ]
    c.ExchangeFactory.collect = OwnerCheckedCollect
