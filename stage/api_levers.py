"""The API's own levers: context management done on Anthropic's servers instead of in our harness.

Three features of the Messages API (beta) do, server-side, what the lessons build by hand:

* **clearing old tool results** -- beta ``context-management-2025-06-27``, edit ``clear_tool_uses_20250919``:
  past a trigger, the oldest tool results are swapped for a placeholder (our ``ClearToolResults``).
* **server-side compaction** -- beta ``compact-2026-01-12``, edit ``compact_20260112``: past a trigger,
  the server summarizes the conversation and returns a ``compaction`` block; sent back with the
  next request, it stands in for everything before it (our ``ThreeZoneCompaction``).
* **the memory tool** -- beta ``context-management-2025-06-27``, tool ``memory_20250818``: Claude
  keeps notes in files under ``/memories``, which *our* code stores (our CLAUDE.md and ``remember``).

The names are the ones the installed ``anthropic`` SDK (2.14) defines in ``anthropic.types.beta``.
Each lever needs ``ANTHROPIC_API_KEY``. Without one, ``lever.available()`` is False,
``lever.explain()`` says so in one line, and ``lever.model()`` raises a ``ModelError`` that says
the same -- so a notebook can run the hand-built strategies and skip these cleanly.

The client still keeps and sends the whole history (the loop runs them with ``FullHistory``):
the editing happens after the request arrives, so our raw and assembled lines stay equal while
the billed input (``usage``) drops. Left out: clearing thinking blocks, the one-shot
``compaction={"type": "summarize"}`` request, pausing after compaction, streaming, and
``count_tokens`` with the levers applied.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import anthropic

from harness.context import FullHistory, Strategy
from harness.laps import Run
from harness.loop import run_agent
from harness.model import Model, ModelError, Reply
from harness.tools import TOOL_SCHEMAS, WORKSPACE, Toolbox, ToolError
from stage.claude import ClaudeModel, reply_from
from stage.switch import pick_model

CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27"   # clearing edits and the memory tool
COMPACTION_BETA = "compact-2026-01-12"                       # the compact_20260112 edit
MEMORY_TOOL = {"type": "memory_20250818", "name": "memory"}
MEMORY_FOLDER = Path(tempfile.gettempdir()) / "context-desk-memory"


@dataclass
class Lever:
    """One server-side feature: what it adds to a request, and whether it can run here.

    Example: lever = clear_old_tool_results(trigger_tokens=30_000, keep=3)
    -> lever.available() is False offline; lever.explain() says why in one line.
    """

    name: str
    what: str                                   # one plain sentence, for tables and skip messages
    instead: str                                # the hand-built strategy that shows the same idea offline
    betas: list[str]
    edits: list[dict] = field(default_factory=list)     # context_management.edits
    adds_memory_tool: bool = False

    def available(self) -> bool:
        return bool(os.environ.get("ANTHROPIC_API_KEY", "").strip())

    def explain(self) -> str:
        if self.available():
            return f"{self.name}: {self.what.rstrip('.')} (beta {', '.join(self.betas)})."
        return (f"{self.name}: {self.what} It is a feature of the Claude API, so it needs ANTHROPIC_API_KEY; "
                f"offline, {self.instead} shows the same idea.")

    def model(self, **claude_options) -> LeverModel:
        """Claude with this lever switched on. Raises ``ModelError`` (with ``explain()``) without a key."""
        if not self.available():
            raise ModelError(self.explain())
        return LeverModel(self, **claude_options)

    def toolbox(self, root=WORKSPACE, memory_folder=MEMORY_FOLDER) -> Toolbox:
        """The tools to run with: the usual ones, plus ``memory`` for the memory-tool lever."""
        return MemoryToolbox(root, memory_folder) if self.adds_memory_tool else Toolbox(root)


def clear_old_tool_results(trigger_tokens: int = 30_000, keep: int = 3, clear_at_least: int | None = None) -> Lever:
    """Past ``trigger_tokens`` of input, the server clears all but the newest ``keep`` tool results."""
    edit = {"type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": trigger_tokens},
            "keep": {"type": "tool_uses", "value": keep}}
    if clear_at_least:   # clear little and often and the prompt cache is rebuilt every time
        edit["clear_at_least"] = {"type": "input_tokens", "value": clear_at_least}
    return Lever("API: clear old tool results", "The server swaps old tool results for a placeholder.",
                 "ClearToolResults", [CONTEXT_MANAGEMENT_BETA], [edit])


def server_compaction(trigger_tokens: int = 150_000, instructions: str | None = None) -> Lever:
    """Past ``trigger_tokens``, the server summarizes the conversation into a ``compaction`` block.

    ``instructions`` are extra words for its summary prompt -- the server's ``/compact <instructions>``.
    """
    edit = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": trigger_tokens}}
    if instructions:
        edit["instructions"] = instructions
    return Lever("API: server-side compaction", "The server summarizes the conversation when it grows too long.",
                 "ThreeZoneCompaction", [COMPACTION_BETA], [edit])


def memory_tool() -> Lever:
    """Claude may keep notes in ``/memories``; our ``MemoryToolbox`` stores them in a local folder."""
    return Lever("API: memory tool", "Claude keeps notes in files under /memories, stored by our code.",
                 "the remember tool with CLAUDE.md", [CONTEXT_MANAGEMENT_BETA], adds_memory_tool=True)


# ---- the model and the tools ---------------------------------------------------------------

class LeverModel(ClaudeModel):
    """``ClaudeModel`` that sends its lever's beta header and ``context_management`` on every call.

    A ``compaction`` block in a reply is kept in the reply's content (so the loop appends it to
    the history and sends it back, as the API expects); ``applied`` records what the server
    says it cleared, one entry per call that cleared something.
    """

    def __init__(self, lever: Lever, **claude_options):
        super().__init__(**claude_options)
        self.lever = lever
        self.applied: list[dict] = []

    def reply(self, system: str, messages: list[dict], tools: list[dict], max_tokens: int = 1024) -> Reply:
        edits = {"edits": self.lever.edits} if self.lever.edits else anthropic.omit
        try:
            response = self.client.beta.messages.create(
                max_tokens=max_tokens, betas=self.lever.betas, context_management=edits,
                **self._request(system, messages, tools))
        except anthropic.APIError as err:
            raise self._explain(err) from err
        if response.context_management and response.context_management.applied_edits:
            self.applied += [edit.to_dict() for edit in response.context_management.applied_edits]
        return reply_from(response, keep_also=("compaction",))   # the server's summary goes back as it came


class MemoryToolbox(Toolbox):
    """The usual tools plus ``memory``: Claude's view/create/str_replace/insert/delete/rename commands
    on ``/memories``, carried out in ``memory_folder`` by the SDK's own file-based helper (which
    refuses paths that escape it). Example: run({"name": "memory", "input": {"command": "view",
    "path": "/memories"}, ...}) -> a listing of the notes.
    """

    def __init__(self, root=WORKSPACE, memory_folder=MEMORY_FOLDER, **toolbox_options):
        from anthropic.tools.memory import BetaLocalFilesystemMemoryTool

        super().__init__(root, **toolbox_options)
        self.schemas = TOOL_SCHEMAS + [MEMORY_TOOL]
        self.memory = BetaLocalFilesystemMemoryTool(base_path=str(memory_folder))

    def _tool_memory(self, **command) -> str:
        try:
            return str(self.memory.call(command))
        except Exception as problem:    # the helper's ToolError, a bad command, a missing file: tell the model
            raise ToolError(str(problem) or type(problem).__name__) from None


# ---- side by side ------------------------------------------------------------------------------

def side_by_side(request: str, strategies: dict[str, Strategy], levers: list[Lever],
                 make_model: Callable[[], Model] = pick_model, **run_options) -> dict[str, Run | str]:
    """Run one task with each hand-built strategy and each lever; a lever that cannot run gives its one line.

    Example offline: side_by_side(task.request, {"three-zone": ThreeZoneCompaction()}, [memory_tool()])
    -> {"three-zone": Run(...), "API: memory tool": "API: memory tool: ... needs ANTHROPIC_API_KEY ..."}
    """
    results: dict[str, Run | str] = {}
    for name, strategy in strategies.items():
        results[name] = run_agent(request, make_model(), context=strategy, **run_options)
    for lever in levers:
        if not lever.available():
            results[lever.name] = lever.explain()
            continue
        results[lever.name] = run_agent(request, lever.model(), tools=lever.toolbox(), context=FullHistory(),
                                        **run_options)
    return results
