"""Sentences about a finished run, computed from its lap records -- so a notebook never states an outcome
the model did not produce.

A lesson's prose may say what the offline model *usually* does; what *this* run did (with the offline model,
with Claude, with any model) is printed by these functions:

* ``how_it_ended(run)``            -- "It answered at lap 20." / "It hit the wall at lap 10: ..."
* ``where_the_fix_went(run, rule)`` -- "The fix went to staging, with the rule on the desk at that lap."
* ``what_became_of(rule, run)``    -- "The rule was on every desk." / "The rule left the desk at lap 7."
* ``what_became_of_decision(decision, run)`` -- which of two pending fixes it ran, and whether its summaries
  carried the user's choice.

Left out: judging whether an answer is *right*; these say what happened, not whether it was wise.
"""

from __future__ import annotations

from pathlib import Path

from harness.laps import Lap, Run
from harness.messages import block_text, call_words, text_of, tool_results, tool_uses
from stage.plots import where_on_desk


def how_it_ended(run: Run) -> str:
    """One sentence on why the run stopped. Example: -> "It hit the wall at lap 10: Context overflow: ..." """
    last = len(run.laps)
    if run.stopped == "answered":
        return f"It answered at lap {last}" + (
            " without calling a single tool." if last == 1 else "."
        )
    if run.stopped == "overflow":
        return f"It hit the wall at lap {last}: the request no longer fit the window, and the run stopped mid-task."
    if run.stopped == "compaction_failed":
        why = run.problem.split(". ")[0].rstrip(
            "."
        )  # "The summary call failed 3 times in a row (...)"
        return f"It stopped at lap {last}: {why[:1].lower()}{why[1:]}."
    if run.stopped == "piece_failed":
        return f"It stopped at lap {last} because a piece the class wrote failed: {run.problem}"
    if run.stopped == "max_laps":
        return f"It was still working when the lap limit ended the run, after {last} laps, with no final answer."
    return f"It stopped at lap {last} ({run.stopped}): {run.problem}"


def fix_lap(run: Run) -> Lap | None:
    """The lap whose SQL is the one on record (the last statement the toolbox accepted), or None."""
    if not run.toolbox.sql_log:
        return None
    target = run.toolbox.sql_log[-1]["target"]
    return next(
        (
            lap
            for lap in reversed(run.laps)
            if any(
                a.startswith(f"run_sql {target} ") or a == f"run_sql {target}" for a in lap.actions
            )
        ),
        None,
    )


def where_the_fix_went(run: Run, rule: str | None = None) -> str:
    """Where the SQL went and, given the rule, whether the rule was in view when it did.

    Example: -> "The fix went to production (flagged), at lap 24; the rule was not on that lap's desk."
    """
    if not run.toolbox.sql_log:
        return "No fix was applied: the agent never ran any SQL."
    entry, lap = run.toolbox.sql_log[-1], fix_lap(run)
    flag = " (flagged)" if entry["flagged"] else ""
    sentence = f"The fix went to {entry['target']}{flag}" + (
        f", at lap {lap.number}" if lap else ""
    )
    if rule is None or lap is None:
        return sentence + "."
    zone = where_on_desk(lap, rule)
    return sentence + (
        f"; the rule was on that lap's desk (in the {zone})."
        if zone
        else "; the rule was not on that lap's desk."
    )


def what_became_of(rule: str, run: Run) -> str:
    """Whether ``rule`` stayed on the desk. Example: -> "The rule was on the desk from lap 1; it left at lap 7." """
    on = [lap.number for lap in run.laps if where_on_desk(lap, rule)]
    if not run.laps:
        return "No lap ran, so no desk was sent."
    if not on:
        return "The rule was on none of the desks sent."
    if len(on) == len(run.laps):
        return "The rule was on every desk sent."
    gone = [lap.number for lap in run.laps if lap.number > on[0] and lap.number not in on]
    sentence = f"The rule was on the desk from lap {on[0]}"
    if not gone:
        return sentence + " to the end."
    back = any(n > gone[0] for n in on)
    return (
        sentence
        + f"; it left at lap {gone[0]}"
        + (", and came back later." if back else " and never came back.")
    )


def what_became_of_decision(decision, run: Run) -> str:
    """Which fix the run applied, against the user's choice (``stage.tasks.Decision``), and how many of its
    summaries named the choice. Example: -> "It ran the fix the user had ruled out
    (003_lowercase_emails.sql); 0 of 3 summaries kept the decision." """
    log = getattr(run.toolbox, "sql_log", None) or []
    summaries = [lap.summary or "" for lap in run.laps if lap.kind == "compact"]
    chosen, passed = Path(decision.chosen).name, Path(decision.passed_over).name
    kept = sum(f"apply {chosen}" in summary for summary in summaries)
    held = f"{kept} of {len(summaries)} summar{'y' if len(summaries) == 1 else 'ies'} kept the decision."
    if not log:
        return f"It ran no fix; {held}"
    statement = log[-1]["statement"]
    if statement == decision.chosen_statement:
        return f"It ran the fix the user chose ({chosen}); {held}"
    if statement == decision.passed_over_statement:
        return f"It ran the fix the user had ruled out ({passed}); {held}"
    return f"It ran a statement of its own, neither pending fix; {held}"


def one_line(message: dict, width: int = 72) -> str:
    """A message in one line: the tools it calls, the result it carries, or the start of its text.

    The words are the harness's (``harness.messages``): ``call_words`` for a call, as the lap
    records show it; ``block_text`` for a result; ``text_of`` for anything else.
    Example: -> "calls read_file app/auth.py" / "result, 61 lines: 1  from app.db import ..."
    """
    calls = tool_uses(message)
    if calls:
        return "calls " + ", ".join(call_words(call) for call in calls)
    results = tool_results(message)
    if results:
        lines = block_text(results[0]).splitlines() or [""]
        return f"result, {len(lines)} lines: " + " ".join(lines[0].split())[: max(10, width - 24)]
    first = (text_of(message).strip().splitlines() or [""])[0]
    return first if len(first) <= width else first[:width] + "..."
