"""Two sessions, one notebook: does session two start knowing the project?

    .venv/bin/python -m benchmarks.two_sessions

Session one works the class task (the rule "never touch production" is in the request) with its
``remember`` tool writing into a fresh, empty CLAUDE.md. Session two then starts on a blank desk
with a new request that does *not* restate the rule -- three times: with no memory, with the
memory session one promoted, and with the workspace's own four-line CLAUDE.md. The offline model
only ever sees a system prompt; whatever it does differently comes from what memory put there.

Columns: laps, files read, re-reads, memory tokens sent per turn and over the session, and where
the agent aimed its SQL. Left out: compaction (the window is large enough that it never fires;
see ``tests/test_memory.py`` for promotion out of a real compaction summary) and the real home
folder's memory (never read here, so every run gives the same table).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from benchmarks.compare import table
from harness.laps import Run
from harness.loop import run_agent
from harness.memory import PROJECT_MEMORY, Memory, load_memory, system_prompt
from harness.notes import memory_costs, write_note
from harness.promote import remember_into
from harness.tokens import Meter
from harness.tools import Toolbox
from stage.offline import OfflineModel
from stage.tasks import GOAL, file_reading_task

WINDOW = 20_000  # roomy: no compaction, so only memory differs between the runs


def session_one(
    notebook: Path, window: int = WINDOW, meter: Meter | None = None
) -> tuple[Run, Memory]:
    """Work the class task, the remember tool writing into ``notebook``. Returns the run and its memory."""
    meter = meter or Meter()
    memory = load_memory(user=None, project=notebook, local=None, meter=meter)
    tools = Toolbox(remember=remember_into(notebook))
    run = run_agent(
        file_reading_task().request,
        OfflineModel(window=window, meter=meter),
        tools=tools,
        system=system_prompt(memory, invite_remember=True),
    )
    return run, memory


def session_two(
    memory: Memory | None, request: str = GOAL, window: int = WINDOW, meter: Meter | None = None
) -> Run:
    """A fresh session on ``request``; the only thing it carries over is ``memory`` in its system prompt."""
    model = OfflineModel(window=window, meter=meter or Meter())
    return run_agent(request, model, system=system_prompt(memory))


def row(label: str, run: Run, memory: Memory | None) -> dict:
    """One line of the table, read off a finished run."""
    per_turn = memory.tokens_per_lap if memory else 0
    return {
        "session": label,
        "laps": len(run.laps),
        "files read": len(run.files_read),
        "re-reads": len(run.rereads),
        "memory tokens/turn": per_turn,
        "memory tokens/session": per_turn * len(run.laps),
        "database": run.database_target or "-",
    }


def two_sessions(
    window: int = WINDOW, meter: Meter | None = None, folder: str | Path | None = None
) -> list[dict]:
    """The comparison rows: session one, then session two three ways. Each row comes from a real run.

    ``folder`` keeps session one's CLAUDE.md there (default: a temporary folder, removed afterwards).
    Example: the last row (the four-line CLAUDE.md) reads 4 files and targets staging.
    """
    meter = meter or Meter()
    with tempfile.TemporaryDirectory() as scratch:
        notebook = Path(folder or scratch) / "CLAUDE.md"
        first, _ = session_one(notebook, window, meter)
        promoted = load_memory(user=None, project=notebook, local=None, meter=meter)
        written = load_memory(user=None, project=PROJECT_MEMORY, local=None, meter=meter)
        return [
            row("1: the task, rule in request", first, None),
            row("2: no memory", session_two(None, window=window, meter=meter), None),
            row(
                "2: promoted in session 1",
                session_two(promoted, window=window, meter=meter),
                promoted,
            ),
            row(
                "2: workspace CLAUDE.md", session_two(written, window=window, meter=meter), written
            ),
        ]


def jot_notes(run: Run, folder: Path) -> int:
    """Save each Cause / Fix / Noticed line the agent noted during ``run`` as a note. Returns how many."""
    lines = {
        line.strip()
        for m in run.history
        if m["role"] == "assistant"
        for b in m["content"]
        if b.get("type") == "text"
        for line in b["text"].splitlines()
    }
    facts = sorted(line for line in lines if line.startswith(("Cause:", "Fix:", "Noticed:")))
    for fact in facts:
        kind, _, rest = fact.partition(": ")
        write_note(folder, f"{kind} {rest.split(' ')[0]}", fact)
    return len(facts)


def retrieved_versus_loaded(meter: Meter | None = None) -> dict:
    """Session one's notes written to a folder, then recalled for session two's request: the token costs."""
    meter = meter or Meter()
    with tempfile.TemporaryDirectory() as scratch:
        run, _ = session_one(Path(scratch) / "CLAUDE.md", meter=meter)
        notes = Path(scratch) / "notes"
        jot_notes(run, notes)
        written = load_memory(user=None, project=PROJECT_MEMORY, local=None, meter=meter)
        return memory_costs(written, notes, GOAL, k=2, meter=meter)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=WINDOW)
    args = parser.parse_args()
    meter = Meter()
    with tempfile.TemporaryDirectory() as scratch:
        print(f"Two sessions, offline model, window {args.window:,} tokens. Session two's request:")
        print(f"  {GOAL}\n")
        print(table(two_sessions(args.window, meter, folder=scratch)))
        print("\nWhat session one promoted into its CLAUDE.md:")
        print(Path(scratch, "CLAUDE.md").read_text(encoding="utf-8").rstrip())
    costs = retrieved_versus_loaded(meter)
    print(
        f"\nRetrieved memory for the same request: {costs['all notes']} tokens of notes on file, "
        f"{costs['recalled']} recalled ({', '.join(costs['recalled notes']) or 'none'}); "
        f"the always-loaded CLAUDE.md costs {costs['always loaded']} tokens per turn."
    )


if __name__ == "__main__":
    main()
