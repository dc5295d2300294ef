"""Clearing is the first lever, not the only one: ClearToolResults that cannot hold the desk compacts.

Across small windows, how many results are kept and where the rule is given: without the fallback
the notes pile up until the desk overflows; with it (the default) the run compacts the cleared desk
and finishes the task on staging, never sending more than the window. On a desk big enough for
clearing alone, it never calls the model for a summary.
"""

import pytest

from harness.clearing import ClearToolResults
from harness.loop import run_agent
from harness.messages import pair_problems, text_of
from harness.tokens import Meter
from stage.offline import OfflineModel
from stage.tasks import file_reading_task

CASES = [(window, keep, rule) for window in (2200, 3000) for keep in (1, 2) for rule in (None, 3)]


def go(strategy, window, rule=None):
    task, meter = file_reading_task(rule_at_lap=rule), Meter()
    return run_agent(
        task.request,
        OfflineModel(window=window, meter=meter),
        context=strategy,
        remarks=task.remarks,
        max_laps=80,
        meter=meter,
    )


@pytest.mark.parametrize("window, keep, rule", CASES)
def test_without_the_fallback_clearing_alone_overflows(window, keep, rule):
    run = go(ClearToolResults(tail_turns=keep, fallback=False), window, rule)
    assert run.stopped == "overflow" and run.database_target is None
    assert sum(lap.summary_calls for lap in run.laps) == 0


@pytest.mark.parametrize("window, keep, rule", CASES)
def test_with_the_fallback_it_compacts_and_finishes(window, keep, rule):
    run = go(ClearToolResults(tail_turns=keep), window, rule)
    assert run.stopped == "answered" and run.database_target == "staging"
    assert any(lap.kind == "compact" for lap in run.laps)
    assert any("cleared" in lap.zones for lap in run.laps)  # it cleared as well
    for lap in run.laps:
        assert lap.assembled_tokens <= window
        assert pair_problems(lap.sent) == []
    last = run.laps[-1]
    assert "summary" in last.zones
    assert "never touch production" in "\n".join(text_of(m) for m in last.sent).lower()


def test_on_a_desk_that_clearing_can_hold_there_is_no_summary_call():
    run = go(ClearToolResults(tail_turns=3), 4000)
    assert run.stopped == "answered" and run.database_target == "staging"
    assert sum(lap.summary_calls for lap in run.laps) == 0
    assert "cleared" in run.laps[-1].zones


def test_after_compacting_older_results_are_still_cleared():
    """The fallback compacts the *cleared* desk, and clearing goes on in the turns after the summary."""
    run = go(ClearToolResults(tail_turns=1), 2200)
    first = next(i for i, lap in enumerate(run.laps) if lap.kind == "compact")
    later = [lap for lap in run.laps[first + 1 :] if "summary" in lap.zones]
    assert any("cleared" in lap.zones for lap in later)
