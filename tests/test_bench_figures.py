"""The benchmark numbers the READMEs quote come from one source, benchmarks/results/latest.json."""

import json

import pytest

from benchmarks import figures


def latest():
    return json.loads(figures.LATEST.read_text(encoding="utf-8"))


def test_the_readmes_say_what_latest_json_says():
    results = latest()
    if results.get("quick") or "cache_frontier" not in results:
        pytest.skip("latest.json holds a --quick or older run; `make bench` writes the full one")
    assert figures.main(["--check"]) == 0, "run: .venv/bin/python -m benchmarks.figures"


def test_a_block_is_replaced_whole_and_the_text_around_it_kept():
    text = "before\n<!-- figures:goals -->\nold numbers\n<!-- /figures:goals -->\nafter\n"
    once = figures.render(text, "goals", "new numbers")
    assert once == "before\n<!-- figures:goals -->\nnew numbers\n<!-- /figures:goals -->\nafter\n"
    assert figures.render(once, "goals", "new numbers") == once
    empty = "<!-- figures:bill -->\n<!-- /figures:bill -->"
    assert figures.render(empty, "bill", "x") == "<!-- figures:bill -->\nx\n<!-- /figures:bill -->"


def test_a_missing_block_is_a_clear_error():
    with pytest.raises(ValueError, match="figures:frontier"):
        figures.render("no markers here", "frontier", "x")


def test_the_goal_lines_carry_the_verdicts_of_the_run():
    results = latest()
    if "cache_frontier" not in results:
        pytest.skip("latest.json predates the cost frontier")
    goals = figures.goals_block(results)
    for g in results["strategies"]["long_session"]["goals"]:
        assert g["result"] in goals and f"{g['share']:.1%}" in goals
    cache = results["cache_frontier"]["goal"]
    assert f"{cache['dollars']:.1%} of the dollars" in goals and f"({cache['result']})" in goals
    assert cache["line"] in figures.frontier_block(results)
