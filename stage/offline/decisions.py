"""Decisions: which of several fixes to apply, and why -- something only the conversation knows.

"About the fix: apply `004_batches.sql`, not `003_lowercase.sql` -- the table is big and busy." makes the agent
jot ``Decision: apply 004_batches.sql, not 003_lowercase.sql — the user said: ...`` and, when it applies a fix,
take the chosen one. The decision lives in its notes; a summary keeps it only if its prompt asks for
decisions (the template's "Decisions: what was decided, and why"). Without it in view the agent decides
again from what it sees: the fix most related to the goal, the first of equals -- the one passed over, here.

Forms it reads, with the names as file names ending in ``.sql`` (backticks optional): "apply X, not Y",
"use X instead of Y", "X rather than Y", "not Y but X", "skip Y" / "do not apply Y" (Y passed over only).
Left out: decisions about anything but which SQL file to run, and a decision that names no file.
"""

from __future__ import annotations

import re

# A name starts where a word starts and its parts are bounded: a huge token is scanned in linear time.
NAME = r"`?(?<![\w./-])((?:[\w.-]{1,120}/){0,12}[\w.-]{1,120}\.sql)`?"
CHOICES = [  # (pattern, group of the chosen file, group of the one passed over)
    (
        re.compile(
            rf"\b(?:apply|run|use|take|pick|choose)\s+{NAME},?\s+(?:and\s+)?not\s+{NAME}", re.I
        ),
        1,
        2,
    ),
    (re.compile(rf"{NAME},?\s+(?:instead of|rather than|over)\s+{NAME}", re.I), 1, 2),
    (re.compile(rf"\bnot\s+{NAME},?\s+but\s+{NAME}", re.I), 2, 1),
]
PASS_OVER = re.compile(
    rf"\b(?:skip|hold(?: back)?|leave out|do not (?:apply|run)|don't (?:apply|run)|never (?:apply|run))"
    rf"\s+{NAME}",
    re.I,
)
NOTE = re.compile(rf"^\W*Decision: (?:apply {NAME}, not|do not apply) {NAME}(?: — (.*))?$")


def decisions_in(text: str) -> list[tuple[str, str]]:
    """(chosen, passed over) pairs a sentence states; chosen is "" when it only passes a file over.

    Example: 'Apply `004_batches.sql`, not `003_lowercase.sql`: the table is busy.' -> [('004_batches.sql', '003_lowercase.sql')]
    """
    found = []
    for line in text.splitlines():
        if ".sql" not in line.lower():  # every form names a .sql file: most lines are done here
            continue
        note = NOTE.match(line.strip())
        if note:
            found.append((note.group(1) or "", note.group(2)))
            continue
        for pattern, chosen, passed in CHOICES:
            found += [(m.group(chosen), m.group(passed)) for m in pattern.finditer(line)]
        found += [("", m.group(1)) for m in PASS_OVER.finditer(line)]
    return list(dict.fromkeys(pair for pair in found if pair[0] != pair[1]))


def decision_note(chosen: str, passed: str, why: str) -> str:
    """The line the agent jots. Example: ('b.sql', 'a.sql', 'b locks less') -> 'Decision: apply b.sql, not a.sql — b locks less'"""
    return f"Decision: {f'apply {chosen}, not' if chosen else 'do not apply'} {passed} — {why}"
