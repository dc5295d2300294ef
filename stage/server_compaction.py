"""Compaction on demand and in the background: the client decides when, the server writes the summary.

Two context strategies for the harness loop, each asking Claude's API for a summary
(``LeverModel.compact``: a request with ``compaction={"type": "summarize"}``) instead of writing one with
our own prompt, as ``ThreeZoneCompaction`` does:

* ``OnDemandCompaction`` -- when the desk passes ``at_tokens``, ask now and wait. The returned block goes
  **first** on the desk, in place of every message it summarizes; the newest exchange stays after it,
  word for word (a compaction request may not end on a tool call whose result is not sent, and a tool
  result may not lose its call, so the newest call and its result are never summarized).
* ``BackgroundCompaction`` -- ask, and keep working on the full desk while the summary is written; when
  it arrives, drop exactly the messages that were sent and put the block in their place. Everything
  appended meanwhile stays after it. Here the swap comes ``lag`` laps after the ask (waiting, if the
  summary is not back by then), so a run repeats exactly; an application swaps as soon as it arrives.

Both bill the summary request in the lap that receives it (it is an extra pass: ``usage.iterations``),
and both carry on with the desk as it was when no summary comes back (any ``stop_reason`` but
``"compaction"``, or an API error), asking again ``retry_after`` laps later.
Left out: keeping the newest turns out of the summary on purpose (the docs' keep-recent-turns page),
thinking kept valid across the swap, and more than one summary on its way at a time.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from harness.context import Assembly, Strategy
from harness.laps import billed_tokens
from harness.messages import assistant
from harness.model import ModelError, Reply


class OnDemandCompaction(Strategy):
    """Past ``at_tokens`` on the desk, the server summarizes it; its block goes first from then on.

    Example: at_tokens=3_000 -> the first lap whose desk is over 3,000 tokens sends a compaction request;
    that lap and every later one send [the block, the newest exchange, ...].
    """

    name = "API: compaction on demand"

    def __init__(
        self, at_tokens: int = 100_000, instructions: str | None = None, retry_after: int = 3
    ):
        if at_tokens <= 0:
            raise ValueError(f"at_tokens must be a positive number of tokens, not {at_tokens}.")
        self.at_tokens, self.instructions, self.retry_after = at_tokens, instructions, retry_after
        self.start()

    def start(self) -> None:
        self.block: dict | None = None  # the newest compaction block
        self.covered = 0  # how many history messages it stands for
        self.quiet_until = 0  # after a failed request, the lap to ask again

    def desk(self, history: list[dict], upto: int | None = None) -> list[dict]:
        """What is sent: the block first (if any), then the history it does not cover (up to ``upto``)."""
        rest = history[self.covered : upto]
        return ([assistant([self.block])] if self.block else []) + list(rest)

    def size(self, desk: list[dict], meter, system: str, tools) -> int:
        """Tokens of a desk, the block's summary included (the harness's meter reads only text and tools)."""
        summary = desk[0]["content"][0].get("content") if self.block and desk else None
        return meter.total(desk, system=system, tools=tools) + (
            meter.text(summary) if summary else 0
        )

    def cut(self, history: list[dict]) -> int | None:
        """Where the summarized part ends: just before the newest assistant message (None: nothing new)."""
        newest = max((i for i, m in enumerate(history) if m["role"] == "assistant"), default=None)
        return newest if newest is not None and newest > self.covered else None

    def assemble(self, history, *, lap=0, system="", tools=None, meter, model=None, **_):
        desk = self.desk(history)
        cut = self.cut(history)
        if (
            self.size(desk, meter, system, tools) <= self.at_tokens
            or cut is None
            or lap < self.quiet_until
        ):
            return self.assembly(history)
        reply, problem = ask(model, system, self.desk(history, cut), tools, self.instructions)
        return self.take(history, reply, problem, cut, lap)

    def take(self, history, reply: Reply | None, problem: str, cut: int, lap: int) -> Assembly:
        """Swap the block in (if one came back) and say what happened; the request is billed either way."""
        spent_in, spent_out = billed_tokens(reply.usage) if reply else (0, 0)
        if reply and reply.content:
            self.block, self.covered = reply.content[0], cut
            event = f"the server summarized {cut} messages; its block goes first"
            return self.assembly(history, "compact", event, 1, spent_in, spent_out)
        self.quiet_until = lap + self.retry_after
        why = problem or f"stop_reason {reply.stop_reason!r}"
        return self.assembly(
            history,
            "none",
            f"no summary came back ({why}); carrying on",
            int(bool(reply)),
            spent_in,
            spent_out,
        )

    def assembly(
        self, history, kind="none", event="", calls=0, spent_in=0, spent_out=0
    ) -> Assembly:
        desk = self.desk(history)
        zones = (["summary"] if self.block else ["head"]) + ["tail"] * (len(desk) - 1)
        summary = self.block.get("content") if self.block else None
        return Assembly(
            desk,
            zones,
            kind,
            event,
            calls,
            spent_in,
            spent_out,
            summary if kind == "compact" else None,
        )


@dataclass
class _Pending:
    future: Future
    cut: int  # the history messages the request summarizes
    lap: int  # when it was asked


class BackgroundCompaction(OnDemandCompaction):
    """Like ``OnDemandCompaction``, but the loop does not wait: the block is swapped in ``lag`` laps later.

    Example: at_tokens=3_000, lag=2 -> asked at lap 9 (history of 17 messages), the full desk goes out at
    laps 9 and 10; at lap 11 the 16 summarized messages give way to the block, laps 9-10 stay after it.
    """

    name = "API: compaction in the background"

    def __init__(
        self,
        at_tokens: int = 100_000,
        lag: int = 1,
        instructions: str | None = None,
        retry_after: int = 3,
    ):
        if lag < 1:
            raise ValueError(f"lag must be at least one lap, not {lag}.")
        self.lag = lag
        super().__init__(at_tokens, instructions, retry_after)

    def start(self) -> None:
        super().start()
        self.pending: _Pending | None = None

    def assemble(self, history, *, lap=0, system="", tools=None, meter, model=None, **_):
        swapped = None
        if self.pending and lap >= self.pending.lap + self.lag:
            reply, problem = (
                self.pending.future.result()
            )  # waits if it is not back yet: same swap every run
            swapped = self.take(history, reply, problem, self.pending.cut, lap)
            self.pending = None
        cut = self.cut(history)
        if (
            self.pending is None
            and cut is not None
            and lap >= self.quiet_until
            and self.size(self.desk(history), meter, system, tools) > self.at_tokens
        ):
            sent = self.desk(history, cut)  # a copy: the history keeps growing meanwhile
            pool = ThreadPoolExecutor(max_workers=1)
            future = pool.submit(ask, model, system, sent, tools, self.instructions)
            pool.shutdown(wait=False)  # the worker finishes the request; we do not wait
            self.pending = _Pending(future, cut, lap)
            asked = f"asked for a summary of {cut} messages; working on the full desk meanwhile"
            if swapped is None:
                return self.assembly(history, "none", asked)
            swapped.event += f"; {asked}"
        return swapped or self.assembly(history)

    def finish(self) -> None:
        """Wait for a summary still on its way when the run ended, so no request outlives the run."""
        if self.pending:
            self.pending.future.result()
            self.pending = None


def ask(
    model, system: str, messages: list[dict], tools, instructions: str | None
) -> tuple[Reply | None, str]:
    """One compaction request: (the reply, '') or (None, what went wrong). Never raises for an API error."""
    compact = getattr(model, "compact", None)
    if compact is None:
        return (
            None,
            f"{getattr(model, 'name', 'this model')} cannot be asked for a server-side summary",
        )
    try:
        return compact(system, messages, tools or [], instructions), ""
    except ModelError as problem:
        return None, str(problem)
