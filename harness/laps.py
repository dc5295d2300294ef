"""What a run leaves behind: a ``Lap`` record per lap, and the ``Run`` itself.

The loop (``harness.loop``) fills them in through ``Records``; the plots, tables, verdicts, checks
and the bill read them and nothing else. Two small vocabularies name what can happen: ``Did`` (what
a lap's context strategy did) and ``Stopped`` (why a run ended). They are strings too, so
``lap.kind == "compact"`` reads naturally and a JSON file of results holds plain words.

Left out: timestamps and per-tool timings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Callable

from harness.messages import call_words, text_of, tool_results, tool_uses, user
from harness.tokens import Meter
from harness.tools import Toolbox
from harness.transcript import Transcript


class Did(StrEnum):
    """What happened to the desk on one lap (``Lap.kind``, ``Assembly.kind``)."""

    NONE = "none"  # sent as it stood
    DROP = "drop"  # the sliding window dropped the oldest messages
    COMPACT = "compact"  # a summary replaced the middle
    FOLD = "fold"  # the running summary took in the newest turns
    CLEAR = "clear"  # old tool results became pointers
    STUCK = "stuck"  # nothing left that could be summarized
    SUMMARY_FAILED = "summary_failed"  # the summary call failed; the desk stayed as it was
    OVERFLOW = "overflow"  # the request was refused: too long for the window
    PIECE_FAILED = "piece_failed"  # a piece the class wrote broke

    @property
    def summarized(self) -> bool:
        """True when a summary made room (the loop retries an overlong request only then)."""
        return self in (Did.COMPACT, Did.FOLD)


class Stopped(StrEnum):
    """Why a run ended (``Run.stopped``)."""

    ANSWERED = "answered"  # the model replied without a tool call
    MAX_LAPS = "max_laps"  # it was still working when the laps ran out
    OVERFLOW = "overflow"  # the request no longer fit the window
    MODEL_ERROR = "model_error"  # the model could not answer (key, network, rate limit)
    COMPACTION_FAILED = "compaction_failed"  # the summary call failed too many times in a row
    PIECE_FAILED = "piece_failed"  # a piece the class wrote broke


@dataclass
class Lap:
    """One lap of the loop, as the plots, tables and checks see it."""

    number: int
    raw_tokens: int  # what the whole history would cost to send
    assembled_tokens: int  # what was actually sent
    kind: Did = Did.NONE  # what the context strategy did this lap
    event: str = ""  # the same, in words, for the plot and the table
    model_calls: int = 1  # this lap's calls, summary calls included
    summary_calls: int = 0
    billed_input: int = 0  # this lap, summary calls included
    billed_output: int = 0
    total_input: int = 0  # the bill so far
    total_output: int = 0
    actions: list[str] = field(default_factory=list)  # e.g. ["read_file app/auth.py"]
    sent: list[dict] = field(default_factory=list, repr=False)  # the desk: the messages sent
    zones: list[str] = field(default_factory=list, repr=False)  # the zone of each message sent
    summary: str | None = field(default=None, repr=False)
    window: int = 0
    usage: dict = field(default_factory=dict, repr=False)  # the provider's usage for the request

    def __post_init__(self):
        self.kind = Did(self.kind)  # a plain string is accepted, and checked


@dataclass
class Run:
    """Everything a finished run leaves behind."""

    history: list[dict]  # the raw history: every message, never shortened
    laps: list[Lap]
    toolbox: Toolbox
    stopped: Stopped = Stopped.MAX_LAPS
    final: str = ""  # the model's last words, when it answered
    problem: str = ""  # what stopped it, when something did

    def __post_init__(self):
        self.stopped = Stopped(self.stopped)

    @property
    def database_target(self) -> str | None:
        """Where the agent aimed its SQL, or None if it never ran any."""
        return self.toolbox.sql_log[-1]["target"] if self.toolbox.sql_log else None

    @property
    def files_read(self) -> list[str]:
        return list(self.toolbox.reads)

    @property
    def rereads(self) -> list[str]:
        """Files read again after a first read, in order. Example: reads a, b, a, c, b -> [a, b]"""
        seen = set()
        again = []
        for path in self.toolbox.reads:
            if path in seen:
                again.append(path)
            seen.add(path)
        return again


# ---- keeping the records while the loop runs -----------------------------------------------------


@dataclass
class Records:
    """The records of one run as it goes: the raw history taken in, one ``Lap`` per lap, the bill.

    ``harness.loop`` calls these around each step of the loop (each docstring names its step).
    ``take_in`` looks at what the loop appended to its history since the last look: each new
    message is counted once (a running sum, not a recount every lap) and written down.
    """

    run: Run
    meter: Meter
    system: str  # the system prompt run_agent was given
    tools: list[dict]  # the tool schemas: sent on every request, so counted in every size
    window: int
    remarks: dict[int, str]  # lap -> what the user says beside that lap's tool results
    on_lap: Callable[[Lap], None] | None = None  # hears each finished lap: a plot, a table, a check
    transcript: Transcript | None = None
    raw: int = 0  # tokens of the whole raw history, kept as a running sum
    seen: int = 0  # how many messages of the history have been taken in
    lap: Lap | None = None  # the lap being filled in

    def __post_init__(self):
        self.raw = self.meter.total([], system=self.system, tools=self.tools)  # sent every lap

    def take_in(self, history: list[dict]) -> None:
        """Steps 3 and 5, appending: count and save each message appended since the last look.

        A remark joins the tool results of its lap: the message is replaced in the loop's list by
        one that carries the remark too (a new message: none is ever edited in place).
        """
        self.run.history = history
        for i in range(self.seen, len(history)):
            lap = self.lap.number if self.lap else 0
            remark = self.remarks.get(lap)
            if remark and tool_results(history[i]):
                history[i] = user(history[i]["content"] + [{"type": "text", "text": remark}])
            self.raw += self.meter.count(history[i])
            if self.transcript:
                self.transcript.write(history[i], lap=lap)
        self.seen = len(history)

    def open_lap(self) -> Lap:
        """Step 1, a new lap: its record starts from the raw history as it stands."""
        before = self.run.laps[-1] if self.run.laps else None
        number = len(self.run.laps) + 1
        # sent: the whole raw history, until note_desk says what the strategy chose
        self.lap = Lap(number, self.raw, self.raw, model_calls=0, window=self.window)
        self.lap.total_input = before.total_input if before else 0
        self.lap.total_output = before.total_output if before else 0
        return self.lap

    def note_desk(self, desk) -> None:
        """Step 1, assembling: what the strategy chose (an ``Assembly``), and its summary calls."""
        lap = self.lap
        lap.kind, lap.event = desk.kind, desk.event  # what it did, as a word and in words
        lap.sent, lap.zones = desk.messages, desk.zones  # the desk, and the zone of each message
        lap.summary = desk.summary
        lap.summary_calls += desk.summary_calls
        lap.model_calls += desk.summary_calls
        self.note_request(self.system, desk.messages)
        self.bill(desk.summary_input, desk.summary_output)

    def note_request(self, system: str, messages: list[dict]) -> None:
        """Step 2, before the call: the request's size as sent (a loop may send its own system)."""
        self.lap.assembled_tokens = self.meter.total(messages, system=system, tools=self.tools)

    def note_reply(self, usage: dict) -> None:
        """Step 2, after the call: one more model call, billed as the provider says."""
        self.lap.model_calls += 1
        self.lap.usage = dict(usage)  # Claude's cache counts stay in it for harness.cost
        self.bill(*billed_tokens(usage))

    def bill(self, tokens_in: int, tokens_out: int) -> None:
        """Add tokens to this lap's bill and to the bill so far."""
        self.lap.billed_input += tokens_in
        self.lap.billed_output += tokens_out
        self.lap.total_input += tokens_in
        self.lap.total_output += tokens_out

    def note_action(self, call: dict) -> None:
        """Step 4, a tool runs: the call as the table shows it ('read_file app/auth.py')."""
        self.take_in(self.run.history)  # the reply that asked for it is on disk before it runs
        self.lap.actions.append(call_words(call))

    def finish(self, history: list[dict]) -> None:
        """The end: the loop returned, having answered (no tool call in its last message) or not."""
        self.take_in(history)
        last = history[-1]
        if last["role"] == "assistant" and not tool_uses(last):
            self.run.stopped = Stopped.ANSWERED
            self.run.final = text_of(last)
        self.close_lap()

    def stop(self, stopped: Stopped, did: Did | None, problem: str) -> None:
        """The end, by an error: why, on its lap (``did`` None keeps what the strategy did)."""
        self.take_in(self.run.history)
        lap = self.lap or self.open_lap()  # between two laps: on a record of its own
        self.run.stopped = stopped
        self.run.problem = problem
        lap.kind = did or lap.kind
        lap.event = problem
        self.close_lap()

    def close_lap(self) -> None:
        """The lap is over: keep its record and tell the watcher (a plot, a table, a check)."""
        if self.lap is None:
            return
        self.run.laps.append(self.lap)
        if self.on_lap:
            self.on_lap(self.lap)
        self.lap = None


# ---- what one reply cost -------------------------------------------------------------------------

CACHE_COUNTS = ("cache_read_input_tokens", "cache_creation_input_tokens")


def billed_counts(usage: dict) -> dict:
    """The token counts a reply was billed for: ``usage["billed"]`` if the backend set it, else
    ``usage``. (Claude's server-side compaction bills a summarizing pass beside the answer;
    ``stage.claude`` adds the passes up into ``usage["billed"]``.)"""
    return usage.get("billed") or usage


def billed_tokens(usage: dict) -> tuple[int, int]:
    """(input, output) tokens one reply costs. Cache reads and writes count as input (Claude's
    ``input_tokens`` leaves them out).

    Example: {"input_tokens": 900, "cache_read_input_tokens": 200, "output_tokens": 40}
    -> (1100, 40)
    """
    counts = billed_counts(usage)
    tokens_in = sum(counts.get(k) or 0 for k in ("input_tokens", *CACHE_COUNTS))
    return tokens_in, counts.get("output_tokens") or 0
