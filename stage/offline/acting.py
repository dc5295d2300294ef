"""How the offline model ends a task: it answers, or it runs the fix -- never a fix it cannot explain.

* ``answer``: "Done. The cause: ..." -- and, when the request asks for defects, every other one in view.
* ``apply``: the statement is one the workspace gives (a pending file's, a named script's, the cause
  comment's own repair); a correction in view changes a name in it (``corrections``); the target is the
  tool's default unless a rule in view rules it out (``rules``); of several pending fixes it notes which it
  took and why (``decisions``). The cause it acts on goes into that last note, so the report can name it.
* ``finish``: after the fix, it saves the rules to memory if the system prompt asks it to, then reports.
* ``give_up``: with nothing left to look at and no cause, it applies nothing and says why.

Each returns a ``Step``: the note's lines, and the tool call to make (none: the lines are the answer).
Left out: undoing a fix, and running anything but the one statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stage.offline.corrections import apply_corrections
from stage.offline.decisions import decision_note
from stage.offline.view import View
from stage.offline.findings import asks_for_defects, numbered
from stage.offline.fixes import fix_statement, repair_in, sql_body
from stage.offline.progress import todo_of
from stage.offline.searching import findings_in_view

NO_FIX = (
    "Nothing applied: no pending fix is in view (no SQL file marked as not yet run, no repair named "
    "for this goal), and I do not write SQL of my own."
)


@dataclass
class Step:
    """What the model does now: the lines of its note, and a tool call -- or, with no ``name``, an answer."""

    lines: list[str]
    name: str | None = None
    tool_input: dict | None = None


def answer(desk: View, goal: str, cause: str) -> list[str]:
    """'Done. The cause: ...' -- and, when the request asks for defects, every other one in view."""
    others = []
    if asks_for_defects(goal):
        others = [t for k, t in findings_in_view(desk, goal) if k == "Cause" and t != cause]
    return [f"Done. The cause: {cause}."] + [f"Also: {t}" for t in dict.fromkeys(others)]


def apply(desk: View, note: list[str], cause: str, fix: str | None) -> Step:
    """Run the fix on the target the rules in view leave (the tool's default when none rules it out)."""
    statement = fix_statement(fix) if fix else repair_in(cause)
    if fix and statement is None:  # a script named by the docs: its text, once read
        script = fix.split(" ")[0]
        text = next((t for p, t in desk.file_texts() if p == script), None)
        if text is None:
            return Step(note, "read_file", {"path": script})
        statement = sql_body(numbered(text)) or None
    if not statement:
        return Step(
            note
            + [
                f"Done. The cause: {cause}. Nothing applied: the fix in view ({fix}) holds no "
                "statement I can run."
            ]
        )
    statement = apply_corrections(statement, desk.corrections())
    target = desk.target()
    if target is None:
        rules = "; ".join(desk.rules())
        return Step(
            note
            + [
                f"The fix is ready, but the rules in view rule out every target "
                f"({', '.join(desk.targets)}): {rules}. I will not run it."
            ]
        )
    acted_on = [] if cause in "\n".join(note) else [f"Cause: {cause}"]  # the report will name it
    return Step(
        note + acted_on + own_decision(desk, fix),
        "run_sql",
        {"target": target, "statement": statement},
    )


def own_decision(desk: View, fix: str | None) -> list[str]:
    """A Decision note when it picks one of several pending fixes itself (no decision in view to follow)."""
    files = {t.split(" ")[0] for k, t in findings_in_view(desk, desk.goal() or "") if k == "Fix"}
    chosen = (fix or "").split(" ")[0]
    others = sorted(files - {chosen})
    if not others or any(c for c, _ in desk.decisions()):
        return []
    why = "both are pending; this one matches the goal as well or better and comes first in order"
    return [decision_note(chosen, others[0], why)]


def finish(desk: View, note: list[str], cause: str | None, applied: dict, tools: set[str]) -> Step:
    """After the fix: save the rules to memory if the system prompt asks for it, then report."""
    if "remember" in tools and re.search(r"\bremember\b", desk.system, re.I):
        saved = {use["input"].get("fact") for use, _ in desk.calls if use["name"] == "remember"}
        for rule in desk.rules():
            if rule not in desk.system and rule not in saved:
                return Step(note, "remember", {"fact": rule})
    where, default = applied.get("target"), desk.default_target
    why = f" (a rule in view rules out {default})" if default and where != default else ""
    cause = cause or todo_of(desk.notes).cause_at or "not in view any more"
    return Step(
        note + [f"Done. Cause: {cause}. Applied `{applied.get('statement')}` on {where}{why}."]
    )


def give_up(note: list[str], fix: str | None) -> Step:
    """No cause anywhere in view, nothing left to look at: apply nothing, and say why."""
    if fix:
        said = (
            f"A fix is in view ({fix.split(' ')[0]}), but no cause: I do not apply a fix I cannot "
            "explain. Nothing applied."
        )
    else:
        said = (
            "I have read every file in scope and searched for what the request names, "
            "and cannot find what the goal needs. Nothing applied."
        )
    return Step(note + [said])
