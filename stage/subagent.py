"""Sub-agents: hand a sub-task to a fresh desk, and get back only a short report.

The third accepted answer to a filling window (after compaction and notes outside the window):
isolation. The parent calls the ``delegate`` tool with a plain-language task ("Read every file
under app/api/ and report what you notice."). A sub-agent works it in its *own* ``run_agent``
loop -- its own desk, its own ``Toolbox`` over the same workspace, its own strategy, the same
model -- and only its final report comes back as the tool result. The parent's desk grows by a
few lines per folder instead of by every file in it.

``DelegatingToolbox`` is a ``Toolbox`` with the extra tool; it keeps each sub-agent's ``Run``
in ``child_runs``, lap records and all, so both desks can be plotted. ``measure_delegation``
runs one task twice, alone and with sub-agents, and compares the parent's desk.

Left out: sub-agents of sub-agents (a child's toolbox has no ``delegate``), running children in
parallel, and any sharing between children: each starts from nothing but its task.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory, Strategy
from harness.laps import Run
from harness.loop import run_agent
from harness.model import Model
from harness.tools import TOOL_SCHEMAS, WORKSPACE, Toolbox
from harness.sandbox import ToolError

DELEGATE_SCHEMA = {
    "name": "delegate",
    "description": (
        "Hand a self-contained sub-task to a sub-agent with a fresh, empty context. It can read the "
        "workspace; you get back only its short final report."
    ),
    "input_schema": {
        "type": "object",
        "properties": {"task": {"type": "string"}},
        "required": ["task"],
    },
}
MAX_REPORT_CHARS = 2500  # a report is a summary, not a dump: longer ones are cut


class DelegatingToolbox(Toolbox):
    """The usual tools plus ``delegate``, which runs a sub-agent and returns its report.

    ``model`` answers for the sub-agents (pass the parent's model: the same kind of mind, a fresh desk).
    ``child_context`` makes each sub-agent's strategy (a new one per child; they must not share state).
    Example: box = DelegatingToolbox(model); run_agent(request, model, tools=box); box.child_runs[0].laps
    """

    def __init__(
        self,
        model: Model,
        root=WORKSPACE,
        child_context: Callable[[], Strategy] = ThreeZoneCompaction,
        child_laps: int = 40,
        **toolbox_options,
    ):
        super().__init__(root, **toolbox_options)
        self.schemas = TOOL_SCHEMAS + [DELEGATE_SCHEMA]
        self.model, self.child_context, self.child_laps = model, child_context, child_laps
        self.child_runs: list[Run] = []

    def _tool_delegate(self, task: str) -> str:
        if not task.strip():
            raise ToolError("delegate needs a task to hand over.")
        try:
            child = run_agent(
                task,
                self.model,
                tools=Toolbox(self.root),
                context=self.child_context(),
                max_laps=self.child_laps,
            )
        except ValueError as problem:  # e.g. the task alone does not fit the window
            raise ToolError(f"the sub-agent could not start: {problem}") from None
        self.child_runs.append(child)
        return report_of(child)


def report_of(child: Run) -> str:
    """What the parent gets back: the child's final answer (cut if long), plus the files it read.

    Example: -> "Sub-agent report (answered after 15 laps):\\nReport: read 13 of 13 files.\\nFiles read: ..."
    """
    answer = child.final.strip() or f"(no final answer: {child.problem or child.stopped})"
    if len(answer) > MAX_REPORT_CHARS:
        answer = answer[:MAX_REPORT_CHARS] + " [... report cut]"
    laps = len(child.laps)
    lines = [
        f"Sub-agent report ({child.stopped} after {laps} lap{'' if laps == 1 else 's'}):",
        answer,
    ]
    if "Files read:" not in answer:  # a model that did not say what it read: the harness knows
        lines.append("Files read: " + (", ".join(dict.fromkeys(child.files_read)) or "none"))
    return "\n".join(lines)


# ---- measuring -----------------------------------------------------------------------------


@dataclass
class DelegationMeasure:
    """One task run twice: the parent alone, and the parent with sub-agents."""

    alone: Run
    delegated: Run
    children: list[Run] = field(default_factory=list)

    @property
    def peak_alone(self) -> int:
        return max(lap.assembled_tokens for lap in self.alone.laps)

    @property
    def peak_delegated(self) -> int:
        """The parent's biggest desk when it delegates (its children's desks are not on it)."""
        return max(lap.assembled_tokens for lap in self.delegated.laps)

    @property
    def billed_delegated(self) -> int:
        """Input tokens billed with delegation, children included: isolation is not free."""
        runs = [self.delegated] + self.children
        return sum(run.laps[-1].total_input for run in runs if run.laps)

    @property
    def billed_alone(self) -> int:
        return self.alone.laps[-1].total_input if self.alone.laps else 0

    def table(self) -> str:
        """A two-line comparison to print in a notebook."""
        return (
            f"alone:      peak desk {self.peak_alone:>6,} tokens, billed input {self.billed_alone:>7,}\n"
            f"delegating: peak desk {self.peak_delegated:>6,} tokens, billed input {self.billed_delegated:>7,} "
            f"(parent + {len(self.children)} sub-agents)"
        )


def measure_delegation(
    request: str,
    make_model: Callable[[], Model],
    context: Callable[[], Strategy] = FullHistory,
    root=WORKSPACE,
    max_laps: int = 40,
    **run_options,
) -> DelegationMeasure:
    """Run ``request`` alone and with a ``delegate`` tool, same model kind, same strategy; compare.

    Example: measure_delegation(task.request, lambda: OfflineModel(window=20000)).peak_delegated
    -> a fraction of .peak_alone, because the files were read on the sub-agents' desks.
    """
    alone = run_agent(
        request,
        make_model(),
        tools=Toolbox(root),
        context=context(),
        max_laps=max_laps,
        **run_options,
    )
    model = make_model()
    box = DelegatingToolbox(model, root)
    delegated = run_agent(
        request, model, tools=box, context=context(), max_laps=max_laps, **run_options
    )
    return DelegationMeasure(alone, delegated, box.child_runs)
