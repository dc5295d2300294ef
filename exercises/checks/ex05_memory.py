"""Checks for exercise 05, memory: ``MEMORY``, ``promote``, ``TIGHT_MEMORY``, ``GREENHOUSE_MEMORY``.

Whether your CLAUDE.md holds the standing rule is decided the honest way: the check writes it to a
temporary CLAUDE.md, loads it with ``harness.memory`` into session two's system prompt, runs the
offline desk model, and looks where the fix went (``run.database_target``). The check itself does no
keyword matching. So a rule the offline model cannot read fails, and the hint says that this is the
offline model's limit (exercises/README.md, "The offline desk model", lists the wordings it reads).

``promote`` is run on fresh temporary files, never the workspace's CLAUDE.md -- once with a write
that fails half way (a full disk, injected by the check) to see that the file's old lines survive.
Left out: user and local memory levels, and @imports (harness.memory loads them; the exercise does not).
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import io
import random
import tempfile
from pathlib import Path

from harness.loop import run_agent
from harness.memory import load_memory, system_prompt
from harness.tokens import tiktoken_count
from harness.tools import REPO_ROOT, WORKSPACE, Toolbox

from .common import GOALS, Fail, NotDone, call, model, need_function, once, verdict

MEMORY_CAP = 150               # tokens: the most this class lets a four-line CLAUDE.md cost per turn
TIGHT_CAP = 30                 # tokens: the squeezed memory of task 3
README = "exercises/README.md, 'The offline desk model'"


def with_memory(memory: str) -> str:
    """Session two's system prompt with ``memory`` loaded as the project's CLAUDE.md, through harness.memory."""
    if not memory or not memory.strip():
        return system_prompt(None)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "CLAUDE.md"
        path.write_text(memory, encoding="utf-8")
        return system_prompt(load_memory(user=None, project=path, local=None))


def session_two(goal: str, memory: str | None, root: Path = WORKSPACE):
    """A new session on the workspace at ``root``, with ``memory`` (or none) loaded as its CLAUDE.md."""
    return run_agent(goal, model(20000), tools=Toolbox(root), max_laps=80,
                     system=with_memory(memory) if memory else system_prompt(None))


def _sessions(memory: str, label: str, goals=GOALS, root: Path = WORKSPACE):
    """Run session two on every wording, with and without the memory; FAIL on the first thing that is off."""
    for n, goal in enumerate(goals, start=1):
        before = once(("no memory", goal, str(root)), lambda: session_two(goal, None, root))
        after = session_two(goal, memory, root)
        print(f"request {n}: without memory {len(before.files_read)} files read, fix on {before.database_target}; "
              f"with {label} {len(after.files_read)} files read, fix on {after.database_target}.")
        if after.database_target != "staging":
            raise Fail(f"[request {n}] session two ran the fix on {after.database_target}",
                       "the offline model did not read anything in your memory as a rule about the database "
                       "target. If you wrote no such rule, add it: nothing else in session two says where the fix "
                       "may go. If you did, the offline model may not read that wording -- see " + README +
                       " for the wordings it reads (Claude would read more).")
        yield n, before, after


def check_memory(memory, budget) -> bool:
    """At most four lines, within your budget; session two skips rediscovery and uses staging."""

    def body():
        lines, cost = memory_shape(memory, budget)
        after = None
        for n, before, after in _sessions(memory, "memory"):
            if len(after.files_read) >= len(before.files_read):
                raise Fail(f"[request {n}] session two read {len(after.files_read)} files, as many as without memory",
                           "say where things live (the file that handles sign-in, the folder of migrations, how a "
                           "pending one is marked), so session two goes straight there.")
        laps = len(after.laps)
        return (f"{len(lines)} lines, {cost} tokens (budget {budget}); session two went straight to the files and "
                f"used staging. Memory cost {cost} x {laps} laps = {cost * laps:,} tokens in that session.")

    return verdict("your CLAUDE.md", body)


def memory_shape(memory, budget, name: str = "MEMORY", cap: int = MEMORY_CAP) -> tuple[list[str], int]:
    """Four lines at most, a sensible budget, and within it. Returns (lines, tokens)."""
    if memory is None or budget is None:
        raise NotDone(f"write {name} (the text of CLAUDE.md)" + (" and MEMORY_BUDGET (tokens)" if name == "MEMORY"
                                                                  else "") + ", then run this cell.")
    if not isinstance(memory, str) or not memory.strip():
        raise Fail(f"{name} is not a piece of text", "write CLAUDE.md as one string, one fact or rule per line.")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
        raise Fail(f"MEMORY_BUDGET is {budget!r}", "give a positive whole number of tokens.")
    lines = [line for line in memory.splitlines() if line.strip()]
    if len(lines) > 4:
        raise Fail(f"{name} has {len(lines)} lines",
                   "at most four lines: CLAUDE.md is loaded on every turn of every session, so only durable rules "
                   "and where-things-live pointers belong in it, not a diary or the codebase.")
    if budget > cap:
        raise Fail(f"a budget of {budget:,} tokens is too generous",
                   f"CLAUDE.md is paid on every turn: keep it to {cap} tokens or less.")
    cost = tiktoken_count(memory)
    if cost > budget:
        raise Fail(f"{name} is {cost} tokens, over " + ("your own budget" if name == "MEMORY" else "the cap")
                   + f" of {budget}", "trim it to the rules and pointers that matter"
                   + (", or raise the budget (within the cap)." if name == "MEMORY" else
                      ": which line made session two faster, and which only repeats what the code says?"))
    return lines, cost


# ---- task 3 (homework): squeeze it ---------------------------------------------------------------------

def check_tight_memory(memory) -> bool:
    """At most 30 tokens, and session two still reads as few files as with the workspace's own CLAUDE.md."""

    def body():
        lines, cost = memory_shape(memory, TIGHT_CAP, name="TIGHT_MEMORY", cap=TIGHT_CAP)
        full = (WORKSPACE / "CLAUDE.md").read_text(encoding="utf-8")
        for n, _, after in _sessions(memory, "your squeezed memory"):
            goal = GOALS[n - 1]
            reference = once(("workspace memory", goal), lambda: session_two(goal, full))
            if len(after.files_read) > len(reference.files_read):
                raise Fail(f"[request {n}] session two read {len(after.files_read)} files; with the workspace's "
                           f"{tiktoken_count(full)}-token CLAUDE.md it reads {len(reference.files_read)}",
                           "keep the pointer that sends session two to the right file and folder; the model only "
                           "follows a pointer on a line that shares a word with the request (email, login, ...).")
        return (f"{cost} tokens in {len(lines)} line(s) against {tiktoken_count(full)} for the workspace's "
                "CLAUDE.md, with the same two wins on three wordings of the request.")

    return verdict("TIGHT_MEMORY", body)


# ---- task 4 (homework): a CLAUDE.md for another codebase ------------------------------------------------

GREENHOUSE = REPO_ROOT / "workspaces" / "greenhouse"
GREENHOUSE_GOALS = [
    "Beds whose sensors report in Fahrenheit get watered far too often. Find the cause in the code under src/ "
    "and db/, then apply the fix to the database.",
    "Some beds are watered much too often: their sensors report in Fahrenheit. Find the cause under src/ and db/, "
    "then apply the fix to the database.",
    "Fahrenheit sensors make the irrigation run far too often on some beds. Locate the cause in src/ and db/ and "
    "apply the fix to the database.",
]


def check_greenhouse_memory(memory) -> bool:
    """The new-teammate test on workspaces/greenhouse: fewer files read, the fix on staging, three wordings."""

    def body():
        lines, cost = memory_shape(memory, MEMORY_CAP, name="GREENHOUSE_MEMORY")
        theirs = {_norm(line) for line in (GREENHOUSE / "CLAUDE.md").read_text(encoding="utf-8").splitlines()}
        copied = [line for line in lines if _norm(line) in theirs]
        if copied:
            raise Fail(f"GREENHOUSE_MEMORY copies {copied[0]!r} from the workspace's own CLAUDE.md",
                       "write the notebook yourself, from what you find in the code and its docs: that is the "
                       "skill this task trains.")
        after = None
        for n, before, after in _sessions(memory, "your memory", GREENHOUSE_GOALS, GREENHOUSE):
            if len(after.files_read) >= len(before.files_read):
                raise Fail(f"[request {n}] session two read {len(after.files_read)} files, as many as without memory",
                           "point at the file that decides the watering and at the folder of database changes "
                           "(and how a change not yet run is marked), on a line that shares words with the "
                           "request.")
        return (f"{len(lines)} lines, {cost} tokens: on the greenhouse codebase session two went straight to the "
                f"files ({len(after.files_read)} read) and ran the fix on staging, for three wordings.")

    return verdict("GREENHOUSE_MEMORY", body)


# ---- task 2: promote -------------------------------------------------------------------------------------

_CONSTRAINT_POOL = [
    "Never touch production: run database changes on staging only.",
    "Do not edit files under migrations/ that have already run.",
    "Only use the public API in app/api/; never call the database from a handler.",
    "Always run `pytest tests/` before saying a change is done.",
    "No new dependencies without asking first.",
    "Schema changes go through a new migration file.",           # a rule with none of the usual keywords
    "Café names keep their accents: naïve ASCII folding breaks the menu export.",
]
_MEMORY_POOL = [
    "- Ledgerly is a small invoicing API (Python 3.11, Postgres).",
    "- Sign-in lives in app/auth.py; data fixes are SQL files in migrations/.",
    "- A pending migration has `-- status: pending` on its second line.",
]


def _summary_text(rng: random.Random, constraints: list[str], last: bool) -> str:
    """A summary in the harness's shape: headed sections, bullets under the constraints heading."""
    facts = ["Facts:", "- Cause: app/auth.py:40 — FIXME: case-sensitive email match",
             "- Noticed: app/db.py:25 — the nightly export never includes its first row",
             "- Noticed: no test covers a login that must not fail on capitals"]
    rules = (["Standing constraints:"] + [f"- {c}" for c in constraints]) if constraints else []
    progress = ["Files read: app/auth.py, app/db.py, migrations/003_lowercase_emails.sql",
                "Done / pending:", "- Done: read 3 files. Pending: apply the pending fix."]
    sections = [facts, progress, rules] if last else [rules, facts, progress]
    return "\n".join([f"Goal: {rng.choice(GOALS)}"] + [line for section in sections for line in section])


def _norm(line: str) -> str:
    return line.strip().lstrip("-*• ").strip().lower()


def check_promote(promote, seed: int = 7) -> bool:
    """Move the standing-constraints lines of a summary into a memory file, on fresh temp files, twice."""

    def body():
        need_function(promote, "promote")
        rng = random.Random(seed)
        with tempfile.TemporaryDirectory() as folder:
            for n in range(9):
                _promote_case(promote, rng, n, Path(folder) / f"case{n}" / "CLAUDE.md")
            _failing_write_case(promote, rng, Path(folder) / "full-disk" / "CLAUDE.md")
        return ("9 fresh summaries and memory files, and one disk that filled up mid-write: rules promoted once, "
                "the added lines returned, nothing else moved, nothing lost.")

    return verdict("promote", body)


def _promote_case(promote, rng, n, path):
    """One case: some memory lines (or no file), a summary with 0-3 rules; promote, then promote again."""
    path.parent.mkdir()
    constraints = rng.sample(_CONSTRAINT_POOL, rng.randint(0 if n == 5 else 1, 3))
    if n == 3 and _CONSTRAINT_POOL[5] not in constraints:
        constraints.append(_CONSTRAINT_POOL[5])
    existing = rng.sample(_MEMORY_POOL, rng.randint(1, 3))
    if n % 3 == 1 and constraints:
        existing.append(f"- {constraints[0]}")                    # memory already holds one of them
    if n == 2:
        existing = []                                              # no CLAUDE.md yet
    else:
        path.write_text("\n".join(existing) + ("" if n == 4 else "\n"), encoding="utf-8")
    summary = _summary_text(rng, constraints, last=n % 2 == 0)
    where = (f"case {n + 1}: {len(existing)} lines in memory, {len(constraints)} constraints in the summary"
             + (", no trailing newline" if n == 4 else ", no CLAUDE.md yet" if n == 2 else "")
             + (", one already in memory" if n % 3 == 1 and constraints and n != 2 else ""))
    target = str(path) if n % 2 else path                          # a str or a Path, both must work
    returned = call(f"promote(summary, memory_path) [{where}]", promote, summary, target)
    if not path.exists():
        raise Fail(f"[{where}] no memory file was written", "create the file when it does not exist yet.")
    first = path.read_text(encoding="utf-8")
    lines = [line for line in first.splitlines() if line.strip()]
    _memory_lines_problem(lines, existing, constraints, where)
    added = [line for line in lines if line not in existing]
    _returned_problem(returned, added, existing, where)
    again = call(f"promote run a second time [{where}]", promote, summary, target)
    if path.read_text(encoding="utf-8") != first:
        raise Fail(f"[{where}] running promote twice changed the file",
                   "do not duplicate lines: before appending, check what the file already holds (compare the "
                   "text without the leading '- ').")
    if again not in ([], ()):
        raise Fail(f"[{where}] the second run returned {again!r}, though it added nothing",
                   "return only the lines this call added: the second time, that is [].")


def _returned_problem(returned, added, existing, where):
    if returned is None:
        raise Fail(f"[{where}] promote returned None",
                   "return the list of lines you added (as written to the file), [] if none.")
    if not isinstance(returned, (list, tuple)) or not all(isinstance(x, str) for x in returned):
        raise Fail(f"[{where}] promote returned {type(returned).__name__}",
                   "return a list of strings, the lines added.")
    held = [x for x in returned if _norm(x) in {_norm(e) for e in existing}]
    if held:
        raise Fail(f"[{where}] promote returned {held[0]!r}, which memory already held",
                   "return only the lines this call added; a constraint already in memory was skipped, so it is "
                   "not among them.")
    if [x.rstrip("\n") for x in returned] != added:
        raise Fail(f"[{where}] promote returned {list(returned)!r}, the lines added were {added!r}",
                   "return the lines exactly as you wrote them to the file, in the same order.")


def _memory_lines_problem(lines, existing, constraints, where):
    for old in existing:
        if old not in lines:
            glued = any(line.startswith(old) and line != old for line in lines)
            raise Fail(f"[{where}] the memory line {old!r} is gone or changed",
                       "the file did not end with a newline, so your first line was glued onto its last one: "
                       "start on a new line." if glued else
                       "append to the memory file; never overwrite what it already holds.")
    for rule in constraints:
        count = sum(_norm(line) == _norm(rule) for line in lines)
        if count > 1:
            raise Fail(f"[{where}] the constraint {rule!r} is in memory {count} times",
                       "each standing constraint belongs in memory exactly once: skip the ones already there "
                       "(compare without the leading '- ').")
        if count == 0:
            raise Fail(f"[{where}] the constraint {rule!r} is not in memory as a line of its own",
                       "take every bullet under the 'Standing constraints:' heading of the summary, whatever its "
                       "words: a rule need not say never, not or always. One line each.")
    allowed = {_norm(x) for x in existing + constraints}
    strays = [line for line in lines if _norm(line) not in allowed]
    if strays:
        raise Fail(f"[{where}] memory gained {strays[0]!r}",
                   "only the lines under the 'Standing constraints:' heading belong in memory: the goal, facts "
                   "and progress stay in the summary (they are this session's, not the project's), even a fact "
                   "that says 'never'.")


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


def _failing_write_case(promote, rng, path):
    path.parent.mkdir()
    existing = list(_MEMORY_POOL)
    old = "\n".join(existing) + "\n"
    path.write_text(old, encoding="utf-8")
    summary = _summary_text(rng, _CONSTRAINT_POOL[:2], last=False)
    where = "a memory file of 3 lines, 2 new constraints, and the disk fills up while promote writes"
    try:
        with disk_full_for(path):
            promote(summary, path)
    except NotImplementedError:
        raise
    except Exception:
        pass                                   # failing is fine; losing the old lines is not
    now = path.read_text(encoding="utf-8") if path.exists() else ""
    lost = [line for line in existing if line not in now.splitlines()]
    if lost:
        raise Fail(f"[{where}] after the failed write the memory file lost {len(lost)} of its {len(existing)} lines",
                   "never empty the old file before the new text is safely written: open it in append mode ('a'), "
                   "or write the whole new text to a temporary file beside it and os.replace() it over the old one.")
