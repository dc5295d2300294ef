"""Recalled notes: many small memory files, and only the few that share words with the request are loaded."""

from benchmarks.two_sessions import jot_notes, session_one
from harness.memory import load_memory, system_prompt
from harness.notes import memory_costs, recall, write_note
from stage.tasks import GOAL


RULE_LINE = "- Never touch production: run database changes on staging only."


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def only_project(path, meter, **options):
    return load_memory(user=None, project=path, local=None, meter=meter, **options)


def test_recall_pulls_only_the_relevant_notes(tmp_path, meter):
    notes = tmp_path / "notes"
    write_note(
        notes, "Email login bug", "app/auth.py:40 compares email addresses case-sensitively."
    )
    write_note(notes, "Tax rounding", "Tax is rounded per line, so long invoices drift by a cent.")
    write_note(notes, "Export off by one", "The export skips its first row.")
    (notes / "broken.md").write_bytes(b"\xff email")
    found = recall(notes, "Users whose emails contain capitals cannot log in.", k=3)
    assert [n.path.name for n in found] == ["email-login-bug.md"]
    assert recall(notes, "Deploy the frontend.") == []
    memory = only_project(write(tmp_path / "CLAUDE.md", RULE_LINE), meter)
    costs = memory_costs(memory, notes, "Users whose emails cannot log in.", meter=meter)
    assert 0 < costs["recalled"] < costs["all notes"]
    assert costs["always loaded"] == memory.tokens_per_lap
    assert costs["recalled notes"] == ["email-login-bug.md"]
    assert "email addresses" in system_prompt(memory, recalled=found)


def test_notes_jotted_in_session_one_are_recalled_for_session_two(tmp_path, meter):
    run, _ = session_one(tmp_path / "CLAUDE.md", meter=meter)
    assert jot_notes(run, tmp_path / "notes") >= 3
    names = [n.path.name for n in recall(tmp_path / "notes", GOAL, k=2)]
    assert any(name.startswith("cause") for name in names) and any(
        name.startswith("fix") for name in names
    )
