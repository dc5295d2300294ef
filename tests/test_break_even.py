"""The break-even lap: lesson 04 prints the one `make bench` computes, and the rule behind it holds.

``break_even_lap`` is the first lap from which a strategy's bill so far stays at or below full history's,
to the end of the shorter run. Worked examples check the rule; the integration test runs lesson 04 and
the benchmark and compares the three-zone figure each prints.
"""

import re

import pytest

from stage import long_session
from stage.long_session import break_even_lap


@pytest.mark.parametrize(
    "mine, full, lap",
    [
        ([1, 2, 3, 4], [1, 2, 3, 4], 1),  # equal all along: it never costs more
        ([2, 4, 5, 6], [1, 3, 5, 7], 3),  # dearer at first, cheaper from lap 3 on
        (
            [2, 3, 4, 9],
            [1, 3, 5, 7],
            None,
        ),  # cheaper for a while, dearer again at the end: no break-even
        ([5, 6], [1, 2, 3], None),  # dearer over the whole shorter run
        ([], [1, 2], None),
    ],
)
def test_the_break_even_lap_on_worked_examples(monkeypatch, mine, full, lap):
    """The bills so far are given directly (the cumulative dollars of made-up runs)."""
    values = {"mine": mine, "full": full}
    monkeypatch.setattr(
        long_session, "cumulative_dollars", lambda laps, meter=None: list(values[laps])
    )
    assert break_even_lap("mine", "full") == lap


@pytest.mark.integration  # runs lesson 04 and the benchmark's race (about half a minute)
def test_lesson_04_prints_the_break_even_lap_make_bench_computes():
    from benchmarks import break_even
    from tools.executed import executed, text_of_outputs

    lesson = executed()["04_running_summary"]
    printed = "".join(text_of_outputs(c) for c in lesson.cells if c.cell_type == "code")
    found = re.search(r"^three-zone compaction .*?(lap (\d+)|never)$", printed, re.M)
    assert found, "lesson 04 printed no race row for three-zone compaction"
    bench = next(
        r for r in break_even.run_all()["rows"] if r["strategy"] == "three-zone compaction"
    )
    assert (int(found.group(2)) if found.group(2) else None) == bench["break_even_lap"]
    # the deck names clear, then compact as the cheapest to finish: the run must agree
    cheapest = re.search(r"cheapest to finish: (.+?), (\d+)% of full history's dollars", printed)
    assert cheapest and cheapest.group(1) == "clear, then compact", printed[-600:]
    assert int(cheapest.group(2)) < 100
