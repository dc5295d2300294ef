"""The desk server: the real ``anthropic`` SDK and ``ClaudeModel`` over HTTP to the offline model.

HOME is a temporary folder (the SDK reads profiles from ~/.config/anthropic) and ANTHROPIC_BASE_URL
points at the server on 127.0.0.1, so nothing here can reach Anthropic's servers.
"""

import anthropic
import pytest

from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.loop import run_agent
from harness.messages import assistant, user
from harness.model import ContextOverflow, ModelError
from harness.tokens import Meter
from harness.tools import TOOL_SCHEMAS
from stage.api_levers import clear_old_tool_results, memory_tool, server_compaction
from stage.claude import ClaudeModel
from conftest import serving
from stage.offline_server import CLEARED, OfflineServer, _system_text
from stage.offline import OfflineModel
from stage.standin_server import TEST_KEY
from stage.switch import pick_model
from stage.tasks import file_reading_task


@pytest.fixture
def server(monkeypatch, tmp_path):
    """Here the server answers with the offline model (stage.offline_server), not canned replies."""
    yield from serving(OfflineServer(), monkeypatch, tmp_path)


@pytest.mark.parametrize("rule_at_lap", [None, 3])
def test_a_run_through_the_sdk_matches_the_desk_model_run(server, rule_at_lap):
    """Same task, same strategy, same toy window: through HTTP or in-process, the same decisions."""
    task = file_reading_task(rule_at_lap=rule_at_lap)
    claude = pick_model(window=5000)
    assert isinstance(claude, ClaudeModel) and str(claude.client.base_url).startswith(server.url)
    through = run_agent(task.request, claude, context=ThreeZoneCompaction(), remarks=task.remarks)
    direct = run_agent(
        task.request, OfflineModel(window=5000), context=ThreeZoneCompaction(), remarks=task.remarks
    )
    assert (through.stopped, through.database_target) == (direct.stopped, direct.database_target)
    assert [lap.actions for lap in through.laps] == [lap.actions for lap in direct.laps]
    assert server.count("/v1/messages") == sum(lap.model_calls for lap in through.laps)


def test_count_tokens_is_the_servers_own_count(server):
    messages = [
        user("Find the login bug."),
        assistant([{"type": "text", "text": "Reading app/auth.py."}]),
    ]
    counted = ClaudeModel().count_tokens("Be careful.", messages, TOOL_SCHEMAS)
    assert server.count("/count_tokens") == 1
    seen = server.requests[-1]["body"]  # what arrived over HTTP, counted by tiktoken
    system = _system_text(seen["system"])  # a string, or text blocks (with cache_control)
    assert counted == Meter("tiktoken").total(seen["messages"], system=system, tools=seen["tools"])
    assert (
        abs(counted - Meter("tiktoken").total(messages, system="Be careful.", tools=TOOL_SCHEMAS))
        < 40
    )


def test_too_long_is_a_context_overflow_as_the_api_says_it(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    with OfflineServer(window=300) as small:
        model = ClaudeModel(api_key=TEST_KEY, base_url=small.url, max_retries=0)
        with pytest.raises(ContextOverflow) as overflow:
            model.reply("sys", [user("word " * 400)], [])
        assert overflow.value.window == 300 and overflow.value.sent > 300


def test_a_wrong_key_is_refused(server):
    with pytest.raises(ModelError, match="401"):
        ClaudeModel(api_key="sk-ant-wrong", max_retries=0).reply("sys", [user("hi")], [])


def test_a_malformed_request_is_a_400_not_a_crash(server):
    client = anthropic.Anthropic(api_key=TEST_KEY, base_url=server.url, max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="alternate"):
        client.messages.create(
            model="claude-haiku-5-5",
            max_tokens=10,
            messages=[{"role": "user", "content": "a"}, {"role": "user", "content": "b"}],
        )


def test_the_model_name_chooses_a_misbehaving_model(server, monkeypatch):
    monkeypatch.setenv("CONTEXT_DESK_MODEL", "claude-stand-in-answers-at-once")
    run = run_agent(file_reading_task().request, pick_model(window=5000))
    assert run.stopped == "answered" and len(run.laps) == 1
    assert server.requests[-1]["model"] == "claude-stand-in-answers-at-once"


def test_clearing_lever_clears_past_its_trigger_and_says_so(server):
    task = file_reading_task()
    lever = clear_old_tool_results(trigger_tokens=2_000, keep=2)
    model = lever.model()
    run = run_agent(task.request, model, tools=lever.toolbox(), context=FullHistory(), max_laps=12)
    assert run.stopped in {"answered", "max_laps"}
    assert model.applied and all(
        e["type"] == "clear_tool_uses_20250919" and e["cleared_tool_uses"] > 0
        for e in model.applied
    )
    assert all(r["betas"] == ["context-management-2025-06-27"] for r in server.requests)


def test_compaction_lever_returns_a_block_that_stands_in_for_the_past(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))  # no profile in ~/.config/anthropic is read
    with OfflineServer(
        min_trigger=1_000
    ) as small:  # the API's minimum is 50,000: lowered for a small task
        lever = server_compaction(trigger_tokens=1_000)
        model = lever.model(api_key=TEST_KEY, base_url=small.url)
        run = run_agent(file_reading_task().request, model, context=FullHistory(), max_laps=12)
    blocks = [
        b
        for m in run.history
        if m["role"] == "assistant"
        for b in m["content"]
        if b.get("type") == "compaction"
    ]
    assert blocks and all(b["content"] for b in blocks)  # the offline model wrote the summary
    assert run.stopped in {"answered", "max_laps"}


def test_a_trigger_under_the_apis_minimum_is_refused_as_the_api_would(server):
    run = run_agent(
        file_reading_task().request, server_compaction(trigger_tokens=1_000).model(max_retries=0)
    )
    assert run.stopped == "model_error" and "at least 50000" in run.problem


def test_memory_lever_runs_with_its_tool_offered(server, tmp_path):
    lever = memory_tool()
    run = run_agent(
        file_reading_task().request,
        lever.model(),
        tools=lever.toolbox(memory_folder=tmp_path),
        context=FullHistory(),
        max_laps=30,
    )
    assert run.stopped == "answered"
    assert all(
        {"type": "memory_20250818", "name": "memory"}
        in [{k: v for k, v in t.items() if k != "cache_control"} for t in r["body"]["tools"]]
        for r in server.requests
    )
    assert server.count("/v1/messages") == len(run.laps)


def test_clearing_keeps_the_newest_results():
    from stage.server_levers import clear_tool_results as _clear_tool_results

    results = [
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": f"r{i}"}],
        }
        for i in range(5)
    ]
    edited, cleared = _clear_tool_results(results, keep=2)
    assert cleared == 3 and [m["content"][0]["content"] for m in edited] == [CLEARED] * 3 + [
        "r3",
        "r4",
    ]
    assert results[0]["content"][0]["content"] == "r0"  # the request's own list is not edited
