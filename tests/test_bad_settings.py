"""Bad settings get a clear message before any work is done."""

import pytest

from harness.compaction import ThreeZoneCompaction
from harness.loop import run_agent
from harness.strategies import make_strategy
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
        ("sliding window", {"windw": 3}, "Bad setting"),
        ("summarize everything", {}, "Unknown strategy"),
    ],
)
def test_bad_settings_get_a_clear_message(name, settings, words):
    with pytest.raises(ValueError, match=words):
        make_strategy(name, **settings)


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
