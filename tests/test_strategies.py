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
from harness.loop import run_agent
from harness.messages import assistant, pair_problems, user
from harness.prompts import NAIVE_PROMPT
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from stage.offline import OfflineModel
from stage.tasks import file_reading_task

ALL = list(STRATEGIES.values())  # the one table: every strategy the harness has


def go(context, task=None, window=5000, meter=None, **kw):
    task = task or file_reading_task()
    model = OfflineModel(window=window, meter=meter or Meter())
    return run_agent(task.request, model, context=context, remarks=task.remarks, max_laps=80, **kw)


def rule_visible(lap):
    return any("never touch production" in str(m["content"]).lower() for m in lap.sent)


def test_full_history_overflows_at_the_window(meter):
    run = go(FullHistory(), meter=meter)
    assert run.stopped == "overflow" and run.database_target is None
    assert 8 <= len(run.laps) <= 20


def test_sliding_window_loses_the_rule_rereads_and_hits_production(meter):
    run = go(SlidingWindow(), meter=meter)
    assert run.stopped == "answered"
    assert run.database_target == "production"
    assert run.rereads, "the agent should have read some file twice"
    assert not rule_visible(run.laps[-1]) and rule_visible(run.laps[0])
    assert all(lap.assembled_tokens <= 5000 for lap in run.laps)


def test_pinning_the_head_keeps_the_rule(meter):
    run = go(SlidingWindow(pin_head=True), meter=meter)
    assert run.database_target == "staging" and all(rule_visible(lap) for lap in run.laps)


def test_three_zone_with_the_template_keeps_rule_and_goal(meter):
    task = file_reading_task(rule_at_lap=3)  # the rule arrives mid-session, not in the pinned head
    run = go(ThreeZoneCompaction(), task, meter=meter)
    compactions = [lap for lap in run.laps if lap.kind == "compact"]
    assert len(compactions) >= 2 and all(lap.summary_calls == 1 for lap in compactions)
    assert run.database_target == "staging"
    assert "never touch production" in compactions[-1].summary.lower()
    assert run.stopped == "answered" and "Cause: app/auth.py:40" in run.final


def test_three_zone_with_the_naive_prompt_loses_the_rule(meter):
    run = go(
        ThreeZoneCompaction(prompt=NAIVE_PROMPT), file_reading_task(rule_at_lap=3), meter=meter
    )
    assert run.database_target == "production"
    assert all("production" not in (lap.summary or "").lower() for lap in run.laps)


def test_three_zone_makes_a_sawtooth_below_the_threshold(meter):
    strategy = ThreeZoneCompaction(threshold=0.75, output_reserve=512)
    run = go(strategy, meter=meter)
    limit = int((5000 - 512) * 0.75)
    for before, lap in zip(run.laps, run.laps[1:]):
        if lap.kind == "compact":
            assert lap.assembled_tokens < before.assembled_tokens  # the drop of the tooth
        assert lap.assembled_tokens <= limit
    assert run.laps[-1].raw_tokens > 2 * limit  # while the raw history kept growing


def test_running_summary_stays_flat_while_raw_grows(meter):
    run = go(RunningSummary(), meter=meter)
    assert run.database_target == "staging"
    later = [lap.assembled_tokens for lap in run.laps[5:-1]]  # the last lap only answers
    assert max(later) - min(later) < 1200
    assert run.laps[-1].raw_tokens > 3 * max(later)
    assert sum(lap.summary_calls for lap in run.laps) >= 5


def test_clearing_leaves_pointers_and_no_model_call(meter):
    run = go(ClearToolResults(tail_turns=3), meter=meter)
    assert run.stopped == "answered" and run.database_target == "staging"
    assert sum(lap.summary_calls for lap in run.laps) == 0
    last = run.laps[-1].sent
    pointers = [
        b["content"]
        for m in last
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result" and b["content"].startswith("[cleared")
    ]
    assert pointers and "read_file app/" in " ".join(pointers)
    assert len(run.rereads) <= 1  # it re-reads only when it needs to


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


def test_head_and_tail_too_big_is_reported_once(meter):
    """A tail of 8 turns on a 3,000-token desk cannot be compacted: said once, not every lap after."""
    run = go(ThreeZoneCompaction(tail_turns=8), window=3000, meter=meter)
    stuck = [lap for lap in run.laps if lap.kind == "stuck"]
    assert len(stuck) == 1 and "cannot compact" in stuck[0].event
    after = run.laps[stuck[0].number :]
    assert after and all(lap.kind in ("none", "overflow") for lap in after)


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
