"""The random-workspace generator keeps its promises (this tests the generator, not the model).

Over 200 seeds: the conventions hold (``check_workspace``), sizes stay small, a seed always gives
the same files, the variety is really there, and the checker itself notices broken workspaces.
The three hand-made workspaces are held to the same conventions.
"""

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from random_workspace import (
    DOMAINS,
    RULES,
    check_workspace,
    content_words,
    make_workspace,
    workspace_size,
)

from harness.tools import Toolbox

REPO = Path(__file__).resolve().parent.parent
SEEDS = range(200)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """200 workspaces, written once for the whole module: {seed: (root, spec)}."""
    base = tmp_path_factory.mktemp("random_workspaces")
    return {seed: (base / str(seed), make_workspace(base / str(seed), seed)) for seed in SEEDS}


def test_every_workspace_keeps_the_conventions(made):
    broken = {seed: check_workspace(root, spec) for seed, (root, spec) in made.items()}
    broken = {seed: problems for seed, problems in broken.items() if problems}
    assert not broken, (
        f"{len(broken)} seeds break the conventions, e.g. {next(iter(broken.items()))}"
    )


def test_every_workspace_is_small(made):
    for seed, (root, _) in made.items():
        count, size = workspace_size(root)
        assert 6 <= count <= 14, f"seed {seed}: {count} files"
        assert 4_000 <= size <= 15_000, f"seed {seed}: {size} bytes"


def test_the_spec_has_the_task_keys_and_the_hidden_file_matches_it(made):
    keys = {
        "request",
        "rule",
        "cause",
        "fix",
        "statement",
        "fact",
        "correction",
        "corrected_statement",
        "fix_kind",
        "targets",
    }
    for seed in list(SEEDS)[:20]:
        root, spec = made[seed]
        assert set(spec) == keys
        assert spec["targets"] == ("staging", "production")
        on_disk = tomllib.loads((root / ".task.toml").read_text(encoding="utf-8"))
        assert {**on_disk, "targets": tuple(on_disk["targets"])} == spec
        assert ".task.toml" not in Toolbox(root)._tool_list_files()


def test_the_request_names_the_folders_and_the_database(made):
    for seed, (root, spec) in made.items():
        folders = re.findall(r"([\w/]+)/(?=[ ,;.]|$)", spec["request"])
        assert folders, f"seed {seed}: no folder in {spec['request']!r}"
        assert all((root / f).is_dir() for f in folders), f"seed {seed}: {folders}"
        assert spec["cause"].split("/")[0] in folders
        assert "database" in spec["request"]


def test_a_seed_always_gives_the_same_workspace(tmp_path):
    for seed in (0, 7, 123):
        first, second = tmp_path / f"a{seed}", tmp_path / f"b{seed}"
        assert make_workspace(first, seed) == make_workspace(second, seed)
        files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
        assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
        assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)


def test_the_seeds_cover_the_promised_variety(made):
    specs = [spec for _, spec in made.values()]
    assert len({s["fact"] for s in specs}) >= 8  # domains
    assert Counter(s["fix_kind"] for s in specs).keys() == {
        "pending_migration",
        "docs_script",
        "none",
    }
    assert {s["cause"].rsplit(":")[0].rsplit(".")[-1] for s in specs} == {"py", "js", "go", "rb"}
    assert len({s["cause"].split("/")[0] for s in specs}) >= 6  # top folders
    assert len({s["rule"] for s in specs}) >= 40 and len(RULES) >= 20
    markers = {
        re.search(r"(FIXME|BUG|XXX|HACK|TODO)", _line(root, s["cause"])).group(1)
        for root, s in made.values()
    }
    assert markers == {"FIXME", "BUG", "XXX", "HACK", "TODO"}
    schemes = {_scheme(s["fix"]) for s in specs if s["fix_kind"] == "pending_migration"}
    assert schemes == {"NNN_", "V__", "YYYY_MM_DD_", "patches/"}
    rule_aliases = " ".join(s["rule"].lower() for s in specs)
    assert all(a in rule_aliases for a in ("prod ", "production", "live", "staging", "stage "))
    assert len({int(s["cause"].rsplit(":")[1]) for s in specs}) >= 15  # line positions
    assert len(DOMAINS) >= 8


def test_other_targets_are_used_in_the_rule(tmp_path):
    spec = make_workspace(tmp_path, 5, targets=("sandbox", "mainframe"))
    assert spec["targets"] == ("sandbox", "mainframe")
    assert "sandbox" in spec["rule"] or "mainframe" in spec["rule"].lower()
    assert not check_workspace(tmp_path, spec)


# ---- the checker notices broken workspaces ---------------------------------------------------------


def _find(made, kind):
    return next((root, spec) for root, spec in made.values() if spec["fix_kind"] == kind)


def test_the_checker_notices_a_cause_line_without_a_marker(made):
    root, spec = made[0]
    path = spec["cause"].rpartition(":")[0]
    moved = {**spec, "cause": f"{path}:1"}
    assert any("holds no cause marker" in p for p in check_workspace(root, moved))


def test_the_checker_notices_an_unrelated_marker_that_shares_words(made):
    root, spec = made[1]
    word = max(content_words(spec["request"]), key=len)
    extra = root / "extra_note.py"
    extra.write_text(f"# TODO: tidy the {word} helpers\n", encoding="utf-8")
    try:
        assert any("unrelated marker" in p for p in check_workspace(root, spec))
    finally:
        extra.unlink()


def test_the_checker_notices_rule_words_in_the_request(made):
    root, spec = made[2]
    assert any(
        "rule words" in p
        for p in check_workspace(root, {**spec, "request": spec["request"] + " Staging."})
    )


def test_the_checker_notices_a_pending_file_that_does_not_say_so(made):
    root, spec = _find(made, "pending_migration")
    fix = root / spec["fix"]
    original = fix.read_text(encoding="utf-8")
    cleaned = "\n".join(
        line
        for line in original.splitlines()
        if not any(
            w in line.lower() for w in ("pending", "not applied", "not yet", "not run", "unapplied")
        )
    )
    fix.write_text(cleaned + "\n", encoding="utf-8")
    try:
        assert any("does not say it is pending" in p for p in check_workspace(root, spec))
    finally:
        fix.write_text(original, encoding="utf-8")


def test_the_checker_notices_a_missing_statement_and_a_wrong_correction(made):
    root, spec = _find(made, "none")
    assert any(
        "backticks" in p
        for p in check_workspace(root, {**spec, "statement": "DELETE FROM nowhere;"})
    )
    root, spec = _find(made, "docs_script")
    assert any(
        "is missing" in p for p in check_workspace(root, {**spec, "fix": "scripts/absent.sql"})
    )
    assert any(
        "corrected_statement" in p
        for p in check_workspace(root, {**spec, "corrected_statement": "x;"})
    )


# ---- the hand-made workspaces ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "folder", ["workspaces/ledgerly", "workspaces/greenhouse", "workspaces/library"]
)
def test_the_hand_made_workspaces_keep_the_same_conventions(folder):
    root = REPO / folder
    spec = tomllib.loads((root / ".task.toml").read_text(encoding="utf-8"))
    assert {"request", "rule", "cause", "fix", "fact", "correction", "corrected_statement"} <= set(
        spec
    )
    assert check_workspace(root, spec) == []
    assert ".task.toml" not in Toolbox(root)._tool_list_files()
    if folder != "workspaces/ledgerly":
        count, size = workspace_size(root)
        assert 18 <= count <= 30 and 25_000 <= size <= 45_000, (count, size)


def test_ledgerly_task_file_matches_the_lesson_task():
    from stage.tasks import GOAL, RULE

    spec = tomllib.loads((REPO / "workspaces/ledgerly/.task.toml").read_text(encoding="utf-8"))
    assert spec["request"] == GOAL and spec["rule"] == RULE


def _line(root, cause):
    path, _, n = cause.rpartition(":")
    return (root / path).read_text(encoding="utf-8").splitlines()[int(n) - 1]


def _scheme(fix):
    name = fix.rsplit("/", 1)[-1]
    if re.match(r"\d{3}_", name):
        return "NNN_"
    if re.match(r"V\d+__", name):
        return "V__"
    if re.match(r"\d{4}_\d\d_\d\d_", name):
        return "YYYY_MM_DD_"
    return "patches/" if "patches/" in fix else "other"
