"""Recalled notes: the richer end of the memory spectrum.

CLAUDE.md is sent on every lap, so it must stay short. A richer harness also keeps *notes*, one
file each in a folder, written during a task, and pulls back only the few that share words with
the request -- so the agent can know many things while carrying only what this request needs.

Left out: any real search index (recall is plain word overlap, no embeddings), note expiry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from harness.memory import recalled_section
from harness.promote import one_line, write_atomically
from harness.tokens import Meter

MAX_NOTE_CHARS = 20_000  # a longer note is cut when read


@dataclass
class Note:
    """One note file, and how many words it shares with the request it was recalled for."""

    path: Path
    text: str
    score: int = 0


def write_note(folder: str | Path, title: str, text: str) -> Path:
    """Save a note as ``<folder>/<title-as-slug>.md``, atomically (the same title replaces it).

    Example: write_note("notes", "Email login bug", "auth.py:40 compares emails case-sensitively")
    -> notes/email-login-bug.md
    """
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "note"
    path = Path(folder) / f"{slug}.md"
    write_atomically(path, f"# {one_line(title)}\n\n{text.strip()}\n")
    return path


def recall(folder: str | Path, request: str, k: int = 3) -> list[Note]:
    """The ``k`` notes sharing the most words with ``request`` (a note sharing none, never).

    Example: a note on the email login bug and one on tax rounding, request "emails cannot log in"
    -> [the email note]
    """
    wanted = keywords(request)
    # the score is plain word overlap: no embeddings, no index (what a richer harness would add)
    scored = [Note(n.path, n.text, len(keywords(n.text) & wanted)) for n in read_notes(folder)]
    return sorted((n for n in scored if n.score > 0), key=lambda n: (-n.score, n.path.name))[:k]


def read_notes(folder: str | Path) -> list[Note]:
    """Every readable ``.md`` note in the folder, by name (unreadable or non-UTF-8 ones skipped)."""
    notes = []
    paths = sorted(Path(folder).glob("*.md")) if Path(folder).is_dir() else []
    for path in paths:
        try:
            notes.append(Note(path, path.read_text(encoding="utf-8")[:MAX_NOTE_CHARS]))
        except (OSError, UnicodeDecodeError):
            continue
    return notes


def keywords(text: str) -> set[str]:
    """Words of four letters or more, cut to five letters so "emails" meets "email".

    Example: "Emails were typed" -> {"email", "typed"}
    """
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in COMMON}


def memory_costs(
    memory, folder: str | Path, request: str, k: int = 3, meter: Meter | None = None
) -> dict:
    """Tokens a request carries for memory: always loaded, every note loaded, the recalled few.

    Example: the class task's notes
    -> {"always loaded": 105, "all notes": 207, "recalled": 103, "recalled notes": [...]}
    """
    meter = meter or memory.meter or Meter()
    every = read_notes(folder)
    chosen = recall(folder, request, k)
    return {
        "always loaded": memory.tokens_per_lap,
        "all notes": meter.text(recalled_section(every)) if every else 0,
        "recalled": meter.text(recalled_section(chosen)) if chosen else 0,
        "recalled notes": [n.path.name for n in chosen],
    }


COMMON = set(
    "this that with from have when what which will were they them then than into your only also "
    "some there their these those been being does done each must should would could".split()
)
