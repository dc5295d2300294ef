"""Sub-agents: when the offline model hands a folder to a sub-agent, and how it works as one.

* **Handing out.** When a ``delegate`` tool is among the tools it is sent and the goal's scope holds more
  than ``DELEGATE_ABOVE`` files, it does not read them itself: it hands out one folder at a time ("Read every
  file under app/ and report what you notice.") and works from the reports that come back, judging each
  reported line against its own goal as if it had read it (``findings.facts_in_report``).
* **Reporting.** A goal that asks it to read every file under a folder and report (a sub-agent's task) is
  worked to the end of the folder, then answered with ``Files read:`` and every ``Cause:``/``Fix:``/
  ``Noticed:`` line it can see -- nothing else.

Left out: sub-agents of sub-agents, and handing out anything but whole folders.
"""

from __future__ import annotations

import re

from stage.offline.view import View, folders_to_hand_out, scope_of
from stage.offline.findings import facts_in_file
from stage.offline.searching import next_file

DELEGATE_ABOVE = 6  # with a delegate tool, scopes bigger than this are handed out folder by folder
SURVEY = re.compile(r"\bread (?:every|each|all)(?: the)? files?\b.*\breport", re.I)


def folder_to_delegate(desk: View, goal: str, listing: list[str], tools: set[str]) -> str | None:
    """The next folder to hand to a sub-agent, or None to read on by itself.

    Only when ``delegate`` is offered and the scope is bigger than it wants to read
    (``DELEGATE_ABOVE`` files). A folder is done once a visible call names it or its files are covered.
    """
    scope = scope_of(goal, listing)
    if "delegate" not in tools or len(scope) <= DELEGATE_ABOVE:
        return None
    asked = " ".join(
        use["input"].get("task", "") for use, _ in desk.calls if use["name"] == "delegate"
    )
    seen = desk.evidence_of_reading() | desk.delegated()
    for folder in folders_to_hand_out(goal, listing):
        if folder in asked.split() or all(p in seen for p in scope if p.startswith(folder)):
            continue
        return folder
    return None


def delegate_step(desk: View, goal: str, listing: list[str], tools: set[str]):
    """The call that hands the next folder to a sub-agent, or None."""
    folder = folder_to_delegate(desk, goal, listing, tools)
    if folder is None:
        return None
    return "delegate", {"task": f"Read every file under {folder} and report what you notice."}


def survey_step(desk: View, goal: str):
    """A sub-agent's next call: list the files, then read the scope in order; None when all is read."""
    listing = desk.listing()
    if listing is None:
        return "list_files", {}
    path = next_file(desk, goal, listing)
    return ("read_file", {"path": path}) if path else None


def report(desk: View, goal: str, note: list[str]) -> str:
    """A sub-agent's report: how many files of the scope it read, which, and every fact it can see."""
    scope = scope_of(goal, desk.listing() or [])
    seen = desk.evidence_of_reading() | desk.delegated()
    read = [p for p in scope if p in seen]
    facts = [f"{k}: {t}" for k, t in desk.fact_lines()] + note[1:]
    for path, text in desk.file_texts():
        facts += [f"{k}: {t}" for k, t in facts_in_file(path, text, goal)]
    lines = [f"Report: read {len(read)} of {len(scope)} files.", "Files read: " + ", ".join(read)]
    return "\n".join(lines + (list(dict.fromkeys(facts)) or ["Nothing worth noting."]))
