"""The cost frontier: which runs no other run beats on both tokens and dollars, measured on real runs,
drawn by stage.plots.plot_cost_frontier, and reported by benchmarks.cache_frontier with its goal line."""

import matplotlib

matplotlib.use("Agg")

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks import cache_frontier
from harness.clear_then_compact import ClearThenCompact
from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.sliding_window import SlidingWindow
from stage.frontier import Point, frontier, measure, sweep
from stage.plots import plot_cost_frontier
from stage.tasks import file_reading_task


def point(tokens, dollars, kept=True, reached=True, family="three-zone"):
    return Point(
        family, f"{tokens}/{dollars}", tokens, dollars, kept, reached, 20, "answered", "staging", 0
    )


def test_the_worked_example():
    """(0.2, 0.9) is cheapest in tokens, (0.3, 0.5) in dollars; (0.4, 0.6) is beaten by (0.3, 0.5) on
    both; (0.1, 0.1) would beat them all but lost the rule, so it is not a candidate at all."""
    points = [point(0.2, 0.9), point(0.3, 0.5), point(0.4, 0.6), point(0.1, 0.1, kept=False)]
    assert [(p.tokens, p.dollars) for p in frontier(points)] == [(0.2, 0.9), (0.3, 0.5)]
    assert [p.on_frontier for p in points] == [True, True, False, False]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 2), st.floats(0, 3), st.booleans(), st.booleans()), max_size=25)
)
def test_the_frontier_is_exactly_the_unbeaten_runs(raw):
    points = [point(t, d, kept, reached) for t, d, kept, reached in raw]
    front = frontier(points)
    counting = [p for p in points if p.counts]

    def beaten(p):
        return any(
            q.tokens <= p.tokens
            and q.dollars <= p.dollars
            and (q.tokens, q.dollars) != (p.tokens, p.dollars)
            for q in counting
        )

    assert all(p.counts and not beaten(p) for p in front)
    assert all(beaten(p) for p in counting if not p.on_frontier)
    assert not any(p.on_frontier for p in points if not p.counts)
    assert [p.tokens for p in front] == sorted(p.tokens for p in front)


@pytest.fixture(scope="module")
def measured():
    rows = [
        ("full history", "big window", FullHistory()),
        ("sliding window", "budget 3,000", SlidingWindow(3000)),
        ("three-zone", "defaults", ThreeZoneCompaction()),
        ("clear, then compact", "defaults", ClearThenCompact()),
    ]
    return measure(file_reading_task(rule_at_lap=3), rows, at_lap=15)


def test_measured_shares_are_against_full_history(measured):
    full, sliding, three, cheap = measured
    assert (full.tokens, full.dollars, full.kept_rule) == (1.0, 1.0, True)
    assert not sliding.kept_rule and sliding.database == "production" and not sliding.on_frontier
    assert three.kept_rule and cheap.kept_rule and 0 < cheap.tokens < 1
    assert cheap.dollars < three.dollars  # the cache-aware one is cheaper with caching
    assert cheap.on_frontier


def test_the_first_row_must_be_full_history():
    with pytest.raises(ValueError, match="full history"):
        measure(file_reading_task(), [("three-zone", "defaults", ThreeZoneCompaction())], at_lap=5)


def test_the_sweep_covers_every_family_and_its_settings():
    families = {family for family, _, _ in sweep()}
    assert families == {
        "full history",
        "sliding window",
        "three-zone",
        "running summary",
        "clear tool results",
        "clear, then compact",
    }
    ctc = [s for f, _, s in sweep() if f == "clear, then compact"]
    assert {s.threshold for s in ctc} >= {0.6, 1.0} and {s.clear_at_least for s in ctc} >= {0, 1500}
    assert all(s.low_water < s.threshold for s in ctc)


def test_the_picture_marks_the_frontier_and_the_goal(measured):
    ax = plot_cost_frontier(measured, goal=(0.35, 0.60), label=measured[-1])
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert "frontier" in labels and "hollow: rule lost or stopped early" in labels
    assert any("clear, then compact" in t.get_text() for t in ax.texts)
    assert any("goal" in t.get_text() for t in ax.texts)


def test_the_report_says_pass_or_fail_from_the_numbers(measured, tmp_path):
    results = {
        "at_lap": 15,
        "workspace": "class workspace",
        "frontier": [vars(p) for p in frontier(measured)],
        "points": [vars(p) for p in measured],
        "goal": cache_frontier.check_goal(measured[-1], 15),
    }
    goal = results["goal"]
    passed = measured[-1].dollars <= 0.60 and measured[-1].tokens <= 0.35 and measured[-1].kept_rule
    assert goal["result"] == ("PASS" if passed else "FAIL")
    text = cache_frontier.report(results)
    assert goal["line"] in text and "Frontier" in text and "quick mode" in text
    assert cache_frontier.plot(results, tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"
