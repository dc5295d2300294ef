"""The running summary (lesson 04): the desk stays about flat while the raw history grows.

Regression (issue 15): when the API says "too long", the running summary folds; it never crashes.

The loop's overflow retry calls ``context.compact``. ``RunningSummary`` used to inherit that from
``ThreeZoneCompaction``, which fills the *compaction template* -- but its prompt is the *fold* prompt,
so ``str.format`` asked for a ``{summary}`` field it was never given: ``KeyError: 'summary'``.
"""

import pytest

from harness.loop import run_agent
from harness.messages import user
from harness.model import Reply
from harness.prompts import FOLD_PROMPT
from harness.running_summary import RunningSummary
from stage.offline import OfflineModel
from stage.tasks import file_reading_task

from class_task import go

CLEAN_STOPS = {"answered", "overflow", "compaction_failed", "max_laps"}


class Recording:
    """The offline model, keeping every summary prompt it was asked (to see which prompt the retry used)."""

    def __init__(self, window):
        self.inner = OfflineModel(window=window)
        self.name, self.window, self.meter = self.inner.name, window, self.inner.meter
        self.summary_prompts = []

    def reply(self, system, messages, tools, max_tokens=1024) -> Reply:
        if not tools:
            self.summary_prompts.append(messages[-1]["content"])
        return self.inner.reply(system, messages, tools, max_tokens)


@pytest.mark.parametrize("rule_at_lap", [None, 3])
def test_the_reported_crash_window_2000_running_summary_ends_cleanly(rule_at_lap):
    task = file_reading_task(rule_at_lap=rule_at_lap)
    model = Recording(2000)
    run = run_agent(task.request, model, context=RunningSummary(), remarks=task.remarks)
    assert run.stopped in CLEAN_STOPS, run.problem
    assert model.summary_prompts, "at a 2,000-token desk the running summary must have folded"
    fold_opening = FOLD_PROMPT.split("{")[0]
    assert all(p.startswith(fold_opening) for p in model.summary_prompts), (
        "a summary call used another prompt"
    )


def test_compact_folds_with_the_fold_prompt():
    """Called directly (as the loop's retry does), compact folds everything but the newest turn."""
    task = file_reading_task()
    full = run_agent(task.request, OfflineModel(window=20_000), max_laps=6)
    strategy = RunningSummary(tail_turns=1)
    strategy.start()
    desk = strategy.compact(full.history, lap=6, model=OfflineModel(window=20_000))
    assert desk.kind == "fold" and desk.summary
    assert (
        desk.zones[:2] == ["head", "summary"] and desk.zones.count("tail") == 2
    )  # one turn: reply + results


def test_compact_with_nothing_to_fold_says_so_once():
    strategy = RunningSummary(tail_turns=1)
    strategy.start()
    history = [user("Fix the bug.")]
    first = strategy.compact(history, lap=1, model=OfflineModel())
    again = strategy.compact(history, lap=2, model=OfflineModel())
    assert first.kind == "stuck" and "cannot fold" in first.event
    assert again.kind == "none" and again.messages == history


def test_running_summary_stays_flat_while_raw_grows(meter):
    run = go(RunningSummary(), meter=meter)
    assert run.database_target == "staging"
    later = [lap.assembled_tokens for lap in run.laps[5:-1]]  # the last lap only answers
    assert max(later) - min(later) < 1200
    assert run.laps[-1].raw_tokens > 3 * max(later)
    assert sum(lap.summary_calls for lap in run.laps) >= 5
