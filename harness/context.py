"""Context strategies: what the loop sends to the model each lap, given the raw history.

Each strategy is a small class with ``assemble(history, lap=..., system=..., tools=..., meter=..., model=...)``
returning an ``Assembly`` -- the messages to send, the zone of each one, and what happened
(nothing, dropped N, compacted, cleared N). A strategy never edits or shortens ``history``:
the raw transcript stays whole, so every run can be replayed and plotted.

* ``FullHistory``          -- send everything. Overflows at the window.
* ``SlidingWindow``        -- keep the newest messages that fit. The oldest papers fall off.
* ``ThreeZoneCompaction``  -- pinned head, summarized middle, verbatim tail, at a threshold.
* ``RunningSummary``       -- fold each finished chunk into one living summary.
* ``ClearToolResults``     -- swap old tool results for a one-line pointer; compact only if that cannot hold.

Every strategy cuts only where ``messages.safe_cuts`` allows, so no tool_use is ever sent
without its tool_result. Left out: token-exact packing and images; prompt-cache breakpoints and a
strategy built around them are in ``harness.cache_aware``.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.messages import safe_cuts, tool_results, tool_uses, user
from harness.model import ContextOverflow, ModelError
from harness.prompts import COMPACTION_TEMPLATE, FOLD_PROMPT, SUMMARY_HEADER, compaction_prompt, fold_prompt, render

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


# ---- 3. pinned head, summarized middle, verbatim tail ---------------------------------------------------

@dataclass
class _Summarized:
    """The running state of a summarizing strategy: the summary and where the verbatim part starts."""

    text: str | None = None
    upto: int = 1                  # history[1:upto] is folded into ``text``; history[upto:] is verbatim
    message: dict | None = None
    failures: int = 0
    warned_stuck: bool = False


def summarize(model, make_prompt, summary: str, events: list[dict], depth: int = 0) -> tuple[str, int, int, int]:
    """Ask for a summary of ``events`` on top of ``summary``: (text, calls, input tokens, output tokens).

    If the summary call is itself too long for the window, fold the events in two halves, one call
    each, so a huge middle never makes compaction loop. Gives up after three levels of halving.
    """
    try:
        reply = model.reply("", [user(make_prompt(summary, events))], [], max_tokens=1024)
        return reply.text.strip(), 1, reply.usage.get("input_tokens", 0), reply.usage.get("output_tokens", 0)
    except ContextOverflow:
        cuts = [c for c in safe_cuts(events) if 0 < c < len(events)]
        if depth >= 3 or not cuts:
            raise
        half = min(cuts, key=lambda c: abs(c - len(events) / 2))
        first = summarize(model, make_prompt, summary, events[:half], depth + 1)
        second = summarize(model, make_prompt, first[0], events[half:], depth + 1)
        return second[0], first[1] + second[1], first[2] + second[2], first[3] + second[3]


def turn_starts(history: list[dict], start: int = 1) -> list[int]:
    """Indices (from ``start``) where a turn begins: an assistant message at a safe cut."""
    return [i for i in safe_cuts(history, start)[:-1] if history[i]["role"] == "assistant"]


class ThreeZoneCompaction(Strategy):
    """Pinned head, summarized middle, verbatim tail -- compacting when the desk passes a threshold.

    Fires when the assembled context exceeds ``threshold`` x the *usable* window (the window minus
    ``output_reserve``, kept free for the reply). The middle is summarized by one model call with
    ``prompt`` and spliced back where it was; a later compaction folds the earlier summary in.
    ``tail_turns`` recent turns always stay word for word. ``pin_request=False`` summarizes the
    original request too (what SDK-style "replace everything" compaction does).
    ``on_demand`` is a manual "compact now", like typing ``/compact <instructions>`` in Claude Code:
    ``{8: "database decisions"}`` compacts at lap 8 whatever the size, putting that focus in the prompt.
    Example: window 4096, reserve 512, threshold 0.75 -> compacts above 2,688 tokens.
    """

    name = "three-zone compaction"

    def __init__(self, threshold: float = 0.75, tail_turns: int = 2, output_reserve: int = 512,
                 prompt: str = COMPACTION_TEMPLATE, max_words: int = 220, pin_request: bool = True,
                 max_failures: int = 3, focus: str = "", on_demand: dict[int, str] | None = None):
        if not 0 < threshold <= 1:
            raise ValueError(f"The threshold is a fraction of the usable window: it must be in (0, 1], not {threshold}.")
        if tail_turns < 0:
            raise ValueError(f"tail_turns cannot be negative ({tail_turns}).")
        if output_reserve < 0:
            raise ValueError(f"The output reserve cannot be negative ({output_reserve}).")
        self.threshold, self.tail_turns, self.output_reserve = threshold, tail_turns, output_reserve
        self.prompt, self.max_words, self.pin_request = prompt, max_words, pin_request
        self.max_failures, self.focus = max_failures, focus
        self.on_demand = dict(on_demand or {})
        if any(not isinstance(lap, int) or lap < 1 for lap in self.on_demand):
            raise ValueError(f"on_demand maps lap numbers (1, 2, ...) to focus text, not {on_demand!r}.")
        self.state = _Summarized()

    def start(self):
        self.state = _Summarized(upto=1 if self.pin_request else 0)

    def limit(self, model) -> int:
        usable = model.window - self.output_reserve
        if usable <= 0:
            raise ValueError(f"The output reserve ({self.output_reserve}) leaves no room in a {model.window}-token window.")
        return int(usable * self.threshold)

    def current(self, history):
        """The desk as it stands: head + summary + everything not yet summarized."""
        s = self.state
        head = history[:1] if self.pin_request else []
        messages = head + ([s.message] if s.message else []) + history[s.upto:]
        zones = ["head"] * len(head) + (["summary"] if s.message else []) + ["tail"] * (len(history) - s.upto)
        return messages, zones

    def assemble(self, history, *, lap=0, system="", tools=None, meter, model, **_):
        if lap in self.on_demand:           # "compact now", whatever the size
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
        if desk.kind == "compact" and meter.total(desk.messages, system=system, tools=tools) > self.limit(model):
            desk.event += "; still over the threshold: the head and the verbatim tail alone are too big"
        return desk

    def compact(self, history, *, lap=0, model, meter=None, system="", tools=None, focus: str | None = None):
        """Summarize everything between the head and the tail, now. (``/compact`` calls this directly.)"""
        s = self.state
        starts = turn_starts(history, start=max(s.upto, 1))
        if not self.tail_turns:
            cut = len(history)
        else:
            cut = starts[-self.tail_turns] if len(starts) >= self.tail_turns else s.upto
        if cut <= s.upto:
            messages, zones = self.current(history)
            event = "" if s.warned_stuck else (
                "cannot compact: the pinned head and the verbatim tail alone are over the threshold")
            s.warned_stuck = True
            return Assembly(messages, zones, "stuck" if event else "none", event, summary=s.text)
        focus = self.focus if focus is None else focus

        def make_prompt(summary, events):   # the earlier summary is folded in, not summarized blindly
            earlier = [user("[Earlier summary]\n" + summary)] if summary else []
            return compaction_prompt(render(earlier + events), self.max_words, focus, template=self.prompt)

        return self._summarize(history, cut, make_prompt, lap, model, "compact", "compacted")

    def _summarize(self, history, cut, make_prompt, lap, model, kind, verb):
        """Write the summary of history[upto:cut]; on failure leave everything as it was."""
        s = self.state
        try:
            text, calls, tokens_in, tokens_out = summarize(model, make_prompt, s.text or "", history[s.upto:cut])
            if not text:
                raise ModelError("the summary came back empty")
        except (ModelError, ContextOverflow) as problem:
            s.failures += 1
            if s.failures >= self.max_failures:
                raise CompactionFailed(
                    f"The summary call failed {s.failures} times in a row ({problem}). Stopping instead of "
                    "looping; the raw history is intact and can be resumed.") from problem
            messages, zones = self.current(history)
            return Assembly(messages, zones, "summary_failed",
                            f"summary failed ({problem}); history left as it was", summary_calls=1,
                            summary=s.text)
        s.failures, s.warned_stuck = 0, False
        folded = cut - s.upto
        s.text, s.upto = text, cut
        s.message = user(SUMMARY_HEADER.format(lap=lap) + "\n" + text)
        messages, zones = self.current(history)
        pieces = f" in {calls} pieces" if calls > 1 else ""
        return Assembly(messages, zones, kind, f"{verb} {folded} messages into one summary{pieces}",
                        summary_calls=calls, summary_input=tokens_in, summary_output=tokens_out, summary=text)


# ---- 4. the running summary -------------------------------------------------------------------------

class RunningSummary(ThreeZoneCompaction):
    """Meeting minutes: after every ``chunk_turns`` turns, fold them into one living summary.

    The request stays pinned, the newest ``keep_turns`` turns stay verbatim, and everything older
    lives in the summary, which the fold prompt keeps under ``max_words``. So the assembled context
    stays roughly flat however long the task runs. One fold call per chunk.
    """

    name = "running summary"

    def __init__(self, chunk_turns: int = 2, keep_turns: int = 1, max_words: int = 180,
                 prompt: str = FOLD_PROMPT, max_failures: int = 3):
        if chunk_turns < 1 or keep_turns < 0:
            raise ValueError("chunk_turns must be at least 1 and keep_turns at least 0.")
        super().__init__(threshold=1.0, tail_turns=keep_turns, prompt=prompt, max_words=max_words,
                         max_failures=max_failures)
        self.chunk_turns, self.keep_turns = chunk_turns, keep_turns

    def assemble(self, history, *, lap=0, model, **_):
        starts = turn_starts(history, start=max(self.state.upto, 1))
        if len(starts) < self.keep_turns + self.chunk_turns:
            messages, zones = self.current(history)
            return Assembly(messages, zones, summary=self.state.text)
        return self.compact(history, lap=lap, model=model)

    def compact(self, history, *, lap=0, model, **_):
        """Fold everything older than the newest ``keep_turns`` turns into the summary, now.

        ``assemble`` calls this when a chunk is complete; the loop calls it when the API says the
        request is too long. Either way it is a *fold* with the fold prompt, never the compaction
        template (whose fields the fold prompt does not have). Nothing to fold -> "stuck", once.
        """
        s = self.state
        starts = turn_starts(history, start=max(s.upto, 1))
        if not self.keep_turns:
            cut = len(history)
        else:
            cut = starts[-self.keep_turns] if len(starts) >= self.keep_turns else s.upto
        if cut <= s.upto:
            messages, zones = self.current(history)
            event = "" if s.warned_stuck else "cannot fold: the pinned head and the newest turns alone are too big"
            s.warned_stuck = True
            return Assembly(messages, zones, "stuck" if event else "none", event, summary=s.text)

        def make_prompt(summary, events):
            return fold_prompt(summary, render(events), self.max_words, template=self.prompt)

        return self._summarize(history, cut, make_prompt, lap, model, "fold", "folded")


# ---- 5. clear old tool results ------------------------------------------------------------------------

class ClearToolResults(Strategy):
    """Replace all but the newest ``keep_last`` tool results with a one-line pointer. No model call.

    The pointer says what the result was and that it can be fetched again, e.g.
    "[cleared: read_file app/db.py at lap 12 -- call it again for the details]". The reasoning
    (the model's own notes) stays whole; only bulky tool output goes.

    Clearing is the first lever, not the only one: the notes pile up too. With ``fallback`` (the
    default), once the cleared desk passes the usable window (window - ``output_reserve``) it is
    compacted -- pinned request, one summary of the cleared middle, ``tail_turns`` turns -- and
    clearing goes on from there, instead of overflowing. ``fallback=False`` shows the overflow.
    """

    name = "clear tool results"

    def __init__(self, keep_last: int = 3, fallback: bool = True, output_reserve: int = 512, tail_turns: int = 2):
        if keep_last < 0:
            raise ValueError(f"keep_last cannot be negative ({keep_last}).")
        self.keep_last = keep_last
        self.fallback = ThreeZoneCompaction(threshold=1.0, tail_turns=tail_turns,
                                            output_reserve=output_reserve) if fallback else None
        self.start()

    def start(self):
        self._made, self._count = {}, 0
        if self.fallback:
            self.fallback.start()

    def assemble(self, history, *, lap=0, system="", tools=None, meter=None, model=None, **_):
        messages, to_clear = self._clear(history)
        newly, self._count = len(to_clear) - self._count, len(to_clear)
        if self.fallback and meter is not None and model is not None:   # compacts only when clearing cannot hold
            desk = self._zoned(self.fallback.assemble(messages, lap=lap, system=system, tools=tools, meter=meter,
                                                      model=model), to_clear)
        else:
            zones = ["head"] + ["cleared" if i in to_clear else "tail" for i in range(1, len(history))]
            desk = Assembly(messages, zones)
        if newly > 0 and desk.kind == "none":
            desk.kind, desk.event = "clear", f"cleared {newly} more old tool results ({len(to_clear)} in all)"
        return desk

    def compact(self, history, *, lap=0, model, meter=None, system="", tools=None, **_):
        """Compact the cleared desk now (the loop calls this when the provider says it is too long)."""
        messages, to_clear = self._clear(history)
        if not self.fallback:
            return Assembly(messages, ["head"] + ["tail"] * (len(messages) - 1))
        return self._zoned(self.fallback.compact(messages, lap=lap, model=model, meter=meter, system=system,
                                                 tools=tools), to_clear)

    def _clear(self, history) -> tuple[list[dict], set[int]]:
        """The history with old tool results as pointers (same length, same positions), and which were cleared."""
        holders = [i for i, m in enumerate(history) if tool_results(m)]
        to_clear = set(holders[:-self.keep_last] if self.keep_last else holders)
        return [self.pointer(history, i) if i in to_clear else m for i, m in enumerate(history)], to_clear

    def _zoned(self, desk: Assembly, to_clear: set[int]) -> Assembly:
        """The fallback's desk with the cleared messages after its summary shown as "cleared"."""
        offset = self.fallback.state.upto - desk.zones.count("head") - desk.zones.count("summary")
        desk.zones = [("cleared" if zone == "tail" and i + offset in to_clear else zone)
                      for i, zone in enumerate(desk.zones)]
        return desk

    def pointer(self, history, i):
        """history[i] with each tool result swapped for a pointer (made once, then reused)."""
        original = history[i]
        made = self._made.get(id(original))
        if made and made[0] is original:
            return made[1]
        calls = {b["id"]: b for b in tool_uses(history[i - 1])}
        blocks = []
        for block in original["content"]:
            if block.get("type") == "tool_result":
                call = calls.get(block["tool_use_id"], {"name": "tool", "input": {}})
                what = " ".join(str(v) for v in call["input"].values())
                block = {**block, "content": f"[cleared: {call['name']} {what} at lap {i // 2} — call it again for the details]"}
            blocks.append(block)
        copy = {"role": original["role"], "content": blocks}
        self._made[id(original)] = (original, copy)
        return copy


# ---- by name, for controls and settings files ---------------------------------------------------

STRATEGIES = {"full history": FullHistory, "sliding window": SlidingWindow,
              "three-zone compaction": ThreeZoneCompaction, "running summary": RunningSummary,
              "clear tool results": ClearToolResults}


def make_strategy(name: str, **settings) -> Strategy:
    """A strategy from its name and settings, with a clear message for anything unknown.

    Example: make_strategy("three-zone compaction", threshold=0.8) -> ThreeZoneCompaction(threshold=0.8)
    """
    if name not in STRATEGIES:
        raise ValueError(f"Unknown strategy {name!r}: choose one of {', '.join(STRATEGIES)}.")
    try:
        return STRATEGIES[name](**settings)
    except TypeError as problem:
        raise ValueError(f"Bad setting for {name!r}: {problem}.") from None
