"""Every lever end to end: the real ``anthropic`` SDK, over HTTP, to the local desk server, on the class task.

The desk server plays Claude's API with the offline model (``stage/offline_server.py``), so these runs
show what each lever does to the desk and the bill without a key. Its threshold minimum is lowered to
1,000 tokens (the API's is 50,000) so the small class task reaches it. The tests that run the whole task
(one to four runs each, a second or two apiece) are in the integration tier (``make test``); what the
server refuses is checked in the unit tier.
"""

import anthropic
import pytest

from harness.context import FullHistory
from harness.cost import bill
from harness.loop import run_agent
from harness.messages import assistant, blocks_of, pair_problems, user
from harness.tools import TOOL_SCHEMAS
from stage.api_levers import (
    clear_old_tool_results,
    clear_thinking,
    compact_in_background,
    compact_on_demand,
    memory_tool,
    run_lever,
    server_compaction,
    side_by_side,
)
from stage.claude import ClaudeModel
from stage.offline_server import OfflineServer
from stage.server_levers import sign
from stage.standin_server import SDK_ENV, TEST_KEY
from stage.tasks import file_reading_task

TASK = file_reading_task()
RUNS = pytest.mark.integration  # whole runs of the task through HTTP


@pytest.fixture
def desk(monkeypatch, tmp_path):
    """A desk server with a classroom-sized threshold minimum; the SDK sees no key but the one we pass."""
    for name in SDK_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    with OfflineServer(min_trigger=1_000) as server:
        yield server


def where(server) -> dict:
    return {"api_key": server.key, "base_url": server.url}


def lever_run(server, lever, **options):
    done = run_lever(
        lever, TASK.request, where(server), remarks=TASK.remarks, max_laps=40, **options
    )
    assert not isinstance(done, str), done
    return done


def replies(server) -> list[dict]:
    """The bodies of the ordinary requests (not compaction requests, not counts, not model look-ups)."""
    return [
        r["body"]
        for r in server.requests
        if r["path"] == "/v1/messages" and "compaction" not in r["body"]
    ]


# ---- compaction, three ways -----------------------------------------------------------------------


@RUNS
def test_on_demand_the_block_goes_first_in_place_of_what_it_summarizes(desk):
    done = lever_run(desk, compact_on_demand(at_tokens=3_000))
    run = done.run
    assert run.stopped == "answered" and run.database_target == "staging"
    swaps = [lap for lap in run.laps if lap.kind == "compact"]
    assert swaps, "the desk passed 3,000 tokens, so a summary was asked for"
    asked = [r["body"] for r in desk.requests if "compaction" in r["body"]]
    assert len(asked) == len(swaps) and all(r["compaction"] == {"type": "summarize"} for r in asked)
    for lap in run.laps[run.laps.index(swaps[0]) :]:  # from the first swap on: the block leads
        first = lap.sent[0]["content"][0]
        assert first["type"] == "compaction" and first["signature"] == sign(first["content"])
        assert (
            pair_problems([user("-")] + lap.sent[1:]) == []
        )  # no tool result parted from its call
    assert (
        max(lap.assembled_tokens for lap in run.laps) <= 3_000
    )  # past it, the desk was compacted first


@RUNS
def test_in_the_background_the_swap_drops_exactly_what_was_sent(desk):
    """Asked at lap a over history[:n]; at lap a + 2 the desk is the block, then history[n:] -- every
    message appended while the summary was written stays after it."""
    run = lever_run(desk, compact_in_background(at_tokens=3_000, lag=2)).run
    assert run.stopped == "answered" and run.database_target == "staging"
    asks = [
        (lap.number, int(lap.event.split("summary of ")[1].split()[0]))
        for lap in run.laps
        if "asked for a summary" in lap.event
    ]
    assert asks
    swapped = 0
    for number, n in asks:
        if number + 2 > len(run.laps):
            continue  # the run ended before this swap
        swap = run.laps[number + 2 - 1]
        assert f"summarized {n} messages" in swap.event
        history_then = 1 + 2 * (swap.number - 1)  # one request, then two messages a lap
        assert swap.sent[0]["content"][0]["type"] == "compaction"
        assert swap.sent[1:] == run.history[n:history_then]
        between = run.laps[number]  # the lap after the ask: still the whole desk
        assert (
            between.sent[len(between.sent) - (history_then - 2 - n) :]
            == run.history[n : history_then - 2]
        )
        assert between.assembled_tokens > run.laps[number - 1].assembled_tokens
        swapped += 1
    assert swapped


@RUNS
def test_the_background_run_repeats_exactly(desk):
    first = lever_run(desk, compact_in_background(at_tokens=3_000, lag=2)).run
    again = lever_run(desk, compact_in_background(at_tokens=3_000, lag=2)).run
    assert [(lap.actions, lap.event, lap.billed_input) for lap in first.laps] == [
        (lap.actions, lap.event, lap.billed_input) for lap in again.laps
    ]


@RUNS
@pytest.mark.parametrize("tail_turns", [0, 1, 2])
def test_at_a_threshold_with_a_pause_the_tail_is_put_back_after_the_block(desk, tail_turns):
    done = lever_run(desk, server_compaction(3_000, pause=True, tail_turns=tail_turns))
    assert done.run.stopped == "answered" and done.run.database_target == "staging"
    assert done.model.paused >= 1 and len(done.model.compactions) == done.model.paused
    for summary, tail in done.model.tails.items():
        assert len(tail) == 2 * tail_turns  # the newest exchanges, word for word
        calls = {b["id"] for m in tail for b in blocks_of(m) if b.get("type") == "tool_use"}
        carrying = [
            body["messages"]
            for body in replies(desk)
            if any(
                b.get("type") == "compaction" and b.get("content") == summary
                for m in body["messages"]
                for b in blocks_of(m)
            )
        ]
        assert carrying  # the block went back on later requests ...
        for messages in carrying:  # ... with its tail right after it
            at = next(
                i for i, m in enumerate(messages) if blocks_of(m)[0].get("type") == "compaction"
            )
            after = {
                b["id"] for m in messages[at:] for b in blocks_of(m) if b.get("type") == "tool_use"
            }
            assert calls <= after
            assert pair_problems([user("-")] + messages[at:]) == []


@RUNS
def test_instructions_replace_the_servers_summary_prompt(desk):
    """A vague prompt in place of the default one: the offline model writes the gist, and the rule is lost."""
    vague = lever_run(desk, server_compaction(3_000, instructions="Be brief.")).model.compactions
    default = lever_run(desk, server_compaction(3_000)).model.compactions
    rule = "never touch production"
    assert vague and default
    assert all(rule in (b["content"] or "").lower() for b in default)
    assert not any(rule in (b["content"] or "").lower() for b in vague)


@RUNS
def test_threshold_compaction_bills_more_than_its_top_level_figures_say(desk):
    done = lever_run(desk, server_compaction(3_000))
    compactions = [
        p
        for usage in done.model.calls
        for p in usage.get("iterations", [])
        if p["type"] == "compaction"
    ]
    assert compactions
    assert done.billed_input == done.top_level_input + sum(p["input_tokens"] for p in compactions)
    assert bill(done.run.laps).input == done.run.laps[-1].total_input == done.billed_input


# ---- clearing -------------------------------------------------------------------------------------


@RUNS
def test_clearing_thinking_keeps_the_client_history_and_trims_what_the_model_reads(desk):
    kept_all = lever_run(desk, clear_thinking(None))
    trimmed = lever_run(desk, clear_thinking(1))
    assert trimmed.model.applied and all(
        e["type"] == "clear_thinking_20251015" and e["cleared_thinking_turns"] > 0
        for e in trimmed.model.applied
    )
    last = replies(desk)[-1]  # the client still sends every thought
    thoughts = sum(b.get("type") == "thinking" for m in last["messages"] for b in blocks_of(m))
    assert thoughts == sum(m["role"] == "assistant" for m in last["messages"]) > 1
    assert trimmed.run.database_target == kept_all.run.database_target == "staging"
    assert trimmed.billed_input < kept_all.billed_input


@RUNS
def test_clearing_tool_results_reports_what_it_cleared(desk):
    done = lever_run(desk, clear_old_tool_results(trigger_tokens=2_000, keep=2))
    assert done.model.applied and all(e["cleared_tool_uses"] > 0 for e in done.model.applied)
    assert max(done.read) < max(
        lap.assembled_tokens for lap in done.run.laps
    )  # the model read less than was sent


@RUNS
def test_count_tokens_with_the_edits_is_the_count_after_and_before(desk):
    history = lever_run(desk, memory_tool()).run.history
    clearing = clear_old_tool_results(trigger_tokens=2_000, keep=2).model(**where(desk))
    after, before = clearing.count_with_levers("sys", history, TOOL_SCHEMAS)
    plain = ClaudeModel(**where(desk)).count_tokens("sys", history, TOOL_SCHEMAS)
    assert after < before == plain
    quiet = clear_old_tool_results(trigger_tokens=10**6, keep=2).model(**where(desk))
    assert quiet.count_with_levers("sys", history, TOOL_SCHEMAS) == (plain, plain)


# ---- what the model supports: the Models API ------------------------------------------------------


@RUNS
def test_a_lever_the_model_lacks_is_skipped_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    with OfflineServer(
        min_trigger=1_000, unsupported={"compact_20260112", "clear_thinking_20251015"}
    ) as server:
        results = side_by_side(
            TASK.request,
            {},
            [server_compaction(3_000), clear_thinking(1), compact_on_demand(3_000)],
            where=where(server),
            max_laps=40,
        )
        looked_up = [r for r in server.requests if r["path"].startswith("/v1/models/")]
    skipped = results["API: compaction at a threshold"]
    assert (
        isinstance(skipped, str)
        and "\n" not in skipped
        and "compact_20260112" in skipped
        and "Models API" in skipped
    )
    assert "clear_thinking_20251015" in results["API: clear old thinking"]
    assert results["API: compaction on demand"].run.stopped == "answered"
    assert looked_up and all(r["betas"] for r in looked_up)


def test_a_models_api_that_refuses_is_a_skip_line_not_a_crash(desk):
    line = server_compaction(3_000).skip_reason(api_key="sk-ant-wrong", base_url=desk.url)
    assert "\n" not in line and "Models API" in line and "401" in line


# ---- what the server refuses, as the API would ------------------------------------------------------

BLOCK = {"type": "compaction", "content": "Goal: x.", "signature": sign("Goal: x.")}
REFUSED = [
    (
        "compaction needs its beta",
        {"compaction": {"type": "summarize"}},
        [],
        "requires anthropic-beta",
    ),
    (
        "not with context management",
        {"compaction": {"type": "summarize"}, "context_management": {"edits": []}},
        ["compact-2026-09-04"],
        "cannot be combined",
    ),
    (
        "a trigger under 50,000",
        {
            "context_management": {
                "edits": [
                    {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 1000}}
                ]
            }
        },
        ["compact-2026-01-12"],
        "at least 50000",
    ),
    (
        "clearing thinking comes first",
        {
            "context_management": {
                "edits": [{"type": "clear_tool_uses_20250919"}, {"type": "clear_thinking_20251015"}]
            }
        },
        ["context-management-2025-06-27"],
        "must come first",
    ),
    (
        "keep zero thinking turns",
        {
            "context_management": {
                "edits": [
                    {
                        "type": "clear_thinking_20251015",
                        "keep": {"type": "thinking_turns", "value": 0},
                    }
                ]
            }
        },
        ["context-management-2025-06-27"],
        "keep",
    ),
    (
        "an unknown edit",
        {"context_management": {"edits": [{"type": "clear_everything"}]}},
        ["context-management-2025-06-27"],
        "unknown edit",
    ),
    (
        "a misplaced block",
        {"messages": [user("a"), assistant([BLOCK]), user("b")]},
        ["compact-2026-09-04"],
        "compaction_block_misplaced",
    ),
    (
        "an altered block",
        {"messages": [assistant([{**BLOCK, "content": "Goal: y."}]), user("b")]},
        ["compact-2026-09-04"],
        "compaction_content_mismatch",
    ),
    (
        "a block without its beta",
        {"messages": [assistant([BLOCK]), user("b")]},
        [],
        "expected content block",
    ),
    (
        "compacting a pending call",
        {
            "compaction": {"type": "summarize"},
            "messages": [
                user("a"),
                assistant([{"type": "tool_use", "id": "t", "name": "list_files", "input": {}}]),
            ],
        },
        ["compact-2026-09-04"],
        "tool call",
    ),
]


@pytest.mark.parametrize(
    "fields, betas, said", [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_the_server_refuses_what_the_api_refuses(fields, betas, said):
    with OfflineServer() as server:
        client = anthropic.Anthropic(api_key=TEST_KEY, base_url=server.url, max_retries=0)
        request = {
            "model": "claude-haiku-5-5",
            "max_tokens": 50,
            "messages": [user("Fix the login bug.")],
            **fields,
        }
        with pytest.raises(anthropic.BadRequestError, match=said):
            client.beta.messages.create(betas=betas, **request)


@RUNS
def test_a_full_history_run_through_the_levers_server_is_unchanged(desk):
    """No lever: the desk server answers exactly as before (no iterations, no thinking, no edits)."""
    run = run_agent(
        TASK.request, ClaudeModel(**where(desk)), context=FullHistory(), remarks=TASK.remarks
    )
    assert run.stopped == "answered" and all("iterations" not in lap.usage for lap in run.laps)
