"""Promotion: moving a fact from the desk into the notebook beside it (CLAUDE.md).

Two ways in: ``promote(summary, path)`` copies the *standing constraints* section of a compaction
summary into the memory file, and ``remember_into(path)`` is the callback behind the agent's own
``remember`` tool. Both go through ``append_to_memory``: the write is atomic (a temporary file, then
a rename), a line already in the file (compared without case, bullets or spacing) is never added
twice, and on any error the file is left exactly as it was.

Left out: editing or deleting lines (memory only grows here), locking against two writers at once.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Callable

from harness.sandbox import ToolError


class MemoryFileError(Exception):
    """A memory file cannot be updated safely; it was left exactly as it was."""


def standing_constraints(summary: str) -> list[str]:
    """The lines under the "Standing constraints:" heading of a compaction summary.

    Example: "Goal: fix it\\nStanding constraints:\\n- Never touch production.\\nFacts:\\n- ..."
    -> ["Never touch production."]
    """
    found = []
    inside = False  # under the heading, until a line of other text
    for line in (raw.strip() for raw in summary.splitlines()):
        heading, bullet = CONSTRAINTS_HEADING.match(line), BULLET.match(line)
        if heading:
            inside = True
            rule = heading.group(1)  # a rule may share the heading's line
        elif inside and bullet:
            rule = bullet.group(1)
        else:
            inside = inside and not line  # blank lines are skipped; other text ends it
            continue
        if rule and not NOTHING.match(rule):
            found.append(rule)
    return found


def promote(summary: str, memory_path: str | Path) -> list[str]:
    """Copy the standing constraints of a summary into a memory file; return the lines added.

    Lines already in the file (ignoring case, spacing and bullets) are not added again.
    Example: promote("Standing constraints:\\n- Never touch production.", "CLAUDE.md")
    -> ["- Never touch production."]
    """
    return append_to_memory(memory_path, standing_constraints(summary))


def remember_into(memory_path: str | Path) -> Callable[[str], str]:
    """A callback for the agent's ``remember`` tool that writes each fact into ``memory_path``.

    Example: Toolbox(remember=remember_into("CLAUDE.md")); the agent's remember("Use staging.")
    -> "Saved to CLAUDE.md: Use staging."  (a second time: "Already in CLAUDE.md: ...")
    """
    name = Path(memory_path).name

    def remember(fact: str) -> str:
        try:
            added = append_to_memory(memory_path, [fact])
        except MemoryFileError as problem:
            raise ToolError(str(problem)) from None  # the agent hears it as an error tool result
        return f"{'Saved to' if added else 'Already in'} {name}: {one_line(fact)}"

    return remember


def append_to_memory(memory_path: str | Path, facts: list[str]) -> list[str]:
    """Append each new fact as a ``- `` line, atomically; return the lines actually added.

    The file is read first: if it is not UTF-8 (or not a file), nothing is written.
    Example: a file holding "- Never touch production." and facts ["never touch production"] -> []
    """
    path = Path(memory_path).expanduser()
    old = _read_for_update(path)
    known = {normalise(line) for line in old.splitlines()}
    added = []
    for fact in facts:
        key = normalise(fact)
        if key and key not in known:  # the same rule twice would be paid for twice, every lap
            known.add(key)
            added.append(f"- {one_line(fact).lstrip('-*• ')}")
    if added:
        joint = "" if not old or old.endswith("\n") else "\n"
        write_atomically(path, old + joint + "\n".join(added) + "\n")
    return added


def normalise(line: str) -> str:
    """A line reduced to what it says, to spot duplicates.

    Example: "-  Never touch PRODUCTION. " -> "never touch production"
    """
    return re.sub(r"\s+", " ", line.strip().lstrip("-*• ")).strip().rstrip(".;").lower()


def one_line(fact: str) -> str:
    """A fact on one line, so it cannot add headings of its own. Example: "a\\n b" -> "a b" """
    return " ".join(fact.split())


# ---- helpers for promotion -----------------------------------------------------------------------

CONSTRAINTS_HEADING = re.compile(r"^\W*standing constraints\s*\**\s*(?::\s*\**\s*(.*?))?\s*$", re.I)
BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+(.+)$")
NOTHING = re.compile(r"^\(?(none|nothing|n/a|-)\)?\.?$", re.I)


def _read_for_update(path: Path) -> str:
    """The current text of a memory file ("" if it does not exist yet), or MemoryFileError."""
    if not path.exists():
        return ""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as problem:
        raise MemoryFileError(
            f"{path} is not UTF-8 text (offset {problem.start}); "
            "nothing was written, and the file is untouched."
        ) from None
    except OSError as problem:
        raise MemoryFileError(
            f"{path} cannot be read ({_why(problem)}); nothing was written."
        ) from None


def write_atomically(path: Path, text: str) -> None:
    """Write a temporary file beside ``path``, then swap it in.

    Readers see the old file or the new one, never half of it; on failure the old file stays.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
        )
    except OSError as problem:
        raise MemoryFileError(
            f"Cannot write beside {path} ({_why(problem)}); nothing was written."
        ) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        # keep the file's permissions
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644
        os.chmod(temporary, mode)
        os.replace(temporary, path)  # atomic: a reader sees the old file or the new, never half
    except OSError as problem:
        Path(temporary).unlink(missing_ok=True)
        raise MemoryFileError(
            f"Writing {path} failed ({_why(problem)}); the file is untouched."
        ) from None


def _why(problem: OSError) -> str:
    return problem.strerror or str(problem)
