"""Lesson 05's promote and production link (stage.production), on every workspace.

* A rule said once in passing reaches session one's last minutes; ``promote`` copies it into a fresh
  memory file, the loader puts it in session two's system prompt, and session two (whose request never
  states the rule) runs its fix where the rule says, where the same session without memory does not.
* The same memory text under each product's file name gives the loader the same lines.
* ``compacting`` prints the pause for exactly the laps that compacted, on demand or near the limit.
"""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.compaction import ThreeZoneCompaction
from harness.laps import Did, Lap, Run
from harness.loop import run_agent
from harness.memory import load_claude_md
from harness.model import CLASS_WINDOW
from harness.promote import promote
from harness.running_summary import RunningSummary
from harness.tools import Toolbox
from stage.offline import OfflineModel
from stage.production import MEMORY_FILES, compacting, last_summary, under_each_name
from stage.tasks import workspace_task

ROOT = Path(__file__).resolve().parent.parent
WORKSPACES = sorted(p for p in (ROOT / "workspaces").iterdir() if (p / ".task.toml").is_file())


def session(folder, request, system=None, remarks=None, context=None, on_lap=None):
    kwargs = {"system": system} if system else {}
    return run_agent(
        request,
        OfflineModel(window=CLASS_WINDOW),
        tools=Toolbox(folder),
        context=context or RunningSummary(),
        remarks=remarks,
        on_lap=on_lap,
        **kwargs,
    )


@pytest.mark.parametrize("folder", WORKSPACES, ids=lambda p: p.name)
def test_a_promoted_rule_reaches_session_two_and_changes_where_the_fix_goes(folder, tmp_path):
    late = workspace_task(folder, rule_at_lap=3)
    plain = workspace_task(folder)
    goal = plain.request.replace(plain.rule, "").strip()  # session two's request: no rule in it
    assert plain.rule not in goal
    one = session(folder, late.request, remarks=late.remarks)
    memory = tmp_path / "CLAUDE.md"
    added = promote(last_summary(one), memory)
    assert added, f"{folder.name}: the minutes kept no standing rule"
    prompt = load_claude_md(memory)
    assert all(line in prompt for line in added)
    without, promoted = session(folder, goal), session(folder, goal, system=prompt)
    assert promoted.database_target == one.database_target
    assert without.database_target != promoted.database_target


def test_last_summary_is_the_newest_one_and_empty_without_any():
    laps = [
        Lap(number=1, raw_tokens=1, assembled_tokens=1),
        Lap(number=2, raw_tokens=1, assembled_tokens=1, kind=Did.FOLD, summary="first"),
        Lap(number=3, raw_tokens=1, assembled_tokens=1, kind=Did.FOLD, summary="second"),
        Lap(number=4, raw_tokens=1, assembled_tokens=1),
    ]
    assert last_summary(Run(history=[], laps=laps, toolbox=Toolbox())) == "second"
    assert last_summary(Run(history=[], laps=laps[:1], toolbox=Toolbox())) == ""


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.text(alphabet="abcdefgh -:.`()", min_size=1, max_size=40).filter(str.strip),
        min_size=1,
        max_size=6,
    )
)
def test_every_product_file_gives_the_loader_the_same_lines(lines):
    import tempfile

    text = "\n".join(lines)
    with tempfile.TemporaryDirectory() as folder:
        files = under_each_name(text, folder)
        assert set(files) == set(MEMORY_FILES)
        for product, path in files.items():
            assert path.name == Path(MEMORY_FILES[product]).name
            prompt = load_claude_md(path)
            assert all(line.strip() in prompt for line in lines)


@pytest.mark.parametrize("folder", WORKSPACES, ids=lambda p: p.name)
@pytest.mark.parametrize("at", [4, 6])
def test_the_pause_is_printed_for_every_compaction_and_nothing_else(folder, at, capsys):
    task = workspace_task(folder)
    strategy = ThreeZoneCompaction(on_demand={at: "the database fix"})
    run = session(folder, task.request, context=strategy, on_lap=compacting)
    printed = [line for line in capsys.readouterr().out.splitlines() if "compacting…" in line]
    compacted = [lap.number for lap in run.laps if lap.kind == Did.COMPACT]
    assert [int(line.split(":")[0].split()[1]) for line in printed] == compacted
    assert at in compacted or not any(lap.number == at for lap in run.laps)


@pytest.mark.parametrize("folder", WORKSPACES, ids=lambda p: p.name)
def test_a_bloated_memory_costs_every_lap_of_session_two(folder, tmp_path):
    """05's checkpoint: the four lines plus a diary and a whole source file. Every lap carries the extra
    tokens, so session two's desk is bigger from its first lap and its bill higher, with the fix landing
    where the workspace's own memory sends it."""
    plain = workspace_task(folder)
    goal = plain.request.replace(plain.rule, "").strip()
    own = folder / "CLAUDE.md"
    biggest = max(
        (p for p in folder.rglob("*") if p.is_file() and p.suffix in (".py", ".js", ".sql")),
        key=lambda p: p.stat().st_size,
    )
    bloated = tmp_path / "CLAUDE.md"
    diary = "\n## Today\n- tried the obvious file first; nothing there\n"
    bloated.write_text(
        own.read_text(encoding="utf-8") + diary + biggest.read_text(encoding="utf-8")
    )
    short, long = (session(folder, goal, system=load_claude_md(path)) for path in (own, bloated))
    assert long.laps[0].assembled_tokens > short.laps[0].assembled_tokens
    assert sum(lap.billed_input for lap in long.laps) > sum(lap.billed_input for lap in short.laps)
    assert long.database_target == short.database_target
