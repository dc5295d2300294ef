"""RunningSummary(split=...): the running summary draws its zones with lesson 03's split piece.

The harness's own split (``three_zones``) gives the cut the running summary always used (the start of
the newest ``tail_turns`` turns), so a run with it is the run without it. A class's split shows: one
that leaves no tail folds the newest turn too, one that puts everything in the tail never folds.
"""

import pytest

from harness.compaction import tail_start, three_zones
from harness.messages import turn_starts
from harness.loop import run_agent
from harness.running_summary import RunningSummary
from harness.tools import WORKSPACE, Toolbox
from stage.offline import OfflineModel
from stage.tasks import file_reading_task, workspace_task

WORKSPACES = sorted(p for p in WORKSPACE.parent.iterdir() if (p / ".task.toml").is_file())


def run_with(folder, **settings):
    task = workspace_task(folder)
    return run_agent(
        task.request,
        OfflineModel(window=3000),
        tools=Toolbox(folder),
        context=RunningSummary(**settings),
        remarks=task.remarks,
        max_laps=60,
    )


def record(run) -> list[tuple]:
    return [(lap.kind, lap.assembled_tokens, lap.summary) for lap in run.laps]


@pytest.mark.parametrize("folder", WORKSPACES, ids=lambda p: p.name)
@pytest.mark.parametrize("tail_turns", [0, 1, 2])
def test_the_harness_split_gives_the_run_the_running_summary_always_gave(folder, tail_turns):
    plain = run_with(folder, tail_turns=tail_turns)
    split = run_with(folder, tail_turns=tail_turns, split=three_zones)
    assert record(plain) == record(split)
    assert any(lap.kind == "fold" for lap in plain.laps), "the sweep never folded: it shows nothing"


def test_three_zones_cuts_where_the_tail_starts_whenever_there_is_something_to_fold():
    """On every prefix of a real history, from every point already folded, with tails of 0-3 turns:
    where the running summary used to cut (tail_start from what is folded) and where three_zones cuts
    agree, or both leave nothing new to fold."""
    history = run_agent(file_reading_task().request, OfflineModel(window=20_000)).history
    checked = 0
    for end in range(2, len(history) + 1):
        prefix = history[:end]
        for upto in [1, *turn_starts(prefix)]:
            for tail in range(4):
                old = tail_start(prefix, upto, tail)
                head, middle, _ = three_zones(prefix, tail)
                new = len(head) + len(middle)
                if old > upto or new > upto:
                    assert old == new, (end, upto, tail, old, new)
                    checked += 1
    assert checked > 100


def test_a_class_split_changes_the_run():
    task = file_reading_task(rule_at_lap=3)

    def no_tail(history, tail_turns):
        return history[:1], history[1:], []

    def all_tail(history, tail_turns):
        return history[:1], [], history[1:]

    runs = {
        name: run_agent(
            task.request,
            OfflineModel(window=5000),
            context=RunningSummary(split=split),
            remarks=task.remarks,
        )
        for name, split in (("harness", None), ("no tail", no_tail), ("all tail", all_tail))
    }
    assert record(runs["no tail"]) != record(runs["harness"])
    assert not any(lap.kind == "fold" for lap in runs["all tail"].laps)
