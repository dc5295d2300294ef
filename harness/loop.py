"""The bare agent loop: assemble the desk, call the model, run the tools, append, repeat.

Every lap appends to the raw history -- the reply, then the tool results -- and reports a ``Lap``.
What is *sent* is decided by the context strategy; the raw history itself is never shortened,
and can be streamed to a JSONL file as it grows (``transcript=``), so nothing is ever lost.

Left out: parallel tool calls run one by one, no streaming, no retries of its own (the model
backends retry), no human in the loop except scripted ``remarks``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from harness.context import Assembly, CompactionFailed, FullHistory, PieceFailed, Strategy
from harness.laps import Bookkeeper, Lap, Run
from harness.messages import assistant, text_of, tool_uses, user
from harness.model import ContextOverflow, Model, ModelError
from harness.prompts import SYSTEM_PROMPT
from harness.tokens import Meter
from harness.tools import Toolbox


def run_agent(
    request: str,
    model: Model,
    tools: Toolbox | None = None,
    context: Strategy | None = None,
    system: str = SYSTEM_PROMPT,
    max_laps: int = 40,
    on_lap: Callable[[Lap], None] | None = None,
    meter: Meter | None = None,
    transcript: str | Path | None = None,
    remarks: dict[int, str] | None = None,
    max_tokens: int = 1024,
    resume: list[dict] | None = None,
) -> Run:
    """Run the agent on ``request`` until it answers, overflows, or reaches ``max_laps``.

    ``remarks`` are things the user says mid-task: ``{3: "Never touch production."}`` adds that text
    to the message that carries lap 3's tool results. ``resume`` continues from a saved history
    (``load_transcript(path)``) instead of starting from ``request``.
    Example: run_agent("List the files.", OfflineModel()) -> a Run whose ``final`` names the files.
    """
    if max_laps < 1:
        raise ValueError(f"max_laps must be at least 1, not {max_laps}.")
    tools, context = tools or Toolbox(), context or FullHistory()
    meter = meter or getattr(model, "meter", None) or Meter()
    run = Run(history=[], laps=[], toolbox=tools)
    history, remarks = run.history, remarks or {}
    head = meter.total(
        resume[:1] if resume else [user(request)], system=system, tools=tools.schemas
    )
    if head > model.window:
        raise ValueError(
            f"The window ({model.window:,} tokens) is smaller than the pinned head alone: system "
            f"prompt, tools and request take {head:,} tokens. Use a bigger window or a shorter request."
        )
    context.start()

    book = Bookkeeper(
        run, meter, system, tools.schemas, model.window, on_lap, transcript
    )  # records, bill, JSONL
    try:
        book.begin(resume or [user(request)], replaying=bool(resume))
        for number in range(1, max_laps + 1):
            lap = book.lap(number)
            desk = _as_desk(
                context.assemble(
                    history,
                    lap=number,
                    system=system,
                    tools=tools.schemas,
                    meter=meter,
                    model=model,
                )
            )  # 1. assemble the desk
            lap.saw(desk)
            reply = _send(
                model, context, history, desk, lap, system, tools.schemas, meter, max_tokens
            )  # 2. call
            lap.paid(reply.usage)
            book.append(assistant(reply.content), lap=number)  # 3. append the reply
            calls = tool_uses(history[-1])
            if reply.stop_reason != "tool_use" or not calls:  # no tool call: it answered
                run.stopped, run.final = "answered", text_of(history[-1])
                book.finish(lap)
                break
            results = [tools.run(call) for call in calls] + _remark(
                remarks.get(number)
            )  # 4. run the tools
            book.append({"role": "user", "content": results}, lap=number)  # 5. append them; repeat
            book.finish(lap, actions=[_describe(call) for call in calls])
    except (
        ContextOverflow,
        CompactionFailed,
        ModelError,
        PieceFailed,
    ) as problem:  # a clean stop, never a crash
        book.stop(lap, problem)
    finally:
        book.close()
    return run


# ---- helpers -------------------------------------------------------------------------------


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
        desk = compact(
            history,
            lap=lap.record.number,
            model=model,
            meter=meter,
            system=system,
            tools=tool_schemas,
        )
        lap.saw(desk)
        if desk.kind not in ("compact", "fold"):
            raise
        return model.reply(system, desk.messages, tool_schemas, max_tokens=max_tokens)


def _remark(text: str | None) -> list[dict]:
    return [{"type": "text", "text": text}] if text else []


def _describe(call: dict) -> str:
    """'read_file app/auth.py' -- whatever the model put in the call (any input, any size: cut at 200 chars)."""
    given = call.get("input")
    args = (
        " ".join(str(v)[:200] for v in given.values())
        if isinstance(given, dict)
        else str(given or "")[:200]
    )
    return f"{call.get('name', '?')} {args}".strip()
