"""Print the context strategies side by side on the file-reading task (offline, deterministic).

    .venv/bin/python -m benchmarks.compare            # the task as the class runs it
    .venv/bin/python -m benchmarks.compare --rule-later  # the rule arrives at lap 3, not in the request

Columns: laps, peak and final assembled tokens, final raw tokens, summary calls, whether the
standing rule was still on the desk at the end, and where the agent aimed its SQL.
"""

from __future__ import annotations

import argparse

from harness.context import ClearToolResults, FullHistory, RunningSummary, SlidingWindow, ThreeZoneCompaction
from harness.offline import DeskModel
from harness.loop import run_agent
from harness.model import CLASS_WINDOW
from harness.prompts import NAIVE_PROMPT
from harness.tasks import file_reading_task
from harness.tokens import Meter


def strategies():
    return {
        "full history": FullHistory(),
        "sliding window": SlidingWindow(),
        "three-zone, naive prompt": ThreeZoneCompaction(prompt=NAIVE_PROMPT),
        "three-zone, template": ThreeZoneCompaction(),
        "running summary": RunningSummary(),
        "clear tool results": ClearToolResults(),
    }


def compare(rule_at_lap: int | None = None, window: int = CLASS_WINDOW) -> list[dict]:
    """One row per strategy, each from a real run."""
    task, meter, rows = file_reading_task(rule_at_lap=rule_at_lap), Meter(), []
    for name, strategy in strategies().items():
        run = run_agent(task.request, DeskModel(window=window, meter=meter), context=strategy,
                        remarks=task.remarks, max_laps=80)
        last = run.laps[-1]
        on_desk = " ".join(str(m["content"]) for m in last.sent).lower()
        rows.append({
            "strategy": name, "stopped": run.stopped, "laps": len(run.laps),
            "peak sent": max(lap.assembled_tokens for lap in run.laps), "final sent": last.assembled_tokens,
            "final raw": last.raw_tokens, "summary calls": sum(lap.summary_calls for lap in run.laps),
            "rule kept": "yes" if task.rule.split(":")[0].lower() in on_desk else "no",
            "re-reads": len(run.rereads), "database": run.database_target or "-",
        })
    return rows


def table(rows: list[dict]) -> str:
    heads = list(rows[0])
    widths = [max(len(str(h)), *(len(str(r[h])) for r in rows)) for h in heads]
    line = lambda values: "  ".join(str(v).ljust(w) for v, w in zip(values, widths))
    return "\n".join([line(heads), line("-" * w for w in widths)] + [line(r.values()) for r in rows])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule-later", action="store_true", help="the rule arrives at lap 3 instead of in the request")
    parser.add_argument("--window", type=int, default=CLASS_WINDOW)
    args = parser.parse_args()
    print(f"File-reading task, offline desk model, window {args.window:,} tokens"
          + (", rule given at lap 3" if args.rule_later else ", rule in the request"))
    print(table(compare(3 if args.rule_later else None, args.window)))
