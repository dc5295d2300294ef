"""Clearing old tool results: the mechanical lever, no model call.

A cleared result becomes a one-line pointer ("[cleared: read_file app/db.py ...]"): a file can be read
again, so the desk only needs to know where it was. The model's own notes stay whole. ``Pointers`` makes
each cleared copy once and hands back the same object every lap, which a prompt cache needs; it is shared
with ``harness.clear_then_compact.ClearThenCompact``.
Left out: clearing the model's thinking, and choosing what to clear by relevance instead of age.
"""

from __future__ import annotations

from harness.compaction import ThreeZoneCompaction
from harness.context import Assembly, Strategy
from harness.laps import Did
from harness.messages import blocks_of, tool_results, tool_uses


class Pointers:
    """Cleared copies of tool-result messages, each made once and then reused.

    A pointer names the call that made the result: "[cleared: read_file app/db.py]". With ``detail``
    it also says when and what to do: "... at lap 12 — call it again for the details]". The short form
    suits a strategy that keeps pointers for long (each word is paid for every lap).
    Example: Pointers().of(history, 4) -> history[4] with its tool results as pointers
    """

    def __init__(self, detail: bool = True):
        self.detail, self.made = detail, {}  # id(message) -> (message, its cleared copy)

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
                what = " ".join(str(v) for v in call["input"].values())
                later = f" at lap {lap} — call it again for the details" if self.detail else ""
                block = {
                    **block,
                    "content": f"[cleared: {call['name']} {what}".rstrip() + later + "]",
                }
            blocks.append(block)
        copy = {"role": original["role"], "content": blocks}
        self.made[id(original)] = (original, copy)
        return copy


class ClearToolResults(Strategy):
    """Replace the tool results of all but the newest ``tail_turns`` turns with a one-line pointer. No model call.

    The pointer says what the result was and that it can be fetched again, e.g.
    "[cleared: read_file app/db.py at lap 12 -- call it again for the details]". The reasoning
    (the model's own notes) stays whole; only bulky tool output goes.

    Clearing is the first lever, not the only one: the notes pile up too. With ``fallback`` (the
    default), once the cleared desk passes the usable window (window - ``output_reserve``) it is
    compacted -- pinned request, one summary of the cleared middle, the same ``tail_turns`` turns -- and
    clearing goes on from there, instead of overflowing. ``fallback=False`` shows the overflow.
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
        self.pointers, self._count = Pointers(detail=True), 0
        if self.fallback:
            self.fallback.start()

    def assemble(self, history, *, lap=0, system="", tools=None, meter=None, model=None, **_):
        messages, to_clear = self._clear(history)
        newly, self._count = len(to_clear) - self._count, len(to_clear)
        # compacts only when clearing cannot hold
        if self.fallback and meter is not None and model is not None:
            desk = self._zoned(
                self.fallback.assemble(
                    messages, lap=lap, system=system, tools=tools, meter=meter, model=model
                ),
                to_clear,
            )
        else:
            zones = ["head"] + [
                "cleared" if i in to_clear else "tail" for i in range(1, len(history))
            ]
            desk = Assembly(messages, zones)
        if newly > 0 and desk.kind == Did.NONE:
            desk.kind = Did.CLEAR
            desk.event = f"cleared {newly} more old tool results ({len(to_clear)} in all)"
        return desk

    def compact(self, history, *, lap=0, model, meter=None, system="", tools=None, **_):
        """Compact the cleared desk now (the loop calls this when the provider says it is too long)."""
        messages, to_clear = self._clear(history)
        if not self.fallback:
            return Assembly(messages, ["head"] + ["tail"] * (len(messages) - 1))
        return self._zoned(
            self.fallback.compact(
                messages, lap=lap, model=model, meter=meter, system=system, tools=tools
            ),
            to_clear,
        )

    def _clear(self, history) -> tuple[list[dict], set[int]]:
        """The history with old tool results as pointers (same length, same positions), and which were cleared."""
        with_results = [i for i, m in enumerate(history) if tool_results(m)]
        # the newest tail_turns results stay whole: the agent is still working from them
        to_clear = set(with_results[: -self.tail_turns] if self.tail_turns else with_results)
        return [
            self.pointers.of(history, i) if i in to_clear else m for i, m in enumerate(history)
        ], to_clear

    def _zoned(self, desk: Assembly, to_clear: set[int]) -> Assembly:
        """The fallback's desk with the cleared messages after its summary shown as "cleared"."""
        offset = (
            self.fallback.summary.verbatim_from
            - desk.zones.count("head")
            - desk.zones.count("summary")
        )
        desk.zones = [
            ("cleared" if zone == "tail" and i + offset in to_clear else zone)
            for i, zone in enumerate(desk.zones)
        ]
        return desk
