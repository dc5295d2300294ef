"""Sub-agents: the parent's desk grows by short reports, not by the files its sub-agents read."""

from harness.context import FullHistory
from harness.loop import run_agent
from harness.tools import Toolbox
from stage.claude import ClaudeModel
from stage.offline import OfflineModel
from stage.offline.findings import facts_in_report
from stage.subagent import DelegatingToolbox, measure_delegation, report_of
from stage.tasks import GOAL, file_reading_task


def test_the_parents_desk_stays_small_when_it_delegates(meter):
    measure = measure_delegation(
        file_reading_task().request, lambda: OfflineModel(window=20000, meter=meter)
    )
    alone, delegated = measure.alone, measure.delegated
    assert alone.stopped == delegated.stopped == "answered"
    assert measure.peak_delegated * 4 < measure.peak_alone  # about 1,300 against about 10,400
    assert (
        delegated.database_target == alone.database_target == "staging"
    )  # the rule is in its request
    assert "Cause: app/auth.py:40" in delegated.final
    # The parent read nothing itself; its sub-agents read exactly the files it would have read.
    assert delegated.files_read == []
    assert sorted(p for child in measure.children for p in child.files_read) == sorted(
        alone.files_read
    )
    assert [c.history[0]["content"] for c in measure.children] == [
        "Read every file under app/ and report what you notice.",
        "Read every file under migrations/ and report what you notice.",
    ]
    assert "parent + 2 sub-agents" in measure.table()


def test_the_parent_obeys_only_the_rules_it_can_see(meter):
    box = DelegatingToolbox(OfflineModel(window=20000, meter=meter))
    run = run_agent(
        GOAL, OfflineModel(window=20000, meter=meter), tools=box
    )  # no rule in the request
    assert run.database_target == "production" and len(box.child_runs) == 2


def test_delegation_finishes_a_task_that_overflows_alone(meter):
    measure = measure_delegation(
        file_reading_task().request, lambda: OfflineModel(window=5000, meter=meter)
    )
    assert measure.alone.stopped == "overflow"
    assert (
        measure.delegated.stopped == "answered" and measure.delegated.database_target == "staging"
    )
    app = measure.children[0]  # 14 files do not fit a 5,000-token desk either...
    assert any(lap.kind == "compact" for lap in app.laps)  # ...so the sub-agent compacts its own
    assert all(lap.assembled_tokens < 5000 for child in measure.children for lap in child.laps)


def test_child_runs_keep_their_lap_records_for_the_dashboard(meter):
    model = OfflineModel(window=20000, meter=meter)
    box = DelegatingToolbox(model, child_context=FullHistory)
    run_agent(file_reading_task().request, model, tools=box, context=FullHistory())
    for child in box.child_runs:
        assert child.stopped == "answered" and child.laps
        assert [lap.number for lap in child.laps] == list(range(1, len(child.laps) + 1))
        assert child.laps[-1].assembled_tokens > child.laps[0].assembled_tokens


def test_a_small_scope_is_read_without_help(meter):
    goal = "Find the pending fix in migrations/ and report it."
    box = DelegatingToolbox(OfflineModel(window=20000, meter=meter))
    run = run_agent(goal, OfflineModel(window=20000, meter=meter), tools=box)
    assert box.child_runs == [] and run.files_read


def test_a_sub_agent_task_ends_with_a_report_of_fact_lines(meter):
    run = run_agent(
        "Read every file under migrations/ and report what you notice.",
        OfflineModel(window=8000, meter=meter),
    )
    assert run.stopped == "answered"
    assert (
        "Files read: migrations/001_create_users.sql, migrations/002_create_invoices.sql, "
        "migrations/003_lowercase_emails.sql"
    ) in run.final
    assert (
        "Fix: migrations/003_lowercase_emails.sql (pending) — UPDATE users SET email = lower(email);"
        in run.final
    )
    report = report_of(run)
    assert (
        report.startswith("Sub-agent report (answered after") and report.count("Files read:") == 1
    )


def test_the_parent_judges_reported_lines_against_its_own_goal():
    report = (
        "Noticed: app/auth.py:40 — FIXME: exact, case-sensitive email match\n"
        "Noticed: app/db.py:25 — NOTE: first row skipped\nFix: m/003.sql (pending) — UPDATE t;"
    )
    assert [kind for kind, _ in facts_in_report(report, GOAL)] == ["Cause", "Noticed", "Fix"]


def test_delegation_works_on_another_codebase(tmp_path):
    """No folder named in the goal: it hands out the top-level folders, then reads the loose file itself."""
    for folder in ("svc", "lib"):
        (tmp_path / folder).mkdir()
        for i in range(4):
            (tmp_path / folder / f"m{i}.py").write_text(f"x = {i}\n")
    (tmp_path / "NOTES.md").write_text("Nothing here.\n")
    (tmp_path / "main.py").write_text("rows = rows[1:]  # BUG: the export drops the first row\n")
    model = OfflineModel(window=20000)
    box = DelegatingToolbox(model, root=tmp_path)
    run = run_agent("The export drops the first row. Find the cause.", model, tools=box)
    assert [c.history[0]["content"].split()[4] for c in box.child_runs] == ["lib/", "svc/"]
    assert run.files_read == ["NOTES.md", "main.py"] and "Cause: main.py:1" in run.final


def test_a_bad_delegation_comes_back_as_an_error_result(meter):
    box = DelegatingToolbox(OfflineModel(window=300, meter=meter))
    empty = box.run({"id": "t1", "name": "delegate", "input": {"task": "  "}})
    assert empty["is_error"] and "needs a task" in empty["content"]
    huge = box.run(
        {
            "id": "t2",
            "name": "delegate",
            "input": {"task": "Read every file under app/ and report. " * 80},
        }
    )
    assert huge["is_error"] and "could not start" in huge["content"]
    assert isinstance(box, Toolbox) and box.child_runs == []


def test_a_claude_parent_delegates_to_a_claude_child(server):
    """Through the real SDK and the local stand-in: the child starts from its task alone."""
    server.push_tool_use(
        "delegate", {"task": "Read every file under migrations/ and report."}, tool_id="toolu_d"
    )
    server.push_text(
        "Fix: migrations/003_lowercase_emails.sql (pending) — UPDATE users SET email = lower(email);"
    )
    server.push_text("Done.")
    model = ClaudeModel(max_retries=0)
    box = DelegatingToolbox(model)
    run = run_agent("Find the pending fix.", model, tools=box)

    parent_first, child, parent_last = (r["body"] for r in server.requests)
    assert "delegate" in [t["name"] for t in parent_first["tools"]]
    assert child["messages"] == [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "cache_control": {"type": "ephemeral"},
                    "text": "Read every file under migrations/ and report.",
                }
            ],
        }
    ]
    assert "delegate" not in [t["name"] for t in child["tools"]]  # no sub-agents of sub-agents
    report = parent_last["messages"][-1]["content"][0]["content"]
    assert (
        report.startswith("Sub-agent report (answered after 1 lap):")
        and "Files read: none" in report
    )
    assert run.final == "Done." and len(box.child_runs) == 1
