"""The offline model never loops: a folder pointer lists the folder, a failed call is not made again while its
error is in view, and a run that runs out of laps says what it was doing."""

import shutil
from pathlib import Path

import pytest
from real_libraries import RULE as LIBRARY_RULE
from real_libraries import make_library_workspace

from benchmarks.compare import automatic_window, task_for, why_stopped
from harness.clear_then_compact import ClearThenCompact
from harness.clearing import ClearToolResults
from harness.compaction import ThreeZoneCompaction
from harness.loop import run_agent
from harness.messages import assistant, user
from harness.model import Reply
from harness.prompts import NAIVE_PROMPT
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from harness.tools import TOOL_SCHEMAS, WORKSPACE, Toolbox
from stage.offline import OfflineModel
from stage.tasks import RULE, file_reading_task

IN_APP = (
    "Users whose email address contains capital letters cannot log in. Find the cause in app/ and migrations/, "
    "then apply the pending fix to the database. " + RULE
)
STRATEGIES = {
    "three-zone, template": lambda tail: ThreeZoneCompaction(tail_turns=tail),
    "three-zone, naive prompt": lambda tail: ThreeZoneCompaction(
        prompt=NAIVE_PROMPT, tail_turns=tail
    ),
    "running summary": lambda tail: RunningSummary(tail_turns=min(tail, 1)),
    "clear tool results": lambda tail: ClearToolResults(),
    "clear, then compact": lambda tail: ClearThenCompact(),
}


@pytest.mark.parametrize("tail", [1, 2])
@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_find_the_cause_in_app_finishes_on_staging_for_every_compaction_strategy(name, tail):
    """The wording that used to loop: the goal's own 'in app/' was read as a pointer to a file, every lap.

    (With no verbatim tail at all, the vague prompt's 40 words hold the goal and no progress, so that one agent
    starts over after each compaction: a real loss, not this bug -- see test_tail_and_decisions.)"""
    run = run_agent(IN_APP, OfflineModel(window=5000), context=STRATEGIES[name](tail), max_laps=80)
    assert run.stopped == "answered", why_stopped(run, 80)
    assert run.toolbox.sql_log[-1] == {
        "target": "staging",
        "statement": "UPDATE users SET email = lower(email);",
        "flagged": False,
    }
    assert not any("read_file app/ " in f"{a} " for lap in run.laps for a in lap.actions)


def call(box, name, **args):
    use = {
        "type": "tool_use",
        "id": f"t_{name}_{len(args)}_{sorted(args.items())}",
        "name": name,
        "input": args,
    }
    return [
        assistant([{"type": "text", "text": "Task: x"}, use]),
        {"role": "user", "content": [box.run(use)]},
    ]


def next_call(messages):
    reply = OfflineModel(window=20_000).reply("", messages, TOOL_SCHEMAS)
    calls = [b for b in reply.content if b.get("type") == "tool_use"]
    return (calls[0]["name"], calls[0]["input"]) if calls else None


def test_a_summary_that_points_at_a_folder_is_not_read_as_a_file():
    box = Toolbox()
    summary = user(
        "[Summary of earlier work]\nGoal: find the cause in app/ and apply it.\n"
        "Done: read 3 files. Pending: find the cause in app/."
    )
    step = next_call([user(IN_APP), summary] + call(box, "list_files"))
    assert (
        step
        and step[0] == "read_file"
        and step[1]["path"] != "app/"
        and not step[1]["path"].endswith("/")
    )


def test_a_call_that_failed_is_not_made_again_while_its_error_is_in_view():
    box = Toolbox()
    summary = user(
        "[Summary of earlier work]\nDone: read 2 files; found the cause in app/gone.py. Pending: find the fix."
    )
    before = [user(IN_APP), summary] + call(box, "list_files")
    assert next_call(before) == ("read_file", {"path": "app/gone.py"})  # the pointer, followed once
    failed = before + call(box, "read_file", path="app/gone.py")
    assert failed[-1]["content"][0]["is_error"]
    assert next_call(failed) != ("read_file", {"path": "app/gone.py"})  # ... and not again


def test_read_file_on_a_folder_shows_the_folder():
    box = Toolbox()
    result = box.run(
        {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "app/"}}
    )
    assert not result.get("is_error") and "app/auth.py" in result["content"]


class Stuck:
    """A model that asks for the same folder every lap, whatever it is told."""

    name, window = "stuck", 50_000

    def reply(self, system, messages, tools, max_tokens=1024):
        return Reply(
            [
                {
                    "type": "tool_use",
                    "id": f"t{len(messages)}",
                    "name": "read_file",
                    "input": {"path": "app/"},
                }
            ],
            "tool_use",
        )


def test_a_run_out_of_laps_says_what_it_was_repeating():
    run = run_agent("Look around.", Stuck(), max_laps=12)
    assert run.stopped == "max_laps"
    assert (
        why_stopped(run, 12)
        == "out of laps (12): the last 10 laps repeated read_file app/ 10 times"
    )


def test_every_way_a_run_ends_has_a_reason():
    overflowed = run_agent(IN_APP, OfflineModel(window=5000), max_laps=40)
    assert why_stopped(overflowed, 40).startswith("overflow at lap 10: ")
    done = run_agent(IN_APP, OfflineModel(window=60_000), max_laps=40)
    assert why_stopped(done, 40) == "answered: applied on staging"


@pytest.mark.parametrize("library", ["json5", "defusedxml", "h11"])
@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_on_real_libraries_every_compaction_strategy_finishes(tmp_path, library, name):
    """A search whose result was cleared counts as done: clearing used to send the agent round the same searches
    for ever (search, cleared, search again) on json5's long files."""
    folder, spec = make_library_workspace(library, tmp_path)
    task = task_for(Path(folder), f"{spec['request']} {LIBRARY_RULE}", None)
    window = automatic_window(task, Path(folder), Meter())
    run = run_agent(
        task.request,
        OfflineModel(window=window),
        tools=Toolbox(folder),
        context=STRATEGIES[name](2),
        remarks=task.remarks,
        max_laps=80,
    )
    assert run.stopped == "answered", why_stopped(run, 80)
    assert run.toolbox.sql_log[-1] == {
        "target": "staging",
        "statement": spec["statement"],
        "flagged": False,
    }


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_empty_files_are_read_once(tmp_path, name):
    """Empty files (an ``__init__.py``, a marker file) used to be a failed read, so every summary listed them as
    still to read and a running summary read one again after each fold, for ever (bleach's vendored folder)."""
    shutil.copytree(WORKSPACE, tmp_path / "ws")
    for number in range(6):
        (tmp_path / "ws" / "app" / f"aa_empty_{number}.py").write_text("")
    task = file_reading_task()
    run = run_agent(
        task.request,
        OfflineModel(window=5000),
        tools=Toolbox(tmp_path / "ws"),
        context=STRATEGIES[name](1),
        remarks=task.remarks,
        max_laps=80,
    )
    assert run.stopped == "answered", why_stopped(run, 80)
    reads = [a for lap in run.laps for a in lap.actions if a.startswith("read_file app/aa_empty_")]
    assert len(reads) == len(set(reads)) == 6, reads
