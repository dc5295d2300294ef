"""The agent's to-do line, and the check that it is not going round in circles.

**The to-do line.** Agents keep their to-do list in view. Once it has read or searched something, the desk
model ends each note with one line saying where it is:

    Done: read up to pkg/b.py; found the cause in pkg/a.py:209; searched for x y | parse. Pending: find the fix.

* ``read up to X``: the furthest file of the listing it has read in order (not a part read for a search hit)
  -- where reading goes on, even when the reads themselves have slid off the desk
* ``found the cause in X:n``: where the cause is -- a pointer, not the finding: with the cause off the desk
  it reads around that line again before it acts (``searching.pointed``); ``the best lead in X:n`` while no
  line has settled as the cause -- read again only when nothing else is left to look at
* ``searched for ...``: every search made, so none is made twice
* ``Pending:`` what is left (``apply the fix in F`` points at the fix)

It carries no rule, no finding's text and no decision: a sliding window still drops those (lesson 02), and a
re-found cause is a re-read. Only the newest note's line counts; a summary keeps its own progress line.

**Circles.** ``cycle(calls)`` finds the repeated cycle a sequence of calls ends in (any length, the whole
sequence compared). The model checks its visible calls before each call: one that would repeat a cycle is
not made -- it takes its next option, or stops and says why. ``benchmarks.compare`` uses the same function
on a whole run, to report a run that ran out of laps in a loop as a loop.

Left out: a cycle longer than the desk shows. Under a sliding window only the to-do line remembers; a
summary that keeps neither its progress line nor a verbatim tail loses the place (the agent starts over).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

TODO = re.compile(
    r"^\W*Done: (?:read up to (\S+?)(?:; |(?=\. Pending)))?"
    r"(?:(found the cause|the best lead) in (\S+?)(?:; |(?=\. Pending)))?"
    r"(?:searched for (.+?))?\. Pending: (.+?)\.?$",
    re.M,
)


@dataclass
class ToDo:
    """What the newest to-do line says. Example: ToDo('a/b.py', 'a/c.py:9', None, ['x'], 'find the fix')"""

    upto: str | None = None
    cause_at: str | None = None
    lead_at: str | None = (
        None  # where the best candidate is, while no line has settled as the cause
    )
    searched: list[str] = field(default_factory=list)
    pending: str = ""


def todo_of(notes: list[str]) -> ToDo:
    """The newest to-do line among the agent's notes (an empty one if none is in view)."""
    for note in reversed(notes):
        found = list(TODO.finditer(note))
        if found:
            upto, which, place, searched, pending = found[-1].groups()
            cause = which == "found the cause"
            return ToDo(
                upto,
                place if cause else None,
                None if cause else place,
                searched.split(" | ") if searched else [],
                pending,
            )
    return ToDo()


def todo_line(todo: ToDo, pending: str) -> str | None:
    """The line for a note, or None when there is nothing to carry yet (reading on in order needs no note:
    the newest read shows where it is).

    Example: ToDo('a.py', None, None, ['x'], '') , 'find the cause' -> 'Done: read up to a.py; searched for
    x. Pending: find the cause.'
    """
    if not (todo.cause_at or todo.lead_at or todo.searched):
        return None
    done = [f"read up to {todo.upto}"] if todo.upto else []
    if todo.cause_at or todo.lead_at:
        done += [
            f"found the cause in {todo.cause_at}"
            if todo.cause_at
            else f"the best lead in {todo.lead_at}"
        ]
    done += [f"searched for {' | '.join(todo.searched)}"] if todo.searched else []
    return f"Done: {'; '.join(done)}. Pending: {pending}."


# ---- circles ----------------------------------------------------------------------------------------


def said(name: str, tool_input: dict) -> str:
    """One call as text, to compare calls. Example: ('search', {'text': 'x'}) -> 'search {"text": "x"}'"""
    return f"{name} {json.dumps(tool_input, sort_keys=True)}"


def cycle(calls: list[str]) -> tuple[int, int] | None:
    """(length, times) of the repeated cycle the sequence ends in -- its last ``length`` calls, made ``times``
    times in a row, at least twice -- the one that covers the most of the sequence; None if there is none.

    Example: ['a', 'b', 'c', 'b', 'c'] -> (2, 2); ['a', 'b', 'a'] -> None; 20 calls made 3 times -> (20, 3)
    """
    best = None
    for length in range(1, len(calls) // 2 + 1):
        block, times = calls[-length:], 1
        while (times + 1) * length <= len(calls) and calls[
            len(calls) - (times + 1) * length : len(calls) - times * length
        ] == block:
            times += 1
        if times >= 2 and (best is None or length * times > best[0] * best[1]):
            best = (length, times)
    return best


def would_circle(made: list[str], call: str) -> bool:
    """Would making ``call`` after the visible calls ``made`` repeat a cycle? Example: (['a', 'b', 'a'], 'b') -> True"""
    return cycle(made + [call]) is not None
