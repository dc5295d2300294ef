"""ClearThenCompact: clear first, compact rarely and deeply, keep the cached front still.

Swept over its settings and both ways of giving the rule (property style): the task is done on
staging with the rule in view, tool pairs stay whole, the raw history is untouched, and -- the
point of it -- every lap that did not compact reads from the cache at least the front up to the
message the previous lap marked. Then one worked number: the bill against full history.
"""

import copy

import pytest

from harness.clear_then_compact import ClearThenCompact
from harness.cache import breakpoints, is_marked
from harness.cost import fixed_tokens, lap_bills
from harness.loop import run_agent
from harness.messages import pair_problems, text_of, tool_results
from harness.tokens import Meter
from stage.frontier import bill_without_summary
from stage.offline import OfflineModel
from stage.tasks import file_reading_task

SETTINGS = [
    dict(),
    dict(tail_turns=2),
    dict(tail_turns=3, clear_at_least=600),
    dict(threshold=0.6, low_water=0.3),
    dict(threshold=1.0, low_water=0.05, max_words=80),
]


def go(strategy, window=5000, rule=None):
    task, meter = file_reading_task(rule_at_lap=rule), Meter()
    run = run_agent(
        task.request,
        OfflineModel(window=window, meter=meter),
        context=strategy,
        remarks=task.remarks,
        max_laps=80,
        meter=meter,
    )
    return run, meter


@pytest.fixture(
    scope="module",
    params=[(i, rule) for i in range(len(SETTINGS)) for rule in (None, 3)],
    ids=lambda p: f"{SETTINGS[p[0]] or 'defaults'}-rule at lap {p[1]}",
)
def swept(request):
    settings, rule = SETTINGS[request.param[0]], request.param[1]
    return (settings, *go(ClearThenCompact(**settings), window=3500, rule=rule))


def test_the_task_is_done_on_staging_with_the_rule_in_view(swept):
    _, run, _ = swept
    assert run.stopped == "answered" and run.database_target == "staging"
    assert "never touch production" in "\n".join(text_of(m) for m in run.laps[-1].sent).lower()


def test_every_desk_is_valid_and_the_history_is_untouched(swept):
    _, run, _ = swept
    before = copy.deepcopy(run.history)
    for lap in run.laps:
        assert pair_problems(lap.sent) == [] and lap.assembled_tokens <= 3500
        assert len(breakpoints(lap.sent)) <= 2
    assert run.history == before and not any(is_marked(m) for m in run.history)


def test_a_lap_that_did_not_compact_reads_up_to_the_mark_of_the_lap_before(swept):
    _, run, meter = swept
    bills = lap_bills(run.laps, meter=meter)
    fixed = fixed_tokens(run.laps[0], meter)
    checked = 0
    for before, lap, paid in zip(run.laps, run.laps[1:], bills[1:]):
        if lap.kind == "compact":
            continue
        marked = breakpoints(before.sent)[0]  # the strategy's mark, or else the last message
        front = fixed + sum(meter.count(m) for m in before.sent[: marked + 1])
        assert paid.read >= front, f"lap {lap.number}"
        checked += 1
    assert checked >= len(run.laps) // 2


def test_clearing_waits_for_a_batch(swept):
    """With clear_at_least, a lap clears only when that many tokens go at once."""
    settings, run, meter = swept
    least = settings.get("clear_at_least", 0)
    for before, lap in zip(run.laps, run.laps[1:]):
        if lap.kind == "clear" and before.kind != "compact":
            gone = sum(meter.count(m) for m in before.sent) - sum(
                meter.count(m) for m in lap.sent[: len(before.sent)]
            )
            assert gone >= least


def test_compaction_goes_down_to_the_low_water_mark():
    strategy = ClearThenCompact(threshold=0.8, low_water=0.1)
    run, meter = go(strategy, window=3000)
    usable = 3000 - strategy.output_reserve
    compactions = [lap for lap in run.laps if lap.kind == "compact"]
    assert compactions and sum(lap.summary_calls for lap in run.laps) == len(compactions)
    for lap in compactions:
        after = lap.sent[lap.zones.index("summary") + 1 :]
        turns = sum(1 for m in after if m["role"] == "assistant")
        assert sum(meter.count(m) for m in after) <= 0.1 * usable or turns == 1


def test_the_listing_is_never_cleared():
    run, _ = go(ClearThenCompact(), window=5000)
    listings = sum(action.startswith("list_files") for lap in run.laps for action in lap.actions)
    assert listings == 1
    assert any(
        b.get("content", "").startswith("[cleared")
        for m in run.laps[-1].sent
        for b in tool_results(m)
    )


@pytest.mark.parametrize(
    "bad",
    [
        dict(threshold=0),
        dict(threshold=1.5),
        dict(low_water=0.9, threshold=0.8),
        dict(tail_turns=-1),
        dict(clear_at_least=-5),
        dict(output_reserve=-1),
    ],
)
def test_bad_settings_say_what_is_wrong(bad):
    with pytest.raises(ValueError):
        ClearThenCompact(**bad)


def test_it_costs_less_than_full_history_with_caching():
    """The class task: full history on a window that never overflows, against ClearThenCompact on the
    class desk. Fewer tokens is easy (every strategy manages it); fewer *cached* dollars is the point --
    the three-zone compaction of lesson 03 costs more than full history here."""
    from harness.compaction import ThreeZoneCompaction

    task = file_reading_task(rule_at_lap=3)
    cheap, dear = (
        bill_without_summary(task, ClearThenCompact()),
        bill_without_summary(task, ThreeZoneCompaction()),
    )
    assert cheap.strategy_run.database_target == "staging"
    assert cheap.input_share < 0.5
    assert cheap.cost_share < 1 < dear.cost_share
