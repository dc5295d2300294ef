"""Notebooks through the real SDK: the offline model behind a local server, and misbehaving models.

A representative part of the matrix runs here (``FAST``, six notebook runs, about three minutes on the
2-core machine): the offline model on 01 (its ``count_tokens`` column) and 06 (the API levers), and four
misbehaving models that each end a run early or strangely -- answering at once (03), an empty summary
(04), a summary longer than the desk (05), random choices (02) -- so every lesson meets at least one.
The whole matrix -- every lesson x {offline model, each of the eight misbehaving models}, and every exercise
solution x the offline model -- runs in ``make bench`` (``python -m benchmarks.notebook_matrix``). Two
notebooks run at a time, each with its own server: a notebook spends much of its time waiting on its
kernel, so two share the two cores well.
"""

from concurrent.futures import ProcessPoolExecutor

import pytest

from benchmarks.notebook_matrix import cells, run_cell
from stage.misbehaving import KINDS, PREFIX
from stage.notebook_matrix import DESK, NOTEBOOKS, summary

pytestmark = pytest.mark.integration  # notebooks through the SDK

LESSONS = {p.stem[:2]: p for p in NOTEBOOKS if p.parent.name == "notebooks"}
FAST = [
    (DESK, "01"),
    (DESK, "06"),
    ("answers-at-once", "03"),
    ("empty-summary", "04"),
    ("oversized-summary", "05"),
    ("random", "02"),
]
PAIRS = [(LESSONS[number], name if name == DESK else PREFIX + name) for name, number in FAST]


@pytest.fixture(scope="module")
def runs():
    """Every pair of FAST, run once for the whole module (two at a time, each with its own server)."""
    with ProcessPoolExecutor(2) as pool:
        return dict(zip(PAIRS, pool.map(run_cell, PAIRS)))


def test_the_fast_part_meets_every_lesson_that_calls_the_model():
    assert {m for _, m in PAIRS} <= {DESK} | {PREFIX + kind for kind in KINDS}
    assert {p.stem[:2] for p, _ in PAIRS} >= {"01", "02", "03", "04", "05", "06"}
    assert set(PAIRS) <= {
        (p, m) for p, m in cells()
    }  # a part of the full matrix, not something else


@pytest.mark.parametrize(
    "pair", PAIRS, ids=lambda p: f"{p[0].stem[:2]}-{p[1].removeprefix(PREFIX)}"
)
def test_the_notebook_runs_to_its_end_through_the_sdk(runs, pair):
    run = runs[pair]
    assert run.clean, "\n".join(run.errors)
    assert run.requests > 0, "the notebook never reached the server: the SDK path was not exercised"


def test_the_count_tokens_column_goes_through_the_sdk(runs):
    assert runs[(LESSONS["01"], DESK)].counted > 0


def test_print_the_count(runs, capsys):
    with capsys.disabled():
        print(
            "\n"
            + summary(list(runs.values()))
            + " (the fast part; `make bench` runs the whole matrix)"
        )
    assert len(runs) == len(PAIRS)
