"""The sliding window (lesson 02): keep the newest messages that fit, drop the oldest.

The simplest way to make room, and the lesson's first failure: what falls off first is the start of
the session -- the request, and any rule the user gave early. ``pin_head=True`` keeps the request
whatever happens (the fix the lesson ends on); a rule said later still slides away.

**The piece** of lesson 02 is ``keep_newest(history, room, count)``: which newest messages fit.
``SlidingWindow(keep=...)`` takes the class's own; the strategy does the rest (the budget, the
notice where messages were dropped, the guards). Left out: token-exact packing, and dropping whole
turns by relevance instead of age.
"""

from __future__ import annotations

from harness.context import Assembly, Strategy
from harness.guards import call_piece, checked_messages
from harness.laps import Did
from harness.messages import safe_cuts, user

DROPPED_NOTICE = "[Older messages were dropped here to fit the window.]"


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

    ``budget`` defaults to the model's window minus ``output_reserve``. ``keep`` chooses what is
    kept (``keep_newest``, or the class's own piece with the same interface).
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
        self.budget = budget
        self.output_reserve = output_reserve  # kept free for the reply: it shares the window
        self.pin_head = pin_head
        self.keep = keep
        if pin_head:
            self.name = "sliding window, head pinned"

    def assemble(self, history, *, system="", tools=None, meter, model=None, **_):
        budget = self.budget or (model.window - self.output_reserve)
        fixed = meter.total([], system=system, tools=tools)  # sent every lap, whatever we drop
        if fixed + sum(meter.count(m) for m in history) <= budget:  # it all fits: send it all
            return Assembly.whole(history)
        head = history[:1] if self.pin_head else []
        # The notice tells the model that something is missing (without it, it cannot know).
        notice = user(DROPPED_NOTICE)
        room = budget - fixed - meter.count(notice) - sum(meter.count(m) for m in head)
        rest = history[len(head) :]
        kept = call_piece(self.keep, rest, room, meter.count)  # the piece: which newest ones fit
        messages = checked_messages(
            self.keep, head + [notice] + list(kept or []), "after the notice"
        )
        kept = messages[len(head) + 1 :]
        dropped = len(rest) - len(kept)
        zones = ["head"] * len(head) + ["notice"] + ["tail"] * len(kept)
        return Assembly(messages, zones, Did.DROP, f"dropped {dropped} oldest messages")
