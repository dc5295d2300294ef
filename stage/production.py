"""Lesson 05's link to production: the class's agent making the moves the products make, under their names.

* ``last_summary(run)`` -- the summary on the desk at the end of a run (a compaction's card or the running
  summary's minutes): what ``promote`` copies the standing constraints from;
* ``MEMORY_FILES`` and ``under_each_name(text, folder)`` -- the same memory text written under the file
  name each product reads (Claude Code's ``CLAUDE.md``, pi's ``AGENTS.md``, a Cursor rule under
  ``.cursor/rules/``), so one loader can be shown reading all three;
* ``compacting(lap)`` -- the line a product shows while it compacts ("compacting…"), printed from the
  lap record when a lap compacted; pass it to ``run_agent(on_lap=...)``.

Left out: anything a product does beyond what lesson 05 cites (a Cursor rule's header lines, Claude
Code's imports and per-folder files): the point is the move, not a product's file format.
"""

from __future__ import annotations

from pathlib import Path

from harness.laps import Did, Lap, Run
from stage.classroom import say

# The file each product reads into every session's prompt, as lesson 05's table names it.
MEMORY_FILES = {
    "Claude Code": "CLAUDE.md",
    "pi": "AGENTS.md",
    "Cursor": ".cursor/rules/project.mdc",
}


def last_summary(run: Run) -> str:
    """The newest summary any lap of the run recorded ("" when nothing was ever summarized).

    Example: a running summary's run -> "Goal: ...\\nStanding constraints:\\n- Never touch production..."
    """
    return next((lap.summary for lap in reversed(run.laps) if lap.summary), "")


def under_each_name(text: str, folder: str | Path) -> dict[str, Path]:
    """Write ``text`` under each product's memory file name inside ``folder``; {product: path}.

    Example: under_each_name("- Never touch production.", tmp) -> {"Claude Code": tmp/"CLAUDE.md", ...}
    """
    written = {}
    for product, name in MEMORY_FILES.items():
        path = Path(folder) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written[product] = path
    return written


def compacting(lap: Lap) -> None:
    """Print the pause a product shows while it compacts, for a lap that compacted (else nothing).

    Example: lap 6 compacted on demand -> "lap 6: compacting… (compacted 8 messages into one summary (on
    demand: focus on the database fix))"
    """
    if lap.kind == Did.COMPACT:
        say(f"lap {lap.number}: compacting… ({lap.event})")
