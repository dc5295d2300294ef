"""Cache-aware context: save dollars, not only tokens.

With prompt caching, the front of a request that was sent before costs a tenth of the price;
anything that changes a message already sent makes everything after it a fresh write (1.25x).
So a strategy that shortens the desk by rewriting its front every few laps can cost *more*
than sending the full history. This module has two parts:

* **Where the breakpoints go** (``breakpoints``, ``mark``): the rule the Claude backend sends
  and the bill (``harness.cost``) assumes -- one place, so the two cannot drift apart.
* **``ClearThenCompact``**, a strategy that keeps the cached front still:

  1. *Clear first.* Old tool results become one-line pointers (no model call). Clearing only
     happens in batches of at least ``clear_at_least`` tokens, so the cache is not broken for
     a few tokens. Results of ``exclude_tools`` (by default the file listing: the map the agent
     steers by) are never cleared.
  2. *Mark the still part.* The last message that the next lap will send unchanged -- the one
     before the oldest tool result still to be cleared -- carries a cache breakpoint, so the next
     lap reads everything up to it from the cache and writes only what really changed.
  3. *Compact rarely and deeply.* Only when clearing cannot hold the desk under ``threshold`` x
     the usable window does it summarize -- and then down to a low-water mark: the verbatim part
     kept is at most ``low_water`` x the usable window (at least one turn), so the desk takes long
     to refill. The summary is written from the desk as it was sent (pointers, notes and remarks,
     not the full tool output), so the summary call is short too.

Left out: a summary call that re-sends the cached conversation plus one instruction (its input
would be read from the cache). The offline desk model only summarizes what a prompt holds between
``<transcript>`` tags, so that call cannot be tested offline; here every summary call is a fresh
prompt, billed at the base price. Also left out: the API's minimum cacheable length and cache lifetime.
"""

from __future__ import annotations

from harness.clearing import Pointers
from harness.compaction import one_more_failure, turn_starts, written_summary
from harness.context import Assembly, Strategy
from harness.messages import blocks_of, tool_results, tool_uses, user
from harness.model import ContextOverflow, ModelError
from harness.prompts import COMPACTION_TEMPLATE, SUMMARY_HEADER, compaction_prompt, render

EPHEMERAL = {"type": "ephemeral"}
MESSAGE_BREAKPOINTS = (
    2  # the API allows 4 in all: tools, system, one a strategy marks, the last message
)
LOOKBACK_BLOCKS = (
    20  # the API looks this many blocks back from a breakpoint for an older cached front
)


# ---- where the breakpoints go ------------------------------------------------------------------


def is_marked(message: dict) -> bool:
    """True when a block of the message carries ``cache_control`` (a strategy asked for a breakpoint)."""
    content = message.get("content")
    return isinstance(content, list) and any("cache_control" in block for block in content)


def mark(message: dict) -> dict:
    """A copy of ``message`` whose last block carries a cache breakpoint. The original is not changed.

    Example: mark(user("hi")) -> {"role": "user", "content": [{"type": "text", "text": "hi",
    "cache_control": {"type": "ephemeral"}}]}
    """
    blocks = [dict(block) for block in blocks_of(message)]
    blocks[-1]["cache_control"] = dict(EPHEMERAL)
    return {"role": message["role"], "content": blocks}


def unmarked(message: dict) -> dict:
    """The message as the cache sees it: its blocks, without breakpoints (they are not content).

    A plain-string content and the same text as one text block are the same to the API.
    Example: unmarked(mark(user("hi"))) == unmarked(user("hi")) -> True
    """
    bare = [
        {k: v for k, v in block.items() if k != "cache_control"} for block in blocks_of(message)
    ]
    return {"role": message["role"], "content": bare}


def breakpoints(messages: list[dict]) -> list[int]:
    """Indices of the messages that end with a cache breakpoint: the last message always, and the
    newest messages a strategy marked -- ``MESSAGE_BREAKPOINTS`` in all (older marks are ignored).

    Example: [A, B(marked), C, D] -> [1, 3]
    """
    if not messages:
        return []
    last = len(messages) - 1
    marked = [i for i, m in enumerate(messages[:-1]) if is_marked(m)]
    return marked[-(MESSAGE_BREAKPOINTS - 1) :] + [last] if MESSAGE_BREAKPOINTS > 1 else [last]


# ---- the strategy ------------------------------------------------------------------------------


class ClearThenCompact(Strategy):
    """Clear old tool results in batches, compact only when clearing cannot hold, keep the front cached.

    ``tail_turns`` newest tool results stay whole; older ones become pointers once at least
    ``clear_at_least`` tokens can go at once. If the desk is still above ``threshold`` x the usable
    window (window - ``output_reserve``), everything between the request and the newest turns that
    fit in ``low_water`` x the usable window is summarized with the template.
    Example: window 5,000, reserve 512, threshold 0.8, low_water 0.1 -> compacts above 3,590 tokens,
    keeping at most ~449 tokens (but always the newest turn) word for word, plus a summary of <= 120 words.
    """

    name = "clear, then compact"

    def __init__(
        self,
        tail_turns: int = 1,
        clear_at_least: int = 0,
        threshold: float = 0.8,
        low_water: float = 0.1,
        output_reserve: int = 512,
        exclude_tools: tuple[str, ...] = ("list_files",),
        max_words: int = 120,
        prompt: str = COMPACTION_TEMPLATE,
        max_failures: int = 3,
    ):
        if tail_turns < 0 or clear_at_least < 0 or output_reserve < 0:
            raise ValueError("tail_turns, clear_at_least and output_reserve cannot be negative.")
        if not 0 < threshold <= 1 or not 0 < low_water < threshold:
            raise ValueError(
                f"Need 0 < low_water < threshold <= 1 (fractions of the usable window), "
                f"not low_water={low_water}, threshold={threshold}."
            )
        self.tail_turns, self.clear_at_least, self.threshold = tail_turns, clear_at_least, threshold
        self.low_water, self.output_reserve = low_water, output_reserve
        self.exclude_tools = tuple(exclude_tools)
        self.max_words, self.prompt, self.max_failures = max_words, prompt, max_failures
        self.start()

    @classmethod
    def from_settings(cls, settings):
        low_water = min(0.1, settings.threshold / 2)
        return cls(
            tail_turns=settings.tail_turns, threshold=settings.threshold, low_water=low_water
        )

    def start(self):
        self.pointers = Pointers(detail=False)  # short: a pointer here stays on the desk for long
        self.cleared: set[int] = set()  # history indices whose tool results are pointers now
        self.summary: str | None = None
        self.summary_message: dict | None = None
        self.upto = 1  # history[1:upto] lives in the summary
        self.failures = 0

    def usable(self, model) -> int:
        usable = model.window - self.output_reserve
        if usable <= 0:
            raise ValueError(
                f"The output reserve ({self.output_reserve}) leaves no room in a "
                f"{model.window}-token window."
            )
        return usable

    # -- each lap --
    def assemble(self, history, *, lap=0, system="", tools=None, meter, model, **_):
        cleared_now = self.clear(history, meter)
        desk = self.desk(history)
        size = meter.total(desk.messages, system=system, tools=tools)
        if size > self.threshold * self.usable(model):
            return self.compact(
                history, lap=lap, model=model, meter=meter, system=system, tools=tools
            )
        if cleared_now:
            results = "result" if cleared_now == 1 else "results"
            desk.kind, desk.event = (
                "clear",
                f"cleared {cleared_now} old tool {results} in one batch",
            )
        return desk

    def clear(self, history, meter) -> int:
        """Turn old tool results into pointers, if a batch of at least ``clear_at_least`` tokens is due."""
        holders = [i for i in self.clearable(history) if i not in self.cleared]
        due = holders[: -self.tail_turns] if self.tail_turns else holders
        if not due:
            return 0
        saved = sum(
            meter.count(history[i]) - meter.count(self.pointers.of(history, i)) for i in due
        )
        if saved < self.clear_at_least:
            return 0
        self.cleared.update(due)
        return len(due)

    def clearable(self, history) -> list[int]:
        """Indices after the summary whose tool results may be cleared (not those of ``exclude_tools``)."""
        found = []
        for i in range(max(self.upto, 1), len(history)):
            if not tool_results(history[i]):
                continue
            names = {b["name"] for b in tool_uses(history[i - 1])}
            if not names or not names <= set(self.exclude_tools):
                found.append(i)
        return found

    def desk(self, history) -> Assembly:
        """Head + summary + the rest with cleared results as pointers; the still part ends in a breakpoint."""
        head = history[:1]
        rest = [
            self.pointers.of(history, i) if i in self.cleared else history[i]
            for i in range(self.upto, len(history))
        ]
        summary = [self.summary_message] if self.summary_message else []
        messages = head + summary + rest
        zones = (
            ["head"]
            + ["summary"] * len(summary)
            + ["cleared" if i in self.cleared else "tail" for i in range(self.upto, len(history))]
        )
        pending = [i for i in self.clearable(history) if i not in self.cleared]
        still = (
            (pending[0] - 1 if pending else len(history) - 1) - self.upto + len(head) + len(summary)
        )
        if 0 <= still < len(messages) - 1:  # the last message gets its breakpoint from the backend
            messages[still] = mark(messages[still])
        return Assembly(messages, zones, summary=self.summary)

    # -- compaction, rarely and deeply --
    def compact(self, history, *, lap=0, model, meter, system="", tools=None):
        """Summarize all but the newest turns that fit under the low-water mark."""
        room = self.low_water * self.usable(model) - meter.total(
            history[:1], system=system, tools=tools
        )
        starts = turn_starts(history, start=max(self.upto, 1))
        cut = starts[-1] if starts else self.upto  # keep at least the newest turn
        for start in reversed(starts[:-1]):
            kept = sum(
                meter.count(self.pointers.of(history, i) if i in self.cleared else history[i])
                for i in range(start, len(history))
            )
            if kept > room:
                break
            cut = start
        if cut <= self.upto:
            desk = self.desk(history)
            desk.kind, desk.event = (
                "stuck",
                "cannot compact: the newest turn alone is over the threshold",
            )
            return desk
        middle = [
            self.pointers.of(history, i) if i in self.cleared else history[i]
            for i in range(self.upto, cut)
        ]

        def fold_in(summary, events, write):
            earlier = [user("[Earlier summary]\n" + summary)] if summary else []
            return write(
                compaction_prompt(
                    render(earlier + events), self.max_words, "", template=self.prompt
                )
            )

        try:
            text, write = written_summary(fold_in, self.summary or "", middle, model)
        except (ModelError, ContextOverflow) as problem:
            self.failures = one_more_failure(self.failures, self.max_failures, problem)
            desk = self.desk(history)
            desk.kind, desk.event, desk.summary_calls = (
                "summary_failed",
                f"summary failed ({problem})",
                1,
            )
            return desk
        self.failures = 0
        folded, self.upto = cut - self.upto, cut
        self.summary, self.summary_message = (
            text,
            user(SUMMARY_HEADER.format(lap=lap) + "\n" + text),
        )
        self.cleared = {i for i in self.cleared if i >= cut}
        desk = self.desk(history)
        desk.kind = "compact"
        desk.event = f"compacted {folded} messages into one summary, down to the low-water mark"
        desk.summary_calls, desk.summary_input, desk.summary_output = (
            write.calls,
            write.tokens_in,
            write.tokens_out,
        )
        return desk
