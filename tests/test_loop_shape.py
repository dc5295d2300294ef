"""run_agent is the bare loop of lesson 01: the same messages, lap for lap, on every workspace, and a loop
body short enough for one screen. A strategy may hand back a plain list (the zones default), and a
running summary that keeps no turn verbatim (tail_turns=0) still folds and stays on the desk."""

import inspect
from pathlib import Path

import pytest

from harness.context import FullHistory, Strategy
from harness.loop import run_agent
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


def bare_loop(request, model, tools, laps):
    """Lesson 01's live-coded loop, word for word in its steps."""
    history = [user(request)]
    for _ in range(laps):
        reply = model.reply(SYSTEM_PROMPT, history, tools.schemas)
        history.append(assistant(reply.content))
        calls = tool_uses(history[-1])
        if not calls:
            break
        history.append({"role": "user", "content": [tools.run(call) for call in calls]})
    return history


def task_for(folder):
    return file_reading_task() if folder == WORKSPACE else workspace_task(folder)


@pytest.mark.parametrize("laps", [1, 3, 6])
@pytest.mark.parametrize("folder", WORKSPACES, ids=lambda p: p.name)
def test_run_agent_sends_and_keeps_what_the_bare_loop_does(folder, laps):
    task = task_for(folder)
    ours = bare_loop(task.request, pick_model(window=40 * CLASS_WINDOW), Toolbox(folder), laps)
    run = run_agent(
        task.request,
        pick_model(window=40 * CLASS_WINDOW),
        tools=Toolbox(folder),
        context=FullHistory(),
        max_laps=laps,
    )
    assert run.history == ours
    assert len(run.laps) == (len(ours) // 2)


def test_the_loop_fits_on_one_screen():
    source = inspect.getsource(run_agent)
    body = source[source.index("for number in range") : source.index("except (")]
    assert len(body.splitlines()) <= 40, body


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
