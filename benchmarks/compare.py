"""Print the context strategies side by side on a file-reading task (offline, deterministic).

    .venv/bin/python -m benchmarks.compare            # the task as the class runs it
    .venv/bin/python -m benchmarks.compare --rule-later  # the rule arrives at lap 3, not in the request
    .venv/bin/python -m benchmarks.compare --workspace workspaces/library   # another codebase, its own task
    .venv/bin/python -m benchmarks.compare --workspace PATH --request "... Never touch prod."
    .venv/bin/python -m benchmarks.compare --correct-at 2   # "actually, the table is ..." at lap 2
    .venv/bin/python -m benchmarks.compare --json           # the same rows as JSON

Columns: how the run stopped and why, laps, peak and final assembled tokens, final raw tokens, summary calls,
whether the standing rule was still on the desk at the end, re-reads, where the agent aimed its SQL, the
cause it named and the statement it ran ("-": none; a run that applied nothing says why in ``why``).

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
it reads), unless ``--window`` says otherwise. Each number comes from a first run with a roomy window.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import tomllib
from collections import Counter
from pathlib import Path

from harness.clearing import ClearToolResults
from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.sliding_window import SlidingWindow
from harness.loop import run_agent
from harness.model import CLASS_WINDOW
from harness.prompts import NAIVE_PROMPT
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from harness.tools import WORKSPACE, Toolbox
from stage.offline import OfflineModel
from stage.offline.view import is_rule, sentences, without_rules
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


def automatic_window(task: Task, workspace: Path, meter: Meter) -> int:
    """A desk about half the size of the whole task, but big enough for what the task must hold at once.

    From a run that never runs out of room: half its raw history, and at least what three-zone compaction
    must fit under its threshold (0.75 of the window less the reply's reserve) -- the pinned request, a
    summary, and a tail of its two largest turns. Example: a task of 9,000 tokens whose largest read is
    1,700 tokens -> max(4,500, (450 + 400 + 2 x 1,800) / 0.75 + 512) = 6,446.
    """
    run = run_agent(
        task.request,
        OfflineModel(window=200_000, meter=meter),
        tools=Toolbox(workspace),
        remarks=task.remarks,
        max_laps=MAX_LAPS,
    )
    head = meter.total(run.history[:1], tools=run.toolbox.schemas)
    turns = sorted(
        (meter.count(a) + meter.count(r) for a, r in zip(run.history[1::2], run.history[2::2])),
        reverse=True,
    )
    needed = (head + SUMMARY_ROOM + sum(turns[:2])) / 0.75 + OUTPUT_RESERVE
    return max(2500, run.laps[-1].raw_tokens // 2, math.ceil(needed / 100) * 100)


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

    Example: a run stopped at max_laps whose last ten laps all read app/ -> 'out of laps (80): the last 10 laps
    repeated read_file app/ 10 times'
    """
    if run.stopped == "answered":
        if run.toolbox.sql_log:
            return f"answered: applied on {run.toolbox.sql_log[-1]['target']}"
        said = next(
            (
                line
                for line in run.final.splitlines()
                if re.search(r"Nothing applied|cannot|will not", line)
            ),
            "",
        )
        return "answered, nothing applied" + (f": {said.strip()[:140]}" if said else "")
    if run.stopped == "max_laps":
        recent = [a for lap in run.laps[-10:] for a in lap.actions]
        action, times = Counter(recent).most_common(1)[0] if recent else ("nothing", 0)
        if times > 2:
            return f"out of laps ({max_laps}): the last {min(10, len(run.laps))} laps repeated {action[:80]} {times} times"
        return f"out of laps ({max_laps}), still working: last {recent[-1][:80] if recent else 'nothing'}"
    return f"{run.stopped} at lap {len(run.laps)}: {run.problem.removeprefix('Context overflow: ').split('. ')[0][:140]}"


def compare(
    rule_at_lap: int | None = None,
    window: int | None = CLASS_WINDOW,
    workspace: str | Path = WORKSPACE,
    request: str | None = None,
    correct_at: int | None = None,
    max_laps: int = MAX_LAPS,
) -> list[dict]:
    """One row per strategy, each from a real run. ``window=None``: chosen by ``automatic_window``.

    ``correct_at``: at that lap the user corrects a name in the fix (the workspace's ``correction``); the
    ``fix statement`` column then says whether the statement run was the corrected one or the stale one.
    """
    workspace, meter, rows = Path(workspace), Meter(), []
    task = task_for(workspace, request, rule_at_lap)
    window = window or automatic_window(task, workspace, meter)
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
            remarks=remarks,
            max_laps=max_laps,
        )
        last = run.laps[-1]
        on_desk = " ".join(str(m["content"]) for m in last.sent).lower()
        rule = task.rule.split(":")[0].split(";")[0].lower()
        ran = run.toolbox.sql_log[-1]["statement"] if run.toolbox.sql_log else None
        rows.append(
            {
                "strategy": name,
                "stopped": run.stopped,
                "laps": len(run.laps),
                "peak sent": max(lap.assembled_tokens for lap in run.laps),
                "final sent": last.assembled_tokens,
                "final raw": last.raw_tokens,
                "summary calls": sum(lap.summary_calls for lap in run.laps),
                "rule kept": ("yes" if rule in on_desk else "no") if rule else "-",
                "re-reads": len(run.rereads),
                "database": run.database_target or "-",
                "cause": named_cause(run.final),
                "statement": ran or "-",
                "why": why_stopped(run, max_laps),
                "window": window,
            }
        )
        if correction:
            rows[-1]["fix statement"] = {correction[2]: "corrected", correction[1]: "stale"}.get(
                ran, "-" if ran is None else "other"
            )
    return rows


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
        3 if args.rule_later else None, window, folder, args.request, args.correct_at, args.max_laps
    )
    if args.json:
        print(
            json.dumps(
                {"workspace": str(folder), "window": rows[0]["window"], "rows": rows}, indent=1
            )
        )
    else:
        print(
            f"Workspace {args.workspace}, offline desk model, window {rows[0]['window']:,} tokens"
            + (", rule given at lap 3" if args.rule_later else ", rule in the request")
        )
        print(table([{k: v for k, v in r.items() if k != "window"} for r in rows]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
