"""The fix: only one the workspace offers -- the offline model never writes SQL of its own.

* a SQL file whose comments say it has not run yet ("pending", "not applied", "not run yet" -- any naming
  scheme, any folder): ``is_pending``; its statements are ``sql_body``
* a SQL file not marked as run that changes data and whose comments and name speak of the goal: a repair
  (``is_repair_for``), or one that a document names for the goal ("run ``scripts/repair.sql`` to ...")
* the repair statement a cause comment carries in backticks (``repair_in``)

A Fix line reads ``path (pending) — STATEMENT``, so a summary can carry the statement word for word and the
model can run it from the line alone (``fix_statement``).

Left out: running anything, checking that a statement is valid SQL, and fixes that are not SQL.
"""

from __future__ import annotations

import re

from stage.offline.vocabulary import relation

PENDING = re.compile(
    r"\b(?:pending|not (?:yet )?(?:been )?(?:applied|run|executed)|not run yet|unapplied|to be applied|"
    r"awaiting|waiting to run|still to run)\b",
    re.I,
)
NOT_PENDING = re.compile(r"\bpending\s*[:=]\s*(?:no|false|0)\b", re.I)
APPLIED = re.compile(r"\b(?:applied|done|already run|executed|ran on)\b", re.I)
NAMED_SCRIPT = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.sql)\b")
RUN_WORDS = re.compile(r"\b(?:run|apply|execute|repairs?|fix(?:es)?|use)\b", re.I)
SQL_IN_BACKTICKS = re.compile(r"`((?:UPDATE|ALTER|INSERT|DELETE|CREATE|DROP)\b[^`]+)`", re.I)


def is_pending(lines: list[tuple[int, str]]) -> bool:
    """A SQL file whose comments say it has not run yet (and that holds a statement)."""
    notes = [line for _, line in lines if line.strip().startswith("--")]
    pending = any(PENDING.search(n) and not NOT_PENDING.search(n) for n in notes)
    return pending and bool(sql_body(lines))


def is_repair_for(goal: str, path: str, lines: list[tuple[int, str]]) -> bool:
    """A SQL file not marked as run that changes data, and whose comments and name speak of the goal
    (two shared words, or one and the word repair / fix)."""
    notes = " ".join(line for _, line in lines if line.strip().startswith("--"))
    body = sql_body(lines)
    says_repair = re.search(
        r"\b(?:repairs?|fix(?:es)?|correct(?:s|ion)?)\b|(?:repair|fix)_", f"{notes} {path}", re.I
    )
    related = relation(goal, notes, path)
    return (
        bool(re.match(r"(?:UPDATE|DELETE|INSERT|ALTER)\b", body, re.I))
        and not APPLIED.search(notes)
        and (related >= 2 or (related >= 1 and bool(says_repair)))
    )


def sql_body(lines: list[tuple[int, str]]) -> str:
    """The statements of a SQL file, comments left out. Example: ['-- x', 'UPDATE t SET a = 1;'] -> 'UPDATE t SET a = 1;'"""
    return " ".join(
        line.strip() for _, line in lines if line.strip() and not line.strip().startswith("--")
    )


def named_scripts(path: str, line: str, goal: str) -> list[str]:
    """SQL files a line of a document names as the thing to run for the goal. Example: 'Run scripts/fix.sql
    to repair the emails.' (goal about emails) -> ['scripts/fix.sql']"""
    if not RUN_WORDS.search(line):
        return []
    return [s for s in NAMED_SCRIPT.findall(line) if s != path and relation(goal, line, s)]


def repair_in(cause: str) -> str | None:
    """The repair statement a cause comment carries in backticks, if any. Example: '... `UPDATE t SET a=1`' -> 'UPDATE t SET a=1;'"""
    found = SQL_IN_BACKTICKS.search(cause)
    if not found:
        return None
    statement = found.group(1).strip()
    return statement if statement.endswith(";") else statement + ";"


def fix_statement(fix_line: str) -> str | None:
    """The SQL in a Fix line, if the line carries it. Example: 'a.sql (pending) — UPDATE t;' -> 'UPDATE t;'"""
    _, _, statement = fix_line.partition(" — ")
    return statement.strip() or None
