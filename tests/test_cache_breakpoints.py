"""The Claude backend sends the cache breakpoints the bill assumes, and the bill uses the cache counts
the server reports. Checked on the request bodies the stand-in server records (no network).

The rule (``harness.cache.breakpoints``): an agent lap marks the last tool definition, the
system prompt, the last message, and the newest message a strategy marked -- four, the API's limit.
A bare summary prompt carries none.
"""

import json

import pytest

from harness.clear_then_compact import ClearThenCompact
from harness.cache import breakpoints, mark
from harness.cost import bill, lap_bills
from harness.loop import run_agent
from harness.messages import assistant, blocks_of, user
from harness.tools import TOOL_SCHEMAS
from stage.claude import ClaudeModel
from stage.standin_server import message_body

EPHEMERAL = {"type": "ephemeral"}


def marks_in(body: dict) -> int:
    """How many cache_control markers a request body carries, wherever they are."""
    return json.dumps(body).count('"cache_control"')


def flat_blocks(messages: list[dict]) -> list[tuple[dict, bool]]:
    """Every block in order, without its marker, and whether it carried one."""
    return [
        ({k: v for k, v in b.items() if k != "cache_control"}, "cache_control" in b)
        for m in messages
        for b in blocks_of(m)
    ]


def expected_blocks(sent: list[dict]) -> list[tuple[dict, bool]]:
    """The blocks a lap sent, and True on the last block of each message the bill treats as a breakpoint."""
    wanted = set(breakpoints(sent))
    return [
        (
            {k: v for k, v in b.items() if k != "cache_control"},
            i in wanted and j == len(blocks_of(m)) - 1,
        )
        for i, m in enumerate(sent)
        for j, b in enumerate(blocks_of(m))
    ]


def test_an_agent_lap_marks_tools_system_the_strategys_message_and_the_last(server):
    messages = [
        user("Fix the login bug."),
        assistant([{"type": "text", "text": "Looking."}]),
        mark(user("Noted.")),
        assistant([{"type": "text", "text": "Still looking."}]),
        user("Go on."),
    ]
    ClaudeModel().reply("You are careful.", messages, TOOL_SCHEMAS)

    body = server.requests[0]["body"]
    assert body["tools"][-1]["cache_control"] == EPHEMERAL
    assert all("cache_control" not in tool for tool in body["tools"][:-1])
    assert body["system"] == [
        {"type": "text", "text": "You are careful.", "cache_control": EPHEMERAL}
    ]
    assert body["messages"][2]["content"][-1]["cache_control"] == EPHEMERAL  # the strategy's mark
    assert body["messages"][-1]["content"][-1]["cache_control"] == EPHEMERAL  # the last message
    assert marks_in(body) == 4


def test_older_marks_are_taken_off_so_the_request_stays_within_four(server):
    messages = [
        mark(user("one")),
        assistant([{"type": "text", "text": "a"}]),
        mark(user("two")),
        assistant([{"type": "text", "text": "b"}]),
        mark(user("three")),
        assistant([{"type": "text", "text": "c"}]),
        user("four"),
    ]
    ClaudeModel().reply("sys", messages, TOOL_SCHEMAS)

    body = server.requests[0]["body"]
    assert marks_in(body) == 4
    assert [i for i, m in enumerate(body["messages"]) if "cache_control" in json.dumps(m)] == [4, 6]
    assert messages[0]["content"][-1]["cache_control"] == EPHEMERAL  # the caller's list untouched


def test_a_summary_prompt_carries_no_breakpoint(server):
    """Nothing later starts with a one-off summary prompt, so marking it would only pay a cache write."""
    ClaudeModel().reply("", [mark(user("Summarize: <transcript>...</transcript>"))], [])
    body = server.requests[0]["body"]
    assert marks_in(body) == 0 and "system" not in body and "tools" not in body


def test_count_tokens_sends_the_same_breakpoints(server):
    ClaudeModel().count_tokens("sys", [user("hi")], TOOL_SCHEMAS)
    assert server.requests[0]["path"] == "/v1/messages/count_tokens"
    assert marks_in(server.requests[0]["body"]) == 3  # tools, system, the last message


def test_every_lap_of_a_run_sends_the_breakpoints_the_bill_assumes(server):
    """A clearing run through the SDK: on every recorded request, the marked blocks are exactly the
    ones the bill's rule names for that lap's ``sent`` messages."""
    for n, path in enumerate(["app/auth.py", "app/db.py", "app/models.py", "README.md"]):
        server.push(
            200,
            message_body(
                [
                    {"type": "text", "text": f"Reading {path}."},
                    {
                        "type": "tool_use",
                        "id": f"toolu_{n}",
                        "name": "read_file",
                        "input": {"path": path},
                    },
                ],
                stop_reason="tool_use",
            ),
        )
    server.push_text("Done.")
    run = run_agent(
        "Read four files, then stop.", ClaudeModel(), context=ClearThenCompact(tail_turns=1)
    )

    assert run.stopped == "answered" and len(run.laps) == 5
    bodies = [r["body"] for r in server.requests]
    assert any(
        sum(marked for _, marked in flat_blocks(b["messages"])) == 2 for b in bodies
    )  # a strategy mark
    for lap, body in zip(run.laps, bodies):
        assert flat_blocks(body["messages"]) == expected_blocks(lap.sent), f"lap {lap.number}"
        assert body["tools"][-1]["cache_control"] == body["system"][0]["cache_control"] == EPHEMERAL


@pytest.mark.parametrize("read, write, fresh", [(0, 900, 12), (850, 120, 7)])
def test_the_bill_uses_the_cache_counts_the_server_reports(server, read, write, fresh):
    server.push(
        200,
        {
            **message_body(
                [{"type": "text", "text": "Done."}], input_tokens=fresh, output_tokens=9
            ),
            "usage": {
                "input_tokens": fresh,
                "output_tokens": 9,
                "cache_read_input_tokens": read,
                "cache_creation_input_tokens": write,
            },
        },
    )
    run = run_agent("Say done.", ClaudeModel())

    lap = run.laps[0]
    assert lap.billed_input == read + write + fresh  # every input token, cached or not
    priced = lap_bills(run.laps)[0]
    assert (priced.read, priced.write, priced.uncached) == (read, write, fresh)
    assert bill(run.laps).cost == pytest.approx((fresh + 1.25 * write + 0.1 * read + 5 * 9) / 1e6)
