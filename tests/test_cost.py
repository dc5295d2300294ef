"""The token bill: the cache rule on laps built by hand, then on real runs."""

import copy

import pytest

from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.cost import PRICES, Prices, bill, fixed_tokens, lap_bills, reuses
from harness.laps import Lap
from harness.loop import run_agent
from harness.messages import user
from harness.tokens import Meter
from stage.frontier import bill_without_summary
from stage.offline import OfflineModel
from stage.tasks import file_reading_task

CHARS4 = Meter("chars4")


def msg(name):
    """A message of exactly 100 tokens on the chars4 meter: 384 characters / 4 + 4 overhead."""
    return user(name * 384)


A, B, C, D, S = (msg(x) for x in "ABCDS")


def lap(number, sent, billed_input, billed_output=50, summary_calls=0):
    assembled = 100 + 100 * len(sent)  # 100 tokens of system prompt and tools
    return Lap(
        number,
        assembled,
        assembled,
        billed_input=billed_input,
        billed_output=billed_output,
        summary_calls=summary_calls,
        model_calls=summary_calls + 1,
        sent=sent,
    )


def worked_example():
    """Four laps, the third one compacts.

    lap 1 sends [A]        = 200: nothing cached yet        -> write 200 (the front [A] is stored)
    lap 2 sends [A, B, C]  = 400: [A] comes back in front   -> read 200, write 200
    lap 3 summary call of 300 (fresh prompt)                -> uncached 300
          then sends [A, S] = 300: [A, B, C] is not its front, but [A] is, one block back from
          its breakpoint (the API looks back up to 20 blocks) -> read 200, write 100
    lap 4 sends [A, S, D]  = 400: [A, S] comes back         -> read 300, write 100
    Totals: read 700, write 600, uncached 300 = input 1,600. Output 50 + 50 + (100 + 50) + 50 = 300.
    At $1 / $5 per million: input 300 + 600 x 1.25 + 700 x 0.1 = 1,120 -> $0.00112,
    output 300 x 5 = 1,500 -> $0.0015; with caching $0.00262, without $0.0031.
    """
    return [
        lap(1, [A], 200),
        lap(2, [A, B, C], 400),
        lap(3, [A, S], 600, billed_output=150, summary_calls=1),
        lap(4, [A, S, D], 400),
    ]


def test_the_worked_example_lap_by_lap():
    bills = lap_bills(worked_example(), meter=CHARS4)
    assert [(b.read, b.write, b.uncached) for b in bills] == [
        (0, 200, 0),
        (200, 200, 0),
        (200, 100, 300),
        (300, 100, 0),
    ]


def test_the_worked_example_totals():
    total = bill(worked_example(), meter=CHARS4)
    assert (total.cache_read, total.cache_write, total.uncached) == (700, 600, 300)
    assert (total.input, total.output) == (1600, 300)
    assert total.cost == pytest.approx(0.00262)
    assert total.cost_without_cache == pytest.approx(0.0031)
    assert total.read_share == pytest.approx(700 / 1600)


def test_prices_are_parameters():
    double = Prices(input=2.0, output=10.0)
    assert bill(worked_example(), double, meter=CHARS4).cost == pytest.approx(2 * 0.00262)
    assert PRICES.dollars(read=1_000_000) == pytest.approx(0.1)
    assert PRICES.dollars(write=1_000_000) == pytest.approx(1.25)


def test_a_copy_of_the_same_messages_still_reads_the_cache():
    """The cache compares content, not Python objects: an equal message is the same prefix."""
    assert reuses([A, B], [copy.deepcopy(A), copy.deepcopy(B), C])
    assert not reuses([A, B, C], [A, S, C])  # the front was rewritten
    assert not reuses([A, B], [A])  # a shorter request cannot contain the old one
    assert not reuses(None, [A])  # nothing cached yet


def test_a_refused_request_costs_nothing():
    overflow = Lap(2, 9000, 9000, kind="overflow", model_calls=0, sent=[A, B, C])
    bills = lap_bills([lap(1, [A], 200), overflow], meter=CHARS4)
    assert (bills[1].read, bills[1].write, bills[1].uncached, bills[1].cost) == (0, 0, 0, 0)


def test_a_marked_message_keeps_the_front_before_a_rewrite():
    """A strategy marks B (it will not change B); the next lap rewrites C. Only what follows B is written.

    Unmarked: [A, B, C] stored only its whole front, so [A, B, X, D] finds nothing but the system
    prompt and tools (100). Marked: the front [A, B] was stored too -> read 300, write 200.
    """
    from harness.cache import mark

    X = msg("X")
    plain = lap_bills([lap(1, [A, B, C], 400), lap(2, [A, B, X, D], 500)], meter=CHARS4)
    marked = lap_bills([lap(1, [A, mark(B), C], 400), lap(2, [A, B, X, D], 500)], meter=CHARS4)
    assert (plain[1].read, plain[1].write) == (100, 400)
    assert (marked[1].read, marked[1].write) == (300, 200)


@pytest.mark.parametrize("new_blocks, read", [(20, 200), (21, 100)])
def test_the_look_back_reaches_twenty_blocks(new_blocks, read):
    """[A] was stored at lap 1. Lap 2 adds one-block messages: the API finds [A] from the last
    breakpoint only within 20 blocks; further back, only the system prompt and tools are read."""
    more = [msg(chr(ord("a") + i % 26)) for i in range(new_blocks)]
    bills = lap_bills([lap(1, [A], 200), lap(2, [A] + more, 200 + 100 * new_blocks)], meter=CHARS4)
    assert bills[1].read == read


def test_the_provider_counts_win_over_the_model():
    """A lap whose usage carries Claude's cache counts is billed with them, not with our model."""
    counted = lap(2, [A, B], 600, summary_calls=1)
    counted.usage = {
        "input_tokens": 10,
        "cache_read_input_tokens": 200,
        "cache_creation_input_tokens": 90,
        "output_tokens": 50,
    }
    bills = lap_bills([lap(1, [A], 200), counted], meter=CHARS4)
    assert (bills[1].read, bills[1].write) == (200, 90)
    assert bills[1].uncached == 10 + (600 - 300)  # after the last breakpoint, plus the summary call
    assert bills[1].input == 600


def test_breakpoints_are_the_last_message_and_the_newest_mark():
    from harness.cache import breakpoints, mark

    assert breakpoints([]) == []
    assert breakpoints([A, B, C]) == [2]
    assert breakpoints([mark(A), mark(B), C, D]) == [1, 3]  # the API allows four in all
    assert reuses([mark(A), B], [A, B, C])  # a breakpoint is not content


# ---- on real runs ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compacting_run():
    model = OfflineModel(window=5000)
    return run_agent(file_reading_task().request, model, context=ThreeZoneCompaction(), max_laps=80)


def test_compaction_throws_the_cache_away(compacting_run):
    """After a compaction only the system prompt, tools and the pinned request are still read."""
    meter = Meter("tiktoken")
    laps, bills = compacting_run.laps, lap_bills(compacting_run.laps)
    system_tools_request = fixed_tokens(laps[0], meter) + meter.count(laps[0].sent[0])
    compactions = [i for i, one in enumerate(laps) if one.kind == "compact"]
    assert len(compactions) >= 2
    for i in compactions:  # only the front that lap 1 stored is still cached ...
        assert bills[i].read == system_tools_request
        assert bills[i].write == laps[i].assembled_tokens - system_tools_request
        assert bills[i].uncached > 0  # ... and the summary call was paid in full
    for i in range(1, len(laps)):  # between compactions, the whole previous request is read
        if laps[i].kind == "none":
            assert bills[i].read == laps[i - 1].assembled_tokens


def test_full_history_reads_everything_but_the_newest_turn(meter):
    model = OfflineModel(window=100_000, meter=meter)
    run = run_agent(file_reading_task().request, model, context=FullHistory())
    bills = lap_bills(run.laps, meter=meter)
    for before, now, paid in zip(run.laps, run.laps[1:], bills[1:]):
        assert paid.read == before.assembled_tokens
        assert paid.write == now.assembled_tokens - before.assembled_tokens


def test_the_costs_add_up(compacting_run):
    total = bill(compacting_run.laps)
    assert total.input == compacting_run.laps[-1].total_input
    assert total.output == compacting_run.laps[-1].total_output
    assert total.cache_read + total.cache_write + total.uncached == total.input
    assert total.cost == pytest.approx(sum(one.cost for one in total.laps))
    no_cache = PRICES.dollars(uncached=total.input, output=total.output)
    assert total.cost_without_cache == pytest.approx(no_cache)


def test_the_bill_without_the_summary_is_a_second_run(meter):
    from harness.running_summary import RunningSummary

    compared = bill_without_summary(file_reading_task(), RunningSummary(), meter=meter)
    assert compared.full_run.stopped == "answered"  # the big window never overflowed
    assert compared.strategy_run.database_target == compared.full_run.database_target == "staging"
    assert compared.full_history.input == compared.full_run.laps[-1].total_input
    assert 0 < compared.input_share < 1  # fewer tokens sent ...
    assert (
        compared.full_history.cache_read > compared.strategy.cache_read
    )  # ... but far less of them cached


def test_passes_without_cache_counts_bill_the_extra_pass_as_a_fresh_prompt():
    """A server that lists iterations but no cache counts (the local desk server): the top level is the
    request, modelled through the cache as usual; the compaction pass (500 in) is billed uncached, like a
    summary call. Lap 2 sends [A, B, C] (400): it reads lap 1's front (200) and writes 200."""
    second = lap(2, [A, B, C], 900)
    second.usage = {
        "input_tokens": 400,
        "output_tokens": 50,
        "iterations": [
            {"type": "compaction", "input_tokens": 500, "output_tokens": 60},
            {"type": "message", "input_tokens": 400, "output_tokens": 50},
        ],
    }
    bills = lap_bills([lap(1, [A], 200), second], meter=CHARS4)
    assert (bills[1].read, bills[1].write, bills[1].uncached) == (200, 200, 500)
    assert bills[1].input == 900
