"""The API's own levers: what the real SDK sends (to a canned stand-in server), and a clean skip offline.

The request shapes are checked twice: against the installed SDK's own TypedDicts (so a renamed field
fails here, not in a reader's notebook), and on the wire, as the stand-in server received them.
"""

import json
import typing

import pytest
from anthropic.types.beta import (
    BetaClearThinking20251015EditParam,
    BetaClearToolUses20250919EditParam,
    BetaCompact20260112EditParam,
    BetaCompactionConfigParam,
    BetaInputTokensTriggerParam,
    BetaThinkingTurnsParam,
)

from harness.compaction import ThreeZoneCompaction
from harness.cost import bill
from harness.loop import run_agent
from harness.messages import assistant, blocks_of, user
from harness.model import ModelError
from harness.tools import TOOL_SCHEMAS
from stage.api_levers import (
    COMPACTION_BETA,
    CONTEXT_MANAGEMENT_BETA,
    MEMORY_TOOL,
    ON_DEMAND_BETA,
    MemoryToolbox,
    clear_old_tool_results,
    clear_thinking,
    compact_in_background,
    compact_on_demand,
    memory_tool,
    server_compaction,
    side_by_side,
)
from stage.lever_model import recent_turns
from stage.offline import OfflineModel
from stage.standin_server import message_body
from stage.tasks import file_reading_task

LEVERS = [
    clear_old_tool_results,
    clear_thinking,
    server_compaction,
    compact_on_demand,
    compact_in_background,
    memory_tool,
]


def conforms(value: dict, typed) -> list[str]:
    """Where ``value`` departs from one of the SDK's TypedDicts: unknown keys, missing required ones, wrong type."""
    hints = typing.get_type_hints(typed, include_extras=True)
    problems = [f"unknown field {key!r}" for key in value if key not in hints]
    problems += [
        f"missing {key!r}"
        for key, hint in hints.items()
        if typing.get_origin(hint) is typing.Required and key not in value
    ]
    kinds = typing.get_args(typing.get_args(hints["type"])[0]) if "type" in hints else ()
    if kinds and value.get("type") not in kinds:
        problems.append(f"type {value.get('type')!r} is not {kinds}")
    return problems


# ---- offline: one line, and a clean skip -------------------------------------------------------


@pytest.mark.parametrize("make", LEVERS)
def test_offline_each_lever_explains_itself_and_refuses_cleanly(make):
    lever = make()
    assert not lever.available()
    line = lever.explain()
    assert "\n" not in line and "ANTHROPIC_API_KEY" in line and lever.instead in line
    assert lever.skip_reason() == line
    with pytest.raises(ModelError) as caught:
        lever.model()
    assert str(caught.value) == line


def test_offline_side_by_side_runs_the_hand_built_ones_and_skips_the_levers(meter):
    results = side_by_side(
        file_reading_task().request,
        {"three-zone": ThreeZoneCompaction()},
        [lever() for lever in LEVERS],
        make_model=lambda: OfflineModel(meter=meter),
    )
    assert results["three-zone"].database_target == "staging"
    skipped = [results[lever().name] for lever in LEVERS]
    assert all(isinstance(line, str) and "ANTHROPIC_API_KEY" in line for line in skipped)


def test_bad_lever_settings_are_refused_with_a_clear_message():
    with pytest.raises(ValueError, match="pause=True"):
        server_compaction(tail_turns=2)
    with pytest.raises(ValueError, match="at least 1"):
        clear_thinking(0)
    with pytest.raises(ValueError, match="at_tokens"):
        compact_on_demand(at_tokens=0).context()
    with pytest.raises(ValueError, match="lag"):
        compact_in_background(lag=0).context()


# ---- the shapes, against the installed SDK's types -----------------------------------------------


def test_every_edit_and_request_field_is_one_the_sdk_defines():
    edits = {
        "clear_tool_uses_20250919": BetaClearToolUses20250919EditParam,
        "clear_thinking_20251015": BetaClearThinking20251015EditParam,
        "compact_20260112": BetaCompact20260112EditParam,
    }
    levers = [
        clear_old_tool_results(clear_at_least=5_000),
        clear_thinking(2),
        clear_thinking(None),
        server_compaction(60_000, instructions="Keep every rule.", pause=True, tail_turns=1),
    ]
    for lever in levers:
        for edit in lever.edits:
            assert conforms(edit, edits[edit["type"]]) == [], edit
            if "trigger" in edit:
                assert conforms(edit["trigger"], BetaInputTokensTriggerParam) == []
            if isinstance(edit.get("keep"), dict) and edit["type"] == "clear_thinking_20251015":
                assert conforms(edit["keep"], BetaThinkingTurnsParam) == []
    assert (
        conforms(
            {"type": "summarize", "instructions": "Keep every rule."}, BetaCompactionConfigParam
        )
        == []
    )


# ---- with a key: the request shapes on the wire, through the real SDK ------------------------------


def test_clearing_sends_the_context_management_beta_and_edit(server):
    applied = {
        "applied_edits": [
            {
                "type": "clear_tool_uses_20250919",
                "cleared_tool_uses": 4,
                "cleared_input_tokens": 9000,
            }
        ]
    }
    server.push(
        200, {**message_body([{"type": "text", "text": "ok"}]), "context_management": applied}
    )
    lever = clear_old_tool_results(trigger_tokens=30_000, keep=3, clear_at_least=5_000)
    model = lever.model()
    assert model.reply("sys", [user("hi")], TOOL_SCHEMAS).text == "ok"

    sent = server.requests[0]
    assert sent["path"] == "/v1/messages"
    assert (
        sent["headers"]["anthropic-beta"]
        == CONTEXT_MANAGEMENT_BETA
        == "context-management-2025-06-27"
    )
    assert sent["body"]["context_management"] == {
        "edits": [
            {
                "type": "clear_tool_uses_20250919",
                "trigger": {"type": "input_tokens", "value": 30000},
                "keep": {"type": "tool_uses", "value": 3},
                "clear_at_least": {"type": "input_tokens", "value": 5000},
            }
        ]
    }
    assert model.applied == applied["applied_edits"]


def test_clearing_thinking_turns_thinking_on_and_sends_thinking_back_unchanged(server):
    thought = {"type": "thinking", "thinking": "The rule is in view.", "signature": "sig-1"}
    applied = {
        "applied_edits": [
            {
                "type": "clear_thinking_20251015",
                "cleared_thinking_turns": 2,
                "cleared_input_tokens": 140,
            }
        ]
    }
    server.push(
        200,
        {
            **message_body([thought, {"type": "text", "text": "Reading."}]),
            "context_management": applied,
        },
    )
    server.push_text("Done.")
    model = clear_thinking(keep_turns=1).model()
    reply = model.reply("sys", [user("Go.")], TOOL_SCHEMAS)
    assert reply.content[0] == thought  # kept, signature and all

    first = server.requests[0]
    assert first["headers"]["anthropic-beta"] == CONTEXT_MANAGEMENT_BETA
    assert first["body"]["thinking"] == {"type": "adaptive"}
    assert first["body"]["context_management"] == {
        "edits": [
            {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}
        ]
    }
    assert model.applied == applied["applied_edits"]
    model.reply("sys", [user("Go."), assistant(reply.content), user("Go on.")], TOOL_SCHEMAS)
    assert server.requests[1]["body"]["messages"][1]["content"][0] == thought


def test_threshold_compaction_sends_its_beta_and_round_trips_the_block(server):
    block = {"type": "compaction", "content": "Goal: fix the login bug. Never touch production."}
    server.push(200, message_body([block, {"type": "text", "text": "Carrying on."}]))
    model = server_compaction(
        trigger_tokens=50_000, instructions="Keep every database decision."
    ).model()
    history = [user("Fix the login bug.")]
    reply = model.reply("sys", history, TOOL_SCHEMAS)
    assert reply.content[0] == block and model.compactions == [
        block
    ]  # kept, so the loop sends it back

    sent = server.requests[0]
    assert sent["headers"]["anthropic-beta"] == COMPACTION_BETA == "compact-2026-01-12"
    assert sent["body"]["context_management"] == {
        "edits": [
            {
                "type": "compact_20260112",
                "trigger": {"type": "input_tokens", "value": 50000},
                "instructions": "Keep every database decision.",
            }
        ]
    }

    model.reply("sys", history + [assistant(reply.content), user("Go on.")], TOOL_SCHEMAS)
    again = server.requests[1]["body"]["messages"]
    assert again[1]["content"][0] == block  # the server drops what came before it


def test_a_paused_compaction_puts_the_tail_back_after_the_block_and_keeps_it_there(server):
    """Paused: the block alone comes back. The model asks again with the newest exchange put back after
    the block, and returns one reply that starts with the block; later requests carry that tail too."""
    block = {"type": "compaction", "content": "Goal: fix the login bug."}
    paused_usage = {
        "input_tokens": 0,
        "output_tokens": 0,
        "iterations": [{"type": "compaction", "input_tokens": 4000, "output_tokens": 200}],
    }
    server.push(200, {**message_body([block], "compaction"), "usage": paused_usage})
    server.push_text("Reading app/db.py next.", input_tokens=700, output_tokens=30)
    call = {
        "type": "tool_use",
        "id": "toolu_9",
        "name": "read_file",
        "input": {"path": "app/auth.py"},
    }
    result = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "x = 1"}],
    }
    history = [user("Fix the login bug."), assistant([call]), result]
    model = server_compaction(60_000, pause=True, tail_turns=1).model()
    reply = model.reply("sys", history, TOOL_SCHEMAS)

    assert (
        model.paused == 1 and reply.content[0] == block and reply.text == "Reading app/db.py next."
    )
    edit = server.requests[0]["body"]["context_management"]["edits"][0]
    assert edit["pause_after_compaction"] is True
    resumed = server.requests[1]["body"]["messages"]
    assert [m["role"] for m in resumed[-2:]] == ["assistant", "user"]
    assert (
        resumed[-2]["content"][0] == block and resumed[-2]["content"][1]["id"] == "toolu_9"
    )  # block, then the tail
    assert reply.usage["input_tokens"] == 700 and [
        p["type"] for p in reply.usage["iterations"]
    ] == ["compaction", "message"]

    server.push_text("Done.")
    later = history + [assistant(reply.content), user("Go on.")]
    model.reply("sys", later, TOOL_SCHEMAS)
    carried = server.requests[2]["body"]["messages"]
    at = next(i for i, m in enumerate(carried) if blocks_of(m)[0].get("type") == "compaction")
    assert carried[at]["content"][1]["id"] == "toolu_9"  # the tail stays after the block
    assert carried[at + 2]["content"][0]["text"] == "Reading app/db.py next."


def test_compaction_on_demand_asks_with_the_compaction_parameter_only(server):
    block = {"type": "compaction", "content": "Goal: fix the login bug.", "signature": "abc"}
    usage = {
        "input_tokens": 0,
        "output_tokens": 0,
        "iterations": [{"type": "compaction", "input_tokens": 1500, "output_tokens": 90}],
    }
    server.push(200, {**message_body([block], "compaction"), "usage": usage})
    model = compact_on_demand(at_tokens=1_000, instructions="Keep every rule.").model()
    summary = model.compact("sys", [user("Fix the login bug.")], TOOL_SCHEMAS, "Keep every rule.")
    assert summary.content == [block] and summary.stop_reason == "compaction"

    sent = server.requests[0]
    assert sent["headers"]["anthropic-beta"] == ON_DEMAND_BETA == "compact-2026-09-04"
    assert sent["body"]["compaction"] == {"type": "summarize", "instructions": "Keep every rule."}
    assert "context_management" not in sent["body"]

    server.push(200, message_body([], "max_tokens"))  # no summary: nothing to swap in, carry on
    assert model.compact("sys", [user("Fix it.")], TOOL_SCHEMAS).content == []


def test_count_tokens_with_the_levers_gives_the_count_after_and_before(server):
    server.push(200, {"input_tokens": 900, "context_management": {"original_input_tokens": 2400}})
    model = clear_old_tool_results(trigger_tokens=1_000, keep=1).model()
    assert model.count_with_levers("sys", [user("hi")], TOOL_SCHEMAS) == (900, 2400)
    sent = server.requests[0]
    assert sent["path"] == "/v1/messages/count_tokens"
    assert sent["body"]["context_management"]["edits"][0]["type"] == "clear_tool_uses_20250919"
    assert "max_tokens" not in sent["body"]


def test_the_memory_tool_runs_through_the_loop(server, tmp_path):
    server.push_tool_use(
        "memory",
        {
            "command": "create",
            "path": "/memories/project.md",
            "file_text": "Never touch production.\n",
        },
        tool_id="toolu_m1",
    )
    server.push_text("Noted for next time.")
    lever = memory_tool()
    box = lever.toolbox(memory_folder=tmp_path)
    assert isinstance(box, MemoryToolbox)
    run = run_agent("Remember our database rule.", lever.model(), tools=box)

    assert run.stopped == "answered" and run.final == "Noted for next time."
    assert (tmp_path / "memories" / "project.md").read_text() == "Never touch production.\n"
    first, second = (r for r in server.requests)
    assert first["headers"]["anthropic-beta"] == CONTEXT_MANAGEMENT_BETA
    tools = [
        {k: v for k, v in tool.items() if k != "cache_control"} for tool in first["body"]["tools"]
    ]
    assert MEMORY_TOOL in tools and "context_management" not in first["body"]
    answered = json.dumps(second["body"]["messages"][-1])
    assert "File created successfully" in answered


def test_the_memory_toolbox_keeps_claude_inside_its_folder(tmp_path):
    box = MemoryToolbox(memory_folder=tmp_path)
    escape = box.run(
        {"id": "t1", "name": "memory", "input": {"command": "view", "path": "/memories/../../etc"}}
    )
    outside = box.run(
        {"id": "t2", "name": "memory", "input": {"command": "view", "path": "/etc/passwd"}}
    )
    assert escape["is_error"] and outside["is_error"] and "/memories" in outside["content"]


def test_an_api_refusal_is_a_clear_model_error(server):
    server.push_error(400, "invalid_request_error", "compaction is not supported on this model")
    with pytest.raises(ModelError, match="not supported on this model"):
        server_compaction().model(max_retries=0).reply("sys", [user("hi")], [])


# ---- the bill counts every pass --------------------------------------------------------------------


def test_the_bill_counts_the_compaction_pass_the_top_level_leaves_out(server):
    """One lap whose reply lists two passes: a compaction (5,000 in, 300 out) and the message (900 in, of
    which 200 read from the cache and 100 written, and 40 out). The top level says 900 + 200 + 100 = 1,200
    in; the bill says 5,000 + 1,200 = 6,200 in and 340 out, and prices the compaction pass as input too."""
    usage = {
        "input_tokens": 900,
        "output_tokens": 40,
        "cache_read_input_tokens": 200,
        "cache_creation_input_tokens": 100,
        "iterations": [
            {
                "type": "compaction",
                "input_tokens": 5000,
                "output_tokens": 300,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0,
            },
            {
                "type": "message",
                "input_tokens": 900,
                "output_tokens": 40,
                "cache_read_input_tokens": 200,
                "cache_creation_input_tokens": 100,
            },
        ],
    }
    block = {"type": "compaction", "content": "Goal: fix the login bug."}
    server.push(200, {**message_body([block, {"type": "text", "text": "Done."}]), "usage": usage})
    run = run_agent("Fix the login bug.", server_compaction(50_000).model(), max_laps=1)

    lap = run.laps[0]
    top_level = (
        usage["input_tokens"]
        + usage["cache_read_input_tokens"]
        + usage["cache_creation_input_tokens"]
    )
    passes = sum(
        p["input_tokens"] + p["cache_read_input_tokens"] + p["cache_creation_input_tokens"]
        for p in usage["iterations"]
    )
    assert (top_level, passes) == (1200, 6200)
    assert lap.billed_input == passes > top_level
    assert lap.billed_output == 340
    total = bill(run.laps)
    assert total.input == passes and (total.cache_read, total.cache_write, total.uncached) == (
        200,
        100,
        5900,
    )


# ---- the tail put back after a paused block never parts a tool pair -----------------------------------


@pytest.mark.parametrize("turns", [0, 1, 2, 5])
def test_the_tail_starts_at_an_assistant_turn(turns):
    call = {"type": "tool_use", "id": "t", "name": "list_files", "input": {}}
    result = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t", "content": "a"}],
    }
    history = [user("go")] + [assistant([call]), result] * 3
    tail = recent_turns(history, turns)
    assert len(tail) == 2 * min(turns, 3)
    assert not tail or tail[0]["role"] == "assistant"
