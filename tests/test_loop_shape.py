"""run_agent is lesson 01's bare loop with its books kept.

``harness/loop.py`` opens with the bare loop; ``run_agent`` runs it (or any loop the class writes with
the same interface) and adds only bookkeeping: the bare loop alone, run_agent with its default loop and
run_agent with a hand-typed copy of the loop leave the same messages and the same lap records, on every
workspace and under every kind of strategy. A loop that ignores ``assemble`` shows as such: its desks
are whole, so it overflows where the strategy would not have. A strategy may hand back a plain list
(the zones default), and a running summary that keeps no turn verbatim (tail_turns=0) still folds.
"""

import ast
import inspect
from pathlib import Path

import pytest

from harness import loop as loop_module
from harness.clear_then_compact import ClearThenCompact
from harness.clearing import ClearToolResults
from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory, Strategy
from harness.sliding_window import SlidingWindow
from harness.loop import bare_loop, run_agent, send_everything
from harness.messages import assistant, tool_uses, user
from harness.model import CLASS_WINDOW
from harness.prompts import SYSTEM_PROMPT
from harness.running_summary import RunningSummary
from harness.tools import WORKSPACE, Toolbox
from stage.switch import pick_model
from stage.tasks import file_reading_task, workspace_task

ROOT = Path(__file__).resolve().parent.parent
WORKSPACES = [WORKSPACE] + sorted(
    p for p in (ROOT / "workspaces").iterdir() if (p / ".task.toml").is_file()
)
STRATEGIES = [
    FullHistory,
    SlidingWindow,
    ThreeZoneCompaction,
    RunningSummary,
    ClearToolResults,
    ClearThenCompact,
]


def typed_in_class(
    request, model, tools, max_laps=40, *, assemble=send_everything, system=SYSTEM_PROMPT
):
    """Lesson 01's loop as a student types it: the same five steps, written out again."""
    history = [user(request)]
    for _ in range(max_laps):
        desk = assemble(history)
        reply = model.reply(system, desk, tools.schemas)
        history.append(assistant(reply.content))
        calls = tool_uses(history[-1])
        if not calls:
            break
        results = [tools.run(call) for call in calls]
        history.append({"role": "user", "content": results})
    return history


def ignores_assemble(
    request, model, tools, max_laps=40, *, assemble=send_everything, system=SYSTEM_PROMPT
):
    """A loop that takes ``assemble`` and ``system`` but never uses them: it sends everything, every lap."""
    history = [user(request)]
    for _ in range(max_laps):
        reply = model.reply(SYSTEM_PROMPT, history, tools.schemas)
        history.append(assistant(reply.content))
        calls = tool_uses(history[-1])
        if not calls:
            break
        history.append(user([tools.run(call) for call in calls]))
    return history


def task_for(folder):
    return file_reading_task() if folder == WORKSPACE else workspace_task(folder)


def records(run):
    return run.history, run.laps, run.stopped, run.final, run.problem


# ---- the shape ------------------------------------------------------------------------------------


def test_the_loop_module_opens_with_the_bare_loop_and_run_agent_runs_it():
    tree = ast.parse(inspect.getsource(loop_module))
    functions = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert functions[:3] == ["send_everything", "bare_loop", "run_agent"]
    assert inspect.signature(run_agent).parameters["loop"].default is bare_loop
    body = inspect.getsource(bare_loop).split('"""')[-1]
    assert len([line for line in body.splitlines() if line.strip()]) <= 14, body


@pytest.mark.parametrize("laps", [1, 3, 6])
@pytest.mark.parametrize("folder", WORKSPACES, ids=lambda p: p.name)
def test_run_agent_sends_and_keeps_what_the_bare_loop_alone_does(folder, laps):
    task = task_for(folder)
    alone = bare_loop(task.request, pick_model(window=40 * CLASS_WINDOW), Toolbox(folder), laps)
    run = run_agent(
        task.request, pick_model(window=40 * CLASS_WINDOW), tools=Toolbox(folder), max_laps=laps
    )
    assert run.history == alone
    assert len(run.laps) == len(alone) // 2


@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
@pytest.mark.parametrize("folder", WORKSPACES, ids=lambda p: p.name)
def test_a_hand_typed_loop_gives_the_same_run_as_the_default(folder, strategy):
    task = task_for(folder)

    def go(loop):
        return run_agent(
            task.request,
            pick_model(window=CLASS_WINDOW),
            tools=Toolbox(folder),
            context=strategy(),
            remarks={3: "One more thing: be brief."},
            loop=loop,
        )

    default, typed = go(bare_loop), go(typed_in_class)
    assert records(typed) == records(default)
    assert default.laps and default.history[6]["content"][-1]["text"] == "One more thing: be brief."


@pytest.mark.parametrize("strategy", [SlidingWindow, ThreeZoneCompaction, RunningSummary])
def test_a_loop_that_ignores_assemble_overflows_where_the_strategy_would_not(strategy):
    task = file_reading_task()
    managed = run_agent(task.request, pick_model(window=CLASS_WINDOW), context=strategy())
    ignored = run_agent(
        task.request,
        pick_model(window=CLASS_WINDOW),
        context=strategy(),
        loop=ignores_assemble,
        system=SYSTEM_PROMPT + " Be brief.",
    )
    assert managed.stopped == "answered"
    assert ignored.stopped == "overflow" and "5,000-token window" in ignored.problem
    for lap in ignored.laps[:-1]:  # its desks are whole: every lap sends the raw history
        assert lap.kind == "none" and lap.sent == ignored.history[: len(lap.sent)]
        assert set(lap.zones[1:]) <= {"tail"} and lap.zones[0] == "head"
    # it sent the default system prompt, not the one run_agent was given: the record counts what was sent
    meter, schemas = pick_model(window=CLASS_WINDOW).meter, Toolbox().schemas
    for lap in ignored.laps[:-1]:
        assert lap.assembled_tokens == meter.total(lap.sent, system=SYSTEM_PROMPT, tools=schemas)
        assert (
            lap.assembled_tokens < lap.raw_tokens
        )  # the raw history counts the prompt it was given


def test_a_loop_that_returns_no_history_stops_the_run_cleanly():
    def broken(request, model, tools, max_laps=40):
        model.reply(SYSTEM_PROMPT, [user(request)], tools.schemas)
        return {"not": "a history"}

    run = run_agent("List the files.", pick_model(window=CLASS_WINDOW), loop=broken)
    assert run.stopped == "piece_failed" and "must return the history" in run.problem
    assert len(run.laps) == 1 and run.laps[0].kind == "piece_failed"


def test_a_loop_that_runs_past_max_laps_is_stopped():
    def endless(request, model, tools, max_laps=40, *, assemble=send_everything):
        history = [user(request)]
        while True:
            reply = model.reply(SYSTEM_PROMPT, assemble(history), tools.schemas)
            history.append(assistant(reply.content))
            history.append(user([tools.run(c) for c in tool_uses(history[-1])] or "Go on."))

    run = run_agent(
        file_reading_task().request, pick_model(window=40 * CLASS_WINDOW), loop=endless, max_laps=3
    )
    assert run.stopped == "piece_failed" and "max_laps" in run.problem and len(run.laps) == 4


# ---- strategies the loop accepts -------------------------------------------------------------------


class _Newest(Strategy):
    """Sends the request and the last two messages, as a plain list."""

    def assemble(self, history, **_):
        return history[:1] + history[1:][-2:]


def test_a_strategy_may_return_a_plain_list():
    task = file_reading_task()
    run = run_agent(task.request, pick_model(window=CLASS_WINDOW), context=_Newest(), max_laps=6)
    for lap in run.laps:
        assert (
            len(lap.sent) == len(lap.zones)
            and lap.zones[0] == "head"
            and set(lap.zones[1:]) <= {"tail"}
        )
        assert lap.kind == "none" and lap.summary_calls == 0


@pytest.mark.parametrize("chunk", [2, 3, 4])
def test_a_running_summary_that_keeps_no_turn_still_folds_and_fits(chunk):
    """chunk_turns=1 is left out on purpose: with nothing kept verbatim, every tool result is folded before
    the model has seen it once, and the offline agent loses track of having applied its fix (the tail rule
    of lesson 03: keep the turn the agent is acting on)."""
    task = file_reading_task()
    run = run_agent(
        task.request, pick_model(window=CLASS_WINDOW), context=RunningSummary(chunk, tail_turns=0)
    )
    folds = [lap for lap in run.laps if lap.kind == "fold"]
    assert run.stopped == "answered" and folds
    assert all(lap.assembled_tokens < CLASS_WINDOW for lap in run.laps)
    assert all(
        set(lap.zones) <= {"head", "summary"} for lap in folds
    )  # nothing verbatim after a fold
