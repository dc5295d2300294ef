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
- nothing in `exercises/checks/`: the checks judge by properties and by cases with expected outcomes, so
  they hold no answer. The build refuses checks that hold a `reference_*` function or an `INSTRUCTOR_ONLY`
  list (code a student could read an answer from). nbgrader still grades with the instructor's copy of
  the checks (class/nbgrader_assignments.py), so a student who rewrites a check in their kernel gains nothing.

Left out: the lesson notebooks are copied as they are (their build cells show the finished piece behind a
reveal, for self-study, as the lessons are written); the harness's own reference pieces stay (the
lessons import them).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path


from exercises import instructor_only

REPO = Path(__file__).resolve().parent.parent
LEFT_OUT = ("exercises/solutions/", "tests/", ".ci/")
CHECKS = "exercises/checks"
BRANCH = "student"
KEEP_IN_DEST = {
    ".git",
    ".venv",
    "node_modules",
    "server-files",
    "build",
}  # made on the server, not here


def instructor_only_names(tree: ast.Module) -> list[str]:
    """`reference_*` functions and the names in INSTRUCTOR_ONLY of one checks module."""
    names = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("reference_")
    ]
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "INSTRUCTOR_ONLY" for t in node.targets
        ):
            names += [elt.value for elt in node.value.elts if isinstance(elt, ast.Constant)]
    return list(dict.fromkeys(names))


def tracked_files(repo: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "-z"], check=True, capture_output=True
    ).stdout
    return [name for name in listed.decode().split("\0") if name and (repo / name).is_file()]


def student_checks(repo: Path) -> dict[str, str]:
    """{relative path: text} of exercises/checks/ as students get it: unchanged, once it is known to hold no answer.

    A check that compares with a reference implementation would hand that answer to every student who opens
    it, so the build refuses a checks module with a `reference_*` function or an `INSTRUCTOR_ONLY` list."""
    files, found = {}, []
    for path in sorted((repo / CHECKS).glob("*.py")):
        text = path.read_text()
        found += [
            f"{CHECKS}/{path.name}: {name}" for name in instructor_only_names(ast.parse(text))
        ]
        files[f"{CHECKS}/{path.name}"] = text
    if found:
        raise RuntimeError(
            "the checks hold instructor-only code a student could read ("
            + "; ".join(found)
            + "): judge by properties and expected cases instead, or move it to a file that "
            "exercises/INSTRUCTOR_ONLY lists"
        )
    return files


def source_digest(repo: Path) -> str:
    """A digest of every tracked file's name and content: the build is skipped when it has not changed."""
    digest = hashlib.sha256()
    for name in sorted(tracked_files(repo)):
        digest.update(name.encode() + b"\0" + (repo / name).read_bytes() + b"\0")
    return digest.hexdigest()


def build(dest: Path, repo: Path = REPO, force: bool = False) -> dict:
    """Write the student copy into dest and commit it on branch `student`; what was left out.

    When dest was built from exactly these files before (`.git/student-build-source`), nothing is done
    unless force is set."""
    dest = dest.resolve()
    if (
        dest == repo.resolve()
        or repo.resolve() in dest.parents
        and not str(dest).startswith(str(repo / "build"))
    ):
        raise ValueError(
            f"{dest}: build the student copy outside the instructor's clone (or under its build/)"
        )
    digest = source_digest(repo)
    stamp = dest / ".git" / "student-build-source"
    if not force and stamp.exists() and stamp.read_text().startswith(digest + "\n"):
        previous = json.loads(stamp.read_text().split("\n", 1)[1])
        return dict(previous, dest=dest, skipped=True)
    checks = student_checks(repo)
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
    files[".gitignore"] = (
        "\n".join(sorted(KEEP_IN_DEST - {".git"})) + "\n*.egg-info/\n__pycache__/\n"
    ).encode() + ((repo / ".gitignore").read_bytes() if (repo / ".gitignore").exists() else b"")
    # Only what changed is written, so the server's venv (made from these files by make) stays up to date.
    for old in sorted(built_files(dest), reverse=True):
        if old not in files:
            (dest / old).unlink()
    for name, data in files.items():
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
        os.chmod(
            target, 0o755 if (repo / name).exists() and os.access(repo / name, os.X_OK) else 0o644
        )
    for folder in sorted({(dest / name).parent for name in files} | {dest}, reverse=True):
        while folder != dest.parent and folder.is_relative_to(dest):
            os.chmod(folder, 0o755)
            folder = folder.parent
    for folder in sorted(
        (
            p
            for p in dest.rglob("*")
            if p.is_dir() and not (set(p.relative_to(dest).parts) & KEEP_IN_DEST)
        ),
        reverse=True,
    ):
        if not any(folder.iterdir()):
            folder.rmdir()
    commit = commit_student_branch(dest, source_commit(repo))
    result = {"commit": commit, "left_out": left_out, "files": len(files)}
    stamp.write_text(digest + "\n" + json.dumps(result))
    return dict(result, dest=dest, skipped=False)


def built_files(dest: Path) -> list[str]:
    """The files a previous build left in dest (relative paths), not what the server made there itself."""
    found = []
    for path in dest.rglob("*"):
        relative = path.relative_to(dest)
        if (
            set(relative.parts) & KEEP_IN_DEST
            or "__pycache__" in relative.parts
            or relative.parts[0].endswith(".egg-info")
            or not path.is_file()
        ):
            continue
        found.append(str(relative))
    return found


def source_commit(repo: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


def git(dest: Path, *args: str) -> str:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="context-desk student build",
        GIT_AUTHOR_EMAIL="class@localhost",
        GIT_COMMITTER_NAME="context-desk student build",
        GIT_COMMITTER_EMAIL="class@localhost",
    )
    return subprocess.run(
        ["git", "-C", str(dest), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def commit_student_branch(dest: Path, source: str) -> str:
    if not (dest / ".git").exists():
        git(dest, "init", "--quiet", "--initial-branch", BRANCH)
    git(dest, "config", "safe.directory", "*")
    git(dest, "checkout", "--quiet", "-B", BRANCH) if git(
        dest, "branch", "--list", BRANCH
    ) else None
    git(dest, "add", "--all")
    if git(dest, "status", "--porcelain"):
        git(dest, "commit", "--quiet", "-m", f"Student copy of {source}")
    git(
        dest, "update-server-info"
    )  # so it can be cloned over plain HTTP (the hub's workbook service)
    return git(dest, "rev-parse", "HEAD")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "dest", type=Path, help="the student copy's folder (a git repository, branch 'student')"
    )
    parser.add_argument(
        "--force", action="store_true", help="build even if nothing changed since the last build"
    )
    args = parser.parse_args(argv)
    try:
        result = build(args.dest, force=args.force)
    except (ValueError, RuntimeError, subprocess.CalledProcessError) as problem:
        print(f"student_build: {problem}", file=sys.stderr)
        return 1
    print(
        f"Student copy in {result['dest']} (branch {BRANCH}, commit {result['commit'][:10]}), {result['files']} files"
        + (" (unchanged since the last build)." if result["skipped"] else ".")
    )
    print(f"Left out: {len(result['left_out'])} files under {', '.join(LEFT_OUT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
