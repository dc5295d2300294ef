"""Three-zone compaction (lesson 03): pinned head, summarized middle, verbatim tail, at a threshold.

The cycle: when the desk passes the threshold, one extra model call summarizes the middle with the
structured template of ``harness.prompts``, and the desk is rebuilt as head + summary card + tail.
The raw history is untouched; the strategy only remembers the summary and where the verbatim part
starts (``harness.summarizing.Summary``). The desk climbs, drops, climbs again: the sawtooth.

**The piece** of lesson 03 is the split, ``three_zones(history, tail_turns) -> (head, middle,
tail)``. ``ThreeZoneCompaction(split=...)`` takes the class's own; the strategy does the rest (when
to fire, the summary call, rebuilding the desk). The running summary (``harness.running_summary``)
is the same strategy, fired every few turns instead of at a size.
Left out: summarizing in the background while the agent works on, and per-zone token budgets.
"""

from __future__ import annotations

from harness.context import Assembly, Strategy, usable_window
from harness.guards import PieceFailed, call_piece, checked_messages, name_of
from harness.laps import Did
from harness.messages import turn_starts, user
from harness.prompts import COMPACTION_TEMPLATE, compaction_prompt, render
from harness.summarizing import Summary, with_cost


def tail_start(history: list[dict], verbatim_from: int, tail_turns: int) -> int:
    """Where the verbatim tail begins: the start of the ``tail_turns``-th newest turn.

    Only turns after ``verbatim_from`` count (what is before it is summarized already). With no
    tail, everything is summarized; with fewer turns than asked, nothing is (``verbatim_from``).
    Example: turns start at 3, 5, 7, 9; tail_turns=2 -> 7
    """
    if not tail_turns:
        return len(history)
    starts = turn_starts(history, start=max(verbatim_from, 1))
    return starts[-tail_turns] if len(starts) >= tail_turns else verbatim_from


def three_zones(history: list[dict], tail_turns: int, head: int = 1) -> tuple[list, list, list]:
    """The piece of lesson 03: the history split into pinned head, middle and verbatim tail.

    The tail is the newest ``tail_turns`` whole turns; a turn starts at an assistant message.
    Example: [request, a1, r1, a2, r2, a3, r3], tail_turns=2
    -> ([request], [a1, r1], [a2, r2, a3, r3])
    """
    cut = tail_start(history, head, tail_turns)
    return history[:head], history[head:cut], history[cut:]


def template_summary(template: str, max_words: int, focus: str = ""):
    """A ``summary_of`` that fills a compaction template: the earlier summary, then the new events.

    The earlier summary is folded in, not summarized blindly: it goes into the transcript first.
    """

    def summary_of(summary: str, events: list[dict], write) -> str:
        earlier = [user("[Earlier summary]\n" + summary)] if summary else []
        return write(
            compaction_prompt(render(earlier + events), max_words, focus, template=template)
        )

    return summary_of


class ThreeZoneCompaction(Strategy):
    """Pinned head, summarized middle, verbatim tail -- compacting when the desk passes a threshold.

    Fires when the desk is over ``threshold`` x the *usable* window (the window minus
    ``output_reserve``, kept free for the reply); a later compaction folds the earlier summary in.
    ``pin_request=False`` summarizes the request too (what SDK-style "replace everything"
    compaction does). ``split`` draws the zones (``three_zones``, or the class's own piece).
    ``on_demand`` is a manual "compact now", like ``/compact <instructions>`` in Claude Code:
    ``{8: "database decisions"}`` compacts at lap 8 whatever the size, with that focus.
    Example: window 4096, reserve 512, threshold 0.75 -> compacts above 2,688 tokens.
    """

    name = "three-zone compaction"

    def __init__(
        self,
        threshold: float = 0.75,
        tail_turns: int = 2,
        output_reserve: int = 512,
        prompt: str = COMPACTION_TEMPLATE,
        max_words: int = 220,
        pin_request: bool = True,
        max_failures: int = 3,
        focus: str = "",
        on_demand: dict[int, str] | None = None,
        split=None,
    ):
        if not 0 < threshold <= 1:
            raise ValueError(
                "The threshold is a fraction of the usable window: "
                f"it must be in (0, 1], not {threshold}."
            )
        if tail_turns < 0:
            raise ValueError(f"tail_turns cannot be negative ({tail_turns}).")
        if output_reserve < 0:
            raise ValueError(f"The output reserve cannot be negative ({output_reserve}).")
        self.on_demand = dict(on_demand or {})
        if any(not isinstance(lap, int) or lap < 1 for lap in self.on_demand):
            raise ValueError(
                f"on_demand maps lap numbers (1, 2, ...) to focus text, not {on_demand!r}."
            )
        self.threshold = threshold
        self.tail_turns = tail_turns
        self.output_reserve = output_reserve
        self.prompt = prompt
        self.max_words = max_words
        self.focus = focus
        self.pin_request = pin_request
        self.max_failures = max_failures
        self.split = split or (
            three_zones if pin_request else (lambda h, t: three_zones(h, t, head=0))
        )
        self.start()

    def start(self):
        pinned = 1 if self.pin_request else 0
        self.summary = Summary(head=pinned, verbatim_from=pinned, max_failures=self.max_failures)

    def limit(self, model) -> int:
        """The size, in tokens, above which the desk is compacted."""
        return int(usable_window(model, self.output_reserve) * self.threshold)

    def current(self, history) -> Assembly:
        """The desk as it stands: head + summary card + everything not summarized yet."""
        s = self.summary
        head = history[: s.head]
        card = [s.card] if s.card else []
        rest = history[s.verbatim_from :]  # not summarized yet: sent word for word
        zones = ["head"] * len(head) + ["summary"] * len(card) + ["tail"] * len(rest)
        return Assembly(head + card + rest, zones, summary=s.text)

    def assemble(self, history, *, lap=0, system="", tools=None, meter, model, **_):
        if lap in self.on_demand:  # "compact now", whatever the size
            focus = self.on_demand[lap]
            desk = self.compact(history, lap=lap, model=model, focus=focus or None)
            if desk.kind == Did.COMPACT:
                desk.event += f" (on demand{': focus on ' + focus if focus else ''})"
            return desk
        desk = self.current(history)
        if meter.total(desk.messages, system=system, tools=tools) <= self.limit(model):
            return desk  # under the threshold: nothing to do
        desk = self.compact(history, lap=lap, model=model)
        # the trap: a tail too big for the window stays too big, however short the summary
        size = meter.total(desk.messages, system=system, tools=tools)
        if desk.kind == Did.COMPACT and size > self.limit(model):
            desk.event += (
                "; still over the threshold: the head and the verbatim tail alone are too big"
            )
        return desk

    def compact(self, history, *, lap=0, model, focus: str | None = None, **_):
        """Summarize everything between the head and the tail, now (what ``/compact`` does)."""
        cut = self.tail_from(history)
        if cut <= self.summary.verbatim_from:
            why = "the pinned head and the verbatim tail alone are over the threshold"
            return self.stuck(history, f"cannot compact: {why}")
        focus = self.focus if focus is None else focus
        summary_of = template_summary(self.prompt, self.max_words, focus)
        return self.summarize(history, cut, summary_of, lap, model, Did.COMPACT, "compacted")

    def tail_from(self, history) -> int:
        """Where the verbatim tail starts, as the split piece draws it (and, at first, the head)."""
        head, middle, tail = (
            list(part) for part in call_piece(self.split, history, self.tail_turns)
        )
        if head + middle + tail != history:
            raise PieceFailed(
                f"{name_of(self.split)} must return three parts that, "
                "joined, are the history in its order: head + middle + tail == history."
            )
        checked_messages(self.split, head + [user("[summary]")], "at the end of the head")
        checked_messages(self.split, [user("[summary]")] + tail, "at the start of the tail")
        if self.summary.text is None:  # until the first summary, the piece decides what is pinned
            self.summary.head = self.summary.verbatim_from = len(head)
        return len(head) + len(middle)

    def stuck(self, history, why: str) -> Assembly:
        """Nothing can be summarized: say so once (``Did.STUCK``), then send the desk as it is."""
        desk = self.current(history)
        if not self.summary.warned_stuck:
            desk.kind, desk.event = Did.STUCK, why
            self.summary.warned_stuck = True
        return desk

    def summarize(self, history, cut, summary_of, lap, model, kind: Did, verb: str) -> Assembly:
        """Write the summary of history[verbatim_from:cut]; on a failed call leave all as it was."""
        s = self.summary
        folded = cut - s.verbatim_from
        write = s.rewrite(summary_of, history[s.verbatim_from : cut], cut, model, lap)
        if write is None:
            event = f"summary failed ({s.problem}); history left as it was"
            return with_cost(self.current(history), Did.SUMMARY_FAILED, event, None, s.text)
        pieces = f" in {write.calls} pieces" if write.calls > 1 else ""
        event = f"{verb} {folded} messages into one summary{pieces}"
        return with_cost(self.current(history), kind, event, write, s.text)
