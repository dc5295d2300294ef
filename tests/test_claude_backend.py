"""ClaudeModel through the real ``anthropic`` SDK, over HTTP, to a local stand-in server (never the network).

HOME points at a temporary folder so the SDK reads no profile from ~/.config/anthropic, and
ANTHROPIC_BASE_URL points at the stand-in. Retries are told to wait a millisecond, so the
whole file runs in a second or two.
"""

import socket
import time

import anthropic
import pytest

from harness.messages import assistant, pair_problems, user
from harness.model import ContextOverflow, ModelError
from harness.tools import TOOL_SCHEMAS
from harness.cost import PRICES
from stage.claude import (
    CLAUDE_PRICES,
    DEFAULT_CLAUDE_MODEL,
    ClaudeModel,
    merge_same_roles,
    model_status,
    prices_for,
)
from stage.standin_server import TEST_KEY

# The SDK treats "retry-after: 0" as "no advice" and backs off for about a second instead;
# a one-millisecond retry-after-ms is what makes a retry immediate.
RETRY_NOW = {"retry-after": "0", "retry-after-ms": "1"}


def assert_key_hidden(error: Exception) -> None:
    assert TEST_KEY not in str(error) and TEST_KEY not in repr(error)


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ---- replies --------------------------------------------------------------------------


def test_text_reply_comes_back_with_usage(server):
    server.push_text("The bug is in auth.py.", input_tokens=321, output_tokens=12)
    reply = ClaudeModel().reply(
        "You are a careful engineer.", [user("Where is the bug?")], TOOL_SCHEMAS
    )

    assert reply.text == "The bug is in auth.py."
    assert reply.stop_reason == "end_turn"
    assert reply.usage == {"input_tokens": 321, "output_tokens": 12}
    sent = server.requests[0]
    assert sent["path"] == "/v1/messages"
    assert sent["headers"]["authorization"] == f"Bearer {TEST_KEY}"
    assert sent["body"]["model"] == DEFAULT_CLAUDE_MODEL
    assert [block["text"] for block in sent["body"]["system"]] == [
        "You are a careful engineer."
    ]  # a block, to carry its cache breakpoint
    assert [t["name"] for t in sent["body"]["tools"]] == [t["name"] for t in TOOL_SCHEMAS]


def test_tool_use_round_trip_sends_a_valid_pair(server):
    server.push_tool_use(
        "read_file", {"path": "app/auth.py"}, tool_id="toolu_7", text="Let me look."
    )
    model = ClaudeModel()
    history = [user("Fix the login bug.")]
    first = model.reply("sys", history, TOOL_SCHEMAS)
    assert first.stop_reason == "tool_use"
    assert first.content[1] == {
        "type": "tool_use",
        "id": "toolu_7",
        "name": "read_file",
        "input": {"path": "app/auth.py"},
    }

    result = {"type": "tool_result", "tool_use_id": "toolu_7", "content": "1: def login(): ..."}
    history += [assistant(first.content), {"role": "user", "content": [result]}]
    assert model.reply("sys", history, TOOL_SCHEMAS).text == "Hello from the stand-in."

    received = server.requests[1]["body"]["messages"]
    assert [m["role"] for m in received] == ["user", "assistant", "user"]
    assert received[2]["content"] == [
        {**result, "cache_control": {"type": "ephemeral"}}
    ]  # the last message is a cache breakpoint
    assert pair_problems(received) == []


def test_consecutive_user_messages_are_merged_on_the_wire(server):
    history = [user("Fix the login bug."), user("Summary so far: auth.py read.")]
    ClaudeModel().reply("sys", history, TOOL_SCHEMAS)

    received = server.requests[0]["body"]["messages"]
    assert received == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Fix the login bug."},
                {
                    "type": "text",
                    "text": "Summary so far: auth.py read.",
                    "cache_control": {"type": "ephemeral"},
                },
            ],
        }
    ]
    assert history[0] == user("Fix the login bug.")  # the caller's list is untouched


def test_merge_same_roles_does_not_mutate_its_input():
    blocks = [{"type": "text", "text": "a"}]
    messages = [
        {"role": "user", "content": blocks},
        user("b"),
        assistant([{"type": "text", "text": "c"}]),
    ]
    merged = merge_same_roles(messages)
    assert [m["role"] for m in merged] == ["user", "assistant"]
    assert [b["text"] for b in merged[0]["content"]] == ["a", "b"]
    assert blocks == [{"type": "text", "text": "a"}] and messages[1] == user("b")
    assert merged[1] is messages[2]


def test_count_tokens_is_the_servers_number(server):
    server.push(200, {"input_tokens": 4242})
    assert ClaudeModel().count_tokens("sys", [user("hello")], TOOL_SCHEMAS) == 4242
    assert server.requests[0]["path"] == "/v1/messages/count_tokens"
    assert server.requests[0]["body"]["model"] == DEFAULT_CLAUDE_MODEL


# ---- failures -------------------------------------------------------------------------


def test_a_429_is_retried_by_the_sdk_then_succeeds(server):
    server.push_error(
        429, "rate_limit_error", "Number of requests has exceeded your rate limit", RETRY_NOW
    )
    server.push_text("made it")
    assert ClaudeModel().reply("sys", [user("hi")], []).text == "made it"
    assert len(server.requests) == 2


def test_overloaded_three_times_is_a_clear_model_error(server):
    for _ in range(3):
        server.push_error(529, "overloaded_error", "Overloaded", RETRY_NOW)
    with pytest.raises(ModelError, match="busy") as caught:
        ClaudeModel().reply("sys", [user("hi")], [])
    assert "offline model" in str(caught.value)
    assert len(server.requests) == 3  # the first try and the SDK's two retries
    assert_key_hidden(caught.value)


def test_prompt_too_long_is_a_context_overflow_with_numbers(server):
    server.push_error(
        400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"
    )
    with pytest.raises(ContextOverflow) as caught:
        ClaudeModel().reply("sys", [user("a lot")], [])
    assert (caught.value.sent, caught.value.window) == (210_000, 200_000)
    assert "210,000" in str(caught.value)
    assert_key_hidden(caught.value)


def test_prompt_too_long_without_numbers_keeps_the_detail(server):
    server.push_error(400, "invalid_request_error", "prompt is too long")
    with pytest.raises(ContextOverflow) as caught:
        ClaudeModel().reply("sys", [user("a lot")], [])
    assert caught.value.sent is None and "prompt is too long" in str(caught.value)


def test_a_refused_key_is_a_model_error(server):
    with pytest.raises(ModelError, match="API key was refused") as caught:
        ClaudeModel(api_key="sk-ant-wrong-key-98765").reply("sys", [user("hi")], [])
    assert "sk-ant-wrong-key-98765" not in str(caught.value) + repr(caught.value)
    assert len(server.requests) == 1  # a 401 is not retried


def test_an_unreachable_server_fails_fast(server):
    url = f"http://127.0.0.1:{closed_port()}"
    start = time.monotonic()
    with pytest.raises(ModelError, match="could not be reached") as caught:
        ClaudeModel(base_url=url, max_retries=0, timeout=1.0).reply("sys", [user("hi")], [])
    assert time.monotonic() - start < 2
    assert url in str(caught.value)
    assert_key_hidden(caught.value)


def test_no_key_is_a_model_error_not_a_type_error(server, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
        ClaudeModel()


def test_the_key_is_not_in_the_models_repr(server):
    assert TEST_KEY not in repr(ClaudeModel())


def test_a_server_that_echoes_the_key_does_not_leak_it(server):
    server.push_error(403, "permission_error", f"key {TEST_KEY} may not use this model")
    with pytest.raises(ModelError) as caught:
        ClaudeModel().reply("sys", [user("hi")], [])
    assert_key_hidden(caught.value)


# ---- the default model ----------------------------------------------------------------


def test_default_model_is_current_in_the_installed_sdk():
    """Fails the day the installed SDK lists the default as deprecated, or drops it from its current names
    (which is what retiring a model does to the list). If the SDK moves its tables, model_status raises."""
    assert model_status(DEFAULT_CLAUDE_MODEL) == "current"
    assert anthropic.__version__.startswith("2.")


def test_the_status_check_can_fail():
    assert model_status("claude-sonnet-4-5").startswith(
        "deprecated"
    )  # in the SDK's deprecated table
    assert model_status("claude-3-opus-20240229") == "not listed"  # retired: gone from the list


def test_the_price_table_lists_current_models_and_the_default():
    assert (
        DEFAULT_CLAUDE_MODEL in CLAUDE_PRICES
        and prices_for() is CLAUDE_PRICES[DEFAULT_CLAUDE_MODEL]
    )
    assert {name: model_status(name) for name in CLAUDE_PRICES} == {
        name: "current" for name in CLAUDE_PRICES
    }
    assert prices_for("claude-no-such-model") is None


def test_the_lessons_round_prices_have_the_default_models_shape():
    """harness.cost.PRICES is round numbers, but shaped like the default model's price: every share and ratio
    a lesson prints (a bill against another, the cache's part) holds for the real model."""
    real = CLAUDE_PRICES[DEFAULT_CLAUDE_MODEL]
    assert (PRICES.cache_read, PRICES.cache_write) == (real.cache_read, real.cache_write)
    assert PRICES.output / PRICES.input == pytest.approx(real.output / real.input)


def test_a_toy_window_refuses_before_sending(server):
    """A lesson's small desk holds with Claude too: the harness refuses locally, nothing is sent."""
    from stage.switch import describe_model, pick_model

    model = pick_model(window=600)
    assert isinstance(model, ClaudeModel) and model.window == 600
    assert "classroom desk 600 tokens" in describe_model(model)
    with pytest.raises(ContextOverflow, match="600-token window"):
        model.reply("", [user("word " * 2000)], TOOL_SCHEMAS)
    assert server.requests == []
    server.push_text("fits")
    assert model.reply("", [user("short")], []).text == "fits"


def test_the_first_cell_warns_about_a_deprecated_model(server, monkeypatch):
    from stage.switch import describe_model, pick_model

    assert "Note:" not in describe_model(pick_model())
    monkeypatch.setenv("CONTEXT_DESK_MODEL", "claude-sonnet-4-5")
    line = describe_model(pick_model())
    assert "deprecated" in line and "CONTEXT_DESK_MODEL" in line and "\n" not in line
