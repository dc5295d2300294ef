"""The agent loop: lesson 01's bare loop first, then ``run_agent``, the same loop with its records.

``bare_loop`` is the whole agent: assemble what to send, call the model, append its reply, run the
tools it asked for, append their results, repeat until it answers. ``run_agent`` runs that very
loop (or the one the class wrote, ``loop=``), handing it an ``assemble``, a model and tools that
keep the records as they go. Where each step's record is kept (``harness.laps.Records``):

    step of bare_loop       run_agent hands it          which records
    1. assemble(history)    Bookkeeping.assemble        take_in, close_lap, open_lap, note_desk
    2. model.reply(...)     _RecordedModel.reply        note_request, note_reply
    3. append the reply     (the loop's own list)       take_in, at step 4 or at the end
    4. tools.run(call)      _RecordedTools.run          note_action
    5. append the results   (the loop's own list)       take_in, at the next step 1
    the end                 run_agent                   finish, or stop (a problem, said plainly)

When the provider says a request is too long, step 2 asks the strategy to compact once and tries
again (``Bookkeeping.make_room``). The raw history is never shortened; each message is counted
once and can be written to a JSONL file as it appears (``transcript=``), so nothing is lost.

Left out: parallel tool calls (they run one by one), streaming, retries of its own (the model
backends retry), and a human in the loop beyond scripted ``remarks``.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Callable

from harness.context import Assembly, CompactionFailed, FullHistory, Strategy
from harness.guards import PieceFailed
from harness.laps import Did, Lap, Records, Run, Stopped
from harness.messages import assistant, tool_uses, user
from harness.model import ContextOverflow, Model, ModelError, Reply
from harness.prompts import SYSTEM_PROMPT
from harness.tokens import Meter
from harness.tools import Toolbox
from harness.transcript import Transcript


def send_everything(history: list[dict]) -> list[dict]:
    """Lesson 01's desk: the whole raw history, every lap. (Lessons 02-05 send less.)"""
    return history


def bare_loop(
    request: str,
    model,
    tools,
    max_laps: int = 40,
    *,
    assemble=send_everything,
    system: str = SYSTEM_PROMPT,
) -> list[dict]:
    """The agent, the way the class types it in lesson 01. Returns the raw history, oldest first.

    The model remembers nothing between two calls: all it knows is the desk it is sent. ``assemble``
    chooses that desk from the raw history (lesson 01 sends all of it; lessons 02-05 send less).
    Example: bare_loop("List the files.", model, Toolbox()) -> [request, reply, results, ...]
    """
    history = [user(request)]  # the raw history: it only ever grows
    for _ in range(max_laps):  # one lap, one call to the model
        desk = assemble(history)  # 1. what is sent this lap
        reply = model.reply(system, desk, tools.schemas)  # 2. call the model
        history.append(assistant(reply.content))  # 3. append its reply
        calls = tool_uses(history[-1])
        if not calls:  # no tool call: it answered
            break
        # 4. run the tools, 5. append: all results in ONE user message, right after the calls
        # (the API refuses a tool call whose result is not in the very next message)
        history.append(user([tools.run(call) for call in calls]))
    return history


# ---- run_agent: the same loop, with its records kept ---------------------------------------------


def run_agent(
    request: str,
    model: Model,
    tools: Toolbox | None = None,
    context: Strategy | None = None,
    *,
    loop: Callable = bare_loop,
    system: str = SYSTEM_PROMPT,
    max_laps: int = 40,
    on_lap: Callable[[Lap], None] | None = None,
    meter: Meter | None = None,
    transcript: str | Path | None = None,
    remarks: dict[int, str] | None = None,
    max_tokens: int = 1024,
) -> Run:
    """Run ``loop`` on ``request`` until the agent answers, overflows, or reaches ``max_laps``.

    ``context`` decides what is sent each lap (default: everything). ``on_lap`` hears each finished
    ``Lap``. ``remarks`` are things the user says mid-task: ``{3: "Never touch production."}`` adds
    that text to the message that carries lap 3's tool results.
    Example: run_agent("List the files.", OfflineModel()) -> a Run whose ``final`` names the files.
    """
    if max_laps < 1:
        raise ValueError(f"max_laps must be at least 1, not {max_laps}.")
    tools = tools or Toolbox()
    context = context or FullHistory()
    meter = meter or getattr(model, "meter", None) or Meter()
    head = meter.total([user(request)], system=system, tools=tools.schemas)
    if head > model.window:  # no strategy can help: what is never cut is already too big
        raise ValueError(
            f"The window ({model.window:,} tokens) is smaller than the pinned head alone: "
            f"system prompt, tools and request take {head:,} tokens. "
            "Use a bigger window or a shorter request."
        )
    context.start()  # a strategy remembers summaries: forget any from an earlier run
    run = Run(history=[], laps=[], toolbox=tools)
    records = Records(
        run,
        meter=meter,
        system=system,
        tools=tools.schemas,
        window=model.window,
        remarks=remarks or {},
        on_lap=on_lap,
        transcript=Transcript(transcript) if transcript else None,
    )
    bookkeeping = Bookkeeping(
        records, context, model, tools, max_laps=max_laps, max_tokens=max_tokens
    )
    try:
        # the loop runs as written, handed the assemble, model and tools that keep the records
        keywords = _accepted(loop, assemble=bookkeeping.assemble, system=system)
        history = loop(request, bookkeeping.model, bookkeeping.tools, max_laps, **keywords)
        if not isinstance(history, list) or not history:
            raise PieceFailed(
                f"The loop must return the history, a list of messages, not {history!r:.80}."
            )
        records.finish(history)  # it answered, or the laps ran out
    except (ContextOverflow, CompactionFailed, ModelError, PieceFailed) as problem:
        stopped, did = STOPS[next(kind for kind in STOPS if isinstance(problem, kind))]
        records.stop(stopped, did, str(problem))  # a clean stop, never a crash: the history is kept
    finally:
        if records.transcript:
            records.transcript.close()
    return run


# what ended the run -> why it stopped, and what its lap did (None: what the strategy did)
STOPS = {
    ContextOverflow: (Stopped.OVERFLOW, Did.OVERFLOW),
    CompactionFailed: (Stopped.COMPACTION_FAILED, Did.SUMMARY_FAILED),
    ModelError: (Stopped.MODEL_ERROR, None),
    PieceFailed: (Stopped.PIECE_FAILED, Did.PIECE_FAILED),
}


class Bookkeeping:
    """What ``run_agent`` hands the loop: an ``assemble``, a model and tools that keep the records.

    Each does its real job -- the strategy chooses the desk, the model replies, the tool runs --
    and tells ``records`` what happened; a loop that never calls ``assemble`` still gets laps.
    """

    def __init__(self, records: Records, context: Strategy, model, tools, *, max_laps, max_tokens):
        self.records = records
        self.context = context
        self.max_laps = max_laps
        self.model = _RecordedModel(self, model, max_tokens)
        self.tools = _RecordedTools(records, tools)
        self.desk: Assembly | None = None  # the desk the strategy chose for the lap under way

    def assemble(self, history: list[dict]) -> list[dict]:
        """Step 1: a new lap, and the context strategy chooses what is sent."""
        self.new_lap(history)
        return self.chose(self.context.assemble(history, **self.strategy_inputs())).messages

    def strategy_inputs(self) -> dict:
        """What a strategy is told beside the history (the model: its window, its summary calls)."""
        return {
            "lap": self.records.lap.number,
            "system": self.records.system,
            "tools": self.tools.schemas,
            "meter": self.records.meter,
            "model": self.model.inner,
        }

    def new_lap(self, history: list[dict]) -> None:
        """What the last lap appended is taken in and its record closed; a new record opens."""
        self.records.take_in(history)
        self.records.close_lap()
        if len(self.records.run.laps) >= self.max_laps:  # the class's loop may forget to stop
            raise PieceFailed(f"The loop ran past max_laps ({self.max_laps}); it must stop there.")
        self.records.open_lap()

    def chose(self, chosen: Assembly | list[dict]) -> Assembly:
        self.desk = chosen if isinstance(chosen, Assembly) else Assembly.whole(chosen)
        self.records.note_desk(self.desk)
        return self.desk

    def make_room(self, messages: list[dict]) -> Assembly | None:
        """Step 2's second chance: the provider said the request is too long, so compact once.

        Our token count is only an estimate of the provider's; when they disagree, the provider
        wins. Only the strategy's own desk gets it, and only from a strategy that can compact; it
        is taken only if a summary made room (``Did.summarized``). None: the overflow stops the run.
        """
        compact = getattr(self.context, "compact", None)
        if compact is None or self.desk is None or messages is not self.desk.messages:
            return None
        desk = self.chose(compact(self.records.run.history, **self.strategy_inputs()))
        return desk if Did(desk.kind).summarized else None


class _RecordedModel:
    """The model as the loop sees it: the same ``reply``, with the records kept around each call."""

    def __init__(self, bookkeeping: Bookkeeping, model: Model, max_tokens: int):
        self.bookkeeping = bookkeeping
        self.inner = model
        self.max_tokens = max_tokens
        self.name = model.name
        self.window = model.window

    def reply(
        self, system: str, messages: list[dict], tools: list[dict], max_tokens: int | None = None
    ) -> Reply:
        """Step 2: the call, with the request's size and the reply's bill recorded."""
        bookkeeping = self.bookkeeping
        limit = max_tokens or self.max_tokens
        if bookkeeping.desk is None:  # the loop never asked assemble: this call starts a lap
            # what it sends is its desk; when that is its whole history, it is taken in too
            seen_all = len(messages) >= bookkeeping.records.seen
            bookkeeping.new_lap(messages if seen_all else bookkeeping.records.run.history)
            bookkeeping.chose(list(messages))
        bookkeeping.records.note_request(system, messages)
        try:
            reply = self.inner.reply(system, messages, tools, max_tokens=limit)
        except ContextOverflow:
            desk = bookkeeping.make_room(messages)
            if desk is None:
                raise
            reply = self.inner.reply(system, desk.messages, tools, max_tokens=limit)
        bookkeeping.records.note_reply(reply.usage)
        bookkeeping.desk = None  # the next request belongs to the next lap
        return reply


class _RecordedTools:
    """The toolbox as the loop sees it: the same ``run`` and ``schemas``, each call noted."""

    def __init__(self, records: Records, tools: Toolbox):
        self.records = records
        self.inner = tools
        self.schemas = tools.schemas

    def run(self, call: dict) -> dict:
        """Step 4: one tool call, noted in the lap's actions before it runs."""
        self.records.note_action(call)
        return self.inner.run(call)


def _accepted(loop: Callable, **offered) -> dict:
    """Those of ``offered`` that ``loop`` takes (a loop the class wrote may lack ``system``)."""
    try:
        parameters = inspect.signature(loop).parameters
    except (TypeError, ValueError):
        return offered
    if any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        return offered
    return {name: value for name, value in offered.items() if name in parameters}
