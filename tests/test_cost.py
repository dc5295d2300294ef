"""The token bill: the cache rule on laps built by hand, then on real runs."""

import copy

import pytest

from harness.context import FullHistory, ThreeZoneCompaction
from harness.cost import PRICES, Prices, bill, bill_without_summary, fixed_tokens, lap_bills, reuses
from harness.offline import DeskModel
from harness.loop import Lap, run_agent
from harness.messages import user
from harness.tasks import file_reading_task
from harness.tokens import Meter

CHARS4 = Meter("chars4")


def msg(name):
    """A message of exactly 100 tokens on the chars4 meter: 384 characters / 4 + 4 overhead."""
    return user(name * 384)


A, B, C, D, S = (msg(x) for x in "ABCDS")


def lap(number, sent, billed_input, billed_output=50, summary_calls=0):
    assembled = 100 + 100 * len(sent)             # 100 tokens of system prompt and tools
    return Lap(number, assembled, assembled, billed_input=billed_input, billed_output=billed_output,
               summary_calls=summary_calls, model_calls=summary_calls + 1, sent=sent)


def worked_example():
    """Four laps, the third one compacts.

    lap 1 sends [A]        = 200: nothing cached yet        -> write 200
    lap 2 sends [A, B, C]  = 400: [A] comes back in front   -> read 200, write 200
    lap 3 summary call of 300 (fresh prompt)                -> uncached 300
          then sends [A, S] = 300: [A, B, C] is not its front, only the system prompt and tools are
                                                             -> read 100, write 200
    lap 4 sends [A, S, D]  = 400: [A, S] comes back         -> read 300, write 100
    Totals: read 600, write 700, uncached 300 = input 1,600. Output 50 + 50 + (100 + 50) + 50 = 300.
    At $1 / $5 per million: input 300 + 700 x 1.25 + 600 x 0.1 = 1,235 -> $0.001235,
    output 300 x 5 = 1,500 -> $0.0015; with caching $0.002735, without $0.0031.
    """
    return [lap(1, [A], 200), lap(2, [A, B, C], 400),
            lap(3, [A, S], 600, billed_output=150, summary_calls=1), lap(4, [A, S, D], 400)]


def test_the_worked_example_lap_by_lap():
    bills = lap_bills(worked_example(), meter=CHARS4)
    assert [(b.read, b.write, b.uncached) for b in bills] == [
        (0, 200, 0), (200, 200, 0), (100, 200, 300), (300, 100, 0)]


def test_the_worked_example_totals():
    total = bill(worked_example(), meter=CHARS4)
    assert (total.cache_read, total.cache_write, total.uncached) == (600, 700, 300)
    assert (total.input, total.output) == (1600, 300)
    assert total.cost == pytest.approx(0.002735)
    assert total.cost_without_cache == pytest.approx(0.0031)
    assert total.read_share == pytest.approx(600 / 1600)


def test_prices_are_parameters():
    double = Prices(input=2.0, output=10.0)
    assert bill(worked_example(), double, meter=CHARS4).cost == pytest.approx(2 * 0.002735)
    assert PRICES.dollars(read=1_000_000) == pytest.approx(0.1)
    assert PRICES.dollars(write=1_000_000) == pytest.approx(1.25)


def test_a_copy_of_the_same_messages_still_reads_the_cache():
    """The cache compares content, not Python objects: an equal message is the same prefix."""
    assert reuses([A, B], [copy.deepcopy(A), copy.deepcopy(B), C])
    assert not reuses([A, B, C], [A, S, C])            # the front was rewritten
    assert not reuses([A, B], [A])                     # a shorter request cannot contain the old one
    assert not reuses(None, [A])                       # nothing cached yet


def test_a_refused_request_costs_nothing():
    overflow = Lap(2, 9000, 9000, kind="overflow", model_calls=0, sent=[A, B, C])
    bills = lap_bills([lap(1, [A], 200), overflow], meter=CHARS4)
    assert (bills[1].read, bills[1].write, bills[1].uncached, bills[1].cost) == (0, 0, 0, 0)


# ---- on real runs ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def compacting_run():
    model = DeskModel(window=5000)
    return run_agent(file_reading_task().request, model, context=ThreeZoneCompaction(), max_laps=80)


def test_compaction_throws_the_cache_away(compacting_run):
    laps, bills = compacting_run.laps, lap_bills(compacting_run.laps)
    system_and_tools = fixed_tokens(laps[0], Meter("tiktoken"))
    compactions = [i for i, one in enumerate(laps) if one.kind == "compact"]
    assert len(compactions) >= 2
    for i in compactions:           # only the system prompt and tools are still cached ...
        assert bills[i].read == system_and_tools
        assert bills[i].write == laps[i].assembled_tokens - system_and_tools
        assert bills[i].uncached > 0                      # ... and the summary call was paid in full
    for i in range(1, len(laps)):   # between compactions, the whole previous request is read
        if laps[i].kind == "none":
            assert bills[i].read == laps[i - 1].assembled_tokens


def test_full_history_reads_everything_but_the_newest_turn(meter):
    model = DeskModel(window=100_000, meter=meter)
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
    from harness.context import RunningSummary

    compared = bill_without_summary(file_reading_task(), RunningSummary(), meter=meter)
    assert compared.full_run.stopped == "answered"                 # the big window never overflowed
    assert compared.strategy_run.database_target == compared.full_run.database_target == "staging"
    assert compared.full_history.input == compared.full_run.laps[-1].total_input
    assert 0 < compared.input_share < 1                             # fewer tokens sent ...
    assert compared.full_history.cache_read > compared.strategy.cache_read   # ... but far less of them cached
