"""Every wrong answer of the corpus is rejected with the hint that names its mistake; every right one passes.

The answers are in ``exercise_answers.py`` (instructor-only): for each task at least eight wrong answers,
covering every kind of mistake issue 27 lists wherever that kind can occur, and at least three right ones
written unlike the solution (unusual but correct). A wrong answer must print exactly one FAIL (in lines of at
most 80 characters), with a hint that holds the expected words; a right one must print PASS.

Tiers: an answer whose check runs the agent with the answer inside it (a window or a fold loop in the
loop, a prompt, a memory in session two, a sweep) takes seconds; those are in the integration tier, the
rest (most of the corpus) in the unit tier.
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import pytest
from exercise_answers import KINDS, RIGHT, WHERE, WRONG, Lap, check_of, load_solutions

load_solutions()  # the checks time each call: reading a notebook is not the answer's time

TASKS = sorted({w.task for w in WRONG} | {r.task for r in RIGHT})
# Tasks whose right answers reach runs of the agent (seconds each); wrong answers of the first set get there too.
RUNS_WHEN_WRONG = {"cheapest_settings", "compaction_prompt", "two_rules_prompt"}
RUNS_WHEN_RIGHT = RUNS_WHEN_WRONG | {
    "pinned_window",
    "remarks_window",
    "running_summary",
    "memory",
    "tight_memory",
    "greenhouse_memory",
}


def tiered(items, slow):
    return [
        pytest.param(a, marks=pytest.mark.integration, id=f"{a.task}: {a.name}")
        if a.task in slow
        else pytest.param(a, id=f"{a.task}: {a.name}")
        for a in items
    ]


def verdict(check, *answer) -> tuple[bool, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        result = check(*answer)
    return result, out.getvalue()


def flat(text: str) -> str:
    """A verdict with its line breaks undone: it is printed in lines of at most 80 characters."""
    return " ".join(text.split())


def hint_of(printed: str) -> str:
    """The hint of a printed FAIL, on one line."""
    return flat(printed.split("Hint:", 1)[1]) if "Hint:" in printed else ""


def resolved(args: tuple) -> tuple:
    """The answer's arguments, with predictions relative to the real overflow lap worked out now."""
    return tuple(a.value() if isinstance(a, Lap) else a for a in args)


def test_every_task_has_eight_wrong_answers_and_three_right_ones():
    every = {
        name[6:]
        for name in dir(__import__("exercises.checks", fromlist=["x"]))
        if name.startswith("check_")
    }
    assert set(TASKS) == every, sorted(set(TASKS) ^ every)
    for task in TASKS:
        assert sum(w.task == task for w in WRONG) >= 8, task
        assert sum(r.task == task for r in RIGHT) >= 3, task


def test_every_kind_of_mistake_is_in_the_corpus_wherever_it_can_occur():
    assert set(WHERE) == set(KINDS)
    missing = [
        (kind, task)
        for kind, tasks in WHERE.items()
        for task in tasks
        if not any(w.task == task and kind in w.kinds for w in WRONG)
    ]
    assert not missing, missing


def test_the_answers_are_different_answers():
    names = [(w.task, w.name) for w in WRONG] + [(r.task, r.name) for r in RIGHT]
    assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1]


@pytest.mark.parametrize("answer", tiered(WRONG, RUNS_WHEN_WRONG))
def test_a_wrong_answer_is_rejected_with_the_hint_for_its_mistake(answer):
    ok, printed = verdict(check_of(answer.task), *resolved(answer.answer))
    assert ok is False, printed
    assert printed.count("✘ FAIL:") == 1 and "Traceback" not in printed, printed
    assert all(len(line) <= 80 for line in printed.splitlines()), printed
    assert flat(answer.hint).lower() in hint_of(printed).lower(), printed


@pytest.mark.parametrize("answer", tiered(RIGHT, RUNS_WHEN_RIGHT))
def test_a_right_answer_passes(answer):
    ok, printed = verdict(check_of(answer.task), *resolved(answer.answer))
    assert ok is True and "✔ PASS:" in printed and "FAIL" not in printed, printed
