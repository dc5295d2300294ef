"""Which files are the instructor's alone, and which may reach a student.

``exercises/INSTRUCTOR_ONLY`` lists glob patterns, one a line (its header says the format). The student
build gives out every file of the repository that no pattern matches: ``student_files()`` lists them.

    python -m exercises.instructor_only            # print the files a student receives
    python -m exercises.instructor_only --only     # print the instructor-only files instead

Left out: building the copy itself (issue 25's student build does that), and .gitignore-style negation.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MANIFEST = HERE / "INSTRUCTOR_ONLY"
SKIPPED = {".git", ".venv", "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache"}


def patterns(text: str | None = None) -> list[str]:
    """The patterns of the manifest (or of ``text``). Example: 'a/\\n# why\\n\\nb.md' -> ['a/', 'b.md']"""
    text = MANIFEST.read_text(encoding="utf-8") if text is None else text
    return [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


@lru_cache(maxsize=None)
def _regex(pattern: str) -> re.Pattern:
    """A glob as a regular expression over a whole path. Example: 'a/**/b*.py' matches 'a/x/y/bz.py'."""
    pattern = pattern.lstrip("/")
    folder = pattern.endswith("/")
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + (".*" if folder else "") + r"\Z")


def matches(path: str, pattern: str) -> bool:
    """Does ``path`` (relative, with /) fall under ``pattern``? Example: ('tests/x.py', 'tests/') -> True"""
    return bool(_regex(pattern).match(path.replace(os.sep, "/")))


def is_instructor_only(path: str, manifest: list[str] | None = None) -> bool:
    return any(matches(path, p) for p in (patterns() if manifest is None else manifest))


def repository_files(root: Path = REPO) -> list[str]:
    """Every file of the repository, relative, with /: the tracked ones when git is there, else a walk."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
        ).stdout
        return sorted(p for p in listed.decode("utf-8").split("\0") if p and (root / p).is_file())
    except (OSError, subprocess.CalledProcessError):
        found = []
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = [s for s in subfolders if s not in SKIPPED]
            found += [str((Path(folder) / f).relative_to(root)).replace(os.sep, "/") for f in files]
        return sorted(found)


def student_files(root: Path = REPO) -> list[str]:
    """The files a student receives: every repository file no pattern of the manifest matches."""
    manifest = patterns()
    return [p for p in repository_files(root) if not is_instructor_only(p, manifest)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", action="store_true", help="list the instructor-only files instead"
    )
    args = parser.parse_args(argv)
    manifest = patterns()
    for path in repository_files():
        if is_instructor_only(path, manifest) == args.only:
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
