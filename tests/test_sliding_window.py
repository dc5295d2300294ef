"""The sliding window (lesson 02): the oldest messages fall off, and the rule given first goes with them."""

from harness.sliding_window import SlidingWindow

from class_task import go, rule_visible


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
