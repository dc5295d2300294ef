"""What the offline model writes in its notes: what it just noticed, the user's decisions, its to-do line.

* ``fresh_notes``: the facts of the newest file read (or sub-agent report) -- ``Cause:``, ``Lead:``, ``Fix:``,
  ``Noticed:`` lines, jotted once, when the read comes in -- and a ``Decision:`` line for a decision the user
  stated that its notes do not carry yet. Leads are jotted only while no cause is in view.
* ``todo``: its to-do list after the call it is making (``progress``): where reading in order has got
  (only when the call itself does not show it), where the cause is, every search made.
* ``pending``: what is left, in a few words.

Left out: rewriting an old note. What it jotted stays as it was; a newer note says what changed.
"""

from __future__ import annotations

import re

from harness.messages import result_text
from stage.offline.decisions import decision_note, decisions_in
from stage.offline.view import View, sentences
from stage.offline.findings import facts_in_file, facts_in_report
from stage.offline.progress import ToDo, todo_of
from stage.offline.searching import known, lead


def fresh_notes(desk: View, goal: str) -> list[str]:
    """Notes on the newest file read (or report received), if it is on the desk and not yet noted; and a
    Decision line for a decision the user stated that its notes do not carry yet."""
    return decision_notes(desk) + reading_notes(desk, goal)


def decision_notes(desk: View) -> list[str]:
    noted = {pair for text in desk.notes + desk.summaries for pair in decisions_in(text)}
    fresh = []
    for text in desk.user_texts:
        for sentence in sentences(text):
            fresh += [
                decision_note(chosen, passed, f"the user said: {sentence}")
                for chosen, passed in decisions_in(sentence)
                if (chosen, passed) not in noted
            ]
    return list(dict.fromkeys(fresh))


def reading_notes(desk: View, goal: str) -> list[str]:
    if not desk.calls:
        return []
    use, result = desk.calls[-1]
    if use["name"] not in ("read_file", "delegate") or not result:
        return []
    text = result_text(result)
    if not text.strip() or text.startswith(("Error:", "[cleared")):
        return []
    if use["name"] == "delegate":  # keep the report's facts, and which files it covered
        files = [
            line.strip() for line in text.splitlines() if line.strip().startswith("Files read:")
        ]
        return [f"{kind}: {fact}" for kind, fact in facts_in_report(text, goal)] + files[:1]
    leads = not known(desk, goal)[
        0
    ]  # weaker candidates: worth a note only while no cause is in view
    return [
        f"{kind}: {fact}" for kind, fact in facts_in_file(use["input"]["path"], text, goal, leads)
    ]


def todo(desk: View, name: str, tool_input: dict) -> ToDo:
    """The to-do list after this call: the last one in view, brought up to date with what is on the desk.

    Example: the last line says 'searched for x', this call searches 'y' -> ToDo(searched=['x', 'y'], ...)
    """
    old, goal = todo_of(desk.notes), desk.goal() or ""
    calls = [(use["name"], use["input"]) for use, _ in desk.calls] + [(name, tool_input)]
    whole = [i["path"] for n, i in calls if n == "read_file" and "offset" not in i and "path" in i]
    order = {p: i for i, p in enumerate(desk.listing() or [])}
    upto = max([old.upto] * bool(old.upto) + whole, key=lambda p: order.get(p, -1), default=None)
    searched = old.searched + [i.get("text", "") for n, i in calls if n == "search"]
    cause = known(desk, goal)[0]
    best = None if cause else lead(desk, goal)
    cause_at = _place(cause) if cause else old.cause_at
    lead_at = None if cause_at else (_place(best) if best else old.lead_at)
    in_order = name == "read_file" and "offset" not in tool_input  # the call shows where it is
    return ToDo(None if in_order else upto, cause_at, lead_at, list(dict.fromkeys(searched)), "")


def _place(fact: str) -> str:
    """'path:line' of a finding. Example: 'a.py:3 (f) — raise E()' -> 'a.py:3'"""
    return re.sub(r" \(.*", "", fact.split(" — ")[0])


def pending(desk: View, name: str) -> str:
    """What is left, in a few words: find the cause, find the fix, apply the fix in F, report back."""
    cause, fix = known(desk, desk.goal() or "")
    if name == "run_sql":
        return "report back"
    if fix:
        return f"apply the fix in {fix.split(' ')[0]}"
    return "find the fix" if cause else "find the cause"
