"""How the offline model looks for the cause before, and after, reading file by file -- as an agent greps.

1. **A file the request names** (``parser.py``, ``svc/export.py``) is read first, all of it, part by part.
2. **Lookups** (``locating.lookups``): the quoted error text is searched for first (when nothing holds it,
   each half of a long one: the code may put a value in its middle), then each identifier the request names. For each search it reads around its best hits, best first: hits in the folders the
   request names before hits elsewhere in the workspace, code before tests, documents and SQL files, a hit
   that is a message string like a line of code, and for an identifier its definition (``def name``,
   ``function name``) before the lines that use it. A definition is read from its first line down, so the
   lines that raise or return in it are in view; another hit from 25 lines above it to 20 below.
3. Then the file-by-file reading of ``searching.next_file``, unless a lookup has settled the cause.
4. **Looking again** (``look_again``): with the scope read and no settled cause, it searches the request's
   distinctive words (``locating.search_terms``) and reads around their best hits; with no fix in view, it
   searches for pending SQL files, and when no search finds one it opens each SQL file of the listing.

No search is made twice (its result, a summary or the to-do line says it was done), and the hits of one
search are followed in at most ``MAX_HITS`` places (hits a few lines apart are one place): then it moves
on, and finally acts on the best it has seen. A search whose result has gone is not followed again.

Left out: searching inside one folder (the search tool covers the workspace; hits outside the named
folders simply rank lower), regular expressions, and following a hit into the functions it calls.
"""

from __future__ import annotations

import re

from stage.offline.view import View, scope_of
from stage.offline.findings import TEST_PATH, goal_terms
from stage.offline.lines import DEF
from stage.offline.locating import weigh
from stage.offline.terms import halves, lookups, search_terms
from stage.offline.searching import AROUND, around, in_scope

FIX_SEARCHES = [
    "pending",
    "not applied",
    ".sql",
]  # what it searches for when the fix is not in view
MAX_HITS = 2  # hits of one search it reads around, best first
HIT = re.compile(r"^([^:\n]+):(\d+): ?(.*)$", re.M)
FILE_IN_GOAL = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.[A-Za-z]{1,5})\b")
READ_ON = re.compile(r"to read on: offset=(\d+)\]")
MESSAGE = re.compile(
    r"""^[fFrRbB]{0,2}["'][^"']*["']?[\s,)]*$"""
)  # a hit that is a string: a message


def named_files(goal: str, listing: list[str]) -> list[str]:
    """The files of the listing the request names, by path or by name. Example: 'a bug in parser.py' ->
    ['svc/parser.py'] (when the listing holds svc/parser.py)."""
    found = []
    for name in FILE_IN_GOAL.findall(goal):
        found += [p for p in listing if p == name or p.endswith("/" + name)][:1]
    return list(dict.fromkeys(found))


def named_file_step(desk: View, goal: str, listing: list[str]):
    """Read a file the request names: from its start, then on from where the last part shown stopped."""
    seen = desk.evidence_of_reading()
    for path in named_files(goal, listing):
        if path not in seen:
            return "read_file", {"path": path}
        parts = [text for p, text in desk.file_texts() if p == path]
        more = READ_ON.search(parts[-1]) if parts else None
        if more and not desk.shows(path, int(more.group(1))):
            return "read_file", {"path": path, "offset": int(more.group(1))}
    return None


def lookup_step(desk: View, goal: str, listing: list[str]):
    """The next lookup: a search for a quote or an identifier not made yet, or a read around one of its hits."""
    found, searched, scope = goal_terms(goal), desk.searched(), scope_of(goal, listing)
    names = {i.split(".")[-1] for i in found.identifiers}
    for text in lookups(found):
        if text not in searched:
            return "search", {"text": text}
        nothing = not HIT.findall(
            searched[text] or ""
        )  # no hit, or its hits are gone from the desk
        parts = halves(text) if nothing and text in found.quotes else []  # a value sat inside it
        for half in parts:
            if half not in searched:
                return "search", {"text": half}
            step = follow(desk, goal, scope, searched[half], None)
            if step:
                return step
        step = follow(desk, goal, scope, searched[text], text if text in names else None)
        if step:
            return step
    return None


def look_again(
    desk: View, goal: str, listing: list[str], cause: str | None, fix: str | None, wants_apply: bool
):
    """The next search, or the part of a file a search points at, while the cause or the fix is missing.

    For the cause it searches what the request names, most telling first, and reads around the best hits;
    for the fix, pending SQL files, and when no search finds one (a file that says "status: not run yet"),
    each SQL file of the listing it has not read.
    """
    wanted = ([] if cause else search_terms(goal_terms(goal))) + (
        FIX_SEARCHES if wants_apply and not fix else []
    )
    searched, scope = desk.searched(), scope_of(goal, listing)
    for text in wanted:
        if text not in searched:
            return "search", {"text": text}
        if text in FIX_SEARCHES:
            on_desk = {p for p, _ in desk.file_texts()}
            hits = [p for p, _, _ in HIT.findall(searched[text] or "")]  # a pending fix counts
            path = next((p for p in hits if p.endswith(".sql") and p not in on_desk), None)
            if path:  # wherever it is
                return "read_file", {"path": path}
            continue
        step = follow(desk, goal, scope, searched[text], None)
        if step:
            return step
    if (
        wants_apply and not fix
    ):  # the searches found no pending fix: open the SQL files the listing shows
        read = desk.evidence_of_reading()
        unread = next((p for p in listing if p.endswith(".sql") and p not in read), None)
        if unread:
            return "read_file", {"path": unread}
    return None


def follow(desk: View, goal: str, scope: list[str], result: str | None, name: str | None):
    """A read around the best hit of a search result that is not on the desk now, among the best hits of its
    first ``MAX_HITS`` places (hits a few lines apart are one place: one read shows them all); None when they
    are all in view, or the result is gone. ``name``: the identifier searched for, if it was one."""
    places: list[tuple[str, int, str]] = []
    for path, number, line in ranked(HIT.findall(result or ""), goal, scope, name):
        if not any(p == path and abs(n - number) <= AROUND for p, n, _ in places):
            places.append((path, number, line))
    for path, number, line in places[:MAX_HITS]:
        if desk.shows(path, number):
            continue
        if name and defines(line, name):  # a definition: read it from its first line down
            return "read_file", {"path": path, "offset": max(1, number - 2), "limit": 50}
        return around(path, number)
    return None


def ranked(hits: list[tuple[str, str, str]], goal: str, scope: list[str], name: str | None):
    """Search hits, best first: in the named folders before elsewhere, code before tests, documents and SQL
    files (a fix is not a cause), a definition of the identifier searched for first, then the hit that
    matches the request most.

    Example: hits [('a.py', '3', 'x = 1'), ('b.py', '40', 'raise ParseError("duplicate name")')] with the goal
    quoting 'duplicate name' -> b.py:40 first
    """
    found, scored = goal_terms(goal), []
    for order, (path, number, line) in enumerate(hits):
        score = weigh(line, "", found, "act" if MESSAGE.match(line) else None)[0]
        score += weigh(path, "", found)[0]
        score += 10 if in_scope(path, goal, scope) else 0
        score -= (
            5 if TEST_PATH.search(path) or path.endswith((".md", ".txt", ".rst", ".sql")) else 0
        )
        score += 6 if name and defines(line, name) else 0
        if name and "." in (
            found_name := _qualified(found, name)
        ):  # Basket.remove: the class's own file
            score += 1 if _squash(found_name.split(".")[-2]) in _squash(path) else 0
        scored.append((-score, order, (path, int(number), line)))
    return [hit for _, _, hit in sorted(scored)]


def defines(line: str, name: str) -> bool:
    """Does this line define ``name``? Example: ('    def remove(self, value):', 'remove') -> True"""
    found = DEF.match(line)
    return bool(found) and name in (found.group(1), found.group(2))


def _qualified(found, name: str) -> str:
    return next((i for i in found.identifiers if i.split(".")[-1] == name), name)


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())
