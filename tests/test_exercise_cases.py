"""The made-up cases of the checks are what they say they are, and reach the edges a grader tries.

A check that knows its answer "by construction" is only as right as its construction: these tests
hold every generator to its word on a few hundred cases -- the text is on exactly the laps a lap case
says, each decoy fools the wrong search it is made for, the bullets under a summary's heading are the
rules the case lists, a bill adds up to the totals chosen first -- and count that the cases reach
the edges: empty and one-message histories, non-ASCII and pattern characters, budgets that fit
exactly, runs that end in every state, laps numbered from more than 1.

Also here: the search's seed gives the same cases every time, and a check cell run too early in
IPython says what to run first instead of raising a NameError.
"""

from __future__ import annotations

import re
from random import Random

import pytest
from hypothesis import find
from hypothesis.errors import NoSuchExample

from exercises.checks import cases, lap_cases, made_up_runs, promote_cases, window_rules
from exercises.checks.search import _only_its_own_constants, _settings
from harness.messages import blocks_of, safe_cuts, text_of

HOW_MANY = 250


def sample(strategy, n: int = HOW_MANY, seed: int = 1) -> list:
    """``n`` cases the strategy makes, in the order the checks' own search makes them."""
    found = []

    def keep(case):
        found.append(case)
        return False

    try:
        with _only_its_own_constants():
            find(strategy, keep, settings=_settings(n), random=Random(seed))
    except NoSuchExample:
        pass
    return found


def on_desk(lap, text) -> bool:
    return any(text in text_of(m).lower() for m in lap.sent)


def test_a_lap_case_holds_its_text_exactly_where_it_says_and_each_decoy_fools_its_search():
    made = sample(lap_cases.lap_cases())
    for case in made:
        for lap, here, decoy in zip(case.laps, case.on, case.decoys):
            assert on_desk(lap, case.text) == here, (case.text, case.on, lap.number)
            joined = " ".join(text_of(m) for m in lap.sent).lower()
            if decoy == "words":
                assert all(word in joined for word in case.text.split()), case.text
            elif decoy == "regex":
                assert re.search(case.text, joined), case.text
            elif decoy == "across":  # the desk as one string holds it (with or without spaces)
                glued = "".join(text_of(m) for m in lap.sent).lower()
                assert case.text in joined or case.text in glued, case.text
    kinds = {d for case in made for d in case.decoys if d}
    assert kinds == set(lap_cases.DECOYS), kinds
    assert any(case.laps and case.laps[0].number > 1 for case in made), "laps from any number"
    assert {case.text for case in made} == {text for text, _ in lap_cases.PHRASES}
    assert any(case.expected is None and any(case.on) for case in made), "never leaves"
    assert any(not case.laps for case in made), "no laps at all"


def test_the_histories_reach_the_edges():
    made = sample(cases.histories())
    assert any(len(h) == 1 for h in made), "a history of the request alone"
    texts = [text_of(m) for h in made for m in h]
    assert any(not t.isascii() for t in texts), "text outside ASCII"
    assert any(re.escape(t) != t.replace(" ", "\\ ") and "(x)" in t for t in texts), "pattern chars"
    blocks = [b for h in made for m in h for b in blocks_of(m)]
    assert any(b["type"] == "tool_result" and isinstance(b["content"], list) for b in blocks)
    assert any(b["type"] == "tool_use" and len(str(b["input"])) > 500 for b in blocks)
    assert any(m["role"] == "user" and isinstance(m["content"], str) for h in made for m in h[1:])
    for h in made:  # no two messages of a history are equal: a check may tell them apart by value
        assert len({repr(m) for m in h}) == len(h)


@pytest.mark.parametrize("pinned", [False, True])
def test_the_window_budgets_sit_on_the_edges_that_decide_a_window(pinned):
    made = sample(window_rules.window_cases(pinned))
    exact = tight = zero = whole = 0
    for messages, budget, counter in made:
        head = counter(messages[0]) if pinned else 0
        desks = [
            head + counter(window_rules.NOTICE) + window_rules.size_of(messages[c:], counter)
            for c in safe_cuts(messages)[:-1]
            if c >= 1 + pinned
        ]
        exact += budget in desks
        tight += budget + 1 in desks
        zero += budget == 0
        whole += budget == window_rules.size_of(messages, counter)
    assert exact and tight and zero and whole, (exact, tight, zero, whole)
    assert {repr(c) for _, _, c in made} == {repr(c) for c in window_rules.COUNTERS}


def test_a_made_up_bill_adds_up_to_the_totals_chosen_first():
    for laps, billed, raw in sample(made_up_runs.bill_cases()):
        assert sum(lap.billed_input for lap in laps) == billed
        assert sum(lap.raw_tokens for lap in laps) == raw
        assert all(later.total_input >= lap.total_input for lap, later in zip(laps, laps[1:]))
        assert not laps or laps[-1].total_input == billed


def test_the_made_up_sweeps_end_in_every_state_with_fixes_anywhere():
    made = sample(made_up_runs.sweep_cases())
    rows = [row for _, table in made for row in table.values()]
    assert {stopped for stopped, *_ in rows} == set(made_up_runs.ENDINGS)
    assert {target for _, target, *_ in rows} == {"staging", "production", None}
    for _, table in made:
        assert any(r[0] == "answered" and r[1] == "staging" for r in table.values())
    # a filter on half the rule must pick wrong somewhere: a cheaper run on staging that did not finish
    assert any(
        min(
            (r for r in table.values() if r[1] == "staging"),
            key=lambda r: r[2],
        )[0]
        != "answered"
        for _, table in made
    )


def test_the_rules_a_promote_case_lists_are_the_bullets_right_under_its_heading():
    for case in sample(promote_cases.promote_cases()):
        lines, under, inside = case.summary.splitlines(), [], False
        for line in lines:
            if line == promote_cases.HEADING:
                inside = True
            elif inside and line.startswith("- "):
                under.append(line[2:])
            else:
                inside = False
        assert under == case.rules, (case.summary, case.rules)


def test_the_same_seed_makes_the_same_cases():
    assert sample(cases.histories(), 40, seed=3) == sample(cases.histories(), 40, seed=3)
    assert sample(cases.histories(), 40, seed=3) != sample(cases.histories(), 40, seed=4)


def test_a_check_cell_run_too_early_says_what_to_run_first(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    from exercises.checks.in_notebook import guard_check_cells

    shell = InteractiveShell.instance()
    guard_check_cells()  # what importing the checks does in a kernel (here they came first)
    result = shell.run_cell("from exercises import checks\nchecks.check_tokens_of(tokens_of);")
    printed = " ".join(capsys.readouterr().out.split())
    assert "○ Not done yet: tokens_of is not defined yet" in printed, printed
    assert "NameError" not in printed and not result.success
    shell.run_cell("def f():\n    return undefined_here\nf()")  # anywhere else: the usual traceback
    assert "NameError" in capsys.readouterr().out


def test_a_check_writes_nothing_beside_the_notebook(tmp_path, monkeypatch):
    """No .hypothesis folder, no cache: the folder a check runs from stays as it was."""
    from exercises import checks

    monkeypatch.chdir(tmp_path)
    checks.check_split_zones(lambda messages, keep: (messages[:1], messages[1:], []))
    assert list(tmp_path.iterdir()) == []
