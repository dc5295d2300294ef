"""Corrections: when the user puts a fact right mid-task, the later statement wins.

"Actually, the table is `accounts`, not `users`." makes the agent write ``accounts`` wherever its fix
said ``users`` -- while that sentence is on the desk (a user message, or a summary that kept it).
A vague summary that drops it brings the stale fact back: the lesson's "lost detail", as a probe.

Forms it reads: "X, not Y", "not Y but X", "X instead of Y", "X rather than Y", "Y should be X",
"Y is really X", each with the two names as single words or in backticks.
Left out: corrections of anything but a name (numbers, ranges, whole sentences), and a correction that
names only the new value ("the table is accounts"). "X.sql, not Y.sql" is a decision (``decisions``), not this.
"""

from __future__ import annotations

import re

NAME = r"`?([\w.]+)`?"
FORMS = [  # (pattern, which group is the new name, which the old)
    (
        re.compile(rf"\b(?:is|are|was|use|means?|called|named)\s+{NAME},?\s+not\s+{NAME}", re.I),
        1,
        2,
    ),
    (re.compile(r"`([\w.]+)`,?\s+not\s+`([\w.]+)`", re.I), 1, 2),
    (re.compile(rf"\bnot\s+{NAME},?\s+but\s+{NAME}", re.I), 2, 1),
    (re.compile(rf"\b{NAME}\s+(?:instead of|rather than)\s+{NAME}", re.I), 1, 2),
    (re.compile(rf"\b{NAME}\s+should (?:be|read|say)\s+{NAME}", re.I), 2, 1),
]
CUE = re.compile(
    r"\b(?:actually|correction|sorry|i meant|my mistake|to be clear|wrong)\b|,\s+not\s+", re.I
)


def corrections_in(text: str) -> list[tuple[str, str]]:
    """(old, new) pairs that a sentence puts right. Example: 'Actually, the table is `accounts`, not `users`.'
    -> [('users', 'accounts')]"""
    if not CUE.search(text):
        return []
    found = []
    for pattern, new, old in FORMS:
        for match in pattern.finditer(text):
            pair = (match.group(old), match.group(new))
            if (
                pair[0].lower() != pair[1].lower()
                and pair not in found
                and not pair[0].lower().endswith(".sql")
            ):
                found.append(pair)
    return found


def apply_corrections(statement: str, pairs: list[tuple[str, str]]) -> str:
    """The statement with each old name replaced by the new one, in the order said (later wins).

    Example: ('UPDATE users SET email = lower(email);', [('users', 'accounts')])
    -> 'UPDATE accounts SET email = lower(email);'
    """
    for old, new in pairs:
        statement = re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w])", new, statement)
    return statement
