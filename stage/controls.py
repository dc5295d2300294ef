"""Controls: the same run with one thing taken away, so each claim of a lesson is something the class sees.

Each control changes one input and leaves the model alone; what differs between the two runs is what the
model did with what it was sent.

* **The pinned head** (lesson 03). ``without_head(split)`` is the class's split with its head moved into
  the middle, so the request is summarized with the rest. Under a vague summary prompt the rule given in
  the request goes with it, and the fix goes to production; pinned, the rule is on every desk.
* **The verbatim tail** (lesson 03). ``fix_out_of_sight(folder)`` is the workspace's task with the folder
  of the fix left out of the request, so the agent has to *search* for the fix; ``compacting_often`` makes
  the desk compact every other lap, as a small desk or ``/compact`` can. With no tail, the search's result
  is summarized before the agent has read it; the summary says the search was made, not what it found, so
  the agent acts on a stale picture: it never runs the fix. ``after_the_search(run)`` says what happened.
* **The memory** (lesson 05). ``stale_memory(text)`` is a CLAUDE.md whose rule line is as it read last
  quarter ("every database change goes to production"): the model obeys memory whatever it says.

Left out: controls for pieces the model cannot show (it follows its rules as well on a full desk as on an
empty one, so "too much context" is lesson 06's simulation, not a control here).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from harness.compaction import ThreeZoneCompaction
from harness.laps import Run
from harness.tools import WORKSPACE
from harness.messages import tool_results, tool_uses
from stage.tasks import Task, workspace_task

# ---- the pinned head --------------------------------------------------------------------------------


def without_head(split):
    """The split with its head moved into the middle: nothing is pinned, the request is summarized too.

    Example: split -> ([request], [a1, r1], [a2, r2]); without_head(split) -> ([], [request, a1, r1], [a2, r2])
    """

    def split_without_head(history, tail_turns):
        head, middle, tail = (list(part) for part in split(history, tail_turns))
        return [], head + middle, tail

    return split_without_head


# ---- the verbatim tail ------------------------------------------------------------------------------

EVERY_OTHER_LAP = range(3, 10_000, 2)  # compact at laps 3, 5, 7, ...


def compacting_often(split=None, tail_turns: int = 2, **settings) -> ThreeZoneCompaction:
    """Three-zone compaction that compacts every other lap, whatever the size (a tiny desk would too).

    Example: compacting_often(tail_turns=0) summarizes everything after the head at laps 3, 5, 7, ...
    """
    return ThreeZoneCompaction(
        tail_turns=tail_turns,
        split=split,
        on_demand={lap: "" for lap in EVERY_OTHER_LAP},
        **settings,
    )


def fix_out_of_sight(folder: str | Path = WORKSPACE, rule_at_lap: int | None = None) -> Task:
    """The workspace's task with the fix's folder taken out of the request, so the agent must search for it.

    A workspace whose fix is not a file in a folder the request names raises a clear ValueError.
    Example: ledgerly -> "... Find the cause in the code under app/, then apply the pending fix ..."
    """
    folder = Path(folder)
    task = workspace_task(folder, rule_at_lap)
    spec = tomllib.loads((folder / ".task.toml").read_text(encoding="utf-8"))
    fix = str(spec.get("fix") or "")
    top = fix.split("/")[0] + "/" if "/" in fix else ""
    named = re.compile(r"(?:\s+and|,)?\s+" + re.escape(top) + r"(?=[\s,.;])")
    if not top or not named.search(task.request):
        raise ValueError(
            f"{folder.name}'s fix ({fix or 'none'}) is not a file in a folder its request names; "
            "there is nothing to take out of sight."
        )
    task.request = named.sub("", task.request, count=1)
    return task


def after_the_search(run: Run) -> str:
    """What the run did right after it first searched: read a hit, or lose the hits to a compaction.

    Example: -> "searched at lap 30; lap 31's compaction summarized the hits before they were read"
    """
    searched = next(
        (i for i, lap in enumerate(run.laps) if any(a.startswith("search") for a in lap.actions)),
        None,
    )
    if searched is None:
        return "never searched"
    said = f"searched at lap {run.laps[searched].number}"
    after = run.laps[searched + 1 : searched + 2]
    if not after:
        return said + ", then stopped"
    nxt, ids = after[0], _search_ids(run.history)
    kept = any(block.get("tool_use_id") in ids for m in nxt.sent for block in tool_results(m))
    if not kept:
        return said + f"; lap {nxt.number} summarized the hits before they were read"
    return said + f"; the hits were on the next desk (lap {nxt.number})"


def _search_ids(history: list[dict]) -> set[str]:
    return {
        use["id"] for message in history for use in tool_uses(message) if use["name"] == "search"
    }


# ---- the memory ------------------------------------------------------------------------------------

PRODUCTION = re.compile(r"\b(production|prod|live)\b", re.I)
STAGING = re.compile(r"\b(staging|stage)\b", re.I)
STALE_RULE = "- Staging is down: every database change goes to production for now."


def stale_memory(text: str) -> str:
    """The memory file with its rule line as it read last quarter, when staging was down.

    The rule line is the one that names both databases. A file with no such line raises a ValueError.
    Example: "- Never touch production: ... staging only." -> "- Staging is down: every ..."
    """
    lines = text.splitlines()
    rule = [i for i, line in enumerate(lines) if PRODUCTION.search(line) and STAGING.search(line)]
    if not rule:
        raise ValueError("This memory has no line about production and staging to make stale.")
    for i in rule:
        lines[i] = STALE_RULE
    return "\n".join(lines) + "\n"
