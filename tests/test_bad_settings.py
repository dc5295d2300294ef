"""Bad settings get a clear message before any work is done."""

import inspect

import pytest

from harness.compaction import ThreeZoneCompaction
from harness.loop import run_agent
from harness.strategies import STRATEGIES, StrategySettings
from stage.offline import OfflineModel
from stage.tasks import file_reading_task

# ---- bad settings, before any work ----------------------------------------------------------------


@pytest.mark.parametrize(
    "name, settings, words",
    [
        ("three-zone compaction", {"threshold": 0}, "threshold"),
        ("three-zone compaction", {"threshold": 1.2}, "threshold"),
        ("three-zone compaction", {"tail_turns": -1}, "negative"),
        ("sliding window", {"budget": -100}, "budget"),
        ("clear, then compact", {"threshold": 0.8, "low_water": 0.9}, "low_water < threshold"),
        ("running summary", {"chunk_turns": 0}, "chunk_turns"),
    ],
)
def test_bad_settings_get_a_clear_message(name, settings, words):
    with pytest.raises(ValueError, match=words):
        STRATEGIES[name](**settings)


def test_a_misspelt_setting_names_itself():
    with pytest.raises(TypeError, match="windw"):
        STRATEGIES["sliding window"](windw=3)


@pytest.mark.parametrize("threshold", [0.05, 0.15, 0.75, 1.0])
@pytest.mark.parametrize("name", list(STRATEGIES))
def test_every_strategy_builds_from_the_dashboards_settings(name, threshold):
    """The one way from settings to a strategy: each takes the settings its constructor names."""
    settings = StrategySettings(name, threshold=threshold, tail_turns=1)
    strategy = STRATEGIES[name].from_settings(settings)
    assert type(strategy) is STRATEGIES[name]
    named = inspect.signature(STRATEGIES[name]).parameters
    for setting in ("threshold", "tail_turns"):
        if setting in named:
            assert getattr(strategy, setting) == getattr(settings, setting)


def test_a_window_smaller_than_the_pinned_head_is_refused_up_front():
    with pytest.raises(ValueError, match="smaller than the pinned head"):
        run_agent(file_reading_task().request, OfflineModel(window=200))


def test_an_output_reserve_bigger_than_the_window_is_explained():
    run_attempt = lambda: run_agent(
        file_reading_task().request,
        OfflineModel(window=600),
        context=ThreeZoneCompaction(output_reserve=1000),
    )
    with pytest.raises(ValueError, match="leaves no room"):
        run_attempt()
