"""The bare loop: laps, the bill, the transcript that keeps everything, and clean stops."""

import json

import pytest

from harness.context import FullHistory
from harness.transcript import load_transcript
from harness.loop import run_agent
from harness.model import ModelError, Reply
from stage.offline import OfflineModel


def test_full_run_answers_with_a_lap_record_per_lap(task, meter):
    laps = []
    run = run_agent(task.request, OfflineModel(window=20000, meter=meter), on_lap=laps.append)
    assert run.stopped == "answered"
    assert laps == run.laps and [lap.number for lap in laps] == list(range(1, len(laps) + 1))
    assert all(a.raw_tokens < b.raw_tokens for a, b in zip(laps, laps[1:]))  # the desk only grows
    assert all(lap.raw_tokens == lap.assembled_tokens for lap in laps)  # nothing managed
    assert laps[-1].total_input == sum(lap.billed_input for lap in laps)
    assert laps[0].actions == ["list_files"]
    assert run.database_target == "staging"


def test_the_bill_grows_quadratically_without_management(task, meter):
    """Each lap re-sends everything: the bill is the sum of the desk sizes, lap after lap."""
    run = run_agent(task.request, OfflineModel(window=20000, meter=meter))
    assert run.laps[-1].total_input == sum(lap.assembled_tokens for lap in run.laps)


def test_overflow_stops_cleanly_and_keeps_the_history(task, meter):
    run = run_agent(task.request, OfflineModel(window=5000, meter=meter), context=FullHistory())
    assert run.stopped == "overflow"
    assert run.laps[-1].kind == "overflow" and "5,000-token window" in run.problem
    assert len(run.history) == 2 * (len(run.laps) - 1) + 1  # every finished lap is still there


def test_transcript_is_written_as_it_goes_and_reads_back(task, meter, tmp_path):
    path = tmp_path / "run.jsonl"
    run = run_agent(
        task.request, OfflineModel(window=20000, meter=meter), transcript=path, max_laps=5
    )
    assert run.stopped == "max_laps" and len(run.laps) == 5
    assert load_transcript(path) == json.loads(json.dumps(run.history))


def test_a_malformed_transcript_line_is_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"lap": 0, "message": {"role": "user", "content": "hi"}}\nnot json\n')
    with pytest.raises(ValueError, match="line 2"):
        load_transcript(path)


def test_remarks_arrive_with_the_tool_results(task, meter):
    run = run_agent(
        task.request,
        OfflineModel(window=20000, meter=meter),
        remarks={2: "By the way: hello."},
        max_laps=3,
    )
    carried = run.history[4]["content"]
    assert carried[0]["type"] == "tool_result" and carried[-1] == {
        "type": "text",
        "text": "By the way: hello.",
    }


def test_a_model_error_stops_with_its_message(task):
    class Broken:
        name, window = "broken", 1000

        def reply(self, *a, **k):
            raise ModelError("The server could not be reached.")

    run = run_agent(task.request, Broken())
    assert run.stopped == "model_error" and "could not be reached" in run.problem
    assert len(run.history) == 1 and run.laps[0].model_calls == 0


def test_max_laps_must_be_positive(task, offline_model):
    with pytest.raises(ValueError, match="max_laps"):
        run_agent(task.request, offline_model, max_laps=0)


def test_a_text_reply_ends_the_run(task):
    class Polite:
        name, window = "polite", 1000

        def reply(self, *a, **k):
            return Reply(
                [{"type": "text", "text": "All done."}],
                "end_turn",
                {"input_tokens": 5, "output_tokens": 2},
            )

    run = run_agent(task.request, Polite())
    assert run.stopped == "answered" and run.final == "All done." and len(run.laps) == 1
