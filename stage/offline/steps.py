"""The offline model's next call: its options, best first, and the checks every call must pass.

Each lap it goes down this list and makes the first call that passes the checks:

1. look again at a read a summary says was made just before it and never examined (once)
2. follow a pointer to a lost finding (a summary's "found the cause in X", the to-do line's "X:n"); read
   on around a cause that sits on the last line of the part it was read in
3. list the files, when no listing is in view
4. hand a folder to a sub-agent (``delegating``), when it has one to delegate to
5. while the cause is not settled (``searching.settled``): read a file the request names, then the lookups
   -- search the quoted error text, then the identifiers, and read around their best hits (``looking``)
6. read the next file of the scope, in listing order (the file-reading task of the lessons)
7. look again: search the request's words, then for pending fixes, and read around the hits

**The checks.** A call whose result (or error) is still on the desk is not made again (``tried``), and a
call that would make the visible calls repeat a cycle is not made (``progress.would_circle``): it goes on
down the list. When nothing passes, the model acts on the best it has (re-reading the best lead its to-do
line points at, if that has gone: ``lost_lead``) -- or says why it cannot.

Left out: planning ahead. It never weighs two options against each other; the order above is the plan.
"""

from __future__ import annotations

import re

from harness.messages import result_text
from stage.offline.delegating import delegate_step
from stage.offline.view import View
from stage.offline.findings import goal_terms
from stage.offline.terms import lookups
from stage.offline.looking import look_again, lookup_step, named_file_step
from stage.offline.progress import said, todo_of, would_circle
from stage.offline.searching import around, next_file, pointed, settled


def options(desk: View, goal: str, cause, fix, wants_apply: bool, tools: set[str]):
    """The calls worth making now, best first (computed one at a time, see the module docstring)."""
    yield reexamine(desk)
    yield pointed(desk, cause, fix, wants_apply)
    yield at_the_edge(desk, cause)
    listing = desk.listing()
    if listing is None:
        yield "list_files", {}
        return
    yield delegate_step(desk, goal, listing, tools)
    done = settled(cause, goal)
    if not done:
        yield named_file_step(desk, goal, listing)
        yield lookup_step(desk, goal, listing)
    path = None if looking_again(desk, goal) and (cause or fix) else next_file(desk, goal, listing)
    yield ("read_file", {"path": path}) if path else None
    yield look_again(desk, goal, listing, cause if done else None, fix, wants_apply)


def next_call(desk: View, goal: str, cause, fix, wants_apply: bool, tools: set[str]):
    """(the first option that passes the checks, whether an option was passed over for going in circles)."""
    made, circling = [said(use["name"], use["input"]) for use, _ in desk.calls], False
    for step in options(desk, goal, cause, fix, wants_apply, tools):
        if not step or tried(desk, *step):
            continue
        if would_circle(made, said(*step)):
            circling = True
            continue
        return step, circling
    return None, circling


def looking_again(desk: View, goal: str) -> bool:
    """Has it begun to look again (a search that is not one of the lookups)? Then reading in order is over."""
    first = set(lookups(goal_terms(goal)))
    return any(text not in first for text in desk.searched())


def at_the_edge(desk: View, cause: str | None):
    """A cause on the last line shown of a part of a file: read around it, so what follows it (the rest of its
    comment, the code it describes) is in view too. Example: cause a.py:147, lines 103-147 of 300 shown."""
    if not cause:
        return None
    place = re.match(r"(\S+):(\d+)", cause)
    if not place or not desk.shows(place[1], int(place[2])):
        return None
    path, number = place[1], int(place[2])
    more = any(
        "[lines " in text and f"-{number} of " in text for p, text in desk.file_texts() if p == path
    )
    return around(path, number) if more and not desk.shows(path, number + 1) else None


def lost_lead(desk: View):
    """A read around the best lead the to-do line points at, when it is off the desk (None otherwise): what
    it does when nothing else is left to look at, so that it acts on the best candidate it saw."""
    place = re.match(r"(\S+):(\d+)$", todo_of(desk.notes).lead_at or "")
    if not place or desk.shows(place[1], int(place[2])):
        return None
    return around(place[1], int(place[2]))


def reexamine(desk: View):
    """The read a summary says was made just before it and never examined (no verbatim tail kept it): the
    agent has not seen it, so it reads it again -- once. Summarized unseen a second time, it moves on."""
    flagged = desk.unexamined()
    if not flagged or flagged[3] >= 2:
        return None
    path, first, last, _ = flagged
    return "read_file", {
        "path": path,
        **({} if first is None else {"offset": first, "limit": last - first + 1}),
    }


def tried(desk: View, name: str, tool_input: dict) -> bool:
    """Is this exact call on the desk already, failed or with its result still in view? Then it is not made again.

    Example: read_file {"path": "app/"} failed two laps ago and its error is in view -> True (do something else).
    """
    return any(
        use["name"] == name
        and use.get("input") == tool_input
        and result is not None
        and (
            failed(result)
            or (result_text(result).strip() and not result_text(result).startswith("[cleared"))
        )
        for use, result in desk.calls
    )


def failed(result: dict) -> bool:
    return bool(result.get("is_error")) or result_text(result).startswith("Error:")
