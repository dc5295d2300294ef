"""Context strategies: what the loop sends to the model each lap, given the raw history.

A strategy has ``assemble(history, lap=..., system=..., tools=..., meter=..., model=...)`` and returns
an ``Assembly``: the messages to send, the zone of each one, and what happened (nothing, dropped N,
compacted, cleared N). A strategy never edits or shortens ``history``: the raw transcript stays whole,
so every run can be replayed and plotted. A plain list of messages is accepted by the loop too.

This module holds the shared parts and the two strategies that call no model:

* ``FullHistory``    -- send everything. Overflows at the window.
* ``SlidingWindow``  -- keep the newest messages that fit. The oldest papers fall off.

The summarizing ones are in ``harness.compaction`` (three zones), ``harness.running_summary`` and
``harness.clearing``; ``harness.strategies`` is the one table of them all, by name.
Every strategy cuts only where ``messages.safe_cuts`` allows, so no tool_use is ever sent
without its tool_result. Left out: token-exact packing and images.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.messages import safe_cuts, user

DROPPED_NOTICE = "[Older messages were dropped here to fit the window.]"


@dataclass
class Assembly:
    """What one strategy decided for one lap."""

    messages: list[dict]
    zones: list[str]                      # "head", "summary", "middle", "tail", "notice" per message
    kind: str = "none"                    # none | drop | compact | fold | clear | stuck | summary_failed
    event: str = ""                       # the same, in words, for the lap record and the plot
    summary_calls: int = 0
    summary_input: int = 0
    summary_output: int = 0
    summary: str | None = None


class CompactionFailed(Exception):
    """The summary call failed too many times in a row; the loop stops instead of spinning."""


class Strategy:
    """The shared plumbing. Subclasses write ``assemble``."""

    name = "strategy"

    def start(self) -> None:
        """Forget everything from an earlier run (the loop calls this before lap 1)."""

    def describe(self) -> str:
        return self.name

    @classmethod
    def from_settings(cls, settings) -> Strategy:
        """A fresh strategy from a ``harness.strategies.DeskSettings``; it takes what it uses."""
        return cls()


# ---- 1. send everything --------------------------------------------------------------------------

class FullHistory(Strategy):
    """No management at all: every message, every lap."""

    name = "full history"

    def assemble(self, history, **_):
        return Assembly(list(history), ["head"] + ["tail"] * (len(history) - 1))


# ---- 2. drop the oldest ----------------------------------------------------------------------------

class SlidingWindow(Strategy):
    """Keep the newest messages that fit in ``budget`` tokens; drop the rest, oldest first.

    ``budget`` defaults to the model's window minus ``output_reserve``. With ``pin_head=True`` the
    first message (the request) is kept whatever happens -- the fix the lesson ends on.
    Example: budget 1000, history of 1400 tokens -> the oldest ~400 tokens are not sent.
    """

    name = "sliding window"

    def __init__(self, budget: int | None = None, output_reserve: int = 512, pin_head: bool = False):
        if budget is not None and budget <= 0:
            raise ValueError(f"The sliding window's budget must be a positive number of tokens, not {budget}.")
        if output_reserve < 0:
            raise ValueError(f"The output reserve cannot be negative ({output_reserve}).")
        self.budget, self.output_reserve, self.pin_head = budget, output_reserve, pin_head
        if pin_head:
            self.name = "sliding window, head pinned"

    def assemble(self, history, *, system="", tools=None, meter, model=None, **_):
        budget = self.budget or (model.window - self.output_reserve)
        fixed = meter.total([], system=system, tools=tools)
        if fixed + sum(meter.count(m) for m in history) <= budget:
            return Assembly(list(history), ["head"] + ["tail"] * (len(history) - 1))
        head = history[:1] if self.pin_head else []
        notice = user(DROPPED_NOTICE)
        room = budget - fixed - meter.count(notice) - sum(meter.count(m) for m in head)
        # walk back from the newest message, keeping whole turns, until the next one would not fit
        start = len(history)
        for cut in reversed(safe_cuts(history)[:-1]):
            if cut < len(head):
                break
            if sum(meter.count(m) for m in history[cut:]) > room:
                break
            start = cut
        kept = history[start:]
        dropped = start - len(head)
        messages = head + [notice] + kept
        zones = ["head"] * len(head) + ["notice"] + ["tail"] * len(kept)
        return Assembly(messages, zones, "drop", f"dropped {dropped} oldest messages")


