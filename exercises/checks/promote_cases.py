"""Summaries and memory files for ``promote``: made up so that the check knows what must be added.

A case is a summary (its sections in any order, the standing constraints anywhere or nowhere, a rule
listed twice, a bullet under another heading that says "never", a blank line that ends the section
before a stray bullet) and a memory file (none yet, empty, with or without a newline at the end,
holding some rules already -- with their dash, without it, or as a longer or shorter line). The
rules come from a pool written for this check: some hold characters a regular expression treats
specially, letters outside ASCII, quotes and backticks.

What promote must add follows from the case itself (``to_add``): the bullets under the heading, in
order, once each, less those the file already holds as whole lines.

Left out: headings written another way ("Constraints:", "STANDING CONSTRAINTS") and indented bullets;
the task does not say what they mean.
"""

from __future__ import annotations

from dataclasses import dataclass

import hypothesis.strategies as st

from .common import GOALS

HEADING = "Standing constraints:"
RULE_POOL = [
    "Never touch production: run database changes on staging only.",
    "Do not edit files under migrations/ that have already run.",
    "Only use the public API in app/api/; never call the database from a handler.",
    "Always run `pytest tests/` before saying a change is done.",
    "No new dependencies without asking first.",
    "Schema changes go through a new migration file.",  # a rule with none of the usual keywords
    "Café names keep their accents: naïve ASCII folding breaks the menu export.",
    "Keep `*.sql` files in migrations/ (never anywhere else).",
    "Ne touchez jamais à la production : tout passe par staging.",
    "Prices are stored in cents [integers]; no floats, ever?",
    'Write "staging" in every commit message that touches the database.',
    "Ask before deleting anything under docs/.",
]
MEMORY_POOL = [
    "- Ledgerly is a small invoicing API (Python 3.11, Postgres).",
    "- Sign-in lives in app/auth.py; data fixes are SQL files in migrations/.",
    "- A pending migration has `-- status: pending` on its second line.",
    "- Billing lives in app/billing.py; see docs/billing.md.",
    "Run the tests with `pytest tests/`.",  # a memory line written without a dash
]


def near(rule: str, longer: bool) -> str:
    """A memory line that holds ``rule`` and more, or only the start of it: another line all the same."""
    if longer:
        return f"- {rule} Ask first if unsure."
    return "- " + " ".join(rule.split()[:3])


def bare(line: str) -> str:
    """A memory line without its leading '- ' and outer spaces: how two lines are compared."""
    line = line.strip()
    return line[2:].strip() if line.startswith("- ") else line


@dataclass
class PromoteCase:
    summary: str
    existing: list[str] | None  # the memory file's lines; None: no file yet
    newline: bool = True  # does the file end with a newline?
    as_str: bool = False  # is memory_path given as a str (else a Path)?
    rules: list[str] | None = None  # the bullets under the heading, bare, as listed
    where: str = ""  # a hand-written case, in a few words

    def file_text(self) -> str | None:
        if self.existing is None:
            return None
        text = "\n".join(self.existing)
        return text + "\n" if self.newline and self.existing else text

    def to_add(self) -> list[str]:
        """The lines promote must append, in order: each bullet once, unless the file holds it."""
        held = {bare(line) for line in self.existing or []}
        added = []
        for rule in self.rules or []:
            if rule not in held:
                added.append(f"- {rule}")
                held.add(rule)
        return added


def summary_text(goal: str, rules: list[str], order: int, extras: int) -> str:
    """A summary in the harness's shape: headed sections; the constraints first, in the middle, last,
    or (``order`` 3) missing. ``extras`` bits: 1, a "never" bullet under Facts; 2, a blank line after
    the constraints and a stray bullet after it; 4, one rule listed twice."""
    facts = [
        "Facts:",
        "- Cause: app/auth.py:40 — FIXME: case-sensitive email match",
        "- Noticed: app/db.py:25 — the nightly export never includes its first row",
    ]
    if extras & 1:
        facts.append("- Never seen: a test that logs in with capitals (a fact, not a rule)")
    listed = list(rules)
    if extras & 4 and listed:
        listed.insert(1, listed[0])
    section = [HEADING] + [f"- {rule}" for rule in listed]
    if extras & 2:
        section += ["", "- A stray bullet after a blank line: not a standing constraint."]
    progress = [
        "Files read: app/auth.py, app/db.py, migrations/003_lowercase_emails.sql",
        "Done / pending:",
        "- Done: read 3 files. Pending: apply the pending fix.",
    ]
    sections = [[section, facts, progress], [facts, section, progress], [facts, progress, section]]
    chosen = sections[order] if order < 3 else [facts, progress]
    return "\n".join([f"Goal: {goal}"] + [line for part in chosen for line in part])


@st.composite
def promote_cases(draw):
    """A made-up summary and memory file (see the module's docstring)."""
    rules = draw(st.lists(st.sampled_from(RULE_POOL), max_size=4, unique=True))
    order = draw(st.integers(0, 3)) if rules else 3
    extras = draw(st.integers(0, 7))
    state = draw(st.sampled_from(("lines", "none", "empty")))
    existing = None if state == "none" else [] if state == "empty" else []
    if state == "lines":
        existing = draw(st.lists(st.sampled_from(MEMORY_POOL), max_size=3, unique=True))
        for rule in rules:
            kind = draw(st.integers(0, 4))  # 1: held with its dash, 2: without, 3-4: a near line
            if kind:
                line = [f"- {rule}", rule, near(rule, True), near(rule, False)][kind - 1]
                existing.insert(draw(st.integers(0, len(existing))), line)
    listed = list(rules)
    if extras & 4 and listed:
        listed.insert(1, listed[0])
    summary = summary_text(GOALS[draw(st.integers(0, len(GOALS) - 1))], rules, order, extras)
    return PromoteCase(
        summary,
        existing,
        newline=draw(st.booleans()) if existing else True,
        as_str=draw(st.booleans()),
        rules=listed if order < 3 else [],
    )


def show_promote_case(case: PromoteCase) -> list[str]:
    lines = [case.where] if case.where else []
    lines += ["summary ="] + [f"  | {line}" for line in case.summary.splitlines()]
    if case.existing is None:
        lines.append("memory file: none yet")
    elif not case.existing:
        lines.append("memory file: empty")
    else:
        ending = "" if case.newline else " (no newline at the end)"
        lines.append(f"memory file{ending} =")
        lines += [f"  | {line}" for line in case.existing]
    lines.append(f"memory_path given as a {'str' if case.as_str else 'Path'}")
    return lines
