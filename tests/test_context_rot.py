"""The context-rot SIMULATION: off by default, seeded, and it makes late compaction visibly riskier."""

import copy

import pytest

from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.loop import run_agent
from harness.messages import assistant, user
from stage.offline import ContextRot, OfflineModel
from stage.tasks import file_reading_task

SEEDS = range(10)


def go(meter, threshold, seed, window=5000, context=None):
    task = file_reading_task(rule_at_lap=3)  # a rule said in passing: it lives in the middle
    model = OfflineModel(window=window, meter=meter, rot=ContextRot(seed=seed))
    return run_agent(
        task.request,
        model,
        context=context or ThreeZoneCompaction(threshold=threshold),
        remarks=task.remarks,
        max_laps=60,
    )


def test_it_is_off_by_default_and_labelled_a_simulation():
    assert OfflineModel().rot is None
    assert "SIMULATION" in ContextRot.__doc__ and "not a measurement" in ContextRot.__doc__
    with pytest.raises(ValueError):
        ContextRot(starts_at=1.2)


def test_a_roomy_desk_does_not_rot(meter):
    """Below ``starts_at`` nothing slips: the run is the same as without the knob."""
    task = file_reading_task(rule_at_lap=3)
    plain = run_agent(
        task.request,
        OfflineModel(window=20000, meter=meter),
        context=FullHistory(),
        remarks=task.remarks,
    )
    rotting = go(meter, None, seed=3, window=20000, context=FullHistory())
    assert max(lap.assembled_tokens for lap in rotting.laps) / 20000 < ContextRot().starts_at
    assert [lap.actions for lap in rotting.laps] == [lap.actions for lap in plain.laps]
    assert rotting.final == plain.final


def test_the_same_seed_rots_the_same_way(meter):
    first, again = go(meter, 0.95, seed=4), go(meter, 0.95, seed=4)
    assert [lap.actions for lap in first.laps] == [lap.actions for lap in again.laps]


def test_blur_spares_the_request_and_the_newest_message_and_edits_nothing():
    rot = ContextRot(starts_at=0.5, strength=1.0, seed=1)
    messages = [user("Fix the bug. Never touch production.")]
    for i in range(12):
        call = {
            "type": "tool_use",
            "id": f"t{i}",
            "name": "read_file",
            "input": {"path": f"f{i}.py"},
        }
        messages += [
            assistant(
                [{"type": "text", "text": f"Task: fix\nNoticed: f{i}.py:1 — NOTE: n{i}"}, call]
            ),
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": f"1  x{i}"}],
            },
        ]
    before = copy.deepcopy(messages)
    seen = rot.blur(messages, fullness=1.0)
    assert messages == before  # the raw history is never touched
    assert seen[0] == messages[0] and seen[-1] == messages[-1]
    assert len(seen) == len(messages)  # tool pairs stay whole; only contents go
    lost = [i for i in range(1, len(seen) - 1) if seen[i] != messages[i]]
    assert lost and min(lost) < len(messages) / 2  # something slipped, mostly far back
    assert rot.blur(messages, fullness=0.4) is messages  # below starts_at: untouched
    assert rot.chance(0.9, 0.8) > rot.chance(0.7, 0.8) > rot.chance(0.5, 0.8) == 0
    assert rot.chance(0.9, 0.8) > rot.chance(0.9, 0.2)


def test_compacting_late_loses_the_rule_more_often(meter):
    """Same task, ten seeds: compacting at 95 % of the window lets the desk get full enough to rot."""
    late = [go(meter, 0.95, seed) for seed in SEEDS]
    early = [go(meter, 0.75, seed) for seed in SEEDS]
    lost_late = sum(run.database_target == "production" for run in late)
    lost_early = sum(run.database_target == "production" for run in early)
    assert lost_late >= lost_early + 3, (lost_late, lost_early)  # measured: 6 of 10 against 1 of 10
    assert sum(len(r.rereads) for r in late) >= sum(len(r.rereads) for r in early)  # facts slip too
    assert all(run.stopped == "answered" for run in late + early)
