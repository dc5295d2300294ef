"""Clear, then compact: save dollars, not only tokens (lesson 04's Deeper part).

With prompt caching (``harness.cache``) the front of a request sent before costs a tenth of the
price, and changing a message already sent makes everything after it a fresh write. So a strategy
that shortens the desk by rewriting its front every few laps can cost *more* than sending the
full history. ``ClearThenCompact`` keeps the cached front still:

1. *Clear first.* Old tool results become one-line pointers (no model call), in batches of at
   least ``clear_at_least`` tokens, so the cache is not broken for a few tokens. Results of
   ``exclude_tools`` (by default the file listing: the map the agent steers by) stay.
2. *Mark the still part.* The last message the next lap will send unchanged -- the one before
   the oldest tool result still to be cleared -- carries a cache breakpoint, so the next lap
   reads everything up to it from the cache and writes only what really changed.
3. *Compact rarely and deeply.* Only when clearing cannot hold the desk under ``threshold`` x the
   usable window does it summarize (``harness.summarizing``, the compaction template), and then
   down to a low-water mark: the verbatim part kept is at most ``low_water`` x the usable window
   (at least one turn), so the desk takes long to refill. The summary is written from the desk as
   sent (pointers, notes and remarks, not the full tool output), so its call is short too.

Left out: a summary call that re-sends the cached conversation plus one instruction (its input
would be read from the cache). The offline model only summarizes what a prompt holds between
``<transcript>`` tags, so that call cannot be tested offline; here every summary call is a fresh
prompt, billed at the base price.
"""

from __future__ import annotations

from harness.cache import mark
from harness.clearing import Pointers
from harness.compaction import template_summary
from harness.context import Assembly, Strategy, usable_window
from harness.laps import Did
from harness.messages import tool_results, tool_uses, turn_starts
from harness.prompts import COMPACTION_TEMPLATE
from harness.summarizing import Summary, with_cost


class ClearThenCompact(Strategy):
    """Clear in batches, compact rarely and deeply, keep the cached front still.

    ``low_water`` defaults to 0.1, or half the threshold if that is lower.
    Example: window 5,000, reserve 512, threshold 0.8, low_water 0.1 -> compacts above 3,590
    tokens, keeping ~449 tokens (always the newest turn) word for word, and a <= 120-word summary.
    """

    name = "clear, then compact"

    def __init__(
        self,
        tail_turns: int = 1,
        clear_at_least: int = 0,
        threshold: float = 0.8,
        low_water: float | None = None,
        output_reserve: int = 512,
        exclude_tools: tuple[str, ...] = ("list_files",),
        max_words: int = 120,
        prompt: str = COMPACTION_TEMPLATE,
        max_failures: int = 3,
    ):
        low_water = min(0.1, threshold / 2) if low_water is None else low_water
        if tail_turns < 0 or clear_at_least < 0 or output_reserve < 0:
            raise ValueError("tail_turns, clear_at_least and output_reserve cannot be negative.")
        if not 0 < threshold <= 1 or not 0 < low_water < threshold:
            raise ValueError(
                f"Need 0 < low_water < threshold <= 1 (fractions of the usable window), "
                f"not low_water={low_water}, threshold={threshold}."
            )
        self.tail_turns = tail_turns  # the newest tool results, always kept whole
        self.clear_at_least = clear_at_least
        self.threshold = threshold
        self.low_water = low_water
        self.output_reserve = output_reserve
        self.exclude_tools = tuple(exclude_tools)
        self.summary_of = template_summary(prompt, max_words)
        self.max_failures = max_failures
        self.start()

    def start(self):
        self.pointers = Pointers(detail=False)  # short: a pointer here stays on the desk for long
        self.cleared: set[int] = set()  # history indices whose tool results are pointers now
        self.summary = Summary(head=1, verbatim_from=1, max_failures=self.max_failures)

    def assemble(self, history, *, lap=0, system="", tools=None, meter, model, **_):
        cleared_now = self.clear(history, meter)
        desk = self.current(history)
        size = meter.total(desk.messages, system=system, tools=tools)
        if size > self.threshold * usable_window(model, self.output_reserve):
            # clearing cannot hold: compact, deeply
            return self.compact(
                history, lap=lap, model=model, meter=meter, system=system, tools=tools
            )
        if cleared_now:
            results = "result" if cleared_now == 1 else "results"
            desk.kind = Did.CLEAR
            desk.event = f"cleared {cleared_now} old tool {results} in one batch"
        return desk

    # ---- 1. clear in batches ---------------------------------------------------------------------

    def clear(self, history, meter) -> int:
        """Old tool results become pointers once a batch saves ``clear_at_least`` tokens or more."""
        waiting = [i for i in self.clearable(history) if i not in self.cleared]
        due = waiting[: -self.tail_turns] if self.tail_turns else waiting
        if not due:
            return 0
        saved = sum(
            meter.count(history[i]) - meter.count(self.shown(history, i, cleared=True)) for i in due
        )
        if saved < self.clear_at_least:  # not worth breaking the cache for
            return 0
        self.cleared.update(due)
        return len(due)

    def clearable(self, history) -> list[int]:
        """Indices after the summary whose tool results may be cleared (``exclude_tools`` stay)."""
        found = []
        for i in range(max(self.summary.verbatim_from, 1), len(history)):
            if not tool_results(history[i]):
                continue
            names = {b["name"] for b in tool_uses(history[i - 1])}
            if not names or not names <= set(self.exclude_tools):
                found.append(i)
        return found

    def shown(self, history, i: int, cleared: bool | None = None) -> dict:
        """Message ``i`` as the desk shows it: a pointer if its results are cleared."""
        cleared = i in self.cleared if cleared is None else cleared
        return self.pointers.of(history, i) if cleared else history[i]

    # ---- 2. the desk, with its still part marked -------------------------------------------------

    def current(self, history) -> Assembly:
        """Head + summary + the rest, cleared results as pointers; the still part ends marked."""
        start = self.summary.verbatim_from
        head = history[:1]
        card = [self.summary.card] if self.summary.card else []
        rest = [self.shown(history, i) for i in range(start, len(history))]
        messages = head + card + rest
        zones = (
            ["head"]
            + ["summary"] * len(card)
            + ["cleared" if i in self.cleared else "tail" for i in range(start, len(history))]
        )
        # The still part ends just before the oldest tool result still waiting to be cleared:
        # that history index, then its place on the desk.
        waiting = [i for i in self.clearable(history) if i not in self.cleared]
        still_end = waiting[0] - 1 if waiting else len(history) - 1
        last_still = still_end - start + len(head) + len(card)
        if 0 <= last_still < len(messages) - 1:  # the last message gets the backend's breakpoint
            messages[last_still] = mark(messages[last_still])
        return Assembly(messages, zones, summary=self.summary.text)

    # ---- 3. compact, rarely and deeply -----------------------------------------------------------

    def compact(self, history, *, lap=0, model, meter, system="", tools=None, **_):
        """Summarize all but the newest turns that fit under the low-water mark."""
        start = self.summary.verbatim_from
        pinned = meter.total(history[:1], system=system, tools=tools)  # request, system, tools
        room = self.low_water * usable_window(model, self.output_reserve) - pinned
        starts = turn_starts(history, start=max(start, 1))
        cut = starts[-1] if starts else start  # keep at least the newest turn
        for turn in reversed(starts[:-1]):  # then, going back, every turn that still fits
            kept = sum(meter.count(self.shown(history, i)) for i in range(turn, len(history)))
            if kept > room:
                break
            cut = turn
        if cut <= start:
            desk = self.current(history)
            desk.kind = Did.STUCK
            desk.event = "cannot compact: the newest turn alone is over the threshold"
            return desk
        middle = [self.shown(history, i) for i in range(start, cut)]
        write = self.summary.rewrite(self.summary_of, middle, cut, model, lap)
        if write is None:
            event = f"summary failed ({self.summary.problem})"
            return with_cost(
                self.current(history), Did.SUMMARY_FAILED, event, None, self.summary.text
            )
        self.cleared = {i for i in self.cleared if i >= cut}
        event = f"compacted {cut - start} messages into one summary, down to the low-water mark"
        return with_cost(self.current(history), Did.COMPACT, event, write, self.summary.text)
