"""Clearing old tool results: the mechanical lever, no model call.

A cleared result becomes a one-line pointer ("[cleared: read_file app/db.py ...]"): a file can be
read again, so the desk only needs to know where it was. The model's own notes stay whole.
``Pointers`` makes each cleared copy once and hands back the same object every lap, as a prompt
cache needs; ``harness.clear_then_compact`` shares it.
Left out: clearing the model's thinking, and choosing what to clear by relevance instead of age.
"""

from __future__ import annotations

from harness.compaction import ThreeZoneCompaction
from harness.context import Assembly, Strategy
from harness.laps import Did
from harness.messages import blocks_of, call_words, tool_results, tool_uses


class Pointers:
    """Cleared copies of tool-result messages, each made once and then reused.

    A pointer names the call that made the result: "[cleared: read_file app/db.py]". With
    ``detail`` it also says when, and what to do: "... at lap 12 — call it again for the details]".
    The short form suits a strategy that keeps pointers for long (each word is paid every lap).
    Example: Pointers().of(history, 4) -> history[4] with its tool results as pointers
    """

    def __init__(self, detail: bool = True):
        self.detail = detail
        self.made = {}  # id(message) -> (message, its cleared copy)

    def of(self, history: list[dict], i: int) -> dict:
        original = history[i]
        made = self.made.get(id(original))
        if made and made[0] is original:  # the same object every lap: a prompt cache needs that
            return made[1]
        calls = {b["id"]: b for b in tool_uses(history[i - 1])}
        lap = sum(m["role"] == "assistant" for m in history[:i])  # the lap whose reply asked for it
        blocks = []
        for block in blocks_of(original):
            if block.get("type") == "tool_result":
                call = calls.get(block["tool_use_id"], {"name": "tool", "input": {}})
                later = f" at lap {lap} — call it again for the details" if self.detail else ""
                block = {**block, "content": f"[cleared: {call_words(call)}{later}]"}
            blocks.append(block)
        copy = {"role": original["role"], "content": blocks}
        self.made[id(original)] = (original, copy)
        return copy


class ClearToolResults(Strategy):
    """All but the newest ``tail_turns`` tool results sent as pointers, with no model call.

    Clearing is the first lever, not the only one: the notes pile up too. With ``fallback`` (the
    default), once the cleared desk passes the usable window (window - ``output_reserve``) it is
    compacted -- pinned request, one summary of the cleared middle, the same ``tail_turns`` turns
    -- and clearing goes on from there, instead of overflowing. ``fallback=False`` overflows.
    """

    name = "clear tool results"

    def __init__(self, tail_turns: int = 3, fallback: bool = True, output_reserve: int = 512):
        if tail_turns < 0:
            raise ValueError(f"tail_turns cannot be negative ({tail_turns}).")
        self.tail_turns = tail_turns
        self.fallback = (
            ThreeZoneCompaction(threshold=1.0, tail_turns=tail_turns, output_reserve=output_reserve)
            if fallback
            else None
        )
        self.start()

    def start(self):
        self.pointers = Pointers(detail=True)
        self._count = 0  # results cleared so far: each lap says how many more
        if self.fallback:
            self.fallback.start()

    def assemble(self, history, *, lap=0, system="", tools=None, meter=None, model=None, **_):
        messages, to_clear = self._clear(history)
        newly = len(to_clear) - self._count
        self._count = len(to_clear)
        # the fallback compacts only when clearing cannot hold
        if self.fallback and meter is not None and model is not None:
            inputs = dict(lap=lap, system=system, tools=tools, meter=meter, model=model)
            desk = self._zoned(self.fallback.assemble(messages, **inputs), to_clear)
        else:
            zones = ["head"] + [
                "cleared" if i in to_clear else "tail" for i in range(1, len(history))
            ]
            desk = Assembly(messages, zones)
        if newly > 0 and desk.kind == Did.NONE:
            desk.kind = Did.CLEAR
            desk.event = f"cleared {newly} more old tool results ({len(to_clear)} in all)"
        return desk

    def compact(self, history, **inputs):
        """Compact the cleared desk now (the loop asks when the provider says it is too long)."""
        messages, to_clear = self._clear(history)
        if not self.fallback:
            return Assembly.whole(messages)
        return self._zoned(self.fallback.compact(messages, **inputs), to_clear)

    def _clear(self, history) -> tuple[list[dict], set[int]]:
        """The history with old results as pointers (same places), and the indices cleared."""
        with_results = [i for i, m in enumerate(history) if tool_results(m)]
        # the newest tail_turns results stay whole: the agent is still working from them
        to_clear = set(with_results[: -self.tail_turns] if self.tail_turns else with_results)
        return [
            self.pointers.of(history, i) if i in to_clear else m for i, m in enumerate(history)
        ], to_clear

    def _zoned(self, desk: Assembly, to_clear: set[int]) -> Assembly:
        """The fallback's desk with the cleared messages after its summary shown as "cleared"."""
        # the desk's message i is history[i + offset]: its head and summary stand for the
        # messages before verbatim_from
        head_and_summary = desk.zones.count("head") + desk.zones.count("summary")
        offset = self.fallback.summary.verbatim_from - head_and_summary
        desk.zones = [
            ("cleared" if zone == "tail" and i + offset in to_clear else zone)
            for i, zone in enumerate(desk.zones)
        ]
        return desk
