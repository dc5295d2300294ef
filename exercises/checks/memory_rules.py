"""What a CLAUDE.md must be before any session runs: loaded as session two would, counted, and read.

``loaded`` puts the memory, as CLAUDE.md, into a temporary copy of the codebase and loads it with
``harness.memory`` (imports too), so the cost counted is what every lap pays. ``memory_shape`` then
checks what a grader checks before running anything: four lines at most; the tokens of the memory and of
every file it imports within the budget; every file or folder it names, and every marker it quotes,
present in the codebase; no diary lines; and (``copied``) no line taken from a CLAUDE.md that is not
yours, even with its words shuffled. Exercise 05 shares it with nothing else.

Left out: judging whether a rule is a good rule -- the runs of exercise 05 decide what a memory does.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

from harness.memory import imports_in, load_memory, system_prompt
from harness.tokens import tiktoken_count
from harness.tools import REPO_ROOT, WORKSPACE

from .common import (
    COPIED,
    Fail,
    NotDone,
    copied_lines,
    covered,
    is_whole,
    number,
    overlap,
    word_bag,
)

MEMORY_CAP = 150  # tokens: the most this class lets a four-line CLAUDE.md cost per lap


# ---- loading a memory as session two would ---------------------------------------------------------


def _codebase_copy(root: Path, folder: Path, memory: str) -> Path:
    """A copy of the codebase at ``root`` in ``folder``, with ``memory`` as its CLAUDE.md. Returns its path."""
    copy_root = folder / root.name
    shutil.copytree(
        root,
        copy_root,
        ignore=shutil.ignore_patterns("CLAUDE.md", "CLAUDE.local.md", ".task.toml", "__pycache__"),
    )
    (copy_root / "CLAUDE.md").write_text(memory, encoding="utf-8")
    return copy_root


@lru_cache(maxsize=64)
def loaded(memory: str, root: Path = WORKSPACE):
    """(session two's system prompt, tokens of the memory and every file it imports) for ``memory`` at ``root``.

    Loading reads only the codebase and the memory, so the same memory loads the same way: kept for reuse.
    """
    with tempfile.TemporaryDirectory() as folder:
        copy_root = _codebase_copy(root, Path(folder), memory)
        files = load_memory(user=None, project=copy_root / "CLAUDE.md", local=None)
        return system_prompt(files), sum(tiktoken_count(f.text) for f in files.files)


def with_memory(memory: str, root: Path = WORKSPACE) -> str:
    """Session two's system prompt with ``memory`` loaded as the project's CLAUDE.md, through harness.memory."""
    if not memory or not memory.strip():
        return system_prompt(None)
    return loaded(memory, root)[0]


# ---- what a memory must be, before any run ----------------------------------------------------------

# A diary line says what happened, not what always holds: a time, or a past action told by someone.
TIMES = (
    "yesterday",
    "today",
    "tonight",
    "this morning",
    "earlier today",
    "last session",
    "last time",
    "session one",
    "first session",
    "previous session",
)
DONE = "found fixed ran tried looked noticed discovered spent debugged traced saw learned learnt realised realized"
# ... or told in the passive: "the bug was fixed", "003 has been applied" (not "has not been run yet",
# which says what state a thing is in).
PASSIVE = (
    "found fixed run ran tried read checked patched changed updated added removed applied merged "
    "deployed traced debugged discovered noticed seen solved resolved done completed broken"
)
DIARY = re.compile(
    r"\b(?:" + "|".join(TIMES) + r")\b|^\W*(?:" + DONE.replace(" ", "|") + r")\b|\b(?:i|we)\s+"
    r"(?:\w+\s+)?(?:" + DONE.replace(" ", "|") + r"|was|were|had)\b"
    r"|\b(?:was|were|has been|have been|had been|got)\s+(?:(?!not\b|never\b)\w+\s+)?(?:"
    + PASSIVE.replace(" ", "|")
    + r")\b",
    re.I,
)
PATHLIKE = re.compile(
    r"(?<![\w@:/.-])((?:[\w.-]+/)+[\w.*-]*|[\w-]+\.(?:py|sql|md|toml|ini|cfg|sh|js|json|txt|yml|yaml))"
    r"(?::\d+)?(?![\w/])"
)
MARKER = re.compile(r"`(\s*(?:--|#)[^`]*)`")
ATS = re.compile(r"(?<![\w@`])@(\S+)")  # anything written as an import: @ and what follows it


def _looks_like_a_path(name: str) -> bool:
    """A folder (ends with /), a file (has an extension) or a glob -- not 'and/or' or 'prod/live'."""
    last = name.rstrip(".,;:").rsplit("/", 1)[-1]
    return name.rstrip(".,;:").endswith("/") or "*" in name or bool(re.search(r"\.\w{1,5}$", last))


def _exists(name: str, root: Path) -> bool:
    """Is ``name`` (a path, a folder, a glob, or a bare file name) somewhere in the codebase at ``root``?

    A path is read from where CLAUDE.md sits (the codebase's own folder), or from the top of the
    repository if it leads into that folder: a file of the repository outside it is not the codebase's.
    """
    name = name.rstrip("/.,;:")
    for base in (root, REPO_ROOT):
        found = list(base.glob(name)) if "*" in name else [base / name]
        if any(p.exists() and _inside(p, root) for p in found):
            return True
    return "/" not in name and any(p.name == name for p in root.rglob(name))


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, ValueError):
        return False


def _in_files(marker: str, root: Path) -> bool:
    return any(
        marker.strip() in p.read_text(encoding="utf-8", errors="replace")
        for p in root.rglob("*")
        if p.is_file() and p.name not in ("CLAUDE.md", ".task.toml")
    )


def memory_shape(
    memory,
    budget,
    name: str = "MEMORY",
    cap: int = MEMORY_CAP,
    root: Path = WORKSPACE,
    originals: tuple = (),
) -> tuple[list[str], int]:
    """Four lines at most, none copied from ``originals``, a sensible budget and within it (imports
    included), nothing that points at nothing, no diary. Returns (lines, tokens)."""
    if memory is None or budget is None:
        raise NotDone(
            f"write {name} (the text of CLAUDE.md)"
            + (" and MEMORY_BUDGET (tokens)" if name == "MEMORY" else "")
            + ", then run this cell."
        )
    if not isinstance(memory, str) or not memory.strip():
        raise Fail(
            f"{name} is {type(memory).__name__ if not isinstance(memory, str) else 'empty'}, not a piece of "
            "text",
            "write CLAUDE.md as one string, one fact or rule per line.",
        )
    if not is_whole(budget) or number(budget) <= 0:
        raise Fail(f"MEMORY_BUDGET is {budget!r:.40}", "give a positive whole number of tokens.")
    budget = int(number(budget))  # numpy's or Decimal's whole numbers, as a plain int
    lines = [line for line in memory.splitlines() if line.strip()]
    if len(lines) > 4:
        raise Fail(
            f"{name} has {len(lines)} lines",
            "at most four lines: CLAUDE.md is sent on every lap of every session, so only durable rules "
            "and where-things-live pointers belong in it, not a diary or the codebase.",
        )
    copied(memory, list(originals), name)
    if budget > cap:
        raise Fail(
            f"a budget of {budget:,} tokens is too generous",
            f"CLAUDE.md is paid for on every lap: keep it to {cap} tokens or less.",
        )
    where = root.relative_to(REPO_ROOT)
    loads = set(imports_in(memory))
    for written in ATS.findall(re.sub(r"`[^`]*`", " ", memory)):
        written = written.rstrip(".,;:)")
        if ("/" in written or "." in written) and written not in loads:
            raise Fail(
                f"{name} has @{written}, which is not an import the harness loads",
                "an import is @ and the path of a file of this codebase, from where CLAUDE.md sits "
                "(at most one ../): anything else is loaded as nothing, and costs 0 tokens only "
                "because session two never sees it.",
            )
    for imported in imports_in(memory):
        if not _inside(root / imported, root):
            raise Fail(
                f"{name} imports @{imported}, which is outside {where}",
                "an import must point at a file of this codebase, the folder CLAUDE.md sits in: a "
                "file outside it is not loaded with the memory (and its tokens would not be "
                "counted), and a new teammate's machine may not have it.",
            )
        if not (root / imported).is_file():
            raise Fail(
                f"{name} imports @{imported}, and {where}/{imported} does not exist",
                "an import must point at a file of the codebase (relative to where CLAUDE.md sits), or "
                "session two loads nothing from it.",
            )
    for line in lines:
        plain = re.sub(r"`[^`]*`", " ", line)
        if DIARY.search(plain):
            raise Fail(
                f"{name} has a diary line: {line.strip()!r}",
                "memory holds what is always true -- standing rules and where things live -- not what "
                "happened (no I or we did, no yesterday or last session, no found or fixed, no 'it "
                "was fixed').",
            )
        for named in PATHLIKE.findall(plain):
            if not _looks_like_a_path(named):
                continue  # "prod/live", "read/write": words, not a place
            if "://" not in named and not _exists(named, root):
                raise Fail(
                    f"{name} names {named}, which is not in {where}",
                    "every file or folder your memory names must exist in this codebase: a pointer to "
                    "nothing sends session two looking for it.",
                )
        for marker in MARKER.findall(line):
            if not _in_files(marker, root):
                raise Fail(
                    f"{name} quotes the marker `{marker.strip()}`, which no file of {where} holds",
                    "a marker you quote must be the one this codebase writes: look at how its own files "
                    "mark a change that has not run yet.",
                )
    cost = loaded(memory, root)[1]
    if cost > budget:
        imported = " and the files it imports" if imports_in(memory) else ""
        raise Fail(
            f"{name}{imported} come{'' if imported else 's'} to {cost} tokens, over "
            + ("your own budget" if name == "MEMORY" else "the cap")
            + f" of {budget}",
            ("an imported file is sent on every lap too, so its tokens count. " if imported else "")
            + "Trim it to the rules and pointers that matter"
            + (
                ", or raise the budget (within the cap)."
                if name == "MEMORY"
                else ": which line made session two faster, and which only repeats what the code says?"
            ),
        )
    return lines, cost


def copied(memory: str, originals: list[tuple[str, list[list[str]]]], name: str) -> None:
    """FAIL if a line of ``memory`` is a line of one of the ``originals`` (its words, perhaps shuffled)."""
    for whose, lines in originals:
        copied = (
            copied_lines(memory, lines)
            if not whose.endswith("fingerprint")
            else [
                line.strip()
                for line in memory.splitlines()
                if len(word_bag(line)) >= 5
                and any(
                    overlap(hashed(line), theirs) >= COPIED
                    or (len(theirs) >= 5 and covered(hashed(line), theirs) >= COPIED)
                    for theirs in lines
                )
            ]
        )
        if copied:
            raise Fail(
                f"{name} copies {copied[0]!r} from {whose.replace(' fingerprint', '')}",
                "write the memory yourself, in your own words, from what you find in the code and its docs: "
                "that is the skill this task trains (shuffling the words of a copied line is still a copy).",
            )


def lines_of(path: Path) -> list[list[str]]:
    return [
        word_bag(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def hashed(line: str) -> list[str]:
    """The words of a line as short salted hashes (3 hex digits: about 25 English words share each one).

    Enough to spot a copy -- five or more words in a row of yours all landing on the original's -- and
    useless for reading the original back.
    """
    return [
        hashlib.sha256(f"context-desk/{word}".encode()).hexdigest()[:3] for word in word_bag(line)
    ]


def fingerprint(text: str) -> list[list[str]]:
    """``hashed`` for every line of a text. Kept here for the greenhouse's CLAUDE.md (instructor-only)."""
    return [hashed(line) for line in text.splitlines() if line.strip()]


# fingerprint(workspaces/greenhouse/CLAUDE.md); tests/test_exercise_student_files.py keeps it current.
GREENHOUSE_FINGERPRINT = [
    [
        "c9b",
        "411",
        "186",
        "80c",
        "670",
        "5aa",
        "7c4",
        "c76",
        "44c",
        "c62",
        "ad0",
        "c5d",
        "bee",
        "166",
        "d3e",
        "964",
        "99f",
        "cec",
    ],
    [
        "186",
        "b51",
        "8ae",
        "4a0",
        "4e9",
        "e55",
        "32b",
        "868",
        "f30",
        "f79",
        "b88",
        "433",
        "eff",
        "12b",
    ],
    [
        "186",
        "892",
        "a2a",
        "a99",
        "ea1",
        "fba",
        "c9b",
        "1d4",
        "735",
        "8ae",
        "f79",
        "891",
        "06d",
        "d4f",
        "5b0",
        "ea1",
        "ec7",
        "f79",
    ],
    [
        "99f",
        "cec",
        "2a1",
        "4c7",
        "88d",
        "d83",
        "433",
        "8fb",
        "bee",
        "669",
        "1da",
        "781",
        "876",
        "14d",
        "ea1",
        "a22",
        "c95",
    ],
]
