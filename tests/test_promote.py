"""Promotion: a rule moves from a summary, or from the agent's remember tool, into CLAUDE.md -- atomically,
never twice, and never over a file that cannot be read back."""

import os

import pytest

from harness import promote as promote_module
from harness.promote import (
    MemoryFileError,
    append_to_memory,
    normalise,
    promote,
    remember_into,
    standing_constraints,
)
from harness.tools import Toolbox


RULE_LINE = "- Never touch production: run database changes on staging only."


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


SUMMARY = """Goal: Fix the login bug.
Standing constraints:
- Never touch production: run database changes on staging only.
- Do not edit app/billing.py.
Facts:
- Cause: app/auth.py:40 — FIXME: case-sensitive match
Files read: app/auth.py"""


def test_standing_constraints_are_read_off_a_summary():
    assert standing_constraints(SUMMARY) == [
        "Never touch production: run database changes on staging only.",
        "Do not edit app/billing.py.",
    ]
    bold_inline = "**Standing constraints:** Always use staging.\nFacts: x"
    assert standing_constraints(bold_inline) == ["Always use staging."]
    assert standing_constraints("Standing constraints: (none)\nGoal: x") == []
    assert standing_constraints("Summarize briefly: we read 4 files.") == []


def test_promote_appends_without_duplicates(tmp_path):
    same_rule_other_spelling = "-  never touch PRODUCTION: run database changes on staging only"
    notebook = write(tmp_path / "CLAUDE.md", "- Tests: pytest tests/.\n" + same_rule_other_spelling)
    added = promote(SUMMARY, notebook)
    assert added == ["- Do not edit app/billing.py."]
    assert notebook.read_text(encoding="utf-8").splitlines()[-1] == "- Do not edit app/billing.py."
    assert promote(SUMMARY, notebook) == []
    assert notebook.read_text(encoding="utf-8").count("billing") == 1
    assert normalise(" *  Do NOT edit   app/billing.py. ") == "do not edit app/billing.py"


def test_promote_creates_a_missing_notebook(tmp_path):
    notebook = tmp_path / "new/CLAUDE.md"
    promote(SUMMARY, notebook)
    assert notebook.read_text(encoding="utf-8") == RULE_LINE + "\n- Do not edit app/billing.py.\n"


def test_a_non_utf8_notebook_is_never_clobbered(tmp_path):
    notebook = tmp_path / "CLAUDE.md"
    notebook.write_bytes(b"- caf\xe9\n")
    with pytest.raises(MemoryFileError, match="not UTF-8"):
        promote(SUMMARY, notebook)
    assert notebook.read_bytes() == b"- caf\xe9\n"


def test_a_failed_write_leaves_the_original_intact(tmp_path, monkeypatch):
    notebook = write(tmp_path / "CLAUDE.md", "- Tests: pytest tests/.\n")

    def broken_replace(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(promote_module.os, "replace", broken_replace)
    with pytest.raises(MemoryFileError, match="No space left"):
        promote(SUMMARY, notebook)
    assert notebook.read_text(encoding="utf-8") == "- Tests: pytest tests/.\n"
    assert os.listdir(tmp_path) == ["CLAUDE.md"]  # no temporary file left behind


def test_remember_tool_writes_through_the_callback(tmp_path):
    notebook = tmp_path / "CLAUDE.md"
    tools = Toolbox(remember=remember_into(notebook))
    call = {
        "type": "tool_use",
        "id": "t1",
        "name": "remember",
        "input": {"fact": "Use staging.\nAlways."},
    }
    assert tools.run(call)["content"] == "Saved to CLAUDE.md: Use staging. Always."
    assert tools.run({**call, "id": "t2"})["content"].startswith("Already in CLAUDE.md")
    assert notebook.read_text(encoding="utf-8") == "- Use staging. Always.\n"
    notebook.write_bytes(b"\xff\xfe")
    result = tools.run({**call, "id": "t3"})
    assert result.get("is_error") and "not UTF-8" in result["content"]
    assert notebook.read_bytes() == b"\xff\xfe"


def test_append_keeps_a_missing_final_newline_apart(tmp_path):
    notebook = write(tmp_path / "CLAUDE.md", "- First.")
    append_to_memory(notebook, ["Second."])
    assert notebook.read_text(encoding="utf-8") == "- First.\n- Second.\n"
