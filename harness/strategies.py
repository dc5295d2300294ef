"""Every strategy by name, and the settings a strategy is built from.

``STRATEGIES`` is the one table of strategies: the dashboard's menu, the benchmarks, the exercises
and the tests all read it. ``StrategySettings`` is what the dashboard's controls set -- the
strategy's name, the window, the threshold and the tail -- and ``Strategy.from_settings`` is the
one way from settings to a strategy: each takes the settings its constructor names.
Example: settings = StrategySettings("running summary", tail_turns=0)
         STRATEGIES[settings.strategy].from_settings(settings) -> RunningSummary(tail_turns=0)
Left out: what the dashboard does not set (``output_reserve``, ``max_words``...) keeps its default.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.clear_then_compact import ClearThenCompact
from harness.clearing import ClearToolResults
from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory, Strategy
from harness.model import CLASS_WINDOW
from harness.running_summary import RunningSummary
from harness.sliding_window import SlidingWindow

STRATEGIES: dict[str, type[Strategy]] = {
    cls.name: cls
    for cls in [FullHistory, SlidingWindow, ThreeZoneCompaction, RunningSummary]  # lessons 01-04
    + [ClearToolResults, ClearThenCompact]  # lesson 04's Deeper part
}


@dataclass(frozen=True)
class StrategySettings:
    """The dashboard's settings. ``window`` is the model's, in tokens; ``threshold`` a fraction of
    the usable window; ``tail_turns`` the newest turns kept word for word."""

    strategy: str = "three-zone compaction"
    window: int = CLASS_WINDOW
    threshold: float = 0.75
    tail_turns: int = 2
