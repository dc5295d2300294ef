"""Print the context strategies side by side on the file-reading task (offline, deterministic).

    .venv/bin/python -m benchmarks.compare            # the task as the class runs it
    .venv/bin/python -m benchmarks.compare --rule-later  # the rule arrives at lap 3, not in the request
    .venv/bin/python -m benchmarks.compare --workspace workspaces/library   # another codebase, its own task
    .venv/bin/python -m benchmarks.compare --workspace PATH --request "... Never touch prod."
    .venv/bin/python -m benchmarks.compare --correct-at 2   # "actually, the table is ..." at lap 2

Columns: laps, peak and final assembled tokens, final raw tokens, summary calls, whether the
standing rule was still on the desk at the end, re-reads, and where the agent aimed its SQL.
For another workspace the desk is about half the size of the whole task (measured by a first run
with a roomy window), unless ``--window`` says otherwise. A request given with ``--request`` is
split into goal and rule the way the offline model reads it (``stage.offline.desk``).
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from harness.clearing import ClearToolResults
from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory, SlidingWindow
from harness.loop import run_agent
from harness.model import CLASS_WINDOW
from harness.prompts import NAIVE_PROMPT
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from harness.tools import WORKSPACE, Toolbox
from stage.offline import DeskModel
from stage.offline.desk import is_rule, sentences, without_rules
from stage.tasks import Task, file_reading_task, workspace_task


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
        return file_reading_task(rule_at_lap, goal=goal, rule=rule) if rule else Task(request, rule="")
    if (workspace / ".task.toml").is_file():
        return workspace_task(workspace, rule_at_lap)
    return file_reading_task(rule_at_lap=rule_at_lap)


def half_the_task(task: Task, workspace: Path, meter: Meter) -> int:
    """A desk about half the size of the whole task: half the raw history of a run that never runs out of room.

    Never below 2,500 tokens: the template's summary (220 words), the pinned request and two turns must fit.
    """
    run = run_agent(task.request, DeskModel(window=200_000, meter=meter), tools=Toolbox(workspace),
                    remarks=task.remarks, max_laps=80)
    return max(2500, run.laps[-1].raw_tokens // 2)


def correction_of(workspace: Path) -> tuple[str, str, str] | None:
    """(what the user says, the stale statement, the corrected one) from a workspace's ``.task.toml``, if any."""
    spec_file = workspace / ".task.toml"
    spec = tomllib.loads(spec_file.read_text(encoding="utf-8")) if spec_file.is_file() else {}
    keys = ("correction", "statement", "corrected_statement")
    return tuple(spec[k] for k in keys) if all(spec.get(k) for k in keys) else None


def compare(rule_at_lap: int | None = None, window: int | None = CLASS_WINDOW, workspace: str | Path = WORKSPACE,
            request: str | None = None, correct_at: int | None = None) -> list[dict]:
    """One row per strategy, each from a real run. ``window=None``: half the size of the whole task.

    ``correct_at``: at that lap the user corrects a name in the fix (the workspace's ``correction``); the
    ``fix statement`` column then says whether the statement run was the corrected one or the stale one.
    """
    workspace, meter, rows = Path(workspace), Meter(), []
    task = task_for(workspace, request, rule_at_lap)
    window = window or half_the_task(task, workspace, meter)
    correction = correction_of(workspace) if correct_at else None
    remarks = dict(task.remarks)
    if correction:
        remarks[correct_at] = (remarks[correct_at] + " " if correct_at in remarks else "") + correction[0]
    for name, strategy in strategies().items():
        run = run_agent(task.request, DeskModel(window=window, meter=meter), tools=Toolbox(workspace),
                        context=strategy, remarks=remarks, max_laps=80)
        last = run.laps[-1]
        on_desk = " ".join(str(m["content"]) for m in last.sent).lower()
        rule = task.rule.split(":")[0].split(";")[0].lower()
        rows.append({
            "strategy": name, "stopped": run.stopped, "laps": len(run.laps),
            "peak sent": max(lap.assembled_tokens for lap in run.laps), "final sent": last.assembled_tokens,
            "final raw": last.raw_tokens, "summary calls": sum(lap.summary_calls for lap in run.laps),
            "rule kept": ("yes" if rule in on_desk else "no") if rule else "-",
            "re-reads": len(run.rereads), "database": run.database_target or "-", "window": window,
        })
        if correction:
            ran = run.toolbox.sql_log[-1]["statement"] if run.toolbox.sql_log else None
            rows[-1]["fix statement"] = {correction[2]: "corrected", correction[1]: "stale"}.get(ran, "-" if ran is None
                                                                                               else "other")
    return rows


def table(rows: list[dict]) -> str:
    heads = list(rows[0])
    widths = [max(len(str(h)), *(len(str(r[h])) for r in rows)) for h in heads]
    line = lambda values: "  ".join(str(v).ljust(w) for v, w in zip(values, widths))
    return "\n".join([line(heads), line("-" * w for w in widths)] + [line(r.values()) for r in rows])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule-later", action="store_true", help="the rule arrives at lap 3 instead of in the request")
    parser.add_argument("--workspace", default=str(WORKSPACE), help="the codebase the agent works in")
    parser.add_argument("--request", help="the request (goal and rule); default: the workspace's .task.toml")
    parser.add_argument("--correct-at", type=int, metavar="LAP",
                        help="the user corrects a name in the fix at this lap (the workspace's .task.toml correction)")
    parser.add_argument("--window", type=int, help="desk size in tokens (default: 5,000 for the class workspace, "
                                                   "else half the whole task)")
    args = parser.parse_args()
    folder = Path(args.workspace).resolve()
    if not folder.is_dir():
        parser.error(f"{args.workspace} is not a folder.")
    window = args.window or (CLASS_WINDOW if folder == WORKSPACE and not args.request else None)
    rows = compare(3 if args.rule_later else None, window, folder, args.request, args.correct_at)
    print(f"Workspace {args.workspace}, offline desk model, window {rows[0]['window']:,} tokens"
          + (", rule given at lap 3" if args.rule_later else ", rule in the request"))
    print(table([{k: v for k, v in r.items() if k != "window"} for r in rows]))
