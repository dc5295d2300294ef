"""The lesson phenomena on real libraries: released source, one pending SQL file, a request in the user's words.

Nothing in these codebases was written for the offline model: no marker comment points at the bug, files run to
hundreds of lines, and the request names the symptom the way a user would (the error they saw). The model must
search for what the request names, read around the hits, and apply the fix the workspace holds.

The ``WORDED`` libraries are asked in every wording they have (a quoted message, the symptom in plain words, a
function or a file named), with the standing rule said in the request -- a different wording each time, from
``tests/rule_wordings.py`` -- or kept in the workspace's CLAUDE.md. The cases are generated: library x wording
x where the rule is, and each row of the strategy table is one test.
"""

import filecmp
import re
import tempfile
from pathlib import Path

import pytest
from real_libraries import (
    LIBRARIES,
    RULE,
    WORDED,
    make_library_workspace,
    request_of,
    source_of,
)
from rule_wordings import RULES
from test_never_loop import STRATEGIES

from benchmarks.compare import automatic_window, compare, task_for, why_stopped
from harness.loop import run_agent
from harness.tokens import Meter
from harness.tools import Toolbox
from stage.offline import OfflineModel


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("libraries")


@pytest.mark.parametrize("name", sorted(LIBRARIES) + sorted(WORDED))
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
    for first, last in spec.get(
        "lines", []
    ):  # the locked version's lines: a new release moves them
        said = cause.read_text().splitlines()[first - 1 : last]
        assert any(spec["raises"] in line for line in said), (spec["cause"], first, last)


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


# ---- every wording of every WORDED library, the rule in the request or in CLAUDE.md ----------------------

CASES = [
    (name, wording, where)
    for name in sorted(WORDED)
    for wording in WORDED[name]["wordings"]
    for where in ("request", "memory")
]
CORE = ["full history", "sliding window", "three-zone, template", "running summary"]
OTHERS = ["three-zone, naive prompt", "clear tool results"]


def rule_of(case: tuple) -> str:
    """A rule wording for this case, a different one for each (the corpus is longer than the cases)."""
    return RULES[(CASES.index(case) * 5) % len(RULES)]


def named_lines(final: str, spec: dict) -> bool:
    """Does the answer name the cause's file, at a line of its range? Example: 'Cause: a/b.py:210 (f)'"""
    found = re.search(r"[Cc]ause: (\S+?):(\d+)", final)
    return (
        bool(found)
        and found[1] == spec["cause"]
        and any(a <= int(found[2]) <= b for a, b in spec["lines"])
    )


@pytest.mark.parametrize("name, wording", sorted({(n, w) for n, w, _ in CASES}))
def test_every_wording_names_the_cause_and_runs_the_fix_on_a_roomy_desk(scratch, name, wording):
    """With room for everything: the right line, the pending file's own statement, the rule obeyed."""
    folder, spec = make_library_workspace(name, scratch / f"roomy-{name}-{wording}")
    for rule, target in ((rule_of((name, wording, "request")), "staging"), ("", "production")):
        run = run_agent(
            f"{request_of(name, wording)} {rule}".strip(),
            OfflineModel(window=100_000),
            tools=Toolbox(folder),
            max_laps=80,
        )
        assert run.stopped == "answered", why_stopped(run, 80)
        assert run.toolbox.sql_log == [
            {"target": target, "statement": spec["statement"], "flagged": target == "production"}
        ], run.final
        assert named_lines(run.final, spec), run.final


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """The strategy table of each case, made once (by ``compare``, as ``python -m benchmarks.compare`` does)."""
    made = {}

    def table(case):
        if case not in made:
            name, wording, where = case
            rule = rule_of(case)
            memory = (
                f"# Notes for agents\n- Keep answers short.\n- {rule}\n"
                if where == "memory"
                else ""
            )
            root = tmp_path_factory.mktemp("worded")
            folder, spec = make_library_workspace(name, root, memory=memory)
            request = request_of(name, wording) + (f" {rule}" if where == "request" else "")
            rows = {r["strategy"]: r for r in compare(None, None, folder, request)}
            made[case] = rows, spec
        return made[case]

    return table


@pytest.mark.integration  # one strategy table per case, each row a run to its end
@pytest.mark.parametrize("strategy", CORE + OTHERS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(c))
def test_the_lesson_phenomena_on_every_wording(tables, case, strategy):
    """Full history overflows; the sliding window loses a rule said in the request (or never finishes) and
    keeps one in CLAUDE.md; the template and the running summary finish on staging with the pending file's
    own statement, naming the line; and no strategy ends in a loop or runs out of laps."""
    rows, spec = tables(case)
    row, where = rows[strategy], case[2]
    assert row["stopped"] not in ("loop", "max_laps"), row["why"]
    if strategy == "full history":
        assert row["stopped"] == "overflow", row
    elif strategy == "sliding window" and where == "request":
        assert row["rule kept"] == "no" and row["database"] in ("production", "-"), row
    elif strategy == "sliding window":
        assert row["rule kept"] == "yes" and row["database"] in ("staging", "-"), row
    elif strategy in ("three-zone, template", "running summary"):
        assert (row["stopped"], row["database"], row["statement"]) == (
            "answered",
            "staging",
            spec["statement"],
        ), row
        assert named_lines(f"Cause: {row['cause']}", spec), row
    else:  # the others: whatever they did, never production while the rule is on the desk
        assert row["database"] != "production" or row["rule kept"] == "no", row


@pytest.mark.integration  # every compaction strategy, each a run to its end
@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@pytest.mark.parametrize("name", sorted(WORDED))
def test_plain_wordings_never_loop_under_any_compaction_strategy(tmp_path, name, strategy):
    """The issue's loop: the symptom in plain words, a small desk, reads and searches sliding away. Each
    strategy of ``test_never_loop`` (tails of one and two turns) finishes on staging with the fix."""
    folder, spec = make_library_workspace(name, tmp_path)
    task = task_for(Path(folder), f"{request_of(name, 'plain')} {RULE}", None)
    window = automatic_window(task, Path(folder), Meter())
    for tail in (1, 2):
        run = run_agent(
            task.request,
            OfflineModel(window=window),
            tools=Toolbox(folder),
            context=STRATEGIES[strategy](tail),
            remarks=task.remarks,
            max_laps=80,
        )
        assert run.stopped == "answered", why_stopped(run, 80)
        assert run.toolbox.sql_log[-1]["statement"] == spec["statement"]
