"""Faults from the API and from the summary call: a clean stop or a bounded retry, never a loop, nothing lost."""

import json

import pytest

from harness.compaction import ThreeZoneCompaction
from harness.loop import run_agent
from harness.messages import assistant, pair_problems, user
from harness.model import ContextOverflow, ModelError
from harness.running_summary import RunningSummary
from stage.claude import ClaudeModel
from stage.resume import resume_agent
from stage.offline import OfflineModel, summary_request
from stage.standin_server import error_body
from stage.tasks import file_reading_task

TOO_LONG = error_body("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")


def some_turns(n=6):
    """A history of n finished read turns (a request, then tool call / result pairs)."""
    history = [user(file_reading_task().request)]
    for i in range(n):
        call = {
            "type": "tool_use",
            "id": f"t{i}",
            "name": "read_file",
            "input": {"path": f"app/f{i}.py"},
        }
        history += [
            assistant(
                [{"type": "text", "text": f"Task: x\nNoticed: app/f{i}.py:1 — NOTE: n{i}"}, call]
            ),
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"t{i}", "content": "x = 1\n" * 50}
                ],
            },
        ]
    return history


# ---- faults from the API, through the real SDK ------------------------------------------------


def test_prompt_too_long_on_a_normal_lap_compacts_and_retries_once(server):
    server.push(400, TOO_LONG)  # the provider counts more than we did
    server.push_text(
        "Goal: find the bug.\nStanding constraints:\n- Never touch production."
    )  # the summary
    server.push_text("All done.")  # the retried lap
    run = resume_agent(some_turns(), ClaudeModel(max_retries=0), context=ThreeZoneCompaction())
    assert run.stopped == "answered" and run.final == "All done."
    assert run.laps[0].kind == "compact" and run.laps[0].summary_calls == 1
    retried = server.requests[2]["body"]["messages"]
    assert "Never touch production" in json.dumps(retried) and len(retried) < len(some_turns())
    assert pair_problems(retried) == []


def test_prompt_too_long_twice_stops_clearly(server):
    server.push(400, TOO_LONG)
    server.push_text("Goal: find the bug.")
    server.push(400, TOO_LONG)
    run = resume_agent(some_turns(), ClaudeModel(max_retries=0), context=ThreeZoneCompaction())
    assert run.stopped == "overflow" and "210,000 tokens" in run.problem
    assert len(server.requests) == 3  # no compaction loop


def test_busy_service_is_a_clean_stop_with_advice(server):
    for _ in range(3):
        server.push(
            529,
            error_body("overloaded_error", "Overloaded"),
            {"retry-after": "0", "retry-after-ms": "1"},
        )
    run = run_agent("Do it.", ClaudeModel(max_retries=2))
    assert run.stopped == "model_error" and "busy" in run.problem and "offline model" in run.problem


# ---- the summary call itself ---------------------------------------------------------------------


class SummaryTrouble(OfflineModel):
    """The offline model, except that summary calls misbehave in a chosen way."""

    def __init__(self, trouble, limit=0, **kw):
        super().__init__(window=5000, **kw)
        self.trouble, self.limit, self.summary_calls = trouble, limit, 0

    def reply(self, system, messages, tools, max_tokens=1024):
        if summary_request(messages):
            self.summary_calls += 1
            size = self.meter.total(messages)
            if self.trouble == "too long" and size > self.limit:
                raise ContextOverflow(size, self.limit)
            if self.trouble == "fails":
                raise ModelError("The summary call failed: server error.")
            if self.trouble == "empty":
                from harness.model import Reply

                return Reply(
                    [{"type": "text", "text": "  "}],
                    "end_turn",
                    {"input_tokens": size, "output_tokens": 0},
                )
        return super().reply(system, messages, tools, max_tokens)


def test_a_summary_call_that_is_too_long_is_done_in_pieces():
    task = file_reading_task(rule_at_lap=3)
    model = SummaryTrouble("too long", limit=1500)
    run = run_agent(
        task.request, model, context=ThreeZoneCompaction(), remarks=task.remarks, max_laps=80
    )
    pieces = [lap for lap in run.laps if "pieces" in lap.event]
    assert pieces and all(lap.summary_calls >= 2 for lap in pieces)
    assert run.stopped == "answered" and run.database_target == "staging"


@pytest.mark.parametrize("trouble", ["fails", "empty"])
def test_a_failing_summary_leaves_history_alone_then_stops(trouble):
    task = file_reading_task()
    model = SummaryTrouble(trouble)
    run = run_agent(task.request, model, context=ThreeZoneCompaction(max_failures=3), max_laps=80)
    failed = [lap for lap in run.laps if lap.kind == "summary_failed"]
    assert len(failed) == 3 and model.summary_calls == 3  # a circuit breaker, not a loop
    assert run.stopped in ("compaction_failed", "overflow")
    assert all(lap.summary is None for lap in run.laps)  # an empty summary was never accepted
    if run.stopped == "compaction_failed":
        assert "3 times in a row" in run.problem and "intact" in run.problem
    assert run.history[0] == user(task.request) and pair_problems(run.history) == []


def test_running_summary_survives_a_failed_fold():
    task = file_reading_task()
    run = run_agent(
        task.request, SummaryTrouble("fails"), context=RunningSummary(max_failures=2), max_laps=80
    )
    assert run.stopped == "compaction_failed" and "Stopping instead of looping" in run.problem
