"""Every mutant of a solution that changes what it does is rejected by its task's check.

``tests/mutants.py`` makes every one-point change to a solution's answer lines (a comparison turned,
an off-by-one, a dropped condition or statement, min for max, ...). Each mutant goes through the
task's check: it must FAIL, unless it is listed below as equivalent -- a change that no right input
can tell from the solution -- with the reason why. A mutant that survives and is not listed is a gap
in the check (or a new equivalent mutant: then add it here, with its reason). No mutant, whatever it
does, may make the check itself raise.

The kill rate of each task is printed (``pytest -s``); the lead's report quotes it. Integration tier:
the survivors run their whole check, a minute or two in all.
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import pytest
from exercise_answers import load_solutions
from mutants import mutants

from exercises import checks

TASKS = [  # (task, solution notebook, function)
    ("tokens_of", "01_the_desk", "tokens_of"),
    ("smallest_window", "01_the_desk", "smallest_window"),
    ("sliding_window", "02_sliding_window", "sliding_window"),
    ("first_lap_without", "02_sliding_window", "first_lap_without"),
    ("pinned_window", "02_sliding_window", "pinned_window"),
    ("remarks_window", "02_sliding_window", "remarks_window"),
    ("split_zones", "03_three_zones", "split_zones"),
    ("compact", "03_three_zones", "compact"),
    ("running_summary", "04_running_summary", "running_summary"),
    ("token_bill", "04_running_summary", "token_bill"),
    ("cheapest_settings", "04_running_summary", "cheapest_settings"),
    ("promote", "05_memory", "promote"),
]

# (task, where) -> why no right input tells the mutant from the solution.
EQUIVALENT = {
    ("tokens_of", "line 11: FloorDiv -> Div"): "chars / 4 as a float is allowed: the rule is "
    "'within one token of chars/4', and // only rounds it down",
    ("smallest_window", "line 9: .assembled_tokens -> .raw_tokens"): "the laps are a FullHistory "
    "run's: what it sent each lap is its whole raw history",
    ("smallest_window", "line 9: .assembled_tokens -> .billed_input"): "a FullHistory lap makes no "
    "summary call, so what it was billed is what it sent",
    ("pinned_window", "line 10: 0 -> -1"): "head is messages[:1], so head[-1] is head[0]",
    ("remarks_window", "line 16: 0 -> -1"): "head is messages[:1], so head[-1] is head[0]",
    ("remarks_window", "line 19: 1 -> 2"): "the cut at 1 drops nothing yet adds a notice, so its "
    "desk is bigger than the whole history, which did not fit: it is never taken",
    ("remarks_window", "line 19: 1 -> 0"): "the cut at 0 sends the request twice and a notice: "
    "bigger than the whole history, never taken",
    ("remarks_window", "line 22: slice lower + 1"): "messages[1] is always the model's reply (a "
    "history alternates, starting with the request), so it holds nothing the user wrote",
    ("remarks_window", "line 22: 1 -> 2"): "the same: messages[1] is the model's reply",
    ("remarks_window", "line 27: '\\nThe user said ear -> ''"): "the notice's own words are free: "
    "it starts with DROPPED_NOTICE and carries the remarks, with or without a preamble",
    ("remarks_window", "line 27: ' ' -> ''"): "the remarks still stand word for word and in order; "
    "what goes between them is free",
    ("cheapest_settings", "line 16: Lt -> LtE"): "on a tie either pair is the cheapest: the rule "
    "asks for the fewest tokens, not for the first pair that has them",
    (
        "promote",
        "line 15: assign dropped",
    ): "summary lines hold no outer spaces (the task's bullets "
    "start with '- ', and indented ones are left out of it)",
    ("promote", "line 15: .strip() dropped"): "the same: no outer spaces on a summary's lines",
    ("promote", "line 24: .strip() dropped"): "memory lines hold no outer spaces in any case, so "
    "stripping them changes nothing",
    ("promote", "line 25: .strip() dropped"): "a bullet is '- ' and its words: nothing to strip",
    ("promote", "line 25: 2 -> 1"): "r[1:] is ' ' + the rule, and .strip() takes the space off",
    ("promote", "line 29: And -> Or"): "it writes a newline first into an empty or new file: a "
    "blank line, which memory ignores",
    ("promote", "line 30: '\\n' -> ''"): "the file no longer ends with a newline: nothing is lost, "
    "and the next promote starts on a new line itself",
}


@pytest.mark.integration  # every mutant runs its task's check
@pytest.mark.parametrize("task, notebook, function", TASKS, ids=[t[0] for t in TASKS])
def test_every_mutant_that_changes_behaviour_is_rejected(task, notebook, function):
    load_solutions()
    check = getattr(checks, f"check_{task}")
    found = mutants(task, notebook, function)
    assert found, f"no mutants of {function}: the mutator found nothing to change"
    survivors, crashed = [], []
    for mutant in found:
        with redirect_stdout(io.StringIO()) as out:
            passed = check(mutant.function)
        if passed:
            survivors.append(mutant.where)
        if "could not finish" in out.getvalue():  # the check itself broke on this answer
            crashed.append(mutant.where)
    assert not crashed, f"the check raised on mutants {crashed}"
    listed = {where for (t, where) in EQUIVALENT if t == task}
    killed = len(found) - len(survivors)
    print(
        f"\n{task}: {killed} of {len(found)} mutants rejected; "
        f"{len(survivors)} equivalent ({', '.join(survivors) or 'none'})"
    )
    assert not set(survivors) - listed, f"mutants the check lets through: {set(survivors) - listed}"
    assert not listed - set(survivors), (
        f"listed as equivalent but rejected now (take them off the list): {listed - set(survivors)}"
    )
