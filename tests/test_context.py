"""The context interface, and the simplest strategy: send the full history, every lap."""

from harness.context import FullHistory

from class_task import go


def test_full_history_overflows_at_the_window(meter):
    run = go(FullHistory(), meter=meter)
    assert run.stopped == "overflow" and run.database_target is None
    assert 8 <= len(run.laps) <= 20
