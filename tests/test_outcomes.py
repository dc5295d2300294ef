"""The outcome sentences say what the run did -- checked against runs that did different things."""

import pytest

from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.sliding_window import SlidingWindow
from harness.loop import run_agent
from stage.misbehaving import KINDS
from stage.offline import OfflineModel
from stage.outcomes import how_it_ended, what_became_of, where_the_fix_went
from stage.plots import where_on_desk
from stage.tasks import file_reading_task


def go(model, strategy, rule_at_lap=None, max_laps=60):
    task = file_reading_task(rule_at_lap=rule_at_lap)
    return task, run_agent(
        task.request, model, context=strategy, remarks=task.remarks, max_laps=max_laps
    )


def test_each_ending_gets_its_own_sentence():
    _, wall = go(OfflineModel(window=5000), FullHistory())
    _, at_once = go(KINDS["answers-at-once"](), FullHistory())
    _, endless = go(KINDS["never-stops"](), SlidingWindow(), max_laps=12)
    _, failing = go(KINDS["empty-summary"](), ThreeZoneCompaction())
    assert how_it_ended(wall).startswith(f"It hit the wall at lap {len(wall.laps)}")
    assert how_it_ended(at_once) == "It answered at lap 1 without calling a single tool."
    assert how_it_ended(endless).startswith("It was still working") and "12 laps" in how_it_ended(
        endless
    )
    assert how_it_ended(failing) == (
        f"It stopped at lap {len(failing.laps)}: the summary call failed 3 times "
        "in a row (the summary came back empty)."
    )


@pytest.mark.parametrize("kind", ["ignores-the-rule", "obeys-unseen", None])
@pytest.mark.parametrize("strategy", [SlidingWindow, ThreeZoneCompaction])
def test_where_the_fix_went_matches_the_sql_log_and_the_desk(kind, strategy):
    model = KINDS[kind]() if kind else OfflineModel(window=5000)
    task, run = go(model, strategy())
    said = where_the_fix_went(run, task.rule)
    if not run.toolbox.sql_log:
        assert said.startswith("No fix was applied")
        return
    target = run.toolbox.sql_log[-1]["target"]
    assert said.startswith(f"The fix went to {target}")
    lap = next(
        lap for lap in reversed(run.laps) if any(a.startswith("run_sql") for a in lap.actions)
    )
    assert ("the rule was on that lap's desk" in said) == bool(where_on_desk(lap, task.rule))


def test_what_became_of_the_rule():
    task, kept = go(OfflineModel(window=5000), ThreeZoneCompaction())
    assert what_became_of(task.rule, kept) == "The rule was on every desk sent."
    task, slid = go(OfflineModel(window=5000), SlidingWindow())
    gone = next(lap.number for lap in slid.laps if not where_on_desk(lap, task.rule))
    assert what_became_of(task.rule, slid).startswith(
        f"The rule was on the desk from lap 1; it left at lap {gone}"
    )
    late, said_late = go(OfflineModel(window=20_000), FullHistory(), rule_at_lap=3)
    assert what_became_of(late.rule, said_late) == "The rule was on the desk from lap 4 to the end."
