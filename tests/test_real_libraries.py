"""The lesson phenomena on real libraries: released source, one pending SQL file, a request in the user's words.

Nothing in these codebases was written for the desk model: no marker comment points at the bug, files run to
hundreds of lines, and the request names the symptom the way a user would (the error they saw). The model must
search for what the request names, read around the hits, and apply the fix the workspace holds.
"""

import filecmp
import tempfile
from pathlib import Path

import pytest
from real_libraries import LIBRARIES, RULE, make_library_workspace, source_of

from benchmarks.compare import compare
from harness.loop import run_agent
from harness.tools import Toolbox
from stage.offline import OfflineModel


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("libraries")


@pytest.mark.parametrize("name", sorted(LIBRARIES))
def test_the_copy_is_the_released_source_plus_one_sql_file(scratch, name):
    folder, spec = make_library_workspace(name, scratch / "copy")
    added = sorted(
        str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and p.parts[-2] != name
    )
    assert [p for p in added if not p.startswith(f"{name}/")] == [spec["fix"]]
    for copied in (folder / name).rglob("*.py"):
        assert filecmp.cmp(
            copied, source_of(name) / copied.relative_to(folder / name), shallow=False
        )
    cause = folder / name / spec["cause"].split("/", 1)[1]
    holding = (
        [cause]
        if cause.is_file()
        else [p for p in cause.rglob("*.py") if spec["raises"] in p.read_text()]
    )
    assert holding and not any(
        word in path.read_text() for path in holding for word in ("FIXME", "XXX", "HACK")
    )


@pytest.mark.parametrize("name", sorted(LIBRARIES))
def test_on_a_roomy_desk_it_names_the_cause_and_runs_the_pending_statement(scratch, name):
    folder, spec = make_library_workspace(name, scratch / "roomy")
    for rule, target in ((RULE, "staging"), ("", "production")):
        run = run_agent(
            f"{spec['request']} {rule}".strip(),
            OfflineModel(window=100_000),
            tools=Toolbox(folder),
            max_laps=60,
        )
        assert run.stopped == "answered", run.final
        assert run.toolbox.sql_log == [
            {"target": target, "statement": spec["statement"], "flagged": target == "production"}
        ]
        cause = run.final.split("Cause: ")[1]
        assert cause.startswith(spec["cause"]) and spec["raises"] in cause, run.final


@pytest.mark.integration  # seven runs per library, each to the end: the strategy table, end to end
@pytest.mark.parametrize("name", ["webcolors", "h11", "json5", "defusedxml"])
def test_the_class_phenomena_hold_on_a_real_library(name):
    """Full history overflows; the sliding window loses the rule and aims at production; three-zone compaction
    with the template and the running summary finish on staging with the pending file's own statement."""
    with tempfile.TemporaryDirectory() as root:
        folder, spec = make_library_workspace(name, root)
        rows = {
            r["strategy"]: r for r in compare(None, None, Path(folder), f"{spec['request']} {RULE}")
        }
    assert rows["full history"]["stopped"] == "overflow", rows["full history"]
    assert (
        rows["sliding window"]["rule kept"] == "no"
        and rows["sliding window"]["database"] == "production"
    )
    for strategy in ("three-zone, template", "running summary"):
        row = rows[strategy]
        assert (row["stopped"], row["database"], row["statement"]) == (
            "answered",
            "staging",
            spec["statement"],
        ), row
        assert row["cause"].startswith(spec["cause"]), row
        assert row["why"] == "answered: applied on staging"
