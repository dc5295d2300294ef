"""Three-zone compaction (lesson 03): the sawtooth, the template that carries the rule, and a tail too big to compact."""

from harness.compaction import ThreeZoneCompaction
from harness.prompts import NAIVE_PROMPT
from stage.tasks import file_reading_task

from class_task import go


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


def test_head_and_tail_too_big_is_reported_once(meter):
    """A tail of 8 turns on a 3,000-token desk cannot be compacted: said once, not every lap after."""
    run = go(ThreeZoneCompaction(tail_turns=8), window=3000, meter=meter)
    stuck = [lap for lap in run.laps if lap.kind == "stuck"]
    assert len(stuck) == 1 and "cannot compact" in stuck[0].event
    after = run.laps[stuck[0].number :]
    assert after and all(lap.kind in ("none", "overflow") for lap in after)
