"""Memory: loading CLAUDE.md (levels, imports, bad input), its cost, promotion, recall, two sessions.

Every test passes explicit temporary paths: the real home folder is never read.
"""

import pytest

from benchmarks.two_sessions import session_one, session_two, two_sessions
from harness.compaction import ThreeZoneCompaction
from harness.loop import run_agent
from harness.memory import MEMORY_HEADER, imports_in, load_memory, system_prompt
from harness.promote import (
    promote,
)
from harness.prompts import SYSTEM_PROMPT
from harness.tokens import Meter
from harness.tools import WORKSPACE
from stage.offline import OfflineModel
from stage.tasks import file_reading_task

RULE_LINE = "- Never touch production: run database changes on staging only."


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def only_project(path, meter, **options):
    return load_memory(user=None, project=path, local=None, meter=meter, **options)


# ---- loading ---------------------------------------------------------------------------------


def test_levels_load_in_order_user_project_local(tmp_path, meter):
    user = write(tmp_path / "home/.claude/CLAUDE.md", "- I like short answers.")
    project = write(tmp_path / "repo/CLAUDE.md", "- Tests: pytest tests/.")
    local = write(tmp_path / "repo/CLAUDE.local.md", "- My staging URL is local.")
    memory = load_memory(user=user, project=project, local=local, meter=meter)
    assert [f.level for f in memory.files] == ["user", "project", "local"]
    assert [f.path for f in memory.files] == [user, project, local]
    assert memory.messages == []
    text = memory.text
    assert text.startswith(MEMORY_HEADER)
    assert text.index("short answers") < text.index("pytest") < text.index("staging URL")
    assert all(f.tokens > 0 for f in memory.files)
    assert memory.tokens_per_lap > sum(f.tokens for f in memory.files)


def test_missing_files_are_fine_and_said_once(tmp_path, meter):
    memory = load_memory(
        user=tmp_path / "none/CLAUDE.md",
        project=tmp_path / "CLAUDE.md",
        local=tmp_path / "CLAUDE.local.md",
        meter=meter,
    )
    assert memory.files == [] and memory.tokens_per_lap == 0
    assert len(memory.messages) == 3 and all("nothing loaded" in m for m in memory.messages)
    assert system_prompt(memory) == SYSTEM_PROMPT


def test_default_user_file_is_under_home(tmp_path, monkeypatch, meter):
    monkeypatch.setenv("HOME", str(tmp_path))
    write(tmp_path / ".claude/CLAUDE.md", "- Answer in English.")
    memory = load_memory(project=None, local=None, meter=meter)
    assert [f.path for f in memory.files] == [tmp_path / ".claude/CLAUDE.md"]


def test_system_prompt_is_the_agent_prompt_then_memory(tmp_path, meter):
    memory = only_project(write(tmp_path / "CLAUDE.md", RULE_LINE), meter)
    prompt = system_prompt(memory)
    assert prompt.startswith(SYSTEM_PROMPT) and prompt.endswith(RULE_LINE)
    assert "remember" not in prompt and "remember" in system_prompt(memory, invite_remember=True)


def test_imports_are_found_outside_code_only():
    text = "\n".join(
        [
            "See @docs/api.md and @../shared/rules.md.",
            "Inline `@not/this.md` is code; so is ``@nor/this.md``.",
            "Mail ops@example.com for access.",
            "```",
            "@inside/fence.md",
            "```",
            "~~~python",
            "@inside/tilde.md  # ``` does not close a ~~~ fence",
            "~~~",
            "Last: @notes.md",
        ]
    )
    assert imports_in(text) == ["docs/api.md", "../shared/rules.md", "notes.md"]


def test_imports_are_relative_to_the_importing_file_and_nested(tmp_path, meter):
    project = write(tmp_path / "CLAUDE.md", "- Overview: @docs/overview.md")
    write(tmp_path / "docs/overview.md", "Details in @api/endpoints.md")  # relative to docs/
    write(tmp_path / "docs/api/endpoints.md", "GET /invoices")
    write(
        tmp_path / "api/endpoints.md", "the wrong file: relative to the project, not the importer"
    )
    memory = only_project(project, meter)
    docs = tmp_path / "docs"
    assert [f.path for f in memory.files] == [
        project,
        docs / "overview.md",
        docs / "api/endpoints.md",
    ]
    assert [f.level for f in memory.files] == ["project", "import", "import"]
    assert memory.files[2].imported_by == tmp_path / "docs/overview.md"
    assert "wrong file" not in memory.text and memory.messages == []
    assert "(imported by overview.md)" in memory.describe()


def test_an_import_inside_a_code_fence_is_not_loaded(tmp_path, meter):
    project = write(tmp_path / "CLAUDE.md", "Example:\n```\n@secret.md\n```\n")
    write(tmp_path / "secret.md", "should not load")
    assert [f.path.name for f in only_project(project, meter).files] == ["CLAUDE.md"]


def test_imports_stop_at_the_depth_limit(tmp_path, meter):
    for n in range(6):
        write(tmp_path / f"f{n}.md", f"level {n} @f{n + 1}.md")
    memory = only_project(tmp_path / "f0.md", meter, max_depth=4)
    assert [f.path.name for f in memory.files] == ["f0.md", "f1.md", "f2.md", "f3.md", "f4.md"]
    assert any("at most 4 deep" in m for m in memory.messages)


def test_an_import_cycle_is_refused_once(tmp_path, meter):
    write(tmp_path / "CLAUDE.md", "@a.md")
    write(tmp_path / "a.md", "A imports @b.md")
    write(tmp_path / "b.md", "B imports @a.md and @CLAUDE.md")
    memory = only_project(tmp_path / "CLAUDE.md", meter)
    assert [f.path.name for f in memory.files] == ["CLAUDE.md", "a.md", "b.md"]
    cycles = [m for m in memory.messages if "cycle" in m]
    assert len(cycles) == 2 and "a.md -> b.md -> a.md" in cycles[0]


@pytest.mark.parametrize("target", ["../outside.md", "/etc/hostname", "link.md"])
def test_an_import_outside_the_roots_is_refused(tmp_path, meter, target):
    write(tmp_path / "outside.md", "SECRET")
    project = write(tmp_path / "repo/CLAUDE.md", f"@{target}")
    (tmp_path / "repo/link.md").symlink_to(
        tmp_path / "outside.md"
    )  # a link is judged by where it leads
    memory = only_project(project, meter)
    assert [f.path for f in memory.files] == [project] and "SECRET" not in memory.text
    assert any("outside the memory folders" in m for m in memory.messages)


def test_extra_roots_allow_a_shared_folder(tmp_path, meter):
    write(tmp_path / "shared/style.md", "- Use British spelling.")
    project = write(tmp_path / "repo/CLAUDE.md", "@../shared/style.md")
    memory = load_memory(
        user=None, project=project, local=None, roots=[tmp_path / "shared"], meter=meter
    )
    assert "British" in memory.text


def test_bad_files_are_skipped_with_a_message_and_the_session_starts(tmp_path, meter):
    user = tmp_path / "user.md"
    user.write_bytes(b"- caf\xe9 in latin-1\n")
    project = write(tmp_path / "CLAUDE.md", "- Good line. @missing.md @folder")
    (tmp_path / "folder").mkdir()
    memory = load_memory(
        user=user, project=project, local=tmp_path / "CLAUDE.local.md", meter=meter
    )
    assert [f.path for f in memory.files] == [project]
    said = " ".join(memory.messages)
    assert "not UTF-8" in said and "0xe9" in said and "@missing.md" in said and "@folder" in said
    model = OfflineModel(window=20000, meter=meter)
    model_run = run_agent("List the files.", model, system=system_prompt(memory))
    assert model_run.stopped == "answered"


def test_an_enormous_file_is_cut_with_a_warning(tmp_path, meter):
    project = write(tmp_path / "CLAUDE.md", "é" * 50_000)  # two bytes a character
    memory = only_project(project, meter, max_chars=20_000, budget=10**9)
    assert len(memory.files[0].text) == 20_000
    assert any("larger than 20,000 characters" in m for m in memory.messages)


def test_a_file_over_budget_gets_a_warning(tmp_path, meter):
    short = write(tmp_path / "short/CLAUDE.md", RULE_LINE)
    facts = "\n".join(f"- Fact number {n} about the project." for n in range(60))
    long = write(tmp_path / "long/CLAUDE.md", facts)
    assert only_project(short, meter, budget=200).messages == []
    memory = only_project(long, meter, budget=200)
    assert [f.tokens > 200 for f in memory.files] == [True]
    assert any("over the 200-token budget" in m and "keep it short" in m for m in memory.messages)


def test_memory_costs_its_section_on_every_request(tmp_path, meter):
    """Worked example: the section sent with every request is the header plus the file."""
    memory = only_project(write(tmp_path / "CLAUDE.md", RULE_LINE), meter)
    per_turn = meter.text(MEMORY_HEADER + "\n\n## project: CLAUDE.md\n" + RULE_LINE)
    assert memory.tokens_per_lap == per_turn
    assert "total" in memory.describe() and "CLAUDE.md" in memory.describe()


# ---- promotion -------------------------------------------------------------------------------


# ---- two sessions ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rows():
    return {r["session"]: r for r in two_sessions(window=20000, meter=Meter())}


def test_session_one_promotes_the_rule_through_the_remember_tool(tmp_path, meter):
    notebook = tmp_path / "CLAUDE.md"
    run, memory = session_one(notebook, meter=meter)
    assert memory.files == [] and run.database_target == "staging"
    assert notebook.read_text(encoding="utf-8") == RULE_LINE + "\n"


def test_without_memory_session_two_repeats_the_discovery_and_aims_at_production(rows):
    blank, first = rows["2: no memory"], rows["1: the task, rule in request"]
    assert blank["database"] == "production"
    assert blank["files read"] == first["files read"]  # the same discovery work, all over again
    assert blank["memory tokens/turn"] == 0


def test_promoted_memory_carries_the_rule_into_session_two(rows):
    promoted = rows["2: promoted in session 1"]
    assert promoted["database"] == "staging"
    assert (
        promoted["memory tokens/session"] == promoted["memory tokens/turn"] * promoted["laps"] > 0
    )


def test_a_short_claude_md_starts_session_two_knowing_the_project(rows):
    blank, written = rows["2: no memory"], rows["2: workspace CLAUDE.md"]
    assert written["database"] == "staging"
    assert written["files read"] < blank["files read"] and written["laps"] < blank["laps"]
    assert written["memory tokens/turn"] <= 200  # the four lines fit the budget


def test_a_different_rule_wording_works_the_same_way(tmp_path, meter):
    rule = "- Production is off-limits: database changes go to staging only."
    memory = only_project(write(tmp_path / "CLAUDE.md", rule), meter)
    assert session_two(memory, meter=meter).database_target == "staging"
    assert session_two(None, meter=meter).database_target == "production"


def test_promotion_out_of_a_real_compaction_summary(tmp_path, meter):
    """The rule arrives mid-task, compaction summarizes it, promotion saves it, session two obeys it."""
    task = file_reading_task(rule_at_lap=3)
    first = run_agent(
        task.request,
        OfflineModel(window=5000, meter=meter),
        context=ThreeZoneCompaction(),
        remarks=task.remarks,
    )
    summaries = [lap.summary for lap in first.laps if lap.summary]
    assert summaries, "the small window should have forced a compaction"
    notebook = tmp_path / "CLAUDE.md"
    added = promote(summaries[-1], notebook)
    assert len(added) == 1 and "never touch production" in added[0].lower()
    assert session_two(only_project(notebook, meter), meter=meter).database_target == "staging"


# ---- recalled notes ----------------------------------------------------------------------------


def test_the_workspace_claude_md_stays_within_budget(meter):
    memory = only_project(WORKSPACE / "CLAUDE.md", meter)
    assert len(memory.files) == 1 and memory.messages == [] and memory.files[0].tokens <= 200
