"""The API's own levers: context management done on Anthropic's servers instead of in our harness.

What the Messages API (beta) offers, each beside the hand-built strategy that shows the same idea:

* **clearing old tool results** -- edit ``clear_tool_uses_20250919`` (beta ``context-management-2025-06-27``):
  past a trigger, the oldest tool results become a placeholder (our ``ClearToolResults``).
* **clearing old thinking** -- edit ``clear_thinking_20251015`` (same beta): the thinking blocks of all but the
  newest ``keep`` turns are dropped before the model reads the request.
* **compaction, three ways** -- the server writes the summary, as our ``ThreeZoneCompaction`` does:
  *on demand* (``compaction={"type": "summarize"}``, beta ``compact-2026-09-04``): the client asks when it
  chooses and puts the returned block first, in place of what it summarizes -- the docs' recommended way
  where it is available; *in the background*: the same request, sent while the work goes on with the full
  history, the block swapped in when it arrives; *at a threshold* (edit ``compact_20260112``, beta
  ``compact-2026-01-12``): inside an ordinary request, once the input passes the trigger (at least 50,000
  tokens), optionally pausing so the client can put recent turns back after the block, with custom
  ``instructions`` that replace the default summary prompt.
* **the memory tool** -- tool ``memory_20250818`` (context-management beta): Claude keeps notes in files under
  ``/memories``, which *our* code stores (our CLAUDE.md and ``remember``).

Request shapes: the installed ``anthropic`` SDK (2.14) types in ``anthropic.types.beta``, checked against the
Claude Platform docs as crawled in September 2026 (the compaction pages of 2026-09-22/30, context editing of
2026-07-24). Every lever needs ``ANTHROPIC_API_KEY`` (or an explicit key and server, such as the local desk
server). Without one, ``skip_reason()`` and ``explain()`` give one line, and ``model()`` raises a ``ModelError``
that says the same. With one, ``skip_reason()`` asks the Models API whether the model supports what the lever
needs, and names what it lacks in one line instead of failing on the request.

A lever's bill counts every pass the server reports in ``usage.iterations`` (``harness.laps.billed_tokens``):
with compaction the summarizing pass is left out of the top-level figures. ``count_with_levers`` gives
``count_tokens`` with the edits applied. Left out: streaming, tool-use triggers, ``exclude_tools``.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import anthropic

from harness.context import FullHistory, Strategy
from harness.laps import Run, billed_tokens
from harness.loop import run_agent
from harness.model import Model, ModelError
from harness.tools import TOOL_SCHEMAS, WORKSPACE, Toolbox
from harness.sandbox import ToolError
from stage.claude import ClaudeModel, claude_model_name
from stage.lever_model import LeverModel
from stage.server_compaction import BackgroundCompaction, OnDemandCompaction
from stage.switch import pick_model

CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27"  # clearing edits and the memory tool
COMPACTION_BETA = "compact-2026-01-12"  # the compact_20260112 edit (threshold)
ON_DEMAND_BETA = "compact-2026-09-04"  # the compaction parameter (on demand, background)
API_MIN_TRIGGER = 50_000  # the smallest threshold trigger the API accepts
MEMORY_TOOL = {"type": "memory_20250818", "name": "memory"}
MEMORY_FOLDER = Path(tempfile.gettempdir()) / "context-desk-memory"
FEATURES = {  # what a lever may need -> where the Models API's capabilities say whether the model has it
    "clear_tool_uses_20250919": ("context_management", "clear_tool_uses_20250919"),
    "clear_thinking_20251015": ("context_management", "clear_thinking_20251015"),
    "compact_20260112": ("context_management", "compact_20260112"),
    "summarize": ("compaction", "summarize"),
    "adaptive thinking": ("thinking", "types", "adaptive"),
}


@dataclass
class Lever:
    """One server-side feature: what it adds to a request, what it needs, and whether it can run here.

    Example: lever = clear_old_tool_results(trigger_tokens=30_000, keep=3)
    -> lever.skip_reason() is a one-line reason offline; None where it can run.
    """

    name: str
    what: str  # one plain sentence, for tables and skip lines
    instead: str  # the hand-built strategy that shows the same idea offline
    betas: list[str]
    edits: list[dict] = field(default_factory=list)  # context_management.edits
    extras: dict = field(default_factory=dict)  # other request fields, e.g. thinking
    needs: tuple[str, ...] = ()  # keys of FEATURES
    adds_memory_tool: bool = False
    tail_turns: int = 0  # threshold with a pause: turns put back after the block
    make_context: Callable[[], Strategy] | None = (
        None  # on demand / background: the strategy that asks
    )

    def available(self) -> bool:
        return bool(os.environ.get("ANTHROPIC_API_KEY", "").strip())

    def explain(self) -> str:
        if self.available():
            return f"{self.name}: {self.what.rstrip('.')} (beta {', '.join(self.betas)})."
        return (
            f"{self.name}: {self.what} It is a feature of the Claude API, so it needs ANTHROPIC_API_KEY; "
            f"offline, {self.instead} shows the same idea."
        )

    def skip_reason(self, model: str | None = None, **where) -> str | None:
        """None if the lever can run here; else one line saying why not (no key, or the model lacks a feature).

        ``where`` is ``api_key=`` and ``base_url=`` for a server other than the environment's.
        """
        if not (where.get("api_key") or self.available()):
            return self.explain()
        if not self.needs:
            return None
        name = model or claude_model_name()
        try:
            missing = missing_features(self.needs, model_capabilities(model, **where))
        except ModelError as problem:
            return f"{self.name}: skipped, the Models API could not say what {name} supports ({problem})"
        if missing:
            return f"{self.name}: skipped, the Models API says {name} does not support {', '.join(missing)}."
        return None

    def model(self, **claude_options) -> LeverModel:
        """Claude with this lever switched on. Raises ``ModelError`` (with ``explain()``) without a key."""
        if not (claude_options.get("api_key") or claude_options.get("client") or self.available()):
            raise ModelError(self.explain())
        return LeverModel(self, **claude_options)

    def context(self) -> Strategy:
        """What the loop sends: the whole history (the server trims), or the strategy that asks for summaries."""
        return self.make_context() if self.make_context else FullHistory()

    def toolbox(self, root=WORKSPACE, memory_folder=MEMORY_FOLDER) -> Toolbox:
        """The tools to run with: the usual ones, plus ``memory`` for the memory-tool lever."""
        return MemoryToolbox(root, memory_folder) if self.adds_memory_tool else Toolbox(root)


# ---- the levers --------------------------------------------------------------------------------


def clear_old_tool_results(
    trigger_tokens: int = 30_000, keep: int = 3, clear_at_least: int | None = None
) -> Lever:
    """Past ``trigger_tokens`` of input, the server clears all but the newest ``keep`` tool results."""
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": trigger_tokens},
        "keep": {"type": "tool_uses", "value": keep},
    }
    if clear_at_least:  # clear little and often and the prompt cache is rebuilt every time
        edit["clear_at_least"] = {"type": "input_tokens", "value": clear_at_least}
    return Lever(
        "API: clear old tool results",
        "The server swaps old tool results for a placeholder.",
        "ClearToolResults",
        [CONTEXT_MANAGEMENT_BETA],
        [edit],
        needs=("clear_tool_uses_20250919",),
    )


def clear_thinking(keep_turns: int | None = 1) -> Lever:
    """Thinking on; the server drops the thinking of all but the newest ``keep_turns`` turns (None: keep all)."""
    if keep_turns is not None and keep_turns < 1:
        raise ValueError(f"keep_turns must be at least 1 (or None for all), not {keep_turns}.")
    keep = "all" if keep_turns is None else {"type": "thinking_turns", "value": keep_turns}
    return Lever(
        "API: clear old thinking",
        "The server drops the thinking blocks of older turns.",
        "ClearToolResults (the same trim, on tool results)",
        [CONTEXT_MANAGEMENT_BETA],
        [{"type": "clear_thinking_20251015", "keep": keep}],
        {"thinking": {"type": "adaptive"}},
        needs=("clear_thinking_20251015", "adaptive thinking"),
    )


def server_compaction(
    trigger_tokens: int = 150_000,
    instructions: str | None = None,
    pause: bool = False,
    tail_turns: int = 0,
) -> Lever:
    """Compaction at a threshold: past ``trigger_tokens`` (the API wants at least 50,000) the server summarizes.

    ``instructions`` replace the server's summary prompt. ``pause`` stops after the summary; the model then
    puts the newest ``tail_turns`` exchanges back after the block, word for word, and goes on.
    """
    if tail_turns and not pause:
        raise ValueError(
            "tail_turns needs pause=True: only a paused compaction lets the client put turns back."
        )
    edit = {
        "type": "compact_20260112",
        "trigger": {"type": "input_tokens", "value": trigger_tokens},
    }
    if instructions:
        edit["instructions"] = instructions
    if pause:
        edit["pause_after_compaction"] = True
    what = "The server summarizes the conversation when it passes a token threshold."
    return Lever(
        "API: compaction at a threshold" + (", paused" if pause else ""),
        what,
        "ThreeZoneCompaction",
        [COMPACTION_BETA],
        [edit],
        needs=("compact_20260112",),
        tail_turns=tail_turns,
    )


def compact_on_demand(at_tokens: int = 100_000, instructions: str | None = None) -> Lever:
    """When the desk passes ``at_tokens``, ask the server for a summary and send its block first."""
    return Lever(
        "API: compaction on demand",
        "The client asks for a summary when it chooses; the block goes first.",
        "ThreeZoneCompaction(on_demand=...)",
        [ON_DEMAND_BETA],
        needs=("summarize",),
        make_context=lambda: OnDemandCompaction(at_tokens, instructions),
    )


def compact_in_background(
    at_tokens: int = 100_000, lag: int = 1, instructions: str | None = None
) -> Lever:
    """Ask for a summary past ``at_tokens`` and keep working; swap the block in ``lag`` laps later."""
    return Lever(
        "API: compaction in the background",
        "The summary is written while the work goes on, then swapped in.",
        "ThreeZoneCompaction",
        [ON_DEMAND_BETA],
        needs=("summarize",),
        make_context=lambda: BackgroundCompaction(at_tokens, lag, instructions),
    )


def memory_tool() -> Lever:
    """Claude may keep notes in ``/memories``; our ``MemoryToolbox`` stores them in a local folder."""
    return Lever(
        "API: memory tool",
        "Claude keeps notes in files under /memories, stored by our code.",
        "the remember tool with CLAUDE.md",
        [CONTEXT_MANAGEMENT_BETA],
        adds_memory_tool=True,
    )


# ---- what the model supports --------------------------------------------------------------------


def model_capabilities(model: str | None = None, **where):
    """The Models API's ``capabilities`` of ``model`` (default: the active one): one small GET per lever asked.

    Raises ``ModelError`` (a bad key, an unknown model, no answer). None when the API does not report them.
    """
    claude = ClaudeModel(model=model, max_retries=1, **where)
    try:
        info = claude.client.beta.models.retrieve(
            claude.name, betas=[CONTEXT_MANAGEMENT_BETA, ON_DEMAND_BETA]
        )
    except anthropic.APIError as err:
        raise claude._explain(err) from err
    return info.capabilities


def missing_features(needs, capabilities) -> list[str]:
    """The ``needs`` the capabilities do not support. No capabilities reported: none missing (try it)."""
    if capabilities is None:
        return []
    missing = []
    for need in needs:
        found = capabilities
        for step in FEATURES[need]:
            found = getattr(found, step, None)
        if not getattr(found, "supported", False):
            missing.append(need)
    return missing


# ---- the tools, and running ------------------------------------------------------------------------


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
        except (
            Exception
        ) as problem:  # the helper's ToolError, a bad command, a missing file: tell the model
            raise ToolError(str(problem) or type(problem).__name__) from None


@dataclass
class LeverRun:
    """A run with a lever on, and what the server said along the way (through ``model``).

    Over every request the model sent (a background summary that came back after the last lap included):
    ``billed_input`` counts every pass the server reported (what the bill counts, ``harness.laps.billed_tokens``);
    ``top_level_input`` only the top-level figures, which leave a summarizing pass out.
    ``read`` is, per lap, the input the model read after the server's edits.
    """

    run: Run
    model: LeverModel

    @property
    def billed_input(self) -> int:
        return sum(billed_tokens(usage)[0] for usage in self.model.calls)

    @property
    def top_level_input(self) -> int:
        return sum(top_level(usage) for usage in self.model.calls)

    @property
    def read(self) -> list[int]:
        return [top_level(lap.usage) for lap in self.run.laps]


def top_level(usage: dict) -> int:
    """Input tokens of a reply's top-level usage (cache included): what the model read for its answer."""
    return sum(
        usage.get(k) or 0
        for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )


def run_lever(
    lever: Lever, request: str, where: dict | None = None, model: str | None = None, **run_options
) -> LeverRun | str:
    """Run ``request`` with the lever on; a lever that cannot run here gives its one line instead.

    ``where`` is ``{"api_key": ..., "base_url": ...}`` for a server other than the environment's.
    Example offline: run_lever(memory_tool(), task.request) -> "API: memory tool: ... needs ANTHROPIC_API_KEY ..."
    """
    where = where or {}
    why = lever.skip_reason(model, **where)
    if why:
        return why
    claude, context = lever.model(model=model, **where), lever.context()
    run = run_agent(request, claude, tools=lever.toolbox(), context=context, **run_options)
    getattr(context, "finish", lambda: None)()  # a background summary still on its way: wait for it
    return LeverRun(run, claude)


def side_by_side(
    request: str,
    strategies: dict[str, Strategy],
    levers: list[Lever],
    make_model: Callable[[], Model] = pick_model,
    where: dict | None = None,
    **run_options,
) -> dict[str, Run | LeverRun | str]:
    """Run one task with each hand-built strategy and each lever; a lever that cannot run gives its one line.

    Example offline: side_by_side(task.request, {"three-zone": ThreeZoneCompaction()}, [memory_tool()])
    -> {"three-zone": Run(...), "API: memory tool": "API: memory tool: ... needs ANTHROPIC_API_KEY ..."}
    """
    results: dict[str, Run | LeverRun | str] = {}
    for name, strategy in strategies.items():
        results[name] = run_agent(request, make_model(), context=strategy, **run_options)
    for lever in levers:
        results[lever.name] = run_lever(lever, request, where, **run_options)
    return results
