"""The bare agent loop: assemble the desk, call the model, run the tools, append, repeat.

Every lap appends to the raw history -- the reply, then the tool results -- and reports a ``Lap``.
What is *sent* is decided by the context strategy; the raw history itself is never shortened,
and can be streamed to a JSONL file as it grows (``transcript=``), so nothing is ever lost.

Left out: parallel tool calls run one by one, no streaming, no retries of its own (the model
backends retry), no human in the loop except scripted ``remarks``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from harness.context import Assembly, CompactionFailed, FullHistory, Strategy
from harness.messages import assistant, text_of, tool_uses, user
from harness.model import ContextOverflow, Model, ModelError
from harness.prompts import SYSTEM_PROMPT
from harness.tokens import Meter
from harness.tools import Toolbox


@dataclass
class Lap:
    """One lap of the loop, as the plots, tables and checks see it."""

    number: int
    raw_tokens: int              # what the whole history would cost to send
    assembled_tokens: int        # what was actually sent
    kind: str = "none"           # none | drop | compact | fold | clear | stuck | summary_failed | overflow
    event: str = ""
    model_calls: int = 1         # this lap's calls, summary calls included
    summary_calls: int = 0
    billed_input: int = 0        # this lap, summary calls included
    billed_output: int = 0
    total_input: int = 0         # the bill so far
    total_output: int = 0
    actions: list[str] = field(default_factory=list)     # e.g. ["read_file app/auth.py"]
    sent: list[dict] = field(default_factory=list, repr=False)
    zones: list[str] = field(default_factory=list, repr=False)
    summary: str | None = field(default=None, repr=False)
    window: int = 0
    usage: dict = field(default_factory=dict, repr=False)   # the provider's usage for this lap's request


@dataclass
class Run:
    """Everything a finished run leaves behind."""

    history: list[dict]
    laps: list[Lap]
    toolbox: Toolbox
    stopped: str = "max_laps"    # answered | max_laps | overflow | model_error | compaction_failed
    final: str = ""
    problem: str = ""

    @property
    def database_target(self) -> str | None:
        """Where the agent aimed its SQL, or None if it never ran any."""
        return self.toolbox.sql_log[-1]["target"] if self.toolbox.sql_log else None

    @property
    def files_read(self) -> list[str]:
        return list(self.toolbox.reads)

    @property
    def rereads(self) -> list[str]:
        """Files read again after a first read, in order."""
        seen, again = set(), []
        for path in self.toolbox.reads:
            (again.append(path) if path in seen else seen.add(path))
        return again


def run_agent(request: str, model: Model, tools: Toolbox | None = None, context: Strategy | None = None,
              system: str = SYSTEM_PROMPT, max_laps: int = 40, on_lap: Callable[[Lap], None] | None = None,
              meter: Meter | None = None, transcript: str | Path | None = None,
              remarks: dict[int, str] | None = None, max_tokens: int = 1024,
              resume: list[dict] | None = None) -> Run:
    """Run the agent on ``request`` until it answers, overflows, or reaches ``max_laps``.

    ``remarks`` are things the user says mid-task: ``{3: "Never touch production."}`` adds that text
    to the message that carries lap 3's tool results. ``resume`` continues from a saved history
    (``load_transcript(path)``) instead of starting from ``request``.
    Example: run_agent("List the files.", DeskModel()) -> a Run whose ``final`` names the files.
    """
    if max_laps < 1:
        raise ValueError(f"max_laps must be at least 1, not {max_laps}.")
    tools, context = tools or Toolbox(), context or FullHistory()
    meter = meter or getattr(model, "meter", None) or Meter()
    run = Run(history=[], laps=[], toolbox=tools)
    history, remarks = run.history, remarks or {}
    head = meter.total(resume[:1] if resume else [user(request)], system=system, tools=tools.schemas)
    if head > model.window:
        raise ValueError(f"The window ({model.window:,} tokens) is smaller than the pinned head alone: system "
                         f"prompt, tools and request take {head:,} tokens. Use a bigger window or a shorter request.")
    context.start()

    book = _Bookkeeper(run, meter, system, tools.schemas, model.window, on_lap, transcript)  # records, bill, JSONL
    try:
        book.begin(resume or [user(request)], replaying=bool(resume))
        for number in range(1, max_laps + 1):
            lap = book.lap(number)
            desk = _as_desk(context.assemble(history, lap=number, system=system, tools=tools.schemas,
                                             meter=meter, model=model))              # 1. assemble the desk
            lap.saw(desk)
            reply = _send(model, context, history, desk, lap, system, tools.schemas, meter, max_tokens)  # 2. call
            lap.paid(reply.usage)
            book.append(assistant(reply.content), lap=number)                      # 3. append the reply
            calls = tool_uses(history[-1])
            if reply.stop_reason != "tool_use" or not calls:                       # no tool call: it answered
                run.stopped, run.final = "answered", text_of(history[-1])
                book.finish(lap)
                break
            results = [tools.run(call) for call in calls] + _remark(remarks.get(number))   # 4. run the tools
            book.append({"role": "user", "content": results}, lap=number)          # 5. append them; repeat
            book.finish(lap, actions=[_describe(call) for call in calls])
    except (ContextOverflow, CompactionFailed, ModelError) as problem:             # a clean stop, never a crash
        book.stop(lap, problem)
    finally:
        book.close()
    return run


# ---- helpers -------------------------------------------------------------------------------

class _Bookkeeper:
    """Keeps the lap records, the running bill and the JSONL transcript, so the loop can stay short."""

    def __init__(self, run, meter, system, tool_schemas, window, on_lap, transcript):
        self.run, self.meter, self.system, self.tools = run, meter, system, tool_schemas
        self.window, self.on_lap = window, on_lap
        self.continuing = bool(transcript) and Path(transcript).exists() and Path(transcript).stat().st_size > 0
        self.file = open(transcript, "a", encoding="utf-8") if transcript else None
        self.raw = meter.total([], system=system, tools=tool_schemas)   # kept as a running sum: O(1) a lap

    def begin(self, messages: list[dict], replaying: bool):
        """The history before lap 1. A resumed run does not write its old messages to the file twice."""
        for message in messages:
            self.append(message, lap=0, write=not (replaying and self.continuing))

    def append(self, message: dict, lap: int, write: bool = True):
        self.run.history.append(message)
        self.raw += self.meter.count(message)
        if self.file and write:   # written and flushed at once: killing the process mid-run loses nothing
            self.file.write(json.dumps({"lap": lap, "message": message}) + "\n")
            self.file.flush()

    def lap(self, number: int) -> _LapScope:
        return _LapScope(self, Lap(number, self.raw, self.raw, model_calls=0, window=self.window))

    def finish(self, lap: _LapScope, actions: list[str] | None = None):
        """The lap is over: keep its record and tell the watcher (plot, table, check)."""
        lap.record.actions = actions or []
        self.run.laps.append(lap.record)
        if self.on_lap:
            self.on_lap(lap.record)

    def stop(self, lap: _LapScope, problem: Exception):
        """An overflow, a failed summary or an API error ended the run on this lap: record why."""
        stops = {ContextOverflow: "overflow", CompactionFailed: "compaction_failed", ModelError: "model_error"}
        stop = next(name for cls, name in stops.items() if isinstance(problem, cls))
        self.run.stopped, self.run.problem = stop, str(problem)
        r = lap.record
        r.kind = {"overflow": "overflow", "compaction_failed": "summary_failed"}.get(stop, r.kind)
        r.event = str(problem)
        self.finish(lap, r.actions)

    def close(self):
        if self.file:
            self.file.close()


class _LapScope:
    """One lap's record being filled in: what was sent (``saw``) and what was billed (``paid``)."""

    def __init__(self, book: _Bookkeeper, lap: Lap):
        self.book, self.record = book, lap
        before = book.run.laps[-1] if book.run.laps else None
        self.record.total_input = before.total_input if before else 0
        self.record.total_output = before.total_output if before else 0

    def saw(self, desk):
        r = self.record
        r.kind, r.event, r.summary, r.sent, r.zones = desk.kind, desk.event, desk.summary, desk.messages, desk.zones
        r.summary_calls += desk.summary_calls
        r.model_calls += desk.summary_calls
        r.assembled_tokens = self.book.meter.total(desk.messages, system=self.book.system, tools=self.book.tools)
        self._bill(desk.summary_input, desk.summary_output)

    def paid(self, usage: dict):
        self.record.model_calls += 1
        self.record.usage = dict(usage)   # Claude's cache counts stay in it for harness.cost
        # Claude's input_tokens leave out what was read from or written to its cache: add them back
        cached = (usage.get("cache_read_input_tokens") or 0) + (usage.get("cache_creation_input_tokens") or 0)
        self._bill(usage.get("input_tokens", 0) + cached, usage.get("output_tokens", 0))

    def _bill(self, tokens_in: int, tokens_out: int):
        r = self.record
        r.billed_input += tokens_in
        r.billed_output += tokens_out
        r.total_input += tokens_in
        r.total_output += tokens_out


def _as_desk(assembled) -> Assembly:
    """A strategy may return a plain message list (a hand-built one in a lesson): the zones default.

    The first message is the head, the rest the tail; a list carries no summary calls to bill.
    """
    if isinstance(assembled, Assembly):
        return assembled
    messages = list(assembled)
    return Assembly(messages, ["head"] + ["tail"] * (len(messages) - 1))


def _send(model, context, history, desk, lap, system, tool_schemas, meter, max_tokens):
    """Call the model. If the API says the request is too long, compact once and try again.

    Our own count is only an estimate of the provider's; when they disagree, the provider wins.
    Only strategies that can compact (they have ``compact``) get the second chance.
    """
    try:
        return model.reply(system, desk.messages, tool_schemas, max_tokens=max_tokens)
    except ContextOverflow:
        compact = getattr(context, "compact", None)
        if compact is None:
            raise
        desk = compact(history, lap=lap.record.number, model=model, meter=meter, system=system, tools=tool_schemas)
        lap.saw(desk)
        if desk.kind not in ("compact", "fold"):
            raise
        return model.reply(system, desk.messages, tool_schemas, max_tokens=max_tokens)


def _remark(text: str | None) -> list[dict]:
    return [{"type": "text", "text": text}] if text else []


def _describe(call: dict) -> str:
    """'read_file app/auth.py' -- whatever the model put in the call (any input, any size: cut at 200 chars)."""
    given = call.get("input")
    args = " ".join(str(v)[:200] for v in given.values()) if isinstance(given, dict) else str(given or "")[:200]
    return f"{call.get('name', '?')} {args}".strip()


def load_transcript(path: str | Path) -> list[dict]:
    """Read a JSONL transcript back into a message list. A malformed line is named in the error."""
    messages = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            message = record["message"]
            if message.get("role") not in ("user", "assistant") or "content" not in message:
                raise ValueError("not a message")
        except (ValueError, KeyError, TypeError, AttributeError) as problem:
            raise ValueError(f"{path}, line {number}: not a transcript record ({problem}).") from None
        messages.append(message)
    return messages
