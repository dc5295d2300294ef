"""Three-zone compaction: pinned head, summarized middle, verbatim tail, at a token threshold.

The cycle: when the desk passes the threshold, one extra model call summarizes the middle (with the
structured template of ``harness.prompts``), and the desk is rebuilt as head + summary + tail. The raw
history is untouched; the strategy only remembers the summary and where the verbatim part starts.

**The piece** of lesson 03 is the split: ``three_zones(history, tail_turns) -> (head, middle, tail)``.
``ThreeZoneCompaction(split=...)`` takes the class's own; the strategy does the rest (when to fire,
the summary call, rebuilding the desk). ``summarize``, ``SummaryWriter`` and ``tail_start`` are shared with the
running summary (``harness.running_summary``), the same idea folded every few turns.
Left out: summarizing in the background while the agent works on, and per-zone token budgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.context import (
    Assembly,
    CompactionFailed,
    PieceFailed,
    Strategy,
    call_piece,
    checked_desk,
)
from harness.messages import safe_cuts, user
from harness.model import ContextOverflow, ModelError
from harness.prompts import COMPACTION_TEMPLATE, SUMMARY_HEADER, compaction_prompt, render


@dataclass
class _Summarized:
    """The running state of a summarizing strategy: the summary and where the verbatim part starts."""

    text: str | None = None
    head: int = 1  # history[:head] is pinned
    upto: int = 1  # history[head:upto] is folded into ``text``; history[upto:] is verbatim
    message: dict | None = None
    failures: int = 0
    warned_stuck: bool = False


class SummaryWriter:
    """The model as a summary writer: ``write(prompt) -> text``, counting the calls and tokens it spends."""

    def __init__(self, model):
        self.model, self.calls, self.tokens_in, self.tokens_out = model, 0, 0, 0

    def __call__(self, prompt: str) -> str:
        reply = self.model.reply("", [user(prompt)], [], max_tokens=1024)
        self.calls += 1
        self.tokens_in += reply.usage.get("input_tokens", 0)
        self.tokens_out += reply.usage.get("output_tokens", 0)
        return reply.text.strip()


def summarize(
    fold_in, summary: str, events: list[dict], write: SummaryWriter, depth: int = 0
) -> str:
    """The new summary: ``fold_in(summary, events, write)``, which asks the model through ``write``.

    If the summary call is itself too long for the window, fold the events in two halves, one call
    each, so a huge middle never makes compaction loop. Gives up after three levels of halving.
    """
    try:
        return fold_in(summary, events, write)
    except ContextOverflow:
        cuts = [c for c in safe_cuts(events) if 0 < c < len(events)]
        if depth >= 3 or not cuts:
            raise
        half = min(cuts, key=lambda c: abs(c - len(events) / 2))
        first = summarize(fold_in, summary, events[:half], write, depth + 1)
        return summarize(fold_in, first, events[half:], write, depth + 1)


def written_summary(fold_in, summary: str, events: list[dict], model) -> tuple[str, SummaryWriter]:
    """The new summary and the writer that counted its cost; an empty summary fails like an API error."""
    write = SummaryWriter(model)
    text = summarize(fold_in, summary, events, write)
    if not text:
        raise ModelError("the summary came back empty")
    return text, write


def one_more_failure(failures: int, most: int, problem: Exception) -> int:
    """Count a failed summary call; at ``most`` in a row, stop the run instead of retrying forever."""
    failures += 1
    if failures >= most:
        raise CompactionFailed(
            f"The summary call failed {failures} times in a row ({problem}). Stopping "
            "instead of looping; the raw history is intact and can be resumed."
        ) from problem
    return failures


def turn_starts(history: list[dict], start: int = 1) -> list[int]:
    """Indices (from ``start``) where a turn begins: an assistant message at a safe cut."""
    return [i for i in safe_cuts(history, start)[:-1] if history[i]["role"] == "assistant"]


def tail_start(history: list[dict], upto: int, tail_turns: int) -> int:
    """Where the verbatim tail begins: the start of the ``tail_turns``-th newest turn after ``upto``.

    With no tail, everything is summarized; with fewer turns than asked, nothing is (returns ``upto``).
    Example: turns start at 3, 5, 7, 9; tail_turns=2 -> 7
    """
    if not tail_turns:
        return len(history)
    starts = turn_starts(history, start=max(upto, 1))
    return starts[-tail_turns] if len(starts) >= tail_turns else upto


def three_zones(history: list[dict], tail_turns: int, head: int = 1) -> tuple[list, list, list]:
    """The piece of lesson 03: split the history into the pinned head, the middle, the verbatim tail.

    The tail is the newest ``tail_turns`` whole turns; a turn starts at an assistant message.
    Example: [request, a1, r1, a2, r2, a3, r3], tail_turns=2 -> ([request], [a1, r1], [a2, r2, a3, r3])
    """
    cut = tail_start(history, head, tail_turns)
    return history[:head], history[head:cut], history[cut:]


class ThreeZoneCompaction(Strategy):
    """Pinned head, summarized middle, verbatim tail -- compacting when the desk passes a threshold.

    Fires when the assembled context exceeds ``threshold`` x the *usable* window (the window minus
    ``output_reserve``, kept free for the reply). The middle is summarized by one model call with
    ``prompt`` and spliced back where it was; a later compaction folds the earlier summary in.
    ``tail_turns`` recent turns always stay word for word. ``pin_request=False`` summarizes the
    original request too (what SDK-style "replace everything" compaction does). ``split`` draws the
    zones (``three_zones``, or the class's own piece with the same interface).
    ``on_demand`` is a manual "compact now", like typing ``/compact <instructions>`` in Claude Code:
    ``{8: "database decisions"}`` compacts at lap 8 whatever the size, putting that focus in the prompt.
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
        self.threshold, self.tail_turns, self.output_reserve = threshold, tail_turns, output_reserve
        self.prompt, self.max_words, self.pin_request = prompt, max_words, pin_request
        self.max_failures, self.focus = max_failures, focus
        self.split = split or (
            three_zones if pin_request else (lambda h, t: three_zones(h, t, head=0))
        )
        self.on_demand = dict(on_demand or {})
        if any(not isinstance(lap, int) or lap < 1 for lap in self.on_demand):
            raise ValueError(
                f"on_demand maps lap numbers (1, 2, ...) to focus text, not {on_demand!r}."
            )
        self.state = _Summarized()

    @classmethod
    def from_settings(cls, settings):
        return cls(settings.threshold, tail_turns=settings.tail_turns)

    def start(self):
        pinned = 1 if self.pin_request else 0
        self.state = _Summarized(head=pinned, upto=pinned)

    def limit(self, model) -> int:
        usable = model.window - self.output_reserve
        if usable <= 0:
            raise ValueError(
                f"The output reserve ({self.output_reserve}) leaves no room "
                f"in a {model.window}-token window."
            )
        return int(usable * self.threshold)

    def current(self, history):
        """The desk as it stands: head + summary + everything not yet summarized."""
        s = self.state
        head = history[: s.head]
        messages = head + ([s.message] if s.message else []) + history[s.upto :]
        zones = (
            ["head"] * len(head)
            + (["summary"] if s.message else [])
            + ["tail"] * (len(history) - s.upto)
        )
        return messages, zones

    def assemble(self, history, *, lap=0, system="", tools=None, meter, model, **_):
        if lap in self.on_demand:  # "compact now", whatever the size
            focus = self.on_demand[lap]
            desk = self.compact(history, lap=lap, model=model, focus=focus or None)
            if desk.kind == "compact":
                desk.event += f" (on demand{': focus on ' + focus if focus else ''})"
            return desk
        messages, zones = self.current(history)
        size = meter.total(messages, system=system, tools=tools)
        if size <= self.limit(model):
            return Assembly(messages, zones, summary=self.state.text)
        desk = self.compact(history, lap=lap, model=model, meter=meter, system=system, tools=tools)
        if desk.kind == "compact" and meter.total(
            desk.messages, system=system, tools=tools
        ) > self.limit(model):
            desk.event += (
                "; still over the threshold: the head and the verbatim tail alone are too big"
            )
        return desk

    def compact(
        self, history, *, lap=0, model, meter=None, system="", tools=None, focus: str | None = None
    ):
        """Summarize everything between the head and the tail, now. (``/compact`` calls this directly.)"""
        s = self.state
        cut = self.zones_of(history)
        if cut <= s.upto:
            messages, zones = self.current(history)
            event = (
                ""
                if s.warned_stuck
                else (
                    "cannot compact: the pinned head and the verbatim tail alone are over the threshold"
                )
            )
            s.warned_stuck = True
            return Assembly(messages, zones, "stuck" if event else "none", event, summary=s.text)
        focus = self.focus if focus is None else focus

        def fold_in(
            summary, events, write
        ):  # the earlier summary is folded in, not summarized blindly
            earlier = [user("[Earlier summary]\n" + summary)] if summary else []
            prompt = compaction_prompt(
                render(earlier + events), self.max_words, focus, template=self.prompt
            )
            return write(prompt)

        return self._summarize(history, cut, fold_in, lap, model, "compact", "compacted")

    def zones_of(self, history) -> int:
        """Where the verbatim tail starts, by the split piece; it also fixes the head before the first summary."""
        head, middle, tail = (
            list(part) for part in call_piece(self.split, history, self.tail_turns)
        )
        if head + middle + tail != history:
            raise PieceFailed(
                f"{getattr(self.split, '__name__', 'the split')} must return three parts that, "
                "joined, are the history in its order: head + middle + tail == history."
            )
        checked_desk(self.split, head + [user("[summary]")], "at the end of the head")
        checked_desk(self.split, [user("[summary]")] + tail, "at the start of the tail")
        s = self.state
        if s.text is None:  # before the first summary the piece decides what is pinned
            s.head = s.upto = len(head)
        return len(head) + len(middle)

    def _summarize(self, history, cut, fold_in, lap, model, kind, verb):
        """Write the summary of history[upto:cut]; on failure leave everything as it was."""
        s = self.state
        try:
            text, write = written_summary(fold_in, s.text or "", history[s.upto : cut], model)
        except (ModelError, ContextOverflow) as problem:
            s.failures = one_more_failure(s.failures, self.max_failures, problem)
            messages, zones = self.current(history)
            return Assembly(
                messages,
                zones,
                "summary_failed",
                f"summary failed ({problem}); history left as it was",
                summary_calls=1,
                summary=s.text,
            )
        s.failures, s.warned_stuck = 0, False
        folded = cut - s.upto
        s.text, s.upto = text, cut
        s.message = user(SUMMARY_HEADER.format(lap=lap) + "\n" + text)
        messages, zones = self.current(history)
        pieces = f" in {write.calls} pieces" if write.calls > 1 else ""
        return Assembly(
            messages,
            zones,
            kind,
            f"{verb} {folded} messages into one summary{pieces}",
            summary_calls=write.calls,
            summary_input=write.tokens_in,
            summary_output=write.tokens_out,
            summary=text,
        )
