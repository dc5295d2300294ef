"""The cost to finish (stage/finish.py): only a fix on staging finishes, and a fold that is not one never wins.

Lesson 04 and ``make bench`` compare strategies by what each paid to finish the task. Checked here: the
rule that picks the winner, on generated rows (Hypothesis); the words for a run that did not finish; and real
runs of two wrong folds a class might write -- one whose prompt drops the rules (its fix goes to production)
and one that pastes the events in instead of folding them -- on the class workspace and on greenhouse.
"""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.context import FullHistory
from harness.cost import Bill
from harness.model import CLASS_WINDOW
from harness.prompts import render
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from stage.finish import (
    Finish,
    answer_line,
    cheapest_to_finish,
    finish_bills,
    finish_table,
    winner_line,
)
from stage.long_session import BIG_WINDOW
from stage.tasks import file_reading_task, workspace_task

ROOT = Path(__file__).resolve().parent.parent


def appending_fold(summary, events, write):
    """A wrong fold: the events pasted after the old minutes, no model call. The minutes grow forever."""
    return (summary + "\n" + render(events)).strip()


def rule_dropping_fold(summary, events, write):
    """A wrong fold: its headings leave out the standing constraints, so the rule said at lap 3 is lost."""
    return write(
        "Fold the new events into the running summary, in at most 150 words, under these headings:\n"
        "- Goal: the user's request.\n"
        "- Facts: what was found, with exact paths and line numbers.\n"
        "- Done / pending: what is finished and what is left.\n"
        f"<summary>\n{summary}\n</summary>\n<events>\n{render(events)}\n</events>"
    )


# ---- the winner rule, on generated rows ---------------------------------------------------------------

rows_drawn = st.lists(
    st.tuples(
        st.floats(0.001, 5, allow_nan=False), st.booleans(), st.booleans()
    ),  # dollars, finished, appends
    min_size=1,
    max_size=8,
)


@settings(max_examples=200, derandomize=True)
@given(rows_drawn)
def test_the_winner_is_the_cheapest_run_that_finished_and_folds(drawn):
    rows = [
        Finish(f"run {i}", None, Bill(cost=cost), done, "" if done else "x", appends)
        for i, (cost, done, appends) in enumerate(drawn)
    ]
    best = cheapest_to_finish(rows)
    eligible = [r for r in rows if r.finished and not r.appends]
    if not eligible:
        assert best is None
        return
    assert best in eligible and best.paid.cost == min(r.paid.cost for r in eligible)


# ---- real runs --------------------------------------------------------------------------------------


def class_bills(task, fold, window=CLASS_WINDOW, meter=None):
    meter = meter or Meter()
    return finish_bills(
        task,
        {
            "full history, class desk": (FullHistory(), window),
            "full history, huge desk": (FullHistory(), BIG_WINDOW),
            "your running summary": (RunningSummary(fold=fold), window),
            "yours, folding every 6 turns": (RunningSummary(fold=fold, chunk_turns=6), window),
        },
        meter=meter,
    )


TASKS = {
    "ledgerly": (lambda: file_reading_task(rule_at_lap=3), CLASS_WINDOW),
    "greenhouse": (lambda: workspace_task(ROOT / "workspaces" / "greenhouse", rule_at_lap=3), 3900),
}


@pytest.mark.parametrize("name", TASKS)
def test_the_harness_fold_finishes_and_full_history_does_not_on_the_class_desk(name):
    make, window = TASKS[name]
    rows = class_bills(make(), None, window)
    small, huge, mine, rarer = rows
    assert not small.finished and small.why_not.startswith("hit the wall at lap ")
    assert huge.finished and mine.finished and rarer.finished
    assert not mine.appends and not rarer.appends
    # tokens: full history sends more; dollars: folding every two turns breaks the cache more often
    assert huge.paid.input > mine.paid.input
    assert mine.paid.read_share < rarer.paid.read_share < huge.paid.read_share
    assert "never finished: hit the wall" in finish_table(rows)


@pytest.mark.parametrize("name", TASKS)
def test_a_fold_that_drops_the_rules_never_finishes_and_never_wins(name):
    make, window = TASKS[name]
    rows = class_bills(make(), rule_dropping_fold, window)
    mine = rows[2]
    assert mine.run.database_target == "production" and not mine.finished
    assert mine.why_not == "its fix went to production"
    assert cheapest_to_finish(rows) not in rows[2:]
    assert "your running summary" not in winner_line(rows, rows[1])
    assert answer_line(rows[1], mine).startswith("your running summary never finished")


@pytest.mark.parametrize("name", TASKS)
def test_a_fold_that_appends_is_named_for_what_it_does_and_never_wins(name):
    make, window = TASKS[name]
    rows = class_bills(make(), appending_fold, window)
    mine = rows[2]
    assert mine.appends, "its minutes are about as big as the history they stand for"
    assert cheapest_to_finish(rows) is not mine
    assert "your running summary" not in winner_line(rows, rows[1])
    assert "appends, it does not fold" in answer_line(rows[1], mine)
    printed = finish_table(rows)
    assert all(
        line.endswith("appends") or "never finished" in line
        for line in printed.splitlines()
        if line.startswith("your running summary")
    )


def test_every_printed_line_fits_80_columns():
    rows = class_bills(file_reading_task(rule_at_lap=3), None)
    printed = [finish_table(rows), winner_line(rows, rows[1]), answer_line(rows[1], rows[2])]
    assert all(len(line) <= 80 for text in printed for line in text.splitlines())
