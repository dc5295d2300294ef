"""Print the context strategies side by side on a file-reading task (offline, deterministic).

    .venv/bin/python -m benchmarks.compare            # the task as the class runs it (CLAUDE.md loaded)
    .venv/bin/python -m benchmarks.compare --no-memory   # without the workspace's CLAUDE.md
    .venv/bin/python -m benchmarks.compare --rule-later  # the rule arrives at lap 3, not in the request
    .venv/bin/python -m benchmarks.compare --workspace workspaces/library   # another codebase, its own task
    .venv/bin/python -m benchmarks.compare --workspace PATH --request "... Never touch prod."
    .venv/bin/python -m benchmarks.compare --correct-at 2   # "actually, the table is ..." at lap 2
    .venv/bin/python -m benchmarks.compare --json           # the same rows as JSON

Columns: how the run stopped and why, laps, peak and final assembled tokens, final raw tokens, summary calls,
whether the standing rule was still on the desk at the end, re-reads, where the agent aimed its SQL, the
cause it named and the statement it ran ("-": none; a run that applied nothing says why in ``why``). A run
that ran out of laps repeating a cycle of calls stops as ``loop``, and ``why`` gives the cycle's length
and its calls (the whole run is compared, so a cycle of twenty laps is found as surely as one of two).

Like an agent harness, it loads the workspace's ``CLAUDE.md`` into the system prompt (lesson 05's loader,
``harness.memory``): a rule kept there is on every desk, whatever the strategy drops. ``--no-memory``
leaves it out -- as the lessons on the desk alone (01-04) do.

What a workspace needs: a folder of text files (any language; files whose name starts with a dot are never
seen). For a database fix, one of: a SQL file whose comments say it has not run yet ("-- status: pending",
"not applied", "not run yet", ...), a script that a document names for the goal ("run scripts/repair.sql to
..."), or the repair statement in backticks in a comment at the cause. Without any, the agent names the cause
and says it applied nothing: it never writes SQL of its own. The folder's hidden ``.task.toml`` may hold the
request and the rule (see ``workspaces/README.md``).

What a request needs: the symptom in the user's own words -- quote the error message, name a function, field
or file if you know one: the model searches the workspace for what the request names and reads around the
hits; the folders to look in ("Find the cause in src/ and db/"; without them it reads everything); "apply the
fix to the database" if it should act (any of the words apply, execute, migration, database, patch); and a
standing rule ("Never touch production.") if it should obey one. The rule's targets are run_sql's: staging and production (aliases stage,
prod, live).

For another workspace the desk is about half the size of the whole task, and never smaller than the largest
turn of the task twice over plus a summary and the pinned request (so a compacted desk can always hold what
it reads), unless ``--window`` says otherwise. Each number comes from a first run with a roomy window. When
that desk would hold the whole task (a short task: nothing would overflow and every strategy would look the
same), it says so and takes a desk just under the whole task instead; ``--window`` sets any other. A desk
given with ``--window`` (or the class's 5,000) that holds the whole task is said to, with the window that
would show the strategies apart -- with CLAUDE.md loaded, the class task itself is that short.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import tomllib
from pathlib import Path

from harness.clearing import ClearToolResults
from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.sliding_window import SlidingWindow
from harness.loop import run_agent
from harness.memory import load_claude_md
from harness.model import CLASS_WINDOW
from harness.prompts import NAIVE_PROMPT, SYSTEM_PROMPT
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from harness.tools import WORKSPACE, Toolbox
from stage.offline import OfflineModel
from stage.offline.view import is_rule, sentences, without_rules
from stage.offline.progress import cycle
from stage.tasks import Task, file_reading_task, workspace_task

MAX_LAPS = 80
SUMMARY_ROOM = 400  # tokens a 220-word template summary takes, with its header
OUTPUT_RESERVE = 512  # what ThreeZoneCompaction keeps free for the reply (its default)


def strategies():
    return {
        "full history": FullHistory(),
        "sliding window": SlidingWindow(),
        "three-zone, naive prompt": ThreeZoneCompaction(prompt=NAIVE_PROMPT),
        "three-zone, template": ThreeZoneCompaction(),
        "running summary": RunningSummary(),
        "clear tool results": ClearToolResults(),
    }


def task_for(workspace: Path, request: str | None, rule_at_lap: int | None) -> Task:
    """The task: the class task, a workspace's ``.task.toml``, or a request typed on the command line."""
    if request:
        rule = " ".join(x for x in sentences(request) if is_rule(x))
        goal = without_rules(request) if rule else request
        return (
            file_reading_task(rule_at_lap, goal=goal, rule=rule) if rule else Task(request, rule="")
        )
    if (workspace / ".task.toml").is_file():
        return workspace_task(workspace, rule_at_lap)
    return file_reading_task(rule_at_lap=rule_at_lap)


def automatic_window(task: Task, workspace: Path, meter: Meter, system: str = SYSTEM_PROMPT) -> int:
    """A desk about half the size of the whole task, but big enough for what the task must hold at once.

    From a run that never runs out of room: half its raw history, and at least what three-zone compaction
    must fit under its threshold (0.75 of the window less the reply's reserve) -- the pinned request, a
    summary, and a tail of its two largest turns. Example: a task of 9,000 tokens whose largest read is
    1,700 tokens -> max(4,500, (450 + 400 + 2 x 1,800) / 0.75 + 512) = 6,446.
    """
    return choose_window(task, workspace, meter, system)[0]


def choose_window(
    task: Task, workspace: Path, meter: Meter, system: str = SYSTEM_PROMPT
) -> tuple[int, str]:
    """(window, what to tell the user): ``automatic_window``'s desk -- or, when that desk would hold the whole
    task (nothing would overflow, every strategy would look alike), a desk just under the whole task, and a
    sentence saying so. Example: a task of 1,726 tokens, a floor of 2,500 -> (1,700, 'The whole task ...')
    """
    run = run_agent(
        task.request,
        OfflineModel(window=200_000, meter=meter),
        tools=Toolbox(workspace),
        system=system,
        remarks=task.remarks,
        max_laps=MAX_LAPS,
    )
    head = meter.total(run.history[:1], system=system, tools=run.toolbox.schemas)
    turns = sorted(
        (meter.count(a) + meter.count(r) for a, r in zip(run.history[1::2], run.history[2::2])),
        reverse=True,
    )
    needed = (head + SUMMARY_ROOM + sum(turns[:2])) / 0.75 + OUTPUT_RESERVE
    whole = run.laps[-1].raw_tokens
    window = max(2500, whole // 2, math.ceil(needed / 100) * 100)
    if window < whole:
        return window, ""
    under = (whole - 1) // 100 * 100
    return under, (
        f"The whole task takes {whole:,} tokens, which the automatic desk ({window:,}) would hold: nothing "
        f"would overflow. The desk is {under:,} tokens instead, just under the whole task "
        f"(--window {window} shows the roomy run)."
    )


def correction_of(workspace: Path) -> tuple[str, str, str] | None:
    """(what the user says, the stale statement, the corrected one) from a workspace's ``.task.toml``, if any."""
    spec_file = workspace / ".task.toml"
    spec = tomllib.loads(spec_file.read_text(encoding="utf-8")) if spec_file.is_file() else {}
    keys = ("correction", "statement", "corrected_statement")
    return tuple(spec[k] for k in keys) if all(spec.get(k) for k in keys) else None


def named_cause(final: str) -> str:
    """The place the final answer names as the cause ('path:line (function)'), or '-'.

    Example: 'Done. Cause: app/auth.py:40 (find_user) — FIXME: ...' -> 'app/auth.py:40 (find_user)'
    """
    found = re.search(r"[Cc]ause: (\S+:\d+(?: \([\w.]+\))?)", final)
    return found.group(1) if found else "-"


def why_stopped(run, max_laps: int) -> str:
    """Why the run ended, in a few words, from its records alone.

    Example: a run stopped at max_laps whose last 60 laps made the same 20 calls three times -> 'loop: a cycle
    of 20 calls, made 3 times (laps 21-80): read_file a.py -> search x -> ...'
    """
    if run.stopped == "answered":
        if run.toolbox.sql_log:
            return f"answered: applied on {run.toolbox.sql_log[-1]['target']}"
        said = next(
            (
                line
                for line in run.final.splitlines()
                if re.search(r"Nothing applied|cannot|will not|stopped a cycle", line)
            ),
            "",
        )
        return "answered, nothing applied" + (f": {said.strip()[:140]}" if said else "")
    if run.stopped == "max_laps":
        loop = loop_in(run)
        if loop:
            length, times, calls = loop
            first = len(run.laps) - length * times + 1
            return (
                f"loop: a cycle of {length} call{'s' * (length > 1)}, made {times} times "
                f"(laps {first}-{len(run.laps)}): " + " -> ".join(c[:60] for c in calls)
            )
        recent = [a for lap in run.laps[-1:] for a in lap.actions]
        return f"out of laps ({max_laps}), still working: last {recent[-1][:80] if recent else 'nothing'}"
    return f"{run.stopped} at lap {len(run.laps)}: {run.problem.removeprefix('Context overflow: ').split('. ')[0][:140]}"


def loop_in(run) -> tuple[int, int, list[str]] | None:
    """(length, times, calls) of the cycle of calls the run ended in, over all its laps; None if it ended in
    none. A lap's calls count as one step. Example: laps a, b, c, b, c -> (2, 2, ['b', 'c'])"""
    steps = [" + ".join(lap.actions) or "(no call)" for lap in run.laps]
    found = cycle(steps)
    return (found[0], found[1], steps[-found[0] :]) if found else None


def compare(
    rule_at_lap: int | None = None,
    window: int | None = CLASS_WINDOW,
    workspace: str | Path = WORKSPACE,
    request: str | None = None,
    correct_at: int | None = None,
    max_laps: int = MAX_LAPS,
    memory: bool = True,
) -> list[dict]:
    """One row per strategy, each from a real run. ``window=None``: chosen by ``choose_window``.

    ``correct_at``: at that lap the user corrects a name in the fix (the workspace's ``correction``); the
    ``fix statement`` column then says whether the statement run was the corrected one or the stale one.
    ``memory``: load the workspace's CLAUDE.md into the system prompt, as an agent harness does.
    Every row also carries the ``window`` and a ``window note`` (why that window, when it is not the usual).
    """
    workspace, meter, rows = Path(workspace), Meter(), []
    task = task_for(workspace, request, rule_at_lap)
    rules = standing_rules(task, workspace, memory)
    system = load_claude_md(workspace / "CLAUDE.md") if memory else SYSTEM_PROMPT
    note = ""
    if not window:
        window, note = choose_window(task, workspace, meter, system)
    correction = correction_of(workspace) if correct_at else None
    remarks = dict(task.remarks)
    if correction:
        remarks[correct_at] = (
            remarks[correct_at] + " " if correct_at in remarks else ""
        ) + correction[0]
    for name, strategy in strategies().items():
        run = run_agent(
            task.request,
            OfflineModel(window=window, meter=meter),
            tools=Toolbox(workspace),
            context=strategy,
            system=system,
            remarks=remarks,
            max_laps=max_laps,
        )
        last = run.laps[-1]
        on_desk = " ".join(
            (system + " " + " ".join(str(m["content"]) for m in last.sent)).lower().split()
        )
        ran = run.toolbox.sql_log[-1]["statement"] if run.toolbox.sql_log else None
        rows.append(
            {
                "strategy": name,
                "stopped": "loop" if run.stopped == "max_laps" and loop_in(run) else run.stopped,
                "laps": len(run.laps),
                "peak sent": max(lap.assembled_tokens for lap in run.laps),
                "final sent": last.assembled_tokens,
                "final raw": last.raw_tokens,
                "summary calls": sum(lap.summary_calls for lap in run.laps),
                "rule kept": ("yes" if any(r in on_desk for r in rules) else "no")
                if rules
                else "-",
                "re-reads": len(run.rereads),
                "database": run.database_target or "-",
                "cause": named_cause(run.final),
                "statement": ran or "-",
                "why": why_stopped(run, max_laps),
                "window": window,
                "window note": note,
            }
        )
        if correction:
            rows[-1]["fix statement"] = {correction[2]: "corrected", correction[1]: "stale"}.get(
                ran, "-" if ran is None else "other"
            )
    whole = rows[0]["final raw"]  # full history's last request: the whole task
    if not note and rows[0]["stopped"] == "answered" and whole <= window:
        note = (
            f"The whole task takes {whole:,} tokens and fits the {window:,}-token desk: nothing overflows, "
            f"so the strategies cannot differ (--window {(whole - 1) // 100 * 100} shows them)."
        )
    return [{**row, "window note": note} for row in rows]


def standing_rules(task: Task, workspace: Path, memory: bool) -> list[str]:
    """The sentences that state the standing rule -- the task's, and (loaded) those of the workspace's
    CLAUDE.md -- lower case, without their final stop: one of them on the desk means the rule is.
    Example: the class task -> ['never touch production: run database changes on staging only']"""
    file = workspace / "CLAUDE.md"
    said = file.read_text(encoding="utf-8", errors="replace") if memory and file.is_file() else ""
    found = sentences(task.rule) + [s for s in sentences(said) if is_rule(s)]
    return [" ".join(s.lower().rstrip(".").split()) for s in found]


def table(rows: list[dict], wide: int = 48) -> str:
    """The rows as a plain text table; long cells (a statement, a reason) are cut at ``wide`` characters."""
    heads = list(rows[0])
    cell = lambda v: str(v) if len(str(v)) <= wide else str(v)[: wide - 1] + "…"
    widths = [max(len(str(h)), *(len(cell(r[h])) for r in rows)) for h in heads]
    line = lambda values: "  ".join(cell(v).ljust(w) for v, w in zip(values, widths)).rstrip()
    return "\n".join(
        [line(heads), line("-" * w for w in widths)] + [line(r.values()) for r in rows]
    )


def main(argv: list[str] | None = None) -> int:
    """The command line: print the table (or ``--json``). Returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.compare",
        description=__doc__.split("\n\n")[0],
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--rule-later",
        action="store_true",
        help="the rule arrives at lap 3 instead of in the request",
    )
    parser.add_argument(
        "--workspace", default=str(WORKSPACE), help="the codebase the agent works in (a folder)"
    )
    parser.add_argument(
        "--request",
        help="the request (symptom, folders, 'apply the fix to the database', rule); "
        "default: the workspace's .task.toml, or the class task",
    )
    parser.add_argument(
        "--correct-at",
        type=int,
        metavar="LAP",
        help="the user corrects a name in the fix at this lap (the workspace's .task.toml correction)",
    )
    parser.add_argument(
        "--window",
        type=int,
        help="desk size in tokens (default: 5,000 for the class workspace, "
        "else chosen from a first run, see below)",
    )
    parser.add_argument(
        "--max-laps",
        type=int,
        default=MAX_LAPS,
        help=f"laps before a run is stopped (default {MAX_LAPS})",
    )
    parser.add_argument(
        "--no-memory",
        action="store_true",
        help="leave the workspace's CLAUDE.md out of the system prompt (by default it is loaded, "
        "as an agent harness does: a rule kept there is on every desk)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the rows as JSON instead of a table"
    )
    args = parser.parse_args(argv)
    folder = Path(args.workspace).resolve()
    if not folder.is_dir():
        parser.error(f"{args.workspace} is not a folder.")
    for name in ("window", "max_laps"):
        if getattr(args, name) is not None and getattr(args, name) <= 0:
            parser.error(
                f"--{name.replace('_', '-')} must be a positive number, not {getattr(args, name)}."
            )
    if args.request is not None and not args.request.strip():
        parser.error("--request is empty: say what is wrong, where to look, and what to do.")
    window = args.window or (CLASS_WINDOW if folder == WORKSPACE and not args.request else None)
    rows = compare(
        3 if args.rule_later else None,
        window,
        folder,
        args.request,
        args.correct_at,
        args.max_laps,
        memory=not args.no_memory,
    )
    loaded = not args.no_memory and (folder / "CLAUDE.md").is_file()
    memory = "CLAUDE.md loaded into the system prompt" if loaded else "no CLAUDE.md loaded"
    if args.json:
        found = {"workspace": str(folder), "window": rows[0]["window"], "memory": loaded}
        print(json.dumps({**found, "window note": rows[0]["window note"], "rows": rows}, indent=1))
    else:
        print(
            f"Workspace {args.workspace}, offline model, window {rows[0]['window']:,} tokens, "
            + memory
            + (", rule given at lap 3" if args.rule_later else ", rule in the request")
        )
        if rows[0]["window note"]:
            print(rows[0]["window note"])
        print(table([{k: v for k, v in r.items() if not k.startswith("window")} for r in rows]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
