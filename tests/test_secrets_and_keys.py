"""No key means the offline model, said in one line; a key never leaks anywhere; no notebook holds a key or a local path."""

import re
from pathlib import Path

from harness.loop import run_agent
from stage.claude import ClaudeModel
from stage.offline import OfflineModel
from stage.standin_server import TEST_KEY, error_body
from stage.switch import describe_model, pick_model

REPO = Path(__file__).resolve().parent.parent


# ---- no key, and secrets -------------------------------------------------------------------------


def test_without_a_key_the_offline_model_is_picked_and_named():
    model = pick_model()
    assert isinstance(model, OfflineModel)
    assert "offline model" in describe_model(model) and "ANTHROPIC_API_KEY" in describe_model(model)


def test_the_key_never_leaks_into_laps_transcripts_or_errors(server, tmp_path, capsys):
    server.push_text("Hello.")
    path = tmp_path / "t.jsonl"
    run = run_agent("Say hello.", ClaudeModel(), transcript=path, on_lap=print)
    server.push(401, error_body("authentication_error", f"invalid x-api-key {TEST_KEY}"))
    failed = run_agent("Say hello.", ClaudeModel(max_retries=0))
    seen = [
        repr(run.laps),
        path.read_text(),
        capsys.readouterr().out,
        failed.problem,
        repr(failed.laps),
    ]
    assert run.stopped == "answered" and failed.stopped == "model_error"
    assert not any(TEST_KEY in text for text in seen)


SECRET = re.compile(r"sk-ant-[A-Za-z0-9_-]{8,}|/(?:root|home/\w+|work/main|tmp/\w+)/")


def test_no_committed_notebook_holds_a_key_or_a_local_path():
    notebooks = [
        p
        for p in REPO.rglob("*.ipynb")
        if ".venv" not in p.parts and ".ipynb_checkpoints" not in p.parts
    ]
    for path in notebooks:
        found = SECRET.findall(path.read_text(encoding="utf-8"))
        assert not found, f"{path.relative_to(REPO)} holds {found[:3]}"
