"""The strategies by name, and the desk's settings in one object.

``STRATEGIES`` is the one table of strategies: the dashboard's menu, the benchmarks, the exercises and
the tests all read it. ``StrategySettings`` is everything a desk is set up with -- the strategy's name, the
window, the threshold and the tail -- handed on as one object; each strategy takes from it what it uses
(``Strategy.from_settings``). Example: StrategySettings("running summary", tail_turns=0).make_strategy()
-> RunningSummary(tail_turns=0)
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.cache_aware import ClearThenCompact
from harness.clearing import ClearToolResults
from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory, SlidingWindow, Strategy
from harness.model import CLASS_WINDOW
from harness.running_summary import RunningSummary

STRATEGIES: dict[str, type[Strategy]] = {
    cls.name: cls
    for cls in (
        FullHistory,
        SlidingWindow,
        ThreeZoneCompaction,
        RunningSummary,
        ClearToolResults,
        ClearThenCompact,
    )
}


@dataclass(frozen=True)
class StrategySettings:
    """How one desk is set up. ``window`` is the model's, in tokens; ``threshold`` a fraction of the
    usable window; ``tail_turns`` the newest turns kept word for word."""

    strategy: str = "three-zone compaction"
    window: int = CLASS_WINDOW
    threshold: float = 0.75
    tail_turns: int = 2

    def make_strategy(self) -> Strategy:
        """A fresh strategy for these settings (the loop needs a fresh one per run)."""
        if self.strategy not in STRATEGIES:
            raise ValueError(
                f"Unknown strategy {self.strategy!r}: choose one of {', '.join(STRATEGIES)}."
            )
        return STRATEGIES[self.strategy].from_settings(self)


def make_strategy(name: str, **settings) -> Strategy:
    """A strategy from its name and its own keyword settings, with a clear message for anything unknown.

    Example: make_strategy("three-zone compaction", threshold=0.8) -> ThreeZoneCompaction(threshold=0.8)
    """
    if name not in STRATEGIES:
        raise ValueError(f"Unknown strategy {name!r}: choose one of {', '.join(STRATEGIES)}.")
    try:
        return STRATEGIES[name](**settings)
    except TypeError as problem:
        raise ValueError(f"Bad setting for {name!r}: {problem}.") from None
