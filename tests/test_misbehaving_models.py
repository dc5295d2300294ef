"""The misbehaving models, used directly: each misbehaves as named, and no run ends in an exception.

Every kind x every strategy x the rule in the request or said at lap 3 must stop cleanly. Then one
test per kind checks that the misbehaviour really happened (a model that quietly behaved would make
every other test of it worthless).
"""

import pytest

from harness.compaction import ThreeZoneCompaction
from harness import strategies as harness_strategies
from harness.sliding_window import SlidingWindow
from harness.loop import run_agent
from harness.messages import tool_results
from harness.running_summary import RunningSummary
from stage.misbehaving import BAD_CALLS, KINDS, model_named
from stage.offline import OfflineModel
from stage.tasks import file_reading_task

CLEAN = {"answered", "overflow", "compaction_failed", "max_laps"}
STRATEGIES = list(harness_strategies.STRATEGIES.values())  # the one table


def go(kind, strategy=ThreeZoneCompaction, rule_at_lap=None, window=5000, **options):
    task = file_reading_task(rule_at_lap=rule_at_lap)
    return run_agent(
        task.request,
        KINDS[kind](window=window, **options),
        context=strategy(),
        remarks=task.remarks,
        max_laps=40,
    )


@pytest.mark.parametrize("rule_at_lap", [None, 3])
@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
@pytest.mark.parametrize("kind", list(KINDS))
def test_every_run_stops_cleanly(kind, strategy, rule_at_lap):
    run = go(kind, strategy, rule_at_lap)
    assert run.stopped in CLEAN, run.problem


def test_answers_at_once_makes_no_tool_call():
    run = go("answers-at-once")
    assert run.stopped == "answered" and len(run.laps) == 1 and run.laps[0].actions == []


def test_never_stops_never_answers():
    run = go("never-stops", SlidingWindow)
    assert run.stopped == "max_laps" and all(lap.actions for lap in run.laps)


def test_bad_calls_are_all_answered_with_errors():
    run = go("bad-calls", RunningSummary)
    errors = [r for m in run.history for r in tool_results(m) if r.get("is_error")]
    assert len(errors) >= len(BAD_CALLS)  # it got through the whole list at least once
    assert all(r["content"].startswith("Error: ") for r in errors)
    assert all(isinstance(e["statement"], str) for e in run.toolbox.sql_log)


@pytest.mark.parametrize("strategy", [ThreeZoneCompaction, RunningSummary])
def test_an_empty_summary_is_refused_and_the_run_stops_after_three(strategy):
    run = go("empty-summary", strategy)
    assert [lap.kind for lap in run.laps].count(
        "summary_failed"
    ) == 3 and run.stopped == "compaction_failed"


def test_an_oversized_summary_is_longer_than_the_desk():
    model = KINDS["oversized-summary"](window=5000)
    summary = model.reply("", [{"role": "user", "content": "<transcript>x</transcript>"}], []).text
    assert model.meter.text(summary) > 5000
    assert go("oversized-summary", ThreeZoneCompaction).stopped in CLEAN


def test_ignores_the_rule_goes_to_production_with_the_rule_in_view():
    desk = run_agent(
        file_reading_task().request, OfflineModel(window=5000), context=ThreeZoneCompaction()
    )
    assert desk.database_target == "staging"  # the offline model, seeing the rule, keeps it
    assert go("ignores-the-rule", ThreeZoneCompaction).database_target == "production"


def test_obeys_unseen_goes_to_staging_with_the_rule_gone():
    desk = run_agent(
        file_reading_task().request, OfflineModel(window=5000), context=SlidingWindow()
    )
    assert desk.database_target == "production"  # the rule fell off the desk
    assert go("obeys-unseen", SlidingWindow).database_target == "staging"


def test_random_is_seeded():
    runs = [go("random", ThreeZoneCompaction, 3, seed=seed) for seed in (1, 1, 2, 3, 4)]
    assert [lap.actions for lap in runs[0].laps] == [lap.actions for lap in runs[1].laps]
    assert len({tuple(tuple(lap.actions) for lap in r.laps) for r in runs}) > 2


def test_model_named_picks_by_the_name_the_sdk_sends():
    assert isinstance(model_named("claude-haiku-5-5", 1000), OfflineModel)
    for kind, cls in KINDS.items():
        model = model_named(f"claude-stand-in-{kind}", 1000)
        assert isinstance(model, cls) and model.name == f"claude-stand-in-{kind}"
