"""What a run leaves: lap records whose words (``Did``, ``Stopped``) are plain strings too, the run's
rereads, and the records kept while the loop runs (each message counted once, remarks joined)."""

import json

import pytest

from harness.laps import Did, Lap, Records, Run, Stopped
from harness.messages import assistant, user
from harness.tokens import Meter
from harness.tools import Toolbox


def test_the_words_compare_equal_to_plain_strings_and_save_as_them():
    lap = Lap(1, 100, 100, kind="compact")
    assert lap.kind is Did.COMPACT and lap.kind == "compact" and f"{lap.kind}" == "compact"
    assert json.dumps({"stopped": Stopped.ANSWERED}) == '{"stopped": "answered"}'
    assert Did.COMPACT.summarized and Did.FOLD.summarized and not Did.CLEAR.summarized


def test_an_unknown_word_is_refused():
    with pytest.raises(ValueError):
        Lap(1, 100, 100, kind="compacted")


def test_rereads_are_the_files_read_again():
    box = Toolbox()
    box.reads = ["a", "b", "a", "c", "b", "a"]
    assert Run([], [], box).rereads == ["a", "b", "a"]


def test_records_count_each_message_once_and_join_a_remark_to_its_laps_results():
    meter, run = Meter("chars4"), Run([], [], Toolbox())
    records = Records(
        run,
        meter=meter,
        system="",
        tools=[],
        window=5000,
        remarks={1: "Be brief."},
        on_lap=None,
        transcript=None,
    )
    history = [user("Find the bug.")]
    records.take_in(history)
    lap = records.open_lap()
    call = {"type": "tool_use", "id": "t1", "name": "list_files", "input": {}}
    history += [
        assistant([call]),
        user([{"type": "tool_result", "tool_use_id": "t1", "content": "a.py"}]),
    ]
    records.take_in(history)
    records.take_in(history)  # a second look adds nothing
    assert history[2]["content"][-1] == {"type": "text", "text": "Be brief."}
    assert records.raw == sum(meter.count(m) for m in history) and lap.raw_tokens == meter.count(
        history[0]
    )
    records.close_lap()
    assert run.laps == [lap]
