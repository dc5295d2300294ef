"""Checks for exercise 05, memory: ``MEMORY``, ``promote``, ``TIGHT_MEMORY``, ``GREENHOUSE_MEMORY``.

Whether your CLAUDE.md holds the standing rule is decided the honest way: the check writes it as the
CLAUDE.md of a temporary copy of the codebase, loads it with ``harness.memory`` (its ``@`` imports
too) into session two's system prompt, runs the offline model, and looks where the fix went
(``run.database_target``). So a rule the offline model cannot read fails, and the hint says that this is
the offline model's limit (exercises/README.md, "The offline model", lists the wordings it reads).

What it counts before any run: the lines (at most four), the tokens of the memory AND of every file it
imports, every file or folder it names and every marker it quotes (each must exist in the codebase),
diary lines (what happened, instead of what always holds), and lines copied from a CLAUDE.md that is
not yours -- the same words shuffled count as copied. The greenhouse's own CLAUDE.md is not read: only
a fingerprint of its words is kept here (salted hashes), enough to spot a copy, useless to read.

``promote`` is run on fresh temporary files, never the workspace's CLAUDE.md -- once with a write
that fails half way (a full disk, injected by the check) to see that the file's old lines survive.
Left out: user and local memory levels (harness.memory loads them; the exercise does not).
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import io
import itertools
import os
import random
import shutil
import tempfile
from pathlib import Path

import harness.promote
from harness.loop import run_agent
from harness.memory import system_prompt
from harness.tokens import tiktoken_count
from harness.tools import REPO_ROOT, WORKSPACE, Toolbox

from .common import GOALS, Fail, call, model, need_function, once, show, verdict, watching
from .memory_rules import GREENHOUSE_FINGERPRINT, MEMORY_CAP, lines_of, memory_shape, with_memory
from .promote_cases import (
    HEADING,
    MEMORY_POOL,
    RULE_POOL,
    PromoteCase,
    bare,
    near,
    promote_cases,
    show_promote_case,
    summary_text,
)
from .search import hunt

TIGHT_CAP = 30  # tokens: the squeezed memory of task 3
README = "exercises/README.md, 'The offline model'"
GREENHOUSE = REPO_ROOT / "workspaces" / "greenhouse"


def session_two(goal: str, memory: str | None, root: Path = WORKSPACE):
    """A new session on the workspace at ``root``, with ``memory`` (or none) loaded as its CLAUDE.md."""
    return run_agent(
        goal,
        model(20000),
        tools=Toolbox(root),
        max_laps=80,
        system=with_memory(memory, root) if memory else system_prompt(None),
    )


def _sessions(memory: str, label: str, goals=GOALS, root: Path = WORKSPACE):
    """Run session two on every wording, with and without the memory; FAIL on the first thing that is off."""
    for n, goal in enumerate(goals, start=1):
        before = once(("no memory", goal, str(root)), lambda: session_two(goal, None, root))
        after = session_two(goal, memory, root)
        show(
            f"request {n}: without memory {len(before.files_read)} files read, fix on {before.database_target}; "
            f"with {label} {len(after.files_read)} files read, fix on {after.database_target}."
        )
        if after.database_target != "staging":
            raise Fail(
                f"[request {n}] session two ran the fix on {after.database_target}",
                "the offline model did not read anything in your memory as a rule about the database "
                "target. If you wrote no such rule, add it: nothing else in session two says where the fix "
                "may go. If you did, the offline model may not read that wording -- see "
                + README
                + " for the wordings it reads (Claude would read more).",
            )
        yield n, before, after


# ---- task 1: four lines ------------------------------------------------------------------------------


def check_memory(memory, budget) -> bool:
    """Checks MEMORY and MEMORY_BUDGET, the rules as the task states them:

    - MEMORY is one string of at most four lines; MEMORY_BUDGET a whole number of tokens, at most 150.
    - MEMORY and every file it imports with `@path` come to at most MEMORY_BUDGET tokens (cl100k).
    - It names only files, folders and `-- ...` markers the codebase really has, and imports only its files.
    - No diary: what is always true (rules, where things live), not what happened (I or we did, yesterday, today, session one, fixed, ran, the bug was fixed, ...).
    - Your own words: the workspace's own CLAUDE.md, reshuffled, padded or joined, is refused.
    - Session two, on three wordings of the request, reads fewer files than without memory and runs the fix on staging.
    """

    def body():
        lines, cost = memory_shape(
            memory,
            budget,
            originals=[("the workspace's own CLAUDE.md", lines_of(WORKSPACE / "CLAUDE.md"))],
        )
        after = None
        for n, before, after in _sessions(memory, "memory"):
            if len(after.files_read) >= len(before.files_read):
                raise Fail(
                    f"[request {n}] session two read {len(after.files_read)} files, as many as without memory",
                    "say where things live (the file that handles sign-in, the folder of migrations, how a "
                    "pending one is marked), so session two goes straight there.",
                )
        laps = len(after.laps)
        return (
            f"{len(lines)} lines, {cost} tokens (budget {budget}); session two went straight to the files and "
            f"used staging. Memory cost {cost} x {laps} laps = {cost * laps:,} tokens in that session."
        )

    return verdict("your CLAUDE.md", body)


# ---- task 3 (homework): squeeze it ---------------------------------------------------------------------


def check_tight_memory(memory) -> bool:
    """Checks TIGHT_MEMORY, the rules as the task states them:

    - At most 30 tokens (cl100k), every imported file included, and at most four lines.
    - Every rule of MEMORY about pointers, markers and diary lines.
    - Session two, on three wordings of the request, runs the fix on staging and reads no more files than with the workspace's own CLAUDE.md.
    """

    def body():
        lines, cost = memory_shape(memory, TIGHT_CAP, name="TIGHT_MEMORY", cap=TIGHT_CAP)
        full = (WORKSPACE / "CLAUDE.md").read_text(encoding="utf-8")
        for n, _, after in _sessions(memory, "your squeezed memory"):
            goal = GOALS[n - 1]
            reference = once(("workspace memory", goal), lambda: session_two(goal, full))
            if len(after.files_read) > len(reference.files_read):
                raise Fail(
                    f"[request {n}] session two read {len(after.files_read)} files; with the workspace's "
                    f"{tiktoken_count(full)}-token CLAUDE.md it reads {len(reference.files_read)}",
                    "keep the pointer that sends session two to the right file and folder; the model only "
                    "follows a pointer on a line that shares a word with the request (email, login, ...).",
                )
        return (
            f"{cost} tokens in {len(lines)} line(s) against {tiktoken_count(full)} for the workspace's "
            "CLAUDE.md, with the same two wins on three wordings of the request."
        )

    return verdict("TIGHT_MEMORY", body)


# ---- task 4 (homework): a CLAUDE.md for another codebase ------------------------------------------------

GREENHOUSE_GOALS = [
    "Beds whose sensors report in Fahrenheit get watered far too often. Find the cause in the code under src/ "
    "and db/, then apply the fix to the database.",
    "Some beds are watered much too often: their sensors report in Fahrenheit. Find the cause under src/ and db/, "
    "then apply the fix to the database.",
    "Fahrenheit sensors make the irrigation run far too often on some beds. Locate the cause in src/ and db/ and "
    "apply the fix to the database.",
]


def check_greenhouse_memory(memory) -> bool:
    """Checks GREENHOUSE_MEMORY, the rules as the task states them:

    - At most four lines and 150 tokens (cl100k), every imported file included.
    - Every file or folder it names exists in workspaces/greenhouse/, an `@path` import points at a file inside it, and a marker it quotes is one its files hold.
    - No diary lines (as in MEMORY).
    - Written from scratch: lines of the greenhouse's own CLAUDE.md or of the class codebase's, even with their words shuffled, padded or joined together, are refused.
    - Session two on the greenhouse codebase, on three wordings of the request, reads fewer files than without memory and runs the fix on staging.
    """

    def body():
        lines, cost = memory_shape(
            memory,
            MEMORY_CAP,
            name="GREENHOUSE_MEMORY",
            root=GREENHOUSE,
            originals=[
                ("the greenhouse's own CLAUDE.md fingerprint", GREENHOUSE_FINGERPRINT),
                ("the class codebase's CLAUDE.md", lines_of(WORKSPACE / "CLAUDE.md")),
            ],
        )
        after = None
        for n, before, after in _sessions(memory, "your memory", GREENHOUSE_GOALS, GREENHOUSE):
            if len(after.files_read) >= len(before.files_read):
                raise Fail(
                    f"[request {n}] session two read {len(after.files_read)} files, as many as without memory",
                    "point at the file that decides the watering and at the folder of database changes "
                    "(and how a change not yet run is marked), on a line that shares words with the "
                    "request.",
                )
        return (
            f"{len(lines)} lines, {cost} tokens: on the greenhouse codebase session two went straight to the "
            f"files ({len(after.files_read)} read) and ran the fix on staging, for three wordings."
        )

    return verdict("GREENHOUSE_MEMORY", body)


# ---- task 2: promote -------------------------------------------------------------------------------------


def _real_card() -> str:
    """The last card of a real three-zone run with the rule said at lap 3 (made once, by the check)."""
    from harness.compaction import ThreeZoneCompaction
    from stage.tasks import file_reading_task

    from .common import run

    task = file_reading_task(rule_at_lap=3)
    return [
        lap.summary for lap in run(ThreeZoneCompaction(), 5000, task).laps if lap.kind == "compact"
    ][-1]


def _hand_written(seed: int) -> list[PromoteCase]:
    """The cases a careful grader writes first: no rule, no file, no newline, a rule held with and without
    its dash, a longer and a shorter line beside a rule, a rule listed twice, a real card."""
    rng = random.Random(seed)
    cases = []
    for n in range(11):
        rules = rng.sample(RULE_POOL[:7], 0 if n == 5 else rng.randint(1, 3))
        if n in (3, 8) and RULE_POOL[5] not in rules:
            rules.append(RULE_POOL[5])  # a rule with none of the usual words
        existing = rng.sample(MEMORY_POOL[:3], rng.randint(1, 3))
        if n % 3 == 1 and rules:
            existing.append(f"- {rules[0]}")  # memory already holds one of them
        if n in (6, 7):  # memory holds a line near a rule
            rules = [RULE_POOL[1]] + [r for r in rules if r != RULE_POOL[1]]
            existing.append(near(RULE_POOL[1], longer=n == 6))
        listed = rules[:1] + rules if n == 8 else rules
        summary = summary_text(rng.choice(GOALS), rules, 0 if n % 2 else 2, 4 if n == 8 else 0)
        if n == 9:
            summary = once(("promote card",), _real_card)
            listed = [bare(line) for line in _under_heading(summary)]
        label = {
            2: ", no CLAUDE.md yet",
            4: ", no newline at the end",
            6: ", memory holds a longer line",
            7: ", memory holds a shorter line",
            8: ", one rule listed twice",
            9: " (a real card)",
        }.get(n, "")
        cases.append(
            PromoteCase(
                summary,
                None if n == 2 else existing,
                newline=n != 4,
                as_str=bool(n % 2),
                rules=listed,
                where=f"case {n + 1}: {len(existing)} lines in memory, {len(set(listed))} "
                f"constraints in the summary{label}",
            )
        )
    return cases


def check_promote(promote, seed: int = 7) -> bool:
    """Checks promote(summary, memory_path), the rules as the task states them:

    - `memory_path` is a `str` or a `Path`; the file may not exist yet (then create it).
    - Take the lines that start with `- ` right under the `Standing constraints:` heading, up to the first line that is not one -- whatever their words. The next heading ends the section, and so does a blank line; a summary may have no such heading at all.
    - Append each, exactly as it is in the summary (its `- ` included), unless the file already holds that line: compare whole lines, without the leading `- `. A line that only contains the rule, or is contained in it, is another line.
    - A rule the summary lists twice is written once. If the file does not end with a newline, start on a new line.
    - Return the lines you added, exactly as written, in order; `[]` if none. So running it twice changes nothing and returns `[]` the second time.
    - Lose nothing: when the disk fills up while you write, the file's old lines must survive.
    - Write it yourself: calling the harness's own `harness.promote` is refused.

    On 11 hand-written cases (0 to 3 rules, one listed twice, one a memory line nearly holds, no file
    yet, no newline at the end, a real card), then on 100 made-up summaries and memory files (no
    heading at all, a blank line that ends the section, a "never" under another heading, rules held
    with or without their dash, rules with quotes, brackets and accents), and a disk that fills up
    mid-write.
    """

    def body():
        need_function(promote, "promote")
        with tempfile.TemporaryDirectory() as folder:
            numbers = itertools.count()
            empty = Path(folder) / "run-from-here"  # promote runs from this folder, kept empty
            empty.mkdir()

            def promoted_once(case):
                path = Path(folder) / f"case{next(numbers)}" / "CLAUDE.md"
                _promote_case(promote, case, path, empty)

            tried = hunt(
                promote_cases(),
                promoted_once,
                show_promote_case,
                seed=seed,
                explicit=_hand_written(seed),
            )
            _failing_write_case(promote, Path(folder) / "full-disk" / "CLAUDE.md")
        return (
            f"{tried} summaries and memory files (11 by hand, a real card among them), and one "
            "disk that filled up mid-write: rules promoted once, the added lines returned, nothing "
            "else moved, nothing lost."
        )

    return verdict("promote", body)


def _promote_case(promote, case: PromoteCase, path: Path, empty: Path) -> None:
    """Promote once, then again: the file must hold the old lines and the new ones, once each."""
    path.parent.mkdir()
    text = case.file_text()
    if text is not None:
        path.write_text(text, encoding="utf-8")
    target = str(path) if case.as_str else path
    with watching(harness.promote.__file__) as borrowed, elsewhere(empty):
        returned = call("promote(summary, memory_path)", promote, case.summary, target)
    if borrowed:
        raise Fail(
            f"your promote called the harness's own ({borrowed[0]} in harness/promote.py)",
            "write promote yourself: reading the summary and appending to the file is the exercise.",
        )
    added = case.to_add()
    if not path.exists():
        if added or text is not None:
            raise Fail("no memory file was written", "create the file when it does not exist yet.")
        first = ""  # nothing to add, and no file: leaving it unmade is fine
    else:
        first = path.read_text(encoding="utf-8")
    lines = [line.rstrip() for line in first.splitlines() if line.strip()]
    _memory_lines_problem(lines, case, added)
    _returned_problem(returned, added, case.existing or [])
    with elsewhere(empty):
        again = call("promote run a second time", promote, case.summary, target)
    if (path.read_text(encoding="utf-8") if path.exists() else "") != first:
        raise Fail(
            "running promote twice changed the file",
            "do not duplicate lines: before appending, check what the file already holds.",
        )
    if not (isinstance(again, (list, tuple)) and len(again) == 0):
        raise Fail(
            f"the second run returned {again!r:.60}, though it added nothing",
            "return only the lines this call added: the second time, that is [].",
        )


_GUARDED = [WORKSPACE / "CLAUDE.md", GREENHOUSE / "CLAUDE.md"]


@contextlib.contextmanager
def elsewhere(folder: Path):
    """Run promote from ``folder``, empty; FAIL if it wrote anywhere but the file it was given.

    A promote that ignores ``memory_path`` and writes "CLAUDE.md" lands in that empty folder, where the
    check sees it; one that writes a workspace's own CLAUDE.md gets that file put back as it was.
    """
    before = {p: p.read_bytes() for p in _GUARDED if p.exists()}
    here = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)
        strays = sorted(p.name for p in Path(folder).iterdir())
        for stray in Path(folder).iterdir():
            shutil.rmtree(stray) if stray.is_dir() else stray.unlink()
        touched = [p for p, data in before.items() if not p.exists() or p.read_bytes() != data]
        for p in touched:
            p.write_bytes(before[p])
    if touched or strays:
        raise Fail(
            "promote wrote to "
            + (
                f"{touched[0]} (now put back as it was)"
                if touched
                else f"{strays[0]} in the folder it was run from"
            )
            + ", not to the memory_path it was given",
            "write to memory_path, the file you are given -- never a path of your own.",
        )


def _under_heading(summary: str) -> list[str]:
    """The bullet lines right under the heading of a card the check did not write (a real run's)."""
    lines = summary.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == HEADING) + 1
    bullets = []
    for line in lines[start:]:
        if not line.strip().startswith("- "):
            break
        bullets.append(line.strip())
    return bullets


def _returned_problem(returned, added, existing):
    if returned is None:
        raise Fail(
            "promote returned None",
            "return the list of lines you added (as written to the file), [] if none.",
        )
    if not isinstance(returned, (list, tuple)) or not all(isinstance(x, str) for x in returned):
        raise Fail(
            f"promote returned {type(returned).__name__}",
            "return a list of strings, the lines added.",
        )
    held = [x for x in returned if bare(x) in {bare(e) for e in existing}]
    if held:
        raise Fail(
            f"promote returned {held[0]!r}, which memory already held",
            "return only the lines this call added; a constraint already in memory was skipped, so it "
            "is not among them.",
        )
    if [x.rstrip("\n") for x in returned] != added:
        raise Fail(
            f"promote returned {list(returned)!r:.80}, the lines added were {added!r:.80}",
            "return the lines exactly as you wrote them to the file, in the same order.",
        )


def _memory_lines_problem(lines: list[str], case: PromoteCase, added: list[str]) -> None:
    """FAIL unless the file's lines are its old lines, then exactly the lines to add, in order."""
    existing = [line.rstrip() for line in case.existing or [] if line.strip()]
    for old in existing:
        if old not in lines:
            glued = any(line.startswith(old) and line != old for line in lines)
            raise Fail(
                f"the memory line {old!r} is gone or changed",
                "the file did not end with a newline, so your first line was glued onto its last "
                "one: start on a new line."
                if glued
                else "append to the memory file; never overwrite what it already holds.",
            )
    new = lines[len(existing) :] if lines[: len(existing)] == existing else lines
    for line in added:
        rule = bare(line)
        if new.count(line) > 1:
            raise Fail(
                f"the constraint {rule!r} is in memory {new.count(line)} times",
                "each standing constraint belongs in memory exactly once: a rule the summary lists "
                "twice is written once.",
            )
        if line not in new:
            if rule in new:
                raise Fail(
                    f"the constraint {rule!r} went into memory without its dash",
                    "write each line exactly as it is in the summary, its leading '- ' included: "
                    "memory is a list of bullets.",
                )
            near_ = [e for e in existing if bare(e) != rule and (rule in e or bare(e) in rule)]
            raise Fail(
                f"the constraint {rule!r} is not in memory as a line of its own",
                f"memory held {near_[0]!r}, which is another line: compare whole lines (without the "
                "leading '- '), not whether one contains the other."
                if near_
                else "take every bullet right under the 'Standing constraints:' heading, whatever "
                "its words: a rule need not say never, not or always. One line each.",
            )
    held = [line for line in new if line not in added and bare(line) in {bare(e) for e in existing}]
    if held:
        raise Fail(
            f"the constraint {bare(held[0])!r} is in memory twice",
            "each standing constraint belongs in memory exactly once: skip the ones already there "
            "(compare whole lines, without the leading '- ').",
        )
    strays = [line for line in new if line not in added]
    if strays:
        raise Fail(
            f"memory gained {strays[0]!r}",
            "only the bullets right under the 'Standing constraints:' heading belong in memory, up "
            "to the first line that is not one: the next heading ends the section, and so does a "
            "blank line. The goal, facts and progress stay in the summary (they are this session's, "
            "not the project's), even a fact that says 'never'.",
        )
    if new != added:
        raise Fail(
            "memory gained the right lines in another order",
            "append the rules in the order the summary lists them.",
        )


# ---- a disk that fills up mid-write -------------------------------------------------------------------


class _FullDisk:
    """A file opened for writing on a full disk: every write fails before a byte is written."""

    def __init__(self, real):
        self._real = real

    def write(self, _data):
        raise OSError(errno.ENOSPC, "No space left on device (injected by the check)")

    writelines = write

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._real.close()
        return False

    def __getattr__(self, name):
        return getattr(self._real, name)


@contextlib.contextmanager
def disk_full_for(path: Path):
    """While active, opening ``path`` for writing works (and truncates, if asked) but writing to it fails."""
    real_open, target = io.open, path.resolve()

    def failing_open(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        try:
            aimed = isinstance(file, (str, Path)) and Path(file).resolve() == target
        except (OSError, ValueError):
            aimed = False
        return _FullDisk(handle) if aimed and any(c in mode for c in "wax+") else handle

    builtins.open = io.open = failing_open
    try:
        yield
    finally:
        builtins.open = io.open = real_open


def _failing_write_case(promote, path):
    path.parent.mkdir()
    existing = list(MEMORY_POOL[:3])
    path.write_text("\n".join(existing) + "\n", encoding="utf-8")
    summary = summary_text(GOALS[0], RULE_POOL[:2], 0, 0)
    where = (
        "a memory file of 3 lines, 2 new constraints, and the disk fills up while promote writes"
    )
    try:
        with disk_full_for(path):
            call(f"promote [{where}]", promote, summary, path)
    except Fail as failed:
        if "still running" in failed.what:
            raise  # raising is fine here (the disk is full); hanging is not
    now = path.read_text(encoding="utf-8") if path.exists() else ""
    lost = [line for line in existing if line not in now.splitlines()]
    if lost:
        raise Fail(
            f"[{where}] after the failed write the memory file lost {len(lost)} of its "
            f"{len(existing)} lines",
            "never empty the old file before the new text is safely written: open it in append "
            "mode ('a'), or write the whole new text to a temporary file beside it and "
            "os.replace() it over the old one.",
        )
