"""The student copy: the workbook without solutions, tests or reference answers, as a git repository.

    .venv/bin/python class/student_build.py /srv/context-desk      # or: make class-student STUDENT_COPY=...

This is what the class server runs from and what every student's nbgitpuller link clones. It is built
from the files git tracks in this (the instructor's) clone, as they are on disk, into DEST, which becomes
(or stays) a git repository whose branch `student` gets one new commit per build that changed something.
Its history never held a solution: it is not a branch of the instructor's repository. Push it where the
students can read it (`git -C DEST push URL student`), or point nbgitpuller at DEST on the class server.

What the student copy leaves out or changes (and nothing else):
- every file `exercises/INSTRUCTOR_ONLY` lists (the solution notebooks, `tests/` with its corpora of right
  answers, the greenhouse's own CLAUDE.md), `.ci/`, and this instructor's git history;
- in `exercises/checks/`, every function named `reference_*`, and every name a checks module lists in
  `INSTRUCTOR_ONLY = (...)`: its code is replaced by the outcomes it returned while the solution
  notebooks ran their checks (recorded here, into `exercises/checks/recorded.json`). A check on the
  student side then compares with the recorded outcome for the same input, and says plainly when it meets
  an input that was not recorded (a seed other than the check's own). The instructor's copy of the
  checks, which nbgrader grades with (class/nbgrader_assignments.py), keeps the code.

Left out: the lesson notebooks are copied as they are (their build cells show the finished piece behind a
reveal, for self-study, as the lessons are written); the harness's own reference pieces stay (the
lessons import them).
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from exercises import instructor_only

REPO = Path(__file__).resolve().parent.parent
LEFT_OUT = ("exercises/solutions/", "tests/", ".ci/")
CHECKS = "exercises/checks"
RECORDED = "recorded.json"
BRANCH = "student"
KEEP_IN_DEST = {".git", ".venv", "node_modules", "server-files", "build"}   # made on the server, not here

# The lookup the student copy's checks use instead of the instructor-only code. The same text is run in the
# kernels that record, so both sides fingerprint an input the same way.
RECORDED_MODULE = '''"""Recorded outcomes of the checks' instructor-only functions (written by class/student_build.py).

The instructor's copy of the checks computes these; the student copy only knows what they returned for
the inputs the checks use with their own seeds.
"""

import dataclasses
import hashlib
import json
from pathlib import Path

_TABLE = None


def _plain(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if hasattr(value, "__dict__"):
        return vars(value)
    return repr(value)


def fingerprint(args, kwargs) -> str:
    text = json.dumps([list(args), kwargs], sort_keys=True, default=_plain, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def recorded(name, args, kwargs):
    global _TABLE
    if _TABLE is None:
        _TABLE = json.loads((Path(__file__).with_name("recorded.json")).read_text())
    outcomes = _TABLE.get(name, {})
    key = fingerprint(args, kwargs)
    if key not in outcomes:
        raise LookupError(f"{name}: this input was not recorded for the student copy of the checks (they "
                          "know the cases of their own seeds only); run the check with its default seed")
    return outcomes[key]
'''

RECORDER_CELL = '''
import importlib as _il, pkgutil as _pk
from exercises import checks as _checks
_rec_ns = {}
exec(compile(__RECORDED_MODULE__, "recorded.py", "exec"), _rec_ns)
__recorded_calls__ = {}
for _info in _pk.iter_modules(_checks.__path__):
    _mod = _il.import_module(_checks.__name__ + "." + _info.name)
    _names = [n for n in vars(_mod) if n.startswith("reference_")] + list(getattr(_mod, "INSTRUCTOR_ONLY", ()))
    for _name in _names:
        def _wrap(*a, __fn=getattr(_mod, _name), __key=_info.name + "." + _name, **k):
            result = __fn(*a, **k)
            __recorded_calls__.setdefault(__key, {})[_rec_ns["fingerprint"](a, k)] = result
            return result
        setattr(_mod, _name, _wrap)
'''


def instructor_only_names(tree: ast.Module) -> list[str]:
    """`reference_*` functions and the names in INSTRUCTOR_ONLY of one checks module."""
    names = [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("reference_")]
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "INSTRUCTOR_ONLY"
                                                for t in node.targets):
            names += [elt.value for elt in node.value.elts if isinstance(elt, ast.Constant)]
    return list(dict.fromkeys(names))


def without_instructor_code(source: str, module: str) -> tuple[str, list[str]]:
    """The module's text with each instructor-only function replaced by a recorded lookup."""
    tree = ast.parse(source)
    names = instructor_only_names(tree)
    if not names:
        return source, []
    lines = source.split("\n")
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    missing = [name for name in names if name not in functions]
    if missing:
        raise ValueError(f"{module}: INSTRUCTOR_ONLY names {missing}, which are not top-level functions")
    for name in sorted(names, key=lambda n: functions[n].lineno, reverse=True):
        node = functions[name]
        start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
        lines[start:node.end_lineno] = [
            f"def {name}(*args, **kwargs):",
            '    """Instructor-only: the student copy knows only its recorded outcomes (recorded.py)."""',
            f"    return _recorded({module + '.' + name!r}, args, kwargs)"]
    # The import goes after the module docstring and any `from __future__` line.
    body = ast.parse("\n".join(lines)).body
    after = 0
    for node in body:
        is_docstring = isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant)
        if is_docstring or (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            after = node.end_lineno
        else:
            break
    lines.insert(after, "from .recorded import recorded as _recorded")
    return "\n".join(lines), names


def record_outcomes(repo: Path, timeout: float = 300) -> dict:
    """Run every solution notebook with the instructor-only functions wrapped; what they returned, by input."""
    from nbclient import NotebookClient

    solutions = sorted((repo / "exercises" / "solutions").glob("[0-9][0-9]_*.ipynb"))
    if not solutions:
        raise ValueError(f"no solution notebooks in {repo / 'exercises' / 'solutions'}: nothing to record from")
    recorder = RECORDER_CELL.replace("__RECORDED_MODULE__", repr(RECORDED_MODULE))
    outfile = Path(tempfile.mkdtemp(prefix="context-desk-recorded-"))

    async def run(path: Path) -> None:
        book = nbformat.read(path, as_version=4)
        setup = next(i for i, cell in enumerate(book.cells) if cell.cell_type == "code" and "import checks" in cell.source)
        book.cells.insert(setup + 1, nbformat.v4.new_code_cell(recorder))
        book.cells.append(nbformat.v4.new_code_cell(
            f"import json as _j\nopen({str(outfile / (path.stem + '.json'))!r}, 'w').write("
            "_j.dumps(__recorded_calls__, default=list))"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_") and k != "CONTEXT_DESK_MODEL"}
        client = NotebookClient(book, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}})
        await client.async_execute(env=env)

    async def run_all():
        return await asyncio.gather(*(run(p) for p in solutions), return_exceptions=True)

    failures = [(p.name, e) for p, e in zip(solutions, asyncio.run(run_all())) if e is not None]
    if failures:
        raise RuntimeError(f"recording the checks' outcomes: {failures[0][0]} failed: {failures[0][1]}")
    table: dict[str, dict] = {}
    for part in sorted(outfile.glob("*.json")):
        for name, outcomes in json.loads(part.read_text()).items():
            table.setdefault(name, {}).update(outcomes)
    shutil.rmtree(outfile, ignore_errors=True)
    return table


def tracked_files(repo: Path) -> list[str]:
    listed = subprocess.run(["git", "-C", str(repo), "ls-files", "-z"], check=True, capture_output=True).stdout
    return [name for name in listed.decode().split("\0") if name and (repo / name).is_file()]


def student_checks(repo: Path, table: dict | None = None) -> dict[str, str]:
    """{relative path: text} of the student's exercises/checks/, recorded.py and recorded.json included."""
    folder = repo / CHECKS
    files, replaced = {}, []
    for path in sorted(folder.glob("*.py")):
        text, names = without_instructor_code(path.read_text(), path.stem)
        files[f"{CHECKS}/{path.name}"] = text
        replaced += [f"{path.stem}.{name}" for name in names]
    if table is None:           # running every solution notebook is slow: only when something must be recorded
        table = record_outcomes(repo) if replaced else {}
    unrecorded = [name for name in replaced if name not in table]
    if unrecorded:
        raise RuntimeError(f"no solution notebook ran {unrecorded}: the student copy could not check with them")
    files[f"{CHECKS}/recorded.py"] = RECORDED_MODULE
    files[f"{CHECKS}/{RECORDED}"] = json.dumps({name: table[name] for name in replaced}, sort_keys=True) + "\n"
    return files


def source_digest(repo: Path) -> str:
    """A digest of every tracked file's name and content: the build is skipped when it has not changed."""
    digest = hashlib.sha256()
    for name in sorted(tracked_files(repo)):
        digest.update(name.encode() + b"\0" + (repo / name).read_bytes() + b"\0")
    return digest.hexdigest()


def build(dest: Path, repo: Path = REPO, table: dict | None = None, force: bool = False) -> dict:
    """Write the student copy into dest and commit it on branch `student`; what was left out and replaced.

    When dest was built from exactly these files before (`.git/student-build-source`), nothing is done
    unless force is set (recording the checks' outcomes runs every solution notebook)."""
    dest = dest.resolve()
    if dest == repo.resolve() or repo.resolve() in dest.parents and not str(dest).startswith(str(repo / "build")):
        raise ValueError(f"{dest}: build the student copy outside the instructor's clone (or under its build/)")
    digest = source_digest(repo)
    stamp = dest / ".git" / "student-build-source"
    if not force and stamp.exists() and stamp.read_text().startswith(digest + "\n"):
        previous = json.loads(stamp.read_text().split("\n", 1)[1])
        return dict(previous, dest=dest, skipped=True)
    checks = student_checks(repo, table)
    files = {}
    left_out = []
    manifest = instructor_only.patterns()
    for name in tracked_files(repo):
        if name.startswith(LEFT_OUT) or instructor_only.is_instructor_only(name, manifest):
            left_out.append(name)
        elif not name.startswith(CHECKS + "/"):
            files[name] = (repo / name).read_bytes()
    files.update({name: text.encode() for name, text in checks.items()})

    dest.mkdir(parents=True, exist_ok=True)
    files[".gitignore"] = ("\n".join(sorted(KEEP_IN_DEST - {".git"})) + "\n*.egg-info/\n__pycache__/\n").encode() \
        + ((repo / ".gitignore").read_bytes() if (repo / ".gitignore").exists() else b"")
    # Only what changed is written, so the server's venv (made from these files by make) stays up to date.
    for old in sorted(built_files(dest), reverse=True):
        if old not in files:
            (dest / old).unlink()
    for name, data in files.items():
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
        os.chmod(target, 0o755 if (repo / name).exists() and os.access(repo / name, os.X_OK) else 0o644)
    for folder in sorted({(dest / name).parent for name in files} | {dest}, reverse=True):
        while folder != dest.parent and folder.is_relative_to(dest):
            os.chmod(folder, 0o755)
            folder = folder.parent
    for folder in sorted((p for p in dest.rglob("*") if p.is_dir() and not (set(p.relative_to(dest).parts)
                                                                               & KEEP_IN_DEST)), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()
    commit = commit_student_branch(dest, source_commit(repo))
    replaced = sorted(json.loads(checks[f"{CHECKS}/{RECORDED}"]))
    result = {"commit": commit, "left_out": left_out, "replaced": replaced, "files": len(files)}
    stamp.write_text(digest + "\n" + json.dumps(result))
    return dict(result, dest=dest, skipped=False)


def built_files(dest: Path) -> list[str]:
    """The files a previous build left in dest (relative paths), not what the server made there itself."""
    found = []
    for path in dest.rglob("*"):
        relative = path.relative_to(dest)
        if set(relative.parts) & KEEP_IN_DEST or "__pycache__" in relative.parts or relative.parts[0].endswith(
                ".egg-info") or not path.is_file():
            continue
        found.append(str(relative))
    return found


def source_commit(repo: Path) -> str:
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def git(dest: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="context-desk student build", GIT_AUTHOR_EMAIL="class@localhost",
               GIT_COMMITTER_NAME="context-desk student build", GIT_COMMITTER_EMAIL="class@localhost")
    return subprocess.run(["git", "-C", str(dest), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def commit_student_branch(dest: Path, source: str) -> str:
    if not (dest / ".git").exists():
        git(dest, "init", "--quiet", "--initial-branch", BRANCH)
    git(dest, "config", "safe.directory", "*")
    git(dest, "checkout", "--quiet", "-B", BRANCH) if git(dest, "branch", "--list", BRANCH) else None
    git(dest, "add", "--all")
    if git(dest, "status", "--porcelain"):
        git(dest, "commit", "--quiet", "-m", f"Student copy of {source}")
    git(dest, "update-server-info")          # so it can be cloned over plain HTTP (the hub's workbook service)
    return git(dest, "rev-parse", "HEAD")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="the student copy's folder (a git repository, branch 'student')")
    parser.add_argument("--force", action="store_true", help="build even if nothing changed since the last build")
    args = parser.parse_args(argv)
    try:
        result = build(args.dest, force=args.force)
    except (ValueError, RuntimeError, subprocess.CalledProcessError) as problem:
        print(f"student_build: {problem}", file=sys.stderr)
        return 1
    print(f"Student copy in {result['dest']} (branch {BRANCH}, commit {result['commit'][:10]}), {result['files']} files"
          + (" (unchanged since the last build)." if result["skipped"] else "."))
    print(f"Left out: {len(result['left_out'])} files under {', '.join(LEFT_OUT)}")
    print(f"Replaced by recorded outcomes: {', '.join(result['replaced']) or 'nothing'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
