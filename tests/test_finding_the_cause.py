"""Finding the cause the way an agent does: what the request names, searched for and weighed -- not markers alone.

The request's quotes, identifiers and distinctive words are its terms (``stage.offline.locating``); a line is
weighed by how much of the request it matches; a long file is read in parts and a search hit is followed to its
line; the fix that runs is one the workspace holds, and a run with none says it applied nothing.
"""

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_workspace import make_workspace

from benchmarks.compare import compare, why_stopped
from harness.loop import run_agent
from harness.messages import user
from harness.tools import TOOL_SCHEMAS, Toolbox
from stage.offline import View, OfflineModel
from stage.offline.findings import facts_in_file, goal_terms, judge
from stage.offline.locating import quote_core, search_terms, strong, terms, weigh

RULE = "Never touch production: run database changes on staging only."


# ---- the terms of a request and the weight of a line -----------------------------------------------------


@pytest.mark.parametrize(
    "quote, core",
    [
        (
            "'#0099cc' is not a valid hexadecimal color value.",
            "is not a valid hexadecimal color value",
        ),
        ("duplicate name 'port'", "duplicate name"),
        ("Error 42", None),  # nothing but one short word: no text to search for
        ("ConnectionRefusedError", "connectionrefusederror"),  # one long word will do
    ],
)
def test_the_core_of_a_quote_is_its_longest_run_of_plain_words(quote, core):
    assert quote_core(quote) == core


def test_a_request_names_quotes_identifiers_and_distinctive_words_but_no_common_ones():
    found = terms(
        "Since Monday find_user() and `Session.refresh` fail with 'token has expired' for users "
        "under app/ who only sign in once; see app/auth.py."
    )
    assert found.quotes == ("token has expired",)
    assert found.identifiers == ("find_user", "Session.refresh")
    assert found.words == (
        "monday",
        "sign",
    )  # 'users' is part of find_user; common words, paths: no terms
    assert search_terms(found)[:3] == ["token has expired", "find_user", "refresh"]


def test_a_line_weighs_what_it_matches_and_one_common_word_is_never_a_match():
    found = terms("Users whose email address contains capital letters cannot log in.")
    score, matched = weigh(
        "if stored == email:  # FIXME: an address typed with capital letters never matches",
        "find_user",
        found,
    )
    assert matched == ["users", "email", "address", "capital", "letters"]  # 'users' meets find_user
    assert score == 5 + 2 + 1  # words, the marker, a line of code
    assert strong(score, matched) == "Cause"
    assert weigh("# TODO: only run this once", "", terms("Only admins can log in.")) == (0, [])
    assert (
        judge("TODO", "the country prefix is dropped", "Family tickets count as one visitor")
        != "Cause"
    )


def test_an_unmarked_line_that_quotes_the_error_is_the_cause():
    text = "\n".join(
        f"{n:>4}  {line}"
        for n, line in enumerate(
            [
                "def parse(line):",
                "    if '=' not in line:",
                "        raise ValueError('unexpected line: ' + line)",
                "    return line.split('=', 1)",
            ],
            start=1,
        )
    )
    facts = facts_in_file(
        "conf/reader.py", text, "Loading stops with 'unexpected line' on settings files."
    )
    assert facts == (
        ("Cause", "conf/reader.py:3 (parse) — raise ValueError('unexpected line: ' + line)"),
    )


# ---- a long file, read in parts; a search hit followed to its line ----------------------------------------


def long_workspace(root: Path) -> Path:
    """A service whose cause sits on line 300 of a long module, past the first part read_file shows; no marker."""
    (root / "svc").mkdir()
    (root / "migrations").mkdir()
    filler = [
        f"def helper_{n}(rows):\n    return [r for r in rows if r.get('kind') == 'k{n}']\n\n"
        for n in range(99)
    ]
    body = "".join(filler) + (
        "def export_invoices(rows):\n"
        "    # the first invoice row is dropped: the range starts at 1, not 0\n"
        "    return [rows[i] for i in range(1, len(rows))]\n"
    )
    (root / "svc" / "exports.py").write_text(body)
    (root / "svc" / "api.py").write_text("def handler(request):\n    return 200, {}\n")
    (root / "migrations" / "007_resend.sql").write_text(
        "-- status: pending\nUPDATE exports SET resend = true;\n"
    )
    return root


def test_a_cause_past_the_first_part_of_a_long_file_is_found_through_a_search():
    with tempfile.TemporaryDirectory() as scratch:
        folder = long_workspace(Path(scratch))
        request = (
            "The monthly invoice export leaves out the first invoice row of every file. Find the cause in "
            f"svc/ and migrations/, then apply the pending fix to the database. {RULE}"
        )
        run = run_agent(request, OfflineModel(window=60_000), tools=Toolbox(folder), max_laps=40)
    assert run.stopped == "answered" and run.database_target == "staging"
    assert run.toolbox.sql_log[-1]["statement"] == "UPDATE exports SET resend = true;"
    assert "svc/exports.py:298 (export_invoices)" in run.final
    parts = [r for r in run.toolbox.reads if r.startswith("svc/exports.py:")]
    assert len(parts) == 2 and parts[0].startswith(
        "svc/exports.py:1-"
    )  # the first part, then around the hit
    first, around = (tuple(map(int, p.split(":")[1].split("-"))) for p in parts)
    assert first[1] < 298 <= around[1] and around[0] <= 298


# ---- the fix: only one the workspace holds, and a run with none says so ---------------------------------


def test_with_a_cause_and_no_fix_it_applies_nothing_and_says_so(tmp_path):
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "exports.py").write_text(
        "def export(rows):\n    # the first invoice row is dropped: the range starts at 1\n    return rows[1:]\n"
    )
    request = f"The invoice export drops the first invoice row. Find the cause in svc/, then apply the fix to the database. {RULE}"
    run = run_agent(request, OfflineModel(window=20_000), tools=Toolbox(tmp_path), max_laps=30)
    assert run.stopped == "answered" and run.toolbox.sql_log == []
    assert "svc/exports.py:2" in run.final and "Nothing applied" in run.final
    assert why_stopped(run, 30).startswith(
        "answered, nothing applied: Nothing applied: no pending fix"
    )
    rows = {r["strategy"]: r for r in compare(None, 20_000, tmp_path, request)}
    assert rows["three-zone, template"]["statement"] == "-"
    assert rows["three-zone, template"]["cause"] == "svc/exports.py:2 (export)"


def test_a_weak_cause_and_a_pending_migration_in_view_run_the_migration(tmp_path):
    """The issue's case: a cause it is not sure of, the pending file on its desk -- never a made-up statement."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "colours.py").write_text(
        "def check(value):\n    if not value.startswith('#'):\n"
        "        raise ValueError('bad colour')\n"
    )
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "0001_prefix.sql").write_text(
        "-- state: pending\nUPDATE colours SET hex = '#' || hex;\n"
    )
    request = f"Colour values are rejected. Look in lib/ and db/, then apply the pending fix to the database. {RULE}"
    run = run_agent(request, OfflineModel(window=20_000), tools=Toolbox(tmp_path), max_laps=30)
    assert [s["statement"] for s in run.toolbox.sql_log] == ["UPDATE colours SET hex = '#' || hex;"]


# ---- sweeps over random workspaces: without the marker, and past the first part -------------------------


def strip_marker_and_push_down(root: Path, spec: dict, push: bool) -> str:
    """Take the marker word off the cause comment (and, with ``push``, put 120 lines of padding above it, so it
    sits past what a first read shows). Returns the cause's new 'path:line'."""
    path, line = spec["cause"].split(":")
    lines = (root / path).read_text().splitlines()
    number = int(line)
    lines[number - 1] = re.sub(
        r"\b(FIXME|BUG|XXX|HACK|TODO)\b[:!]?\s*", "", lines[number - 1], count=1
    )
    if push:
        mark = "#" if path.endswith((".py", ".rb")) else "//"
        lines = (
            lines[:2]
            + [
                f"{mark} notes on the helpers below, part {i}; nothing to see here"
                for i in range(120)
            ]
            + lines[2:]
        )
        number += 120
    (root / path).write_text("\n".join(lines) + "\n")
    return f"{path}:{number}"


@pytest.mark.parametrize(
    "push", [False, True], ids=["unmarked", "unmarked and past the first part"]
)
def test_random_workspaces_without_markers_still_give_up_their_cause(push):
    missed = []
    for seed in range(25):
        with tempfile.TemporaryDirectory() as scratch:
            spec = make_workspace(Path(scratch), seed)
            where = strip_marker_and_push_down(Path(scratch), spec, push)
            run = run_agent(
                f"{spec['request']} {spec['rule']}",
                OfflineModel(window=60_000),
                tools=Toolbox(scratch),
                max_laps=60,
            )
        ran = run.toolbox.sql_log[-1]["statement"] if run.toolbox.sql_log else None
        if not (
            ran == spec["statement"] and run.database_target == "staging" and where in run.final
        ):
            missed.append((seed, spec["fix_kind"], run.final.splitlines()[-1][:160]))
    assert not missed, missed


def test_the_goal_keeps_no_part_of_a_rule_sentence():
    """'staging is fine' belongs to the rule: the goal copied into every note must not carry it (once or twice)."""
    goal = "Users with capital letters cannot log in. Find the cause in app/, then apply the fix to the database."
    for rule in (
        "Avoid production at all costs; staging is fine.",
        "Production is off limits, staging is fine.",
    ):
        desk = View.read("", [user(f"{goal} {rule} {rule}")], TOOL_SCHEMAS)
        assert desk.goal() == goal and desk.target() == "staging"


def test_goal_terms_leave_out_the_requests_boilerplate():
    found = goal_terms(
        "Find the cause in the code under app/ and migrations/, then apply the pending fix to the "
        "database, and report the reason."
    )
    assert found.words == () and not found


# ---- any request at all: the terms never break -----------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.text(max_size=200))
def test_any_request_and_any_line_give_terms_and_a_weight_without_failing(request, line):
    found = terms(request)
    searched = search_terms(found)
    assert len(searched) <= 6 and all(isinstance(t, str) and t for t in searched)
    score, matched = weigh(line, "", found)
    assert score >= 0 and (score == 0) == (matched == [])
    assert strong(score, matched) in (None, "Lead", "Cause") if matched else True
