"""Two things lesson 03 shows: why the newest turns stay word for word, and the decision a vague summary drops.

**The tail.** A summary is written from what it is given; a file read in the very last turn before the cut has
not been examined by the agent yet (its note on a file comes on the lap after the read). The summary says so
("Opened X just before this summary; not yet examined"). With a verbatim tail the agent's own note on X is still
on the desk, right after the summary; with ``tail_turns=0`` nothing is, so the agent reads X again: after every
compaction it redoes the step it had just completed. ``run.rereads`` lists those files; in ``run.laps`` each
compaction lap's action repeats the read of the lap before.

**The decision.** ``stage.tasks.decision_task`` puts two pending fixes in the workspace and has the user choose
one, with a reason, at lap 2. The template's "Decisions" section keeps the choice; the vague prompt keeps the
goal and the progress only, so the agent later takes the other fix (the one that matches the goal as well and
comes first). ``run.toolbox.sql_log[-1]["statement"]`` against ``task.decision.chosen_statement``.
"""

import tempfile
import tomllib
from pathlib import Path

import pytest
from random_workspace import make_workspace

from benchmarks.compare import automatic_window
from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.loop import run_agent
from harness.model import CLASS_WINDOW
from harness.prompts import NAIVE_PROMPT
from harness.tokens import Meter
from harness.tools import WORKSPACE
from stage.offline import OfflineModel
from stage.tasks import decision_task, file_reading_task, workspace_task

ROOT = Path(__file__).resolve().parent.parent
FIX = "UPDATE users SET email = lower(email);"


def redone_reads(run) -> list[tuple[int, str]]:
    """(lap, action) where a compaction lap repeats the read of the lap before it."""
    return [
        (lap.number, lap.actions[0])
        for before, lap in zip(run.laps, run.laps[1:])
        if lap.kind == "compact"
        and lap.actions
        and lap.actions == before.actions
        and lap.actions[0].startswith("read_file")
    ]


@pytest.mark.parametrize("tail", [0, 1, 2, 3])
def test_on_the_class_task_no_tail_redoes_the_read_it_had_just_done(tail):
    task = file_reading_task()
    run = run_agent(
        task.request,
        OfflineModel(window=CLASS_WINDOW),
        context=ThreeZoneCompaction(tail_turns=tail),
        remarks=task.remarks,
    )
    assert run.stopped == "answered" and run.toolbox.sql_log[-1]["statement"] == FIX
    assert run.database_target == "staging"
    compactions = [lap for lap in run.laps if lap.kind == "compact"]
    if tail == 0:
        redone = redone_reads(run)
        assert len(redone) == len(compactions) >= 2, (redone, [c.number for c in compactions])
        assert run.rereads == [action.split(" ", 1)[1] for _, action in redone]
        assert all(
            "just before this summary; not yet examined" in lap.summary for lap in compactions
        )
    else:
        assert run.rereads == [] and redone_reads(run) == []


@pytest.mark.parametrize("name", ["greenhouse", "library"])
def test_the_same_on_other_workspaces(name):
    folder = ROOT / "workspaces" / name
    task = workspace_task(folder)
    window = automatic_window(task, folder, Meter())
    spec = tomllib.loads((folder / ".task.toml").read_text())
    runs = {
        tail: run_agent(
            task.request,
            OfflineModel(window=window),
            tools=task.toolbox(),
            context=ThreeZoneCompaction(tail_turns=tail),
            remarks=task.remarks,
            max_laps=80,
        )
        for tail in (0, 1, 2)
    }
    for tail, run in runs.items():
        assert (run.stopped, run.database_target) == ("answered", "staging"), (tail, run.final)
        assert run.toolbox.sql_log[-1]["statement"] == spec["statement"]
    assert redone_reads(runs[0]) and runs[0].rereads
    assert runs[1].rereads == runs[2].rereads == []


# ---- the decision ----------------------------------------------------------------------------------------


def run_decision(task, prompt=None, window=CLASS_WINDOW, context=None):
    strategy = context or (ThreeZoneCompaction(prompt=prompt) if prompt else ThreeZoneCompaction())
    return run_agent(
        task.request,
        OfflineModel(window=window),
        tools=task.toolbox(),
        context=strategy,
        remarks=task.remarks,
        max_laps=80,
    )


def statement_of(run):
    return run.toolbox.sql_log[-1]["statement"] if run.toolbox.sql_log else None


@pytest.mark.parametrize("name", ["ledgerly", "greenhouse"])
def test_the_template_keeps_the_decision_and_the_vague_prompt_reverses_it(name, tmp_path):
    task = decision_task(ROOT / "workspaces" / name, into=tmp_path)
    decision = task.decision
    assert (
        decision.chosen.endswith("_with_lock_timeout.sql")
        and (tmp_path / decision.chosen).is_file()
    )
    assert task.remarks[2].startswith(f"About the fix: apply {Path(decision.chosen).name}, not ")
    held, vague = run_decision(task), run_decision(task, NAIVE_PROMPT)
    roomy = run_decision(task, window=100_000, context=FullHistory())
    assert statement_of(held) == statement_of(roomy) == decision.chosen_statement
    assert statement_of(vague) == decision.passed_over_statement
    assert held.database_target == vague.database_target == "staging"
    kept = [lap.summary for lap in held.laps if lap.kind == "compact"]
    assert kept and all("Decision: apply " + Path(decision.chosen).name in s for s in kept)
    assert not any("Decision" in lap.summary for lap in vague.laps if lap.kind == "compact")


def test_without_the_remark_the_agent_decides_by_itself_and_says_why(tmp_path):
    """Greenhouse lists db/ before src/: both fixes are on the desk before the cause is, so it must choose."""
    task = decision_task(ROOT / "workspaces" / "greenhouse", into=tmp_path)
    run = run_agent(task.request, OfflineModel(window=100_000), tools=task.toolbox())
    assert (
        statement_of(run) == task.decision.passed_over_statement
    )  # it matches the goal as well, and first
    notes = "\n".join(str(m["content"]) for m in run.history if m["role"] == "assistant")
    assert (
        f"Decision: apply {task.decision.passed_over}, not {task.decision.chosen} — both are pending"
        in notes
    )


def test_a_workspace_whose_fix_is_not_a_file_has_no_decision_to_make(tmp_path):
    with pytest.raises(ValueError, match="two pending SQL files"):
        decision_task(ROOT / "workspaces" / "library", into=tmp_path)


def test_the_class_workspace_itself_is_left_as_it_was(tmp_path):
    before = sorted(p.name for p in (WORKSPACE / "migrations").iterdir())
    decision_task(into=tmp_path)
    assert sorted(p.name for p in (WORKSPACE / "migrations").iterdir()) == before


def test_on_random_workspaces_the_template_holds_every_decision_and_the_vague_prompt_loses_most():
    held, reversed_, tried = 0, 0, 0
    for seed in range(30):
        with tempfile.TemporaryDirectory() as source, tempfile.TemporaryDirectory() as copy:
            if make_workspace(Path(source), seed)["fix_kind"] != "pending_migration":
                continue
            task = decision_task(source, into=copy, rule_at_lap=3)
            window = automatic_window(task, Path(copy), Meter())
            tried += 1
            held += (
                statement_of(run_decision(task, window=window)) == task.decision.chosen_statement
            )
            reversed_ += (
                statement_of(run_decision(task, NAIVE_PROMPT, window))
                == task.decision.passed_over_statement
            )
    assert tried >= 8 and held == tried, (held, tried)
    assert reversed_ >= tried / 2, (reversed_, tried)
