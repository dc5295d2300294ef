"""Compacting on demand ("/compact <focus>"), judged by the summaries the runs actually produced."""

import pytest

from harness.compaction import ThreeZoneCompaction
from harness.loop import run_agent
from harness.messages import assistant, user
from harness.prompts import compaction_prompt, render
from stage.offline import OfflineModel
from stage.offline.summaries import on_focus, write_summary
from stage.tasks import file_reading_task

FIX = "UPDATE users SET email = lower(email);"


class Recording(OfflineModel):
    """The offline model, keeping a copy of every summary prompt it is sent."""

    def reply(self, system, messages, tools, max_tokens=1024):
        last = messages[-1]["content"] if messages else ""
        if isinstance(last, str) and "<transcript>" in last:
            self.prompts.append(last)
        return super().reply(system, messages, tools, max_tokens)


def go(meter, on_demand, max_words=220, window=20000, tail_turns=0):
    """The class task with the rule said in passing (lap 3), so it can only survive inside a summary."""
    task = file_reading_task(rule_at_lap=3)
    model = Recording(window=window, meter=meter)
    model.prompts = []
    strategy = ThreeZoneCompaction(tail_turns=tail_turns, max_words=max_words, on_demand=on_demand)
    run = run_agent(task.request, model, context=strategy, remarks=task.remarks, max_laps=60)
    return run, model.prompts


def summary_at(run, lap):
    [record] = [r for r in run.laps if r.number == lap]
    assert record.kind == "compact", record.event
    return record.summary


def test_compacts_at_the_chosen_lap_whatever_the_size(meter):
    run, prompts = go(meter, {19: "database decisions"})
    assert [lap.number for lap in run.laps if lap.kind == "compact"] == [19]
    limit = int((20000 - 512) * 0.75)
    assert run.laps[17].assembled_tokens < limit / 1.3  # nowhere near the threshold
    assert run.laps[18].event.endswith("(on demand: focus on database decisions)")
    assert run.laps[18].assembled_tokens < run.laps[17].assembled_tokens / 3
    assert len(prompts) == 1 and "Focus on database decisions first." in prompts[0]
    assert run.stopped == "answered" and run.database_target == "staging"


def test_the_focus_puts_its_facts_first(meter):
    focused = summary_at(go(meter, {19: "database decisions"})[0], 19)
    plain = summary_at(go(meter, {19: ""})[0], 19)
    assert "Focus on" not in "".join(go(meter, {19: ""})[1])  # no focus, no focus line
    for text in (focused, plain):  # a roomy limit: every fact is there
        assert FIX in text and "app/auth.py:40" in text and "app/db.py:25" in text
    assert focused.index(FIX) < focused.index("app/db.py:25") < focused.index("app/auth.py:40")
    assert plain.index("app/auth.py:40") < plain.index(FIX)  # without a focus, the cause leads


def test_under_a_tight_limit_the_focused_facts_survive(meter):
    focused_run, _ = go(meter, {19: "database decisions"}, max_words=45)
    plain_run, _ = go(meter, {19: ""}, max_words=45)
    focused, plain = summary_at(focused_run, 19), summary_at(plain_run, 19)
    assert len(focused.split()) <= 45 and len(plain.split()) <= 45
    assert FIX in focused and "never touch production" in focused
    assert "app/auth.py:40" not in focused and "app/tax.py" not in focused  # the others were cut
    assert FIX not in plain  # the plain summary kept the goal
    # What the agent does next comes from what the summary kept: with the fix in view it gets there sooner.
    assert focused_run.database_target == plain_run.database_target == "staging"
    assert len(focused_run.laps) < len(plain_run.laps)


def test_on_demand_works_beside_the_automatic_threshold(meter):
    run, _ = go(meter, {4: ""}, window=5000, tail_turns=2)
    compactions = [lap for lap in run.laps if lap.kind == "compact"]
    assert compactions[0].number == 4 and compactions[0].event.endswith("(on demand)")
    assert len(compactions) >= 3 and all("on demand" not in lap.event for lap in compactions[1:])
    assert run.database_target == "staging"


def test_bad_on_demand_settings_are_refused():
    for bad in ({0: "x"}, {"8": "x"}, {-2: ""}):
        with pytest.raises(ValueError, match="on_demand"):
            ThreeZoneCompaction(on_demand=bad)


def test_focus_matching_uses_words_and_their_kin():
    assert on_focus("Fix", "migrations/003.sql (pending) — UPDATE users", "database decisions")
    assert on_focus("decisions", "Ran the fix on staging.", "database decisions")
    assert on_focus("Noticed", "app/tax.py:29 — TODO: rounded per line", "the tax rounding")
    assert not on_focus("Cause", "app/auth.py:40 — FIXME: email match", "database decisions")
    assert not on_focus("goal", "Goal: apply the fix to the database", "database decisions")


def test_a_hand_written_transcript_with_a_focus():
    notes = (
        "Task: find the slow page\nNoticed: app/tax.py:29 — TODO: rounding drifts\n"
        "Cause: app/views.py:8 — BUG: page is slow\nNoticed: app/db.py:3 — NOTE: no index on the table"
    )
    transcript = render(
        [user("Find why the page is slow."), assistant([{"type": "text", "text": notes}])]
    )
    ask = compaction_prompt("", max_words=30, focus="the database").split("<transcript>")[0]
    text = write_summary(ask, transcript)
    assert "app/db.py:3" in text and "app/tax.py:29" not in text
