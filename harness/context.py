"""Context strategies: what the loop sends to the model each lap, given the raw history.

A strategy has ``assemble(history, lap=..., system=..., tools=..., meter=..., model=...)`` and returns
an ``Assembly``: the messages to send, the zone of each one, and what happened (nothing, dropped N,
compacted, cleared N). A strategy never edits or shortens ``history``: the raw transcript stays whole,
so every run can be replayed and plotted. A plain list of messages is accepted by the loop too.

This module holds the shared parts and the two strategies that call no model:

* ``FullHistory``    -- send everything. Overflows at the window.
* ``SlidingWindow``  -- keep the newest messages that fit. The oldest papers fall off.

**Pieces.** The class writes one piece a lesson and plugs it into a strategy: here ``keep_newest``
(lesson 02) goes into ``SlidingWindow(keep=...)``. ``call_piece`` runs a piece the class wrote: a
mistake in it stops the run cleanly (``PieceFailed``, with what went wrong) instead of a traceback.

The summarizing ones are in ``harness.compaction`` (three zones), ``harness.running_summary`` and
``harness.clearing``; ``harness.strategies`` is the one table of them all, by name.
Every strategy cuts only where ``messages.safe_cuts`` allows, so no tool_use is ever sent
without its tool_result. Left out: token-exact packing and images.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.messages import pair_problems, safe_cuts, user
from harness.model import ContextOverflow, ModelError

DROPPED_NOTICE = "[Older messages were dropped here to fit the window.]"


@dataclass
class Assembly:
    """What one strategy decided for one lap."""

    messages: list[dict]
    zones: list[str]  # "head", "summary", "middle", "tail", "notice" per message
    kind: str = "none"  # none | drop | compact | fold | clear | stuck | summary_failed
    event: str = ""  # the same, in words, for the lap record and the plot
    summary_calls: int = 0
    summary_input: int = 0
    summary_output: int = 0
    summary: str | None = None


class CompactionFailed(Exception):
    """The summary call failed too many times in a row; the loop stops instead of spinning."""


class PieceFailed(Exception):
    """A piece the class wrote raised, or gave back what no request can carry; the run stops cleanly."""


def call_piece(piece, *args):
    """Call a piece the class wrote. Its own mistakes become ``PieceFailed``; the model's errors pass on.

    Example: call_piece(lambda history: history[99], []) -> PieceFailed("<lambda> raised IndexError: ...")
    """
    try:
        return piece(*args)
    except (ContextOverflow, ModelError, PieceFailed):
        raise
    except Exception as problem:
        raise PieceFailed(
            f"{getattr(piece, '__name__', 'the piece')} raised {type(problem).__name__}: {problem}"
        ) from problem


def checked_desk(piece, messages, where: str) -> list[dict]:
    """``messages`` as a list, if no tool call is cut from its result (the API refuses those requests)."""
    if not isinstance(messages, (list, tuple)) or not all(
        isinstance(m, dict) and "role" in m for m in messages
    ):
        raise PieceFailed(
            f"{getattr(piece, '__name__', 'the piece')} must return a list of messages, "
            f"not {type(messages).__name__}."
        )
    problems = pair_problems(list(messages))
    if problems:
        raise PieceFailed(
            f"{getattr(piece, '__name__', 'the piece')} split a tool call from its result "
            f"({where}: {problems[0]}); the API refuses such a request. Cut only at safe_cuts."
        )
    return list(messages)


class Strategy:
    """The shared plumbing. Subclasses write ``assemble``."""

    name = "strategy"

    def start(self) -> None:
        """Forget everything from an earlier run (the loop calls this before lap 1)."""

    def describe(self) -> str:
        return self.name

    @classmethod
    def from_settings(cls, settings) -> Strategy:
        """A fresh strategy from a ``harness.strategies.StrategySettings``; it takes what it uses."""
        return cls()


# ---- 1. send everything --------------------------------------------------------------------------


class FullHistory(Strategy):
    """No management at all: every message, every lap."""

    name = "full history"

    def assemble(self, history, **_):
        return Assembly(list(history), ["head"] + ["tail"] * (len(history) - 1))


# ---- 2. drop the oldest ----------------------------------------------------------------------------


def keep_newest(history: list[dict], room: int, count) -> list[dict]:
    """The piece of lesson 02: the newest messages of ``history`` that fit in ``room`` tokens.

    ``count(message)`` gives a message's tokens. The kept part starts at a safe cut, so no tool call
    is sent without its result. Example: turns of 100 tokens each, room 250 -> the newest two turns
    """
    start = len(history)
    for cut in reversed(safe_cuts(history)[:-1]):  # the newest cut first
        if sum(count(m) for m in history[cut:]) > room:
            break
        start = cut
    return history[start:]


class SlidingWindow(Strategy):
    """Keep the newest messages that fit in ``budget`` tokens; drop the rest, oldest first.

    ``budget`` defaults to the model's window minus ``output_reserve``. With ``pin_head=True`` the
    first message (the request) is kept whatever happens -- the fix the lesson ends on. ``keep``
    chooses what is kept (``keep_newest``, or the class's own piece with the same interface).
    Example: budget 1000, history of 1400 tokens -> the oldest ~400 tokens are not sent.
    """

    name = "sliding window"

    def __init__(
        self,
        budget: int | None = None,
        output_reserve: int = 512,
        pin_head: bool = False,
        keep=keep_newest,
    ):
        if budget is not None and budget <= 0:
            raise ValueError(
                f"The sliding window's budget must be a positive number of tokens, not {budget}."
            )
        if output_reserve < 0:
            raise ValueError(f"The output reserve cannot be negative ({output_reserve}).")
        self.budget, self.output_reserve, self.pin_head, self.keep = (
            budget,
            output_reserve,
            pin_head,
            keep,
        )
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
        rest = history[len(head) :]
        kept = call_piece(self.keep, rest, room, meter.count)
        messages = checked_desk(self.keep, head + [notice] + list(kept or []), "after the notice")
        kept = messages[len(head) + 1 :]
        dropped = len(rest) - len(kept)
        zones = ["head"] * len(head) + ["notice"] + ["tail"] * len(kept)
        return Assembly(messages, zones, "drop", f"dropped {dropped} oldest messages")
