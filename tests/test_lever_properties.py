"""Properties of the levers' plumbing, swept with hypothesis: no real server, no network, milliseconds each.

* the bill sums every pass a reply lists, and never counts less than its top level;
* the server's clearing edits keep exactly the newest turns and touch nothing else;
* compaction on demand and in the background never part a tool call from its result, whatever the
  history, the threshold or the lag, and the block always leads once it is in.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.laps import billed_tokens
from harness.messages import assistant, blocks_of, pair_problems, user
from harness.model import Reply
from harness.tokens import Meter
from stage.claude import with_billed
from stage.server_compaction import BackgroundCompaction, OnDemandCompaction
from stage.server_levers import CLEARED, clear_thinking, clear_tool_results

COUNT = st.integers(min_value=0, max_value=100_000)
METER = Meter("chars4")


def a_pass(kind: str):
    return st.fixed_dictionaries(
        {"type": st.just(kind), "input_tokens": COUNT, "output_tokens": COUNT},
        optional={"cache_read_input_tokens": COUNT, "cache_creation_input_tokens": COUNT},
    )


@given(
    st.lists(a_pass("compaction"), max_size=3), st.lists(a_pass("message"), min_size=1, max_size=3)
)
def test_the_bill_is_the_sum_of_the_passes_and_never_below_the_top_level(compactions, messages):
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    top = {
        k: sum(p.get(k, 0) for p in messages) for k in (*keys, "output_tokens")
    }  # the API's top level
    usage = with_billed({**top, "iterations": compactions + messages})  # as the backend reports it
    billed_in, billed_out = billed_tokens(usage)
    assert billed_in == sum(p.get(k, 0) for p in compactions + messages for k in keys)
    assert billed_out == sum(p["output_tokens"] for p in compactions + messages)
    assert billed_in >= sum(top[k] for k in keys)
    assert billed_tokens(top) == (
        sum(top[k] for k in keys),
        top["output_tokens"],
    )  # no iterations: the top level


# ---- the server's clearing edits -------------------------------------------------------------------


def agent_history(rounds: int, thinking: list[bool]) -> list[dict]:
    """A request, then ``rounds`` rounds of (assistant: maybe a thought, a note, a call; user: its result)."""
    history = [user("Fix the login bug. Never touch production.")]
    for n in range(rounds):
        thought = (
            [{"type": "thinking", "thinking": f"round {n} " * 5, "signature": "s"}]
            if thinking[n]
            else []
        )
        history.append(
            assistant(
                thought
                + [
                    {"type": "text", "text": f"Reading file {n}."},
                    {
                        "type": "tool_use",
                        "id": f"t{n}",
                        "name": "read_file",
                        "input": {"path": f"app/f{n}.py"},
                    },
                ]
            )
        )
        history.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"t{n}",
                        "content": f"line {n}\n" * (5 + n),
                    }
                ],
            }
        )
    return history


HISTORIES = st.integers(min_value=0, max_value=12).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.booleans(), min_size=n, max_size=n))
)


@given(HISTORIES, st.integers(min_value=1, max_value=6))
def test_clearing_thinking_keeps_the_newest_turns_and_nothing_else_changes(shape, keep):
    history = agent_history(*shape)
    edited, cleared = clear_thinking(history, keep)
    thinking = [
        i for i, m in enumerate(history) if any(b.get("type") == "thinking" for b in blocks_of(m))
    ]
    assert cleared == max(0, len(thinking) - keep)
    assert [
        i for i, m in enumerate(edited) if any(b.get("type") == "thinking" for b in blocks_of(m))
    ] == thinking[len(thinking) - min(keep, len(thinking)) :]
    strip = [[b for b in blocks_of(m) if b.get("type") != "thinking"] for m in history]
    assert strip == [[b for b in blocks_of(m) if b.get("type") != "thinking"] for m in edited]
    assert pair_problems(edited) == []


@given(HISTORIES, st.integers(min_value=0, max_value=6))
def test_clearing_tool_results_keeps_the_newest_and_their_calls(shape, keep):
    history = agent_history(*shape)
    edited, cleared = clear_tool_results(history, keep)
    results = [b for m in edited for b in blocks_of(m) if b.get("type") == "tool_result"]
    assert cleared == max(0, len(results) - keep)
    assert [b["content"] == CLEARED for b in results] == [
        i < len(results) - keep for i in range(len(results))
    ]
    assert pair_problems(edited) == [] and history == agent_history(
        *shape
    )  # the request's own list untouched


# ---- compaction on demand and in the background -------------------------------------------------------


class Summarizer:
    """A model with ``compact``: every summary request returns a block naming how many messages it covered."""

    window = 100_000

    def __init__(self, fail_every: int = 0):
        self.asked, self.fail_every = 0, fail_every

    def compact(self, system, messages, tools, instructions=None):
        self.asked += 1
        if self.fail_every and self.asked % self.fail_every == 0:
            return Reply([], "max_tokens", {"input_tokens": 10, "output_tokens": 0})
        block = {
            "type": "compaction",
            "content": f"summary of {len(messages)} messages",
            "signature": "s",
        }
        usage = {
            "input_tokens": 0,
            "output_tokens": 0,
            "iterations": [{"type": "compaction", "input_tokens": 50, "output_tokens": 5}],
        }
        return Reply([block], "compaction", usage)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=1, max_value=14),
    st.integers(min_value=20, max_value=400),
    st.integers(min_value=0, max_value=3),
    st.integers(min_value=0, max_value=3),
)
def test_a_server_compaction_desk_never_parts_a_tool_pair(rounds, at_tokens, lag, fail_every):
    history = agent_history(rounds, [False] * rounds)
    strategy = BackgroundCompaction(at_tokens, lag=lag) if lag else OnDemandCompaction(at_tokens)
    strategy.start()
    model = Summarizer(fail_every)
    for lap in range(1, rounds + 1):
        seen = history[: 2 * lap - 1]  # the history as it stood at the start of that lap
        desk = strategy.assemble(seen, lap=lap, system="sys", tools=[], meter=METER, model=model)
        leads_with_block = blocks_of(desk.messages[0])[0].get("type") == "compaction"
        assert leads_with_block == (strategy.block is not None)
        assert (
            pair_problems([user("-")] + desk.messages if leads_with_block else desk.messages) == []
        )
        assert desk.messages[-1] is seen[-1]  # the newest message is always sent, word for word
        if leads_with_block:
            assert desk.messages[1:] == seen[strategy.covered :]
