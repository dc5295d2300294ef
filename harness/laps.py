"""What a run leaves behind: a ``Lap`` record per lap, the ``Run``, and the JSONL transcript.

The loop (``harness.loop``) only calls the bookkeeper; the bookkeeper keeps the lap records, adds up
the bill and writes each message to the transcript file the moment it is appended, so killing the
process mid-run loses nothing. Plots, tables, verdicts and checks read these records and nothing else.
Left out: timestamps and per-tool timings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from harness.context import CompactionFailed, PieceFailed
from harness.model import ContextOverflow, ModelError
from harness.tools import Toolbox


@dataclass
class Lap:
    """One lap of the loop, as the plots, tables and checks see it."""

    number: int
    raw_tokens: int  # what the whole history would cost to send
    assembled_tokens: int  # what was actually sent
    kind: str = "none"  # none | drop | compact | fold | clear | stuck | summary_failed | overflow | piece_failed
    event: str = ""
    model_calls: int = 1  # this lap's calls, summary calls included
    summary_calls: int = 0
    billed_input: int = 0  # this lap, summary calls included
    billed_output: int = 0
    total_input: int = 0  # the bill so far
    total_output: int = 0
    actions: list[str] = field(default_factory=list)  # e.g. ["read_file app/auth.py"]
    sent: list[dict] = field(default_factory=list, repr=False)
    zones: list[str] = field(default_factory=list, repr=False)
    summary: str | None = field(default=None, repr=False)
    window: int = 0
    usage: dict = field(
        default_factory=dict, repr=False
    )  # the provider's usage for this lap's request


@dataclass
class Run:
    """Everything a finished run leaves behind."""

    history: list[dict]
    laps: list[Lap]
    toolbox: Toolbox
    stopped: str = "max_laps"  # answered | max_laps | overflow | model_error | compaction_failed | piece_failed
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


class Bookkeeper:
    """Keeps the lap records, the running bill and the JSONL transcript, so the loop can stay short."""

    def __init__(self, run, meter, system, tool_schemas, window, on_lap, transcript):
        self.run, self.meter, self.system, self.tools = run, meter, system, tool_schemas
        self.window, self.on_lap = window, on_lap
        self.continuing = (
            bool(transcript) and Path(transcript).exists() and Path(transcript).stat().st_size > 0
        )
        self.file = open(transcript, "a", encoding="utf-8") if transcript else None
        self.raw = meter.total(
            [], system=system, tools=tool_schemas
        )  # kept as a running sum: O(1) a lap

    def begin(self, messages: list[dict], replaying: bool):
        """The history before lap 1. A resumed run does not write its old messages to the file twice."""
        for message in messages:
            self.append(message, lap=0, write=not (replaying and self.continuing))

    def append(self, message: dict, lap: int, write: bool = True):
        self.run.history.append(message)
        self.raw += self.meter.count(message)
        if (
            self.file and write
        ):  # written and flushed at once: killing the process mid-run loses nothing
            self.file.write(json.dumps({"lap": lap, "message": message}) + "\n")
            self.file.flush()

    def lap(self, number: int) -> LapScope:
        return LapScope(self, Lap(number, self.raw, self.raw, model_calls=0, window=self.window))

    def finish(self, lap: LapScope, actions: list[str] | None = None):
        """The lap is over: keep its record and tell the watcher (plot, table, check)."""
        lap.record.actions = actions or []
        self.run.laps.append(lap.record)
        if self.on_lap:
            self.on_lap(lap.record)

    def stop(self, lap: LapScope, problem: Exception):
        """An overflow, a failed summary or an API error ended the run on this lap: record why."""
        stops = {
            ContextOverflow: "overflow",
            CompactionFailed: "compaction_failed",
            ModelError: "model_error",
            PieceFailed: "piece_failed",
        }
        stop = next(name for cls, name in stops.items() if isinstance(problem, cls))
        self.run.stopped, self.run.problem = stop, str(problem)
        r = lap.record
        r.kind = {
            "overflow": "overflow",
            "compaction_failed": "summary_failed",
            "piece_failed": "piece_failed",
        }.get(stop, r.kind)
        r.event = str(problem)
        self.finish(lap, r.actions)

    def close(self):
        if self.file:
            self.file.close()


class LapScope:
    """One lap's record being filled in: what was sent (``saw``) and what was billed (``paid``)."""

    def __init__(self, book: Bookkeeper, lap: Lap):
        self.book, self.record = book, lap
        before = book.run.laps[-1] if book.run.laps else None
        self.record.total_input = before.total_input if before else 0
        self.record.total_output = before.total_output if before else 0

    def saw(self, desk):
        r = self.record
        r.kind, r.event, r.summary, r.sent, r.zones = (
            desk.kind,
            desk.event,
            desk.summary,
            desk.messages,
            desk.zones,
        )
        r.summary_calls += desk.summary_calls
        r.model_calls += desk.summary_calls
        r.assembled_tokens = self.book.meter.total(
            desk.messages, system=self.book.system, tools=self.book.tools
        )
        self._bill(desk.summary_input, desk.summary_output)

    def paid(self, usage: dict):
        self.record.model_calls += 1
        self.record.usage = dict(usage)  # Claude's cache counts stay in it for harness.cost
        self._bill(*billed_tokens(usage))

    def _bill(self, tokens_in: int, tokens_out: int):
        r = self.record
        r.billed_input += tokens_in
        r.billed_output += tokens_out
        r.total_input += tokens_in
        r.total_output += tokens_out


def passes(usage: dict) -> list[dict]:
    """The sampling passes one reply was billed for: Claude's ``usage["iterations"]`` when it lists them, else
    the usage itself. With server-side compaction the summarizing pass is one of them, and the top-level
    figures leave it out. Example: {"input_tokens": 900, "iterations": [compaction 5000 in, message 900 in]}
    -> the two iterations."""
    return usage.get("iterations") or [usage]


def billed_tokens(usage: dict) -> tuple[int, int]:
    """(input, output) tokens one reply costs, summed over its passes; cache reads and writes count as input
    (Claude's ``input_tokens`` leaves them out). Example: iterations of 5,000 + 900 in -> (5900, ...)"""
    cached = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    spent = passes(usage)
    return (
        sum(p.get(k) or 0 for p in spent for k in cached),
        sum(p.get("output_tokens") or 0 for p in spent),
    )


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
            raise ValueError(
                f"{path}, line {number}: not a transcript record ({problem})."
            ) from None
        messages.append(message)
    return messages
