"""Context strategies: what the loop sends the model each lap, chosen from the raw history.

A strategy's ``assemble(history, lap=..., system=..., tools=..., meter=..., model=...)`` returns
an ``Assembly``: the desk (the messages to send), the zone of each message, and what it did
(nothing, dropped N, compacted, cleared N). A strategy never edits or shortens ``history``: the
raw history stays whole, so every run can be replayed and plotted. It may also return a plain
list of messages (a hand-built one in a lesson): ``Assembly.whole`` gives it zones.

This module holds the interface and the simplest strategy, ``FullHistory``: send everything,
every lap, until the window overflows; the others follow it in the reading order. Every strategy
cuts only where ``messages.safe_cuts`` allows, so no tool call is sent without its result.

Left out: token-exact packing and images.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from harness.laps import Did


@dataclass
class Assembly:
    """What one strategy decided for one lap: the desk, its zones, and what it did to get there."""

    messages: list[dict]  # the desk: what is sent
    zones: list[str]  # "head", "summary", "middle", "tail", "notice" or "cleared", one per message
    kind: Did = Did.NONE  # what the strategy did: dropped, compacted, folded, cleared...
    event: str = ""  # the same, in words, for the lap record and the plot
    summary_calls: int = 0  # model calls spent on summaries this lap, and their tokens
    summary_input: int = 0
    summary_output: int = 0
    summary: str | None = None  # the summary now on the desk, if any

    def __post_init__(self):
        self.kind = Did(self.kind)  # a plain string is accepted, and checked

    @classmethod
    def whole(cls, messages: list[dict]) -> Assembly:
        """The messages sent as they are: the first is the head, the rest the tail."""
        return cls(list(messages), ["head"] + ["tail"] * (len(messages) - 1))


def usable_window(model, output_reserve: int) -> int:
    """The window minus the room kept free for the reply. Example: 5,000 and 512 -> 4,488"""
    usable = model.window - output_reserve
    if usable <= 0:
        raise ValueError(
            f"The output reserve ({output_reserve}) leaves no room "
            f"in a {model.window}-token window."
        )
    return usable


class CompactionFailed(Exception):
    """The summary call failed too many times in a row; the loop stops instead of spinning."""


class Strategy:
    """The shared part of every strategy. Subclasses write ``assemble``.

    ``from_settings`` is the one way to build a strategy from a ``StrategySettings`` (the
    dashboard's controls): it passes each setting the constructor has a parameter for, by name.
    Example: ThreeZoneCompaction.from_settings(StrategySettings(threshold=0.8))
    -> threshold 0.8, tail_turns 2
    """

    name = "strategy"

    def start(self) -> None:
        """Forget everything from an earlier run (the loop calls this before lap 1)."""

    @classmethod
    def from_settings(cls, settings) -> Strategy:
        """A fresh strategy from ``settings``, taking the ones its constructor names."""
        wanted = inspect.signature(cls).parameters
        given = {k: v for k, v in vars(settings).items() if k in wanted and k != "strategy"}
        return cls(**given)


class FullHistory(Strategy):
    """No management at all: every message, every lap. Overflows at the window."""

    name = "full history"

    def assemble(self, history, **_):
        return Assembly.whole(history)
