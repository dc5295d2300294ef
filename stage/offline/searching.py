"""What the offline model has found, whether that settles the question, and where reading goes on.

``known`` gathers the cause and the fix from everything in view (fact lines in notes and summaries, files
on the desk, sub-agents' reports) and keeps the best of each, so a later, better candidate wins.
``settled`` says when the cause is good enough to act on:

* the request quotes an error text: the cause must hold it (that is where the message comes from)
* the request names an identifier: the cause must be code that names it (in the line or its function)
* otherwise: a marked comment (``FIXME``, ``BUG`` ...) that the request's words point at; an unmarked
  line is only a candidate until the whole scope has been read and searched -- the best one then wins

``next_file`` picks the next file in listing order, after the furthest one read in order (a read on the
desk without an offset, or the to-do line's ``read up to``). ``pointed`` follows a pointer to a lost
finding: a summary's "found the cause in X", or the to-do line's "found the cause in X:n" (read around n).

Left out: memory of its own beyond the desk. A search whose result has gone is remembered only if a summary
or the to-do line says it was done; a file whose read has gone counts as unread.
"""

from __future__ import annotations

import re

from stage.offline.view import PATH, View, named_folders, scope_of, words
from stage.offline.findings import (
    cause_strength,
    facts_in_file,
    facts_in_report,
    fix_statement,
    goal_terms,
)
from stage.offline.lines import kind_of_fact
from stage.offline.locating import weigh
from stage.offline.terms import GENERIC_ERRORS
from stage.offline.progress import todo_of

AROUND = 15  # hits this close together are one place: one read shows them all
NEAR_TOP = 100  # ... unless it is this near the top of a file: then the file is read from its start


def findings_in_view(desk: View, goal: str, leads: bool = False) -> list[tuple[str, str]]:
    """Every finding in view: fact lines, files on the desk, sub-agents' reports (``leads``: weak code matches too)."""
    facts = list(desk.fact_lines())
    for path, text in desk.file_texts():
        facts += facts_in_file(path, text, goal, leads)
    for report in desk.reports():
        facts += facts_in_report(report, goal)
    fullest = {}  # one line seen in two parts of a file: keep the fuller note (its sequel too)
    for kind, fact in facts:
        key = (kind, fact.split(" — ")[0])
        if len(fact) > len(fullest.get(key, "")):
            fullest[key] = fact
    return [(kind, fact) for kind, fact in facts if fullest[(kind, fact.split(" — ")[0])] == fact]


def known(desk: View, goal: str) -> tuple[str | None, str | None]:
    """The cause (the Cause line that matches the goal most) and the fix, if they are in view.

    Several fixes in view: the one a decision in view chose, else the one most related to the goal (the
    first of equals, since migrations run in order) -- see ``choose_fix``.
    """
    facts = findings_in_view(desk, goal)
    causes = [t for k, t in facts if k == "Cause"]
    cause = max(reversed(causes), key=lambda t: cause_strength(t, goal)) if causes else None
    return cause, choose_fix([t for k, t in facts if k == "Fix"], goal, desk.decisions())


def settled(cause: str | None, goal: str) -> bool:
    """Is this cause good enough to act on, or only the best candidate so far? (See the module docstring.)

    Example: ('a.py:3 (parse) — raise ValueError("bad key")', "Loading stops with 'bad key'") -> True
    """
    if not cause:
        return False
    found = goal_terms(goal)
    place, _, said = cause.partition(" — ")
    where = re.search(r"\(([\w.]+)\)", place)
    matched = weigh(said, where[1] if where else "", found)[1]
    if found.quotes:
        return any(m.startswith("'") for m in matched)
    names = [i for i in found.identifiers if i.split(".")[-1] not in GENERIC_ERRORS]
    if names:
        return kind_of_fact(said) != "prose" and any(m in names for m in matched)
    return bool(re.match(r"(?:FIXME|BUG|XXX|HACK|TODO): ", said))  # a marked comment it points at


def choose_fix(fixes: list[str], goal: str, decisions: list[tuple[str, str]]) -> str | None:
    """The fix to apply among the Fix lines in view. A decision (chosen, passed over) in view wins; else the
    fix most related to the goal, and of equals the first file in order. A line carrying its statement beats
    one that only names where the fix is.

    Example: two pending migrations, decision ('migrations/004_x.sql', 'migrations/003_y.sql') -> the 004 line.
    """
    carrying = {}
    for line in fixes:
        where = line.split(" ")[0]
        if where not in carrying or (fix_statement(line) and not fix_statement(carrying[where])):
            carrying[where] = line
    if not carrying:
        return None
    for chosen, passed in decisions:
        picked = [line for where, line in carrying.items() if _same_file(where, chosen)]
        if picked:
            return picked[0]
    left = {
        where: line
        for where, line in carrying.items()
        if not any(_same_file(where, p) for _, p in decisions)
    }
    if not left:  # every fix in view was passed over: the chosen one is still to be found
        return None
    ranked = sorted(left, key=lambda where: (-cause_strength(carrying[where], goal), where))
    return carrying[ranked[0]]


def _same_file(path: str, named: str) -> bool:
    """Does a decision's name point at this path? ('004_batches.sql' or 'migrations/004_batches.sql')"""
    return path == named or path.endswith("/" + named.split("/")[-1])


def reading_position(desk: View, scope: list[str]) -> int:
    """How far reading in order has got: the furthest file of ``scope`` read whole (no offset) on the desk,
    or the to-do line's ``read up to``. Example: reads of a.py and c.py in [a.py, b.py, c.py] -> 2"""
    own = {
        use["input"].get("path")
        for use, _ in desk.calls
        if use["name"] == "read_file" and "offset" not in use["input"]
    }
    own |= desk.summary_paths()
    upto = todo_of(desk.notes).upto
    own |= {upto} if upto else set()
    return max((i for i, p in enumerate(scope) if p in own), default=-1)


def next_file(desk: View, goal: str, listing: list[str]) -> str | None:
    """The file to read next: hinted files first, then the listing after the furthest read in order."""
    scope = scope_of(goal, listing)
    seen = desk.evidence_of_reading() | desk.delegated()
    goal_words = words(goal)
    for text in [desk.system] + desk.summaries:
        for line in text.splitlines():
            if words(line) & goal_words and not re.match(r"^\W*(Goal|Task):", line):
                for hinted in PATH.findall(line):
                    for path in scope:
                        if (
                            path == hinted or path.startswith(hinted.rstrip("/") + "/")
                        ) and path not in seen:
                            return path
    furthest = reading_position(desk, scope)
    return next((p for p in scope[furthest + 1 :] if p not in seen), None)


def pointed(desk: View, cause: str | None, fix: str | None, wants_apply: bool):
    """A call to re-read a lost finding that a summary or the to-do line points at, or None.

    "found the cause in X" reads X; "found the cause in X:n" reads around line n (the whole file from its
    start when n is near the top). Only files: a folder is where to look, not a finding; and the goal's own
    words ("find the cause in app/") are not a pointer.
    """
    on_desk = {p for p, _ in desk.file_texts()}
    wanted = [r"\bcause\b"] if not cause else ([r"\bfix\b"] if wants_apply and not fix else [])
    lines = [line for text in desk.summaries for line in text.splitlines()]
    todo = todo_of(desk.notes)  # the agent's own to-do line: where the cause is, what is pending
    lines += [f"found the cause in {todo.cause_at}"] if todo.cause_at else []
    lines += [todo.pending] if todo.pending else []
    for line in lines:
        if re.match(r"^\W*(Goal|Task):", line):
            continue
        for pattern in wanted:
            for found in re.finditer(
                pattern + r"[^.\n]*?\b(?:in|from)\s+(" + PATH.pattern + r")(?::(\d+))?", line, re.I
            ):
                path, number = found.group(1).rstrip(".,;:"), found.group(2)
                number = int(number) if number else None
                if "/" not in path.rstrip("/") or path.endswith("/"):
                    continue
                if number is None and path not in on_desk:
                    return "read_file", {"path": path}
                if number is not None and not desk.shows(path, number):
                    return around(path, number)
    return None


def around(path: str, number: int) -> tuple[str, dict]:
    """The read that shows line ``number`` of ``path`` with some context: from the start of the file when the
    line is near the top, else 25 lines before it (where its function may start) and 20 after."""
    if number <= NEAR_TOP:
        return "read_file", {"path": path, "offset": 1, "limit": number + 20}
    return "read_file", {"path": path, "offset": max(1, number - 25), "limit": 45}


def lead(desk: View, goal: str) -> str | None:
    """The best Lead in view -- a line that matches the request less than a cause -- if no Cause turned up."""
    leads = [t for k, t in findings_in_view(desk, goal, leads=True) if k == "Lead"]
    return max(reversed(leads), key=lambda t: cause_strength(t, goal)) if leads else None


def in_scope(path: str, goal: str, scope: list[str]) -> bool:
    """In the listing's scope, or (when the listing in view is partial) under a folder the goal names."""
    folders = named_folders(goal)
    return path in scope or (any(path.startswith(f) for f in folders) if folders else True)
