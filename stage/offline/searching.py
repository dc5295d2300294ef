"""Where the desk model looks: what it can see of its findings, and where to look when one is missing.

``known`` gathers the cause and the fix from everything in view (fact lines in notes and summaries, files
on the desk, sub-agents' reports). ``next_file`` picks the next file to read. When a finding is missing,
``pointed`` follows a summary's pointer ("found the cause in X"), and ``look_again`` searches the workspace
for what the request names (its quotes, identifiers and distinctive words: ``locating.search_terms``) and
for pending fixes, then reads the code around the best hit it has not seen yet.

Left out: memory of its own beyond the desk. A search whose result has gone is remembered only if a
summary says it was done; a file whose read has gone counts as unread.
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
from stage.offline.locating import search_terms, weigh

FIX_SEARCHES = [
    "pending",
    "not applied",
    ".sql",
]  # what it searches for when the fix is not in view
AROUND = 15  # a search hit is read with this many lines before it, and twice as many after
NEAR_TOP = 100  # ... unless it is this near the top of a file not in view: then the file is opened
HIT = re.compile(r"^([^:\n]+):(\d+): ?(.*)$", re.M)


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


def next_file(desk: View, goal: str, listing: list[str]) -> str | None:
    """The file to read next: hinted files first, then the listing after the furthest read."""
    scope = scope_of(goal, listing)
    own = desk.evidence_of_reading()
    seen = own | desk.delegated()
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
    furthest = max((i for i, p in enumerate(scope) if p in own), default=-1)  # its own reading only
    return next((p for p in scope[furthest + 1 :] if p not in seen), None)


def look_again(
    desk: View, goal: str, listing: list[str], cause: str | None, fix: str | None, wants_apply: bool
):
    """The next search, or the part of a file a search points at, while the cause or the fix is missing.

    For the cause it searches what the request names, most telling first, and reads around the hit that
    matches the request most, among lines it cannot see now; for the fix, pending SQL files, and when no
    search finds one (a file that says "status: not run yet"), each SQL file of the listing it has not read.
    """
    wanted = ([] if cause else search_terms(goal_terms(goal))) + (
        FIX_SEARCHES if wants_apply and not fix else []
    )
    searched, scope = desk.searched(), scope_of(goal, listing)
    for text in wanted:
        if text not in searched:
            return "search", {"text": text}
        hits = [
            (p, int(n), line)
            for p, n, line in HIT.findall(searched[text] or "")  # a pending fix counts
            if text in FIX_SEARCHES or in_scope(p, goal, scope)
        ]  # wherever it is
        if text in FIX_SEARCHES:
            on_desk = {p for p, _ in desk.file_texts()}
            path = next((p for p, _, _ in hits if p.endswith(".sql") and p not in on_desk), None)
            if path:
                return "read_file", {"path": path}
            continue
        hit = best_hit(hits, goal, desk.lines_in_view())
        if hit and (
            hit[1] <= NEAR_TOP and hit[0] not in desk.lines_in_view()
        ):  # near the top: open the file
            return "read_file", {"path": hit[0]}
        if hit:  # further down: go to the line
            return "read_file", {
                "path": hit[0],
                "offset": max(1, hit[1] - AROUND),
                "limit": 3 * AROUND,
            }
    if (
        wants_apply and not fix
    ):  # the searches found no pending fix: open the SQL files the listing shows
        read = desk.evidence_of_reading()
        unread = next((p for p in listing if p.endswith(".sql") and p not in read), None)
        if unread:
            return "read_file", {"path": unread}
    return None


def best_hit(hits: list[tuple[str, int, str]], goal: str, in_view: dict[str, list[range]]):
    """The search hit that matches the request most, among lines not on the desk now (None if all are).

    Example: hits [('a.py', 3, 'x = 1'), ('b.py', 40, 'raise ParseError(..."duplicate name")')] -> ('b.py', 40, ...)
    """
    found, best = goal_terms(goal), None
    for path, number, line in hits:
        if any(number in shown for shown in in_view.get(path, [])):
            continue
        score = weigh(line, "", found)[0] + weigh(path, "", found)[0]
        if score and (best is None or score > best[0]):
            best = (score, (path, number, line))
    return best[1] if best else None


def pointed(desk: View, cause: str | None, fix: str | None, wants_apply: bool) -> str | None:
    """A file a summary names as holding the missing cause or fix ("found the cause in X"), not on the desk now.

    Only files: a folder is where to look, not a finding; and the goal's own words ("find the cause in app/")
    are not a pointer.
    """
    on_desk = {p for p, _ in desk.file_texts()}
    wanted = [r"\bcause\b"] if not cause else ([r"\bfix\b"] if wants_apply and not fix else [])
    for text in desk.summaries:
        for line in text.splitlines():
            if re.match(r"^\W*(Goal|Task):", line):
                continue
            for pattern in wanted:
                for found in re.finditer(
                    pattern + r"[^.\n]*?\b(?:in|from)\s+(" + PATH.pattern + ")", line, re.I
                ):
                    path = found.group(1).rstrip(".,;:")
                    if path not in on_desk and "/" in path.rstrip("/") and not path.endswith("/"):
                        return path
    return None


def lead(desk: View, goal: str) -> str | None:
    """The best Lead in view -- a line that matches the request less than a cause -- if no Cause turned up."""
    leads = [t for k, t in findings_in_view(desk, goal, leads=True) if k == "Lead"]
    return max(reversed(leads), key=lambda t: cause_strength(t, goal)) if leads else None


def in_scope(path: str, goal: str, scope: list[str]) -> bool:
    """In the listing's scope, or (when the listing in view is partial) under a folder the goal names."""
    folders = named_folders(goal)
    return path in scope or (any(path.startswith(f) for f in folders) if folders else True)
