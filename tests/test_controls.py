"""The controls lessons 03 and 05 run (stage/controls.py), on the class workspace and the others.

Each control changes one input and compares two real runs of the offline model:

* **pinned head**: the same split with its head moved into the middle; under the vague prompt the rule
  given in the request is summarized away and the fix goes to production (on greenhouse, and one random
  workspace in twelve, the vague prompt loses the agent's place too, and no fix runs), while the pinned
  run keeps the rule on every desk and never aims at production;
* **verbatim tail**: the fix's folder left out of the request, so the agent searches for the fix, and a
  compaction every other lap; with a tail of two turns the hits are on the next desk and the fix lands on
  staging; with none they are summarized before they were read, and the run ends with no fix at all;
* **stale memory**: the project's CLAUDE.md with its rule line as it read when staging was down; session
  two then sends the fix to production, where the real file sends it to staging.
"""

import tempfile
from pathlib import Path

import pytest
from random_workspace import make_workspace

from benchmarks.compare import automatic_window
from harness.compaction import ThreeZoneCompaction, three_zones
from harness.loop import run_agent
from harness.memory import load_claude_md
from harness.model import CLASS_WINDOW
from harness.prompts import NAIVE_PROMPT
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from stage.controls import (
    STALE_RULE,
    after_the_search,
    compacting_often,
    fix_out_of_sight,
    stale_memory,
    without_head,
)
from stage.offline import OfflineModel
from stage.outcomes import what_became_of
from stage.tasks import workspace_task

ROOT = Path(__file__).resolve().parent.parent
WORKSPACES = {name: ROOT / "workspaces" / name for name in ("ledgerly", "greenhouse", "library")}


def window_for(task, folder):
    return (
        CLASS_WINDOW
        if Path(folder).name == "ledgerly"
        else automatic_window(task, Path(folder), Meter())
    )


def run(task, strategy, window, system=None, max_laps=120):
    return run_agent(
        task.request,
        OfflineModel(window=window),
        tools=task.toolbox(),
        context=strategy,
        remarks=task.remarks,
        max_laps=max_laps,
        **({"system": system} if system else {}),
    )


def fix_of(run):
    log = run.toolbox.sql_log
    return (log[-1]["target"], log[-1]["statement"]) if log else None


def expected_fix(folder):
    import tomllib

    return tomllib.loads((Path(folder) / ".task.toml").read_text())["statement"]


# ---- the pinned head ----------------------------------------------------------------------------------


def test_without_head_moves_the_head_into_the_middle():
    history = ["request", "a1", "r1", "a2", "r2"]
    split = lambda h, t: (h[:1], h[1:3], h[3:])  # noqa: E731
    assert without_head(split)(history, 1) == ([], ["request", "a1", "r1"], ["a2", "r2"])


@pytest.mark.parametrize("name", WORKSPACES)
def test_the_pinned_head_keeps_the_rule_the_vague_prompt_drops(name):
    folder = WORKSPACES[name]
    task = workspace_task(folder)
    window = window_for(task, folder)
    pinned = run(task, ThreeZoneCompaction(prompt=NAIVE_PROMPT), window)
    loose = run(
        task, ThreeZoneCompaction(prompt=NAIVE_PROMPT, split=without_head(three_zones)), window
    )
    assert what_became_of(task.rule, pinned) == "The rule was on every desk sent."
    assert "never came back" in what_became_of(task.rule, loose)
    assert fix_of(pinned) == ("staging", expected_fix(folder))
    assert fix_of(loose) == ("production", expected_fix(folder))


def test_the_pinned_head_on_random_workspaces():
    kept, lost, tried = 0, 0, 0
    for seed in range(12):
        with tempfile.TemporaryDirectory() as folder:
            make_workspace(Path(folder), seed)
            task = workspace_task(folder)
            window = window_for(task, folder)
            pinned = run(task, ThreeZoneCompaction(prompt=NAIVE_PROMPT), window)
            loose = run(
                task,
                ThreeZoneCompaction(prompt=NAIVE_PROMPT, split=without_head(three_zones)),
                window,
            )
            if not any(lap.kind == "compact" for lap in loose.laps):
                continue  # a task too short to compact says nothing about the head
            tried += 1
            kept += what_became_of(task.rule, pinned) == "The rule was on every desk sent."
            gone = "never came back" in what_became_of(task.rule, loose)
            lost += gone and loose.database_target in (
                "production",
                None,
            )  # None: it lost its place too
            assert pinned.database_target != "production"
    assert tried >= 8 and kept == tried and lost == tried, (kept, lost, tried)


# ---- the verbatim tail --------------------------------------------------------------------------------


def test_the_fix_is_taken_out_of_sight_only_where_there_is_a_folder_to_take():
    hidden = fix_out_of_sight(WORKSPACES["ledgerly"])
    assert "migrations/" not in hidden.request and "under app/," in hidden.request
    with pytest.raises(ValueError, match="not a file in a folder its request names"):
        fix_out_of_sight(WORKSPACES["library"])  # its repair is in the cause comment


@pytest.mark.parametrize("name", ["ledgerly", "greenhouse"])
def test_without_a_tail_the_search_result_is_summarized_unread_and_the_fix_never_runs(name):
    folder = WORKSPACES[name]
    hidden = fix_out_of_sight(folder)
    window = window_for(hidden, folder)
    kept = run(hidden, compacting_often(three_zones, 2), window)
    cut = run(hidden, compacting_often(three_zones, 0), window)
    assert "the hits were on the next desk" in after_the_search(kept)
    assert fix_of(kept) == ("staging", expected_fix(folder)) and kept.stopped == "answered"
    assert "summarized the hits before they were read" in after_the_search(cut)
    assert cut.stopped == "answered" and fix_of(cut) is None, "it gave up without the fix"
    # the same with the running summary (folding every two turns), tail of one turn against none
    assert fix_of(run(hidden, RunningSummary(tail_turns=1), window)) == (
        "staging",
        expected_fix(folder),
    )
    assert fix_of(run(hidden, RunningSummary(tail_turns=0), window)) is None


def test_a_run_that_never_searched_says_so():
    task = workspace_task(WORKSPACES["library"])
    assert after_the_search(run(task, compacting_often(three_zones, 2), 4400)) == "never searched"


# ---- the memory ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", WORKSPACES)
def test_a_stale_memory_sends_session_two_to_production(name, tmp_path):
    folder = WORKSPACES[name]
    task = workspace_task(folder)
    goal = task.request.replace(
        task.rule, ""
    ).strip()  # session two's request does not repeat the rule
    assert task.rule not in goal
    session = type(task)(goal, workspace=folder)
    old = tmp_path / "CLAUDE.md"
    old.write_text(stale_memory((folder / "CLAUDE.md").read_text(encoding="utf-8")))
    assert STALE_RULE in old.read_text()
    window = window_for(task, folder)
    fresh = run(session, RunningSummary(), window, system=load_claude_md(folder / "CLAUDE.md"))
    stale = run(session, RunningSummary(), window, system=load_claude_md(old))
    assert fix_of(fresh) == ("staging", expected_fix(folder))
    assert fix_of(stale) == ("production", expected_fix(folder))


def test_a_memory_with_no_rule_line_is_a_clear_error():
    with pytest.raises(ValueError, match="no line about production and staging"):
        stale_memory("- Greenhouse waters the beds.\n- Run pytest.\n")
