"""The transcript: the raw history on disk as the run goes, read back whole, a bad line named, and a
session that goes on continues its file instead of repeating it."""

import json

import pytest

from harness.loop import run_agent
from harness.messages import user
from harness.transcript import Transcript, load_transcript
from stage.offline import OfflineModel
from stage.resume import resume_agent


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


def test_each_line_says_its_lap_and_is_on_disk_at_once(tmp_path):
    path = tmp_path / "run.jsonl"
    file = Transcript(path)
    file.write(user("Find the bug."), lap=0)
    assert json.loads(path.read_text()) == {"lap": 0, "message": user("Find the bug.")}  # flushed
    file.close()


def test_a_session_that_goes_on_continues_its_file_without_repeating_it(task, tmp_path):
    path = tmp_path / "run.jsonl"
    first = run_agent(task.request, OfflineModel(window=20000), transcript=path, max_laps=3)
    saved = load_transcript(path)
    assert saved == json.loads(json.dumps(first.history))
    later = resume_agent(saved, OfflineModel(window=20000), transcript=path, max_laps=3)
    assert load_transcript(path) == json.loads(json.dumps(later.history))  # no message twice
    assert len(later.history) == len(saved) + 6  # three more laps: a reply and results each


def test_a_file_of_another_session_is_appended_to_not_rewritten(task, tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps({"lap": 0, "message": user("Another task.")}) + "\n")
    run = run_agent(task.request, OfflineModel(window=20000), transcript=path, max_laps=2)
    assert load_transcript(path) == [user("Another task.")] + json.loads(json.dumps(run.history))
