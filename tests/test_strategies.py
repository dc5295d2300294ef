"""Each context strategy, judged by what a run with the offline model actually produced."""

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.clearing import ClearToolResults
from harness.compaction import ThreeZoneCompaction
from harness.messages import turn_starts
from harness.context import FullHistory
from harness.sliding_window import SlidingWindow
from harness.strategies import STRATEGIES
from harness.messages import assistant, pair_problems, user
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from stage.tasks import file_reading_task

from class_task import go

ALL = list(STRATEGIES.values())  # the one table: every strategy the harness has


@pytest.mark.parametrize("make", ALL)
def test_strategies_never_edit_the_raw_history(make, meter):
    run = go(make(), meter=meter)
    assert run.history[0] == user(file_reading_task().request)
    assert all(not pair_problems(lap.sent) for lap in run.laps if lap.sent)
    assert pair_problems(run.history) == []


def test_bad_settings_are_refused_before_any_work():
    with pytest.raises(ValueError, match="threshold"):
        ThreeZoneCompaction(threshold=1.5)
    with pytest.raises(ValueError, match="threshold"):
        ThreeZoneCompaction(threshold=0)
    with pytest.raises(ValueError, match="budget"):
        SlidingWindow(budget=-5)
    with pytest.raises(ValueError, match="negative"):
        ClearToolResults(tail_turns=-1)


# ---- property: whatever the history, no tool pair is ever split -------------------------------


@st.composite
def histories(draw):
    """A request, then turns of (assistant with 1-2 tool calls, user with their results), sizes random."""
    messages, n = (
        [user("Do the task. " + "x " * draw(st.integers(1, 50)))],
        draw(st.integers(0, 25)),
    )
    for t in range(n):
        calls = [
            {
                "type": "tool_use",
                "id": f"t{t}_{k}",
                "name": "read_file",
                "input": {"path": f"f{t}.py"},
            }
            for k in range(draw(st.integers(1, 2)))
        ]
        messages.append(
            assistant([{"type": "text", "text": "note " * draw(st.integers(0, 30))}] + calls)
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": c["id"],
                        "content": "line\n" * draw(st.integers(1, 200)),
                    }
                    for c in calls
                ],
            }
        )
    return messages


class Echo:
    """A model that only writes summaries (a short fixed text), for strategy property tests."""

    name, window = "echo", 3000

    def reply(self, system, messages, tools, max_tokens=1024):
        from harness.model import Reply

        return Reply(
            [{"type": "text", "text": "Goal: the task.\nDone: some."}],
            "end_turn",
            {"input_tokens": 10, "output_tokens": 5},
        )


@settings(max_examples=80, deadline=None)
@given(
    history=histories(),
    which=st.sampled_from(ALL),
    keep=st.integers(0, 4),
    threshold=st.sampled_from([0.5, 0.75, 0.9, 1.0]),
    pin=st.booleans(),
)
def test_no_strategy_ever_splits_a_tool_pair(history, which, keep, threshold, pin):
    """Random histories and settings: valid pairs, the pinned head first, and a desk that fits or says why."""
    meter = Meter("chars4")
    kwargs = {
        ClearToolResults: {"tail_turns": keep},
        ThreeZoneCompaction: {"tail_turns": keep, "threshold": threshold},
        RunningSummary: {"tail_turns": keep},
        SlidingWindow: {"pin_head": pin},
    }.get(which, {})
    strategy = which(**kwargs)
    strategy.start()
    before = copy.deepcopy(history)
    desk = strategy.assemble(history, lap=1, system="", tools=None, meter=meter, model=Echo())
    assert pair_problems(desk.messages) == []
    assert desk.messages[0]["role"] == "user"
    assert len(desk.zones) == len(desk.messages)
    pins = which in (FullHistory, ThreeZoneCompaction, RunningSummary, ClearToolResults) or pin
    if pins:
        assert desk.messages[0] is history[0] and desk.zones[0] == "head"
    if which is SlidingWindow:
        assert meter.total(desk.messages) <= Echo.window - 512 or len(desk.messages) <= 2 + pin
    if which is ThreeZoneCompaction:  # under the threshold after compacting, or it said why not
        assert (
            meter.total(desk.messages) <= strategy.limit(Echo())
            or desk.kind == "stuck"
            or "still over the threshold" in desk.event
            or len(turn_starts(history)) <= keep
        )
    assert history == before  # the raw history is never edited
