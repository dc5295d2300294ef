"""The API's own levers: what the real SDK sends (to a local stand-in server), and a clean skip offline."""

import json

import pytest

from harness.compaction import ThreeZoneCompaction
from harness.loop import run_agent
from harness.messages import assistant, user
from harness.model import ModelError
from harness.tools import TOOL_SCHEMAS
from stage.api_levers import (COMPACTION_BETA, CONTEXT_MANAGEMENT_BETA, MEMORY_TOOL, MemoryToolbox,
                              clear_old_tool_results, memory_tool, server_compaction, side_by_side)
from stage.offline import DeskModel
from stage.standin_server import message_body
from stage.tasks import file_reading_task

LEVERS = [clear_old_tool_results, server_compaction, memory_tool]


# ---- offline: one line, and a clean skip -------------------------------------------------------

@pytest.mark.parametrize("make", LEVERS)
def test_offline_each_lever_explains_itself_and_refuses_cleanly(make):
    lever = make()
    assert not lever.available()
    line = lever.explain()
    assert "\n" not in line and "ANTHROPIC_API_KEY" in line and lever.instead in line
    with pytest.raises(ModelError) as caught:
        lever.model()
    assert str(caught.value) == line


def test_offline_side_by_side_runs_the_hand_built_ones_and_skips_the_levers(meter):
    results = side_by_side(file_reading_task().request, {"three-zone": ThreeZoneCompaction()},
                           [lever() for lever in LEVERS], make_model=lambda: DeskModel(meter=meter))
    assert results["three-zone"].database_target == "staging"
    skipped = [results[lever().name] for lever in LEVERS]
    assert all(isinstance(line, str) and "ANTHROPIC_API_KEY" in line for line in skipped)


# ---- with a key: the request shapes, through the real SDK --------------------------------------

def test_clearing_sends_the_context_management_beta_and_edit(server):
    applied = {"applied_edits": [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 4,
                                  "cleared_input_tokens": 9000}]}
    server.push(200, {**message_body([{"type": "text", "text": "ok"}]), "context_management": applied})
    lever = clear_old_tool_results(trigger_tokens=30_000, keep=3, clear_at_least=5_000)
    model = lever.model()
    assert model.reply("sys", [user("hi")], TOOL_SCHEMAS).text == "ok"

    sent = server.requests[0]
    assert sent["path"] == "/v1/messages"
    assert sent["headers"]["anthropic-beta"] == CONTEXT_MANAGEMENT_BETA == "context-management-2025-06-27"
    assert sent["body"]["context_management"] == {"edits": [{
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 30000},
        "keep": {"type": "tool_uses", "value": 3},
        "clear_at_least": {"type": "input_tokens", "value": 5000}}]}
    assert model.applied == applied["applied_edits"]


def test_server_compaction_sends_its_beta_and_round_trips_the_compaction_block(server):
    block = {"type": "compaction", "content": "Goal: fix the login bug. Never touch production."}
    server.push(200, message_body([block, {"type": "text", "text": "Carrying on."}]))
    lever = server_compaction(trigger_tokens=50_000, instructions="Keep every database decision.")
    model = lever.model()
    history = [user("Fix the login bug.")]
    reply = model.reply("sys", history, TOOL_SCHEMAS)
    assert reply.content[0] == block                          # kept, so the loop sends it back

    sent = server.requests[0]
    assert sent["headers"]["anthropic-beta"] == COMPACTION_BETA == "compact-2026-01-12"
    assert sent["body"]["context_management"] == {"edits": [{
        "type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50000},
        "instructions": "Keep every database decision."}]}

    model.reply("sys", history + [assistant(reply.content), user("Go on.")], TOOL_SCHEMAS)
    again = server.requests[1]["body"]["messages"]
    assert again[1]["content"][0] == block                    # the server drops what came before it


def test_the_memory_tool_runs_through_the_loop(server, tmp_path):
    server.push_tool_use("memory", {"command": "create", "path": "/memories/project.md",
                                    "file_text": "Never touch production.\n"}, tool_id="toolu_m1")
    server.push_text("Noted for next time.")
    lever = memory_tool()
    box = lever.toolbox(memory_folder=tmp_path)
    assert isinstance(box, MemoryToolbox)
    run = run_agent("Remember our database rule.", lever.model(), tools=box)

    assert run.stopped == "answered" and run.final == "Noted for next time."
    assert (tmp_path / "memories" / "project.md").read_text() == "Never touch production.\n"
    first, second = (r for r in server.requests)
    assert first["headers"]["anthropic-beta"] == CONTEXT_MANAGEMENT_BETA
    tools = [{k: v for k, v in tool.items() if k != "cache_control"} for tool in first["body"]["tools"]]
    assert MEMORY_TOOL in tools and "context_management" not in first["body"]
    answered = json.dumps(second["body"]["messages"][-1])
    assert "File created successfully" in answered


def test_the_memory_toolbox_keeps_claude_inside_its_folder(tmp_path):
    box = MemoryToolbox(memory_folder=tmp_path)
    escape = box.run({"id": "t1", "name": "memory", "input": {"command": "view", "path": "/memories/../../etc"}})
    outside = box.run({"id": "t2", "name": "memory", "input": {"command": "view", "path": "/etc/passwd"}})
    assert escape["is_error"] and outside["is_error"] and "/memories" in outside["content"]


def test_an_api_refusal_is_a_clear_model_error(server):
    server.push_error(400, "invalid_request_error", "compaction is not supported on this model")
    with pytest.raises(ModelError, match="not supported on this model"):
        server_compaction().model(max_retries=0).reply("sys", [user("hi")], [])
