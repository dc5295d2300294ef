"""`make bench` in miniature: the quick mode runs in seconds and its tables say what the runs did."""

import json

import pytest

from benchmarks.__main__ import main
from benchmarks.strategies import PROBES, core_strategies, production_presets

pytestmark = pytest.mark.integration  # the benchmarks, run end to end


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    found = main(["--quick", "--out", str(out)])
    return found, out


def by_name(rows):
    return {r["strategy"]: r for r in rows}


def test_every_strategy_and_preset_has_a_row_in_both_tables(results):
    found, _ = results
    expected = [name for name, _, _ in core_strategies()] + [
        name for name, _, _ in production_presets(300)
    ]
    assert list(found["strategies"]["tables"]) == ["rule in the request", "rule given at lap 3"]
    for rows in found["strategies"]["tables"].values():
        assert [r["strategy"] for r in rows] == expected


def test_the_rows_say_what_the_runs_did(results):
    rows = by_name(results[0]["strategies"]["tables"]["rule given at lap 3"])
    assert rows["full history"]["stopped"] == "overflow" and rows["full history"]["database"] == "-"
    assert (
        rows["sliding window"]["database"] == "production"
        and rows["sliding window"]["rule kept"] == "no"
    )
    template, naive = rows["three-zone, template"], rows["three-zone, naive prompt"]
    assert template["database"] == "staging" and template["rule kept"] == "yes"
    assert (
        naive["database"] == "production" and naive["rule kept"] == "no"
    )  # the vague summary dropped it
    assert (
        rows["running summary"]["summary calls"] > rows["three-zone, template"]["summary calls"] > 0
    )


def test_the_values_are_sane(results):
    for rows in results[0]["strategies"]["tables"].values():
        for r in rows:
            assert 1 <= r["laps"] <= 200
            assert r["stopped"] in ("answered", "overflow", "max_laps", "compaction_failed")
            assert 0 < r["final sent"] <= r["peak sent"]
            refused = (
                r["assembled"][-1] if r["stopped"] == "overflow" else 0
            )  # an overflow is never billed
            assert (
                r["billed input"] >= sum(r["assembled"]) - refused
            )  # every request sent was billed
            assert 0 < r["cost $"] and 0 < r["no-cache $"]
            assert r["peak sent"] <= 5000 or r["stopped"] == "overflow"
            assert int(r["facts"].split("/")[0]) == len(PROBES) - len(r["missed"])
            assert r["note"] or r["strategy"] in [name for name, _, _ in core_strategies()]


def test_the_long_session_is_billed_against_full_history(results):
    long = results[0]["strategies"]["long_session"]
    rows = by_name(long["rows"])
    assert rows["full history (big window)"]["share"] == "100%"
    assert rows["full history (big window)"]["stopped"] == "answered"
    assert (
        rows["running summary"]["share_value"] < 1
        and rows["three-zone, template"]["share_value"] < 1
    )
    assert [g["result"] in ("PASS", "MISS") for g in long["goals"]] == [True, True]


def test_every_strategy_is_billed_to_finish_the_task_beside_the_lap_figures(results):
    """Only a fix on staging finishes; a run that did not has no bill to finish, and the goal says so."""
    long = results[0]["strategies"]["long_session"]
    for r in long["rows"]:
        on_staging = r["stopped"] == "answered" and r["database"] == "staging"
        assert (r["finished"] == "yes") == on_staging, r
        if on_staging:
            assert r["to finish input"] > 0 and r["to finish $"] > 0
            assert r["finish_share_value"] > 0 and r["to finish share"].endswith("%")
        else:
            assert r["to finish input"] is None and r["to finish share"] == "-"
    full = by_name(long["rows"])["full history (big window)"]
    assert full["to finish share"] == "100%" and full["to finish $ share"] == "100%"
    for g in long["goals"]:
        assert "at lap" in g["goal"] and "to finish" in g["goal"]
        assert g["finish share"] is None or g["finish share"] > 0
    race = results[0]["break_even"]
    finishers = {r["strategy"]: r["to finish $"] for r in race["rows"] if r["to finish $"]}
    cheapest = race["cheapest to finish"]
    # the winner is a finisher, and the cheapest of them (unless full history itself won)
    if cheapest in finishers:
        assert finishers[cheapest] == min(finishers.values())
    cache = results[0]["cache_frontier"]["goal"]
    assert "to finish" in cache["line"] or "never finished" in cache["line"]


def test_the_speed_figures_and_goals_are_there(results):
    speed = results[0]["speed"]
    assert [s["laps"] for s in speed["sessions"]] == [25, 50, 100]
    assert all(
        s["stopped"] == "max_laps" for s in speed["sessions"]
    )  # the looping task never finishes
    assert speed["meter"]["speed-up"] > 1
    assert {g["result"] for g in speed["goals"]} <= {"PASS", "MISS"} and len(speed["goals"]) == 5
    drawn = [
        g for g in speed["goals"] if g["goal"].startswith("dashboard ")
    ]  # first draw and redraw
    assert len(drawn) == 2 and all("plain matplotlib" in g["measured"] for g in drawn), drawn
    assert "skipped" in speed["notebooks"]


def test_the_results_are_written(results):
    found, out = results
    saved = json.loads((out / "latest.json").read_text())
    assert saved["strategies"]["tables"].keys() == found["strategies"]["tables"].keys()
    assert (out / "assembled_tokens.png").read_bytes()[:4] == b"\x89PNG"
