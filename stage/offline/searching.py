"""Where the desk model looks: what it can see of its findings, and where to look when one is gone.

``known`` gathers the cause and the fix from everything in view (fact lines in notes and summaries, files
on the desk, sub-agents' reports). ``next_file`` picks the next file to read. When a finding has fallen
off the desk, ``pointed`` follows a summary's pointer ("found the cause in X"), and ``look_again``
searches for every marker kind (and for pending fixes) and reads what the hits point at.

Left out: memory of its own beyond the desk. A search whose result has gone is remembered only if a
summary says it was done; a file whose read has gone counts as unread.
"""

from __future__ import annotations

import re

from stage.offline.desk import PATH, Desk, named_folders, scope_of, words
from stage.offline.findings import CAUSE_MARKERS, cause_strength, facts_in_file, facts_in_report, fix_statement

FIX_SEARCHES = ["pending", "not applied", ".sql"]             # what it searches for when the fix is not in view


def findings_in_view(desk: Desk, goal: str) -> list[tuple[str, str]]:
    """Every finding in view: fact lines, files on the desk, sub-agents' reports."""
    facts = list(desk.fact_lines())
    for path, text in desk.file_texts():
        facts += facts_in_file(path, text, goal)
    for report in desk.reports():
        facts += facts_in_report(report, goal)
    return facts


def known(desk: Desk, goal: str) -> tuple[str | None, str | None]:
    """The cause (the marked comment most related to the goal) and the fix, if they are in view."""
    facts = findings_in_view(desk, goal)
    causes = [t for k, t in facts if k == "Cause"]
    cause = max(reversed(causes), key=lambda t: cause_strength(t, goal)) if causes else None
    fixes = [t for k, t in facts if k == "Fix"]
    fix = next((f for f in reversed(fixes) if fix_statement(f)), fixes[-1] if fixes else None)
    return cause, fix


def next_file(desk: Desk, goal: str, listing: list[str]) -> str | None:
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
                        if (path == hinted or path.startswith(hinted.rstrip("/") + "/")) and path not in seen:
                            return path
    furthest = max((i for i, p in enumerate(scope) if p in own), default=-1)   # its own reading only
    return next((p for p in scope[furthest + 1:] if p not in seen), None)


def look_again(desk: Desk, goal: str, listing: list[str], cause: str | None, wants_apply: bool):
    """The next search (or the file a search points at) when the cause or the fix is not in view."""
    wanted = ([] if cause else list(CAUSE_MARKERS)) + (FIX_SEARCHES if wants_apply else [])
    on_desk = {p for p, _ in desk.file_texts()}
    searched = desk.searched()
    scope = scope_of(goal, listing)
    for text in wanted:
        if text not in searched:
            return "search", {"text": text}
        for path in dict.fromkeys(re.findall(r"^([^:\n]+):\d+:", searched[text] or "", re.M)):
            if in_scope(path, goal, scope) and path not in on_desk:
                return "read_file", {"path": path}
    return None


def pointed(desk: Desk, cause: str | None, fix: str | None, wants_apply: bool) -> str | None:
    """A file a summary names as holding the missing cause or fix ("found the cause in X"), not on the desk now."""
    on_desk = {p for p, _ in desk.file_texts()}
    wanted = [r"\bcause\b"] if not cause else ([r"\bfix\b"] if wants_apply and not fix else [])
    for text in desk.summaries:
        for pattern in wanted:
            for found in re.finditer(pattern + r"[^.\n]*?\b(?:in|from)\s+(" + PATH.pattern + ")", text, re.I):
                path = found.group(1).rstrip(".,;")
                if path not in on_desk and "/" in path:
                    return path
    return None


def lead(desk: Desk, goal: str) -> str | None:
    """An unmarked comment that points at the goal, if nothing marked did."""
    leads = [t for k, t in findings_in_view(desk, goal) if k == "Lead"]
    return max(reversed(leads), key=lambda t: cause_strength(t, goal)) if leads else None


def in_scope(path: str, goal: str, scope: list[str]) -> bool:
    """In the listing's scope, or (when the listing in view is partial) under a folder the goal names."""
    folders = named_folders(goal)
    return path in scope or (any(path.startswith(f) for f in folders) if folders else True)
