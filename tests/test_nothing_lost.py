"""Nothing lost: the transcript is written as the loop runs, survives a kill, and a session resumes from it."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.transcript import load_transcript
from harness.loop import run_agent
from stage.offline import OfflineModel

REPO = Path(__file__).resolve().parent.parent


# ---- nothing lost ------------------------------------------------------------------------------

SLOW_RUN = """
import sys, time
from stage.offline import OfflineModel
from harness.loop import run_agent
from stage.tasks import file_reading_task
class Slow(OfflineModel):
    def reply(self, *a, **k):
        time.sleep(0.15)
        return super().reply(*a, **k)
run_agent(file_reading_task().request, Slow(window=20000), transcript=sys.argv[1])
"""


@pytest.mark.integration  # kills a real process
def test_killing_the_process_mid_run_leaves_a_readable_transcript_that_resumes(tmp_path):
    path = tmp_path / "run.jsonl"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_RUN, str(path)], cwd=REPO)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and (
            not path.exists() or len(path.read_text().splitlines()) < 7
        ):
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    saved = load_transcript(path)
    assert len(saved) >= 7 and saved[0]["role"] == "user"
    if (
        saved[-1]["role"] == "assistant"
    ):  # killed between the call and its results: drop the half lap
        saved = saved[:-1]
    run = run_agent("", OfflineModel(window=20000), resume=saved, transcript=path)
    assert run.stopped == "answered" and run.database_target == "staging"
    assert load_transcript(path)[: len(saved)] == saved
