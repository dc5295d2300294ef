"""The dashboard's whole control space ends cleanly: a seeded sample here, the full sweep in `make bench`.

The space is read from the real controls (``benchmarks.sweep.control_space``): every strategy, every
window from the slider's minimum to its maximum in its step, every threshold and tail, the rule
in the request and said at lap 3. A run must stop cleanly (answered, overflow, compaction_failed,
max_laps) or be refused with a message -- never raise. ``python -m benchmarks`` runs every setting.
"""

import pytest

from benchmarks import sweep
from stage.offline import OfflineModel
from stage.tasks import file_reading_task
from stage.widgets import Dashboard

SPACE = sweep.control_space()
PAIRS = sweep.distinct(SPACE)
SAMPLE = sweep.sample(PAIRS, 80)


def test_the_space_is_read_from_the_controls():
    controls = Dashboard(delay=0).controls
    windows = {s.window for s in SPACE}
    assert min(windows) == controls["window"].min and max(windows) == controls["window"].max
    assert (
        len(windows)
        == (controls["window"].max - controls["window"].min) // controls["window"].step + 1
    )
    assert {s.strategy for s in SPACE} == set(controls["strategy"].options)
    assert {s.threshold for s in SPACE} == {v for _, v in controls["threshold"].options}
    assert {s.tail_turns for s in SPACE} == set(
        range(controls["tail_turns"].min, controls["tail_turns"].max + 1)
    )
    assert {s.rule_at_lap for s in SPACE} == {None, 3}
    assert sum(covers for _, covers in PAIRS) == len(SPACE)  # every setting is stood for by one run


def test_the_sample_holds_the_corners_and_the_reported_crash_region():
    strategies = {s.strategy for s, _ in SAMPLE}
    assert strategies == {s.strategy for s in SPACE}
    assert {s.window for s, _ in SAMPLE} >= {1000, 20_000}
    assert any(s.strategy == "running summary" and s.window <= 2500 for s, _ in SAMPLE)


def _id(pair) -> str:
    s = pair[0]
    return f"{s.strategy}-{s.window}-{s.threshold}-{s.tail_turns}-rule@{s.rule_at_lap}"


@pytest.mark.parametrize("pair", sweep.sample(PAIRS, 12, seed=7, corners=False), ids=_id)
def test_a_few_settings_end_in_a_clean_stop(pair):
    """The unit tier's share of the sweep: twelve seeded settings (the integration tier runs 80 and the corners)."""
    outcome = sweep.run_one(*pair)
    assert outcome.stopped in sweep.CLEAN_STOPS + ("refused",), outcome.problem


@pytest.mark.integration  # eighty runs
@pytest.mark.parametrize(
    "pair",
    SAMPLE,
    ids=lambda p: (
        f"{p[0].strategy}-{p[0].window}-{p[0].threshold}-{p[0].tail_turns}-rule@{p[0].rule_at_lap}"
    ),
)
def test_every_sampled_setting_ends_in_a_clean_stop(pair):
    outcome = sweep.run_one(*pair)
    assert outcome.stopped in sweep.CLEAN_STOPS + ("refused",), outcome.problem
    if outcome.stopped == "refused":
        assert len(outcome.problem) > 20, "a refusal must say why"


def test_the_window_slider_at_2000_with_running_summary_in_the_dashboard_itself():
    """The report in issue 15, clicked through: choose "running summary", drag the window to 2,000."""
    for rule_at_lap in (None, 3):
        desk = Dashboard(
            task=file_reading_task(rule_at_lap=rule_at_lap),
            delay=0,
            model_factory=lambda window: OfflineModel(window=window),
        )
        desk.controls["strategy"].value = "running summary"
        desk.controls["window"].value = 2000
        desk.show_end()
        assert desk.run.stopped in sweep.CLEAN_STOPS and "stopped: " in desk.status_text()


def test_a_crash_is_counted_not_hidden(monkeypatch):
    """The sweep's own honesty: an exception inside a run is reported as a crash, with where it came from."""
    import stage.widgets

    def broken(*_):
        raise KeyError("summary")

    monkeypatch.setattr(stage.widgets, "default_strategies", lambda: {"running summary": broken})
    outcome = sweep.run_one(sweep.Setting("running summary", 2000, 0.75, 1, None))
    assert outcome.stopped == "crash" and "KeyError" in outcome.problem
    result = sweep.Sweep([outcome])
    assert "1 crashes" in sweep.report(result, 1)
