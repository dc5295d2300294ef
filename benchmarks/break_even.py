"""The break-even race: from which lap does managing the desk cost fewer dollars than sending it all?

    .venv/bin/python -m benchmarks.break_even

Full history (on a desk that never overflows) against three-zone compaction, the running summary
(folding every two turns, and every six) and clear-then-compact on the class desk, over the long session
of ``stage.long_session`` (about 120 laps), each billed lap by lap with prompt caching and to the end of
the task (only a fix on staging finishes). Lesson 04 runs the same race (with the class's own fold for the
running summary), so the figures it prints are these.
Left out: other prices and windows; ``stage.long_session`` says what the bill models.
"""

from __future__ import annotations

import sys

from harness.clear_then_compact import ClearThenCompact
from harness.compaction import ThreeZoneCompaction
from harness.model import CLASS_WINDOW
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from stage.finish import Finish, cheapest_to_finish
from stage.long_session import RACE_FILLERS, bill_race

SHARE = "dollars at the last lap both ran, as a share of full history's"
RACERS = {
    "three-zone compaction": ThreeZoneCompaction,
    "running summary": RunningSummary,
    "running summary, every 6 turns": lambda: RunningSummary(chunk_turns=6),
    "clear, then compact": ClearThenCompact,
}


def run_all(quick: bool = False) -> dict:
    """Each strategy's laps, its bill to finish the task (or why it never finished), its bill at the last
    lap both ran as a share of full history's, and its break-even lap."""
    fillers, meter = (20 if quick else RACE_FILLERS), Meter()
    race = bill_race(
        {name: (make(), CLASS_WINDOW) for name, make in RACERS.items()}, fillers, meter
    )
    done = [Finish.of(row.name, row.run, meter) for row in race]
    full, full_done = race[0], done[0]
    best = cheapest_to_finish(done)
    return {
        "fillers": fillers,
        "full history laps": len(full.run.laps),
        "full history to finish": {
            "input": full_done.paid.input,
            "dollars": round(full_done.paid.cost, 4),
        },
        "cheapest to finish": best.name if best else None,
        "rows": [
            {
                "strategy": row.name,
                "laps": len(row.run.laps),
                "stopped": row.run.stopped,
                "finished": "yes" if one.finished else f"no: {one.why_not}",
                "to finish input": one.paid.input if one.finished else None,
                "to finish $": round(one.paid.cost, 4) if one.finished else None,
                "to finish $ share": round(one.paid.cost / full_done.paid.cost, 3)
                if one.finished
                else None,
                "break_even_lap": row.break_even,
                "compared at lap": _common(row, full),
                SHARE: round(
                    row.dollars[_common(row, full) - 1] / full.dollars[_common(row, full) - 1], 3
                ),
            }
            for row, one in zip(race[1:], done[1:])
        ],
    }


def _common(row, full) -> int:
    return min(len(row.dollars), len(full.dollars))


def report(results: dict) -> str:
    whole = results["full history to finish"]
    lines = [
        f"Break-even race: the class workspace + {results['fillers']} modules; full history finishes "
        f"in {results['full history laps']} laps on a desk that never overflows: "
        f"{whole['input']:,} tokens, ${whole['dollars']:.4f}"
    ]
    for row in results["rows"]:
        pays = (
            f"from lap {row['break_even_lap']}"
            if row["break_even_lap"]
            else "not within the session"
        )
        finish = (
            f"finished: {row['to finish input']:,} tokens, ${row['to finish $']:.4f} "
            f"({row['to finish $ share']:.0%} of full history's dollars)"
            if row["to finish $"] is not None
            else f"never finished ({row['finished'].removeprefix('no: ')})"
        )
        lines.append(
            f"  {row['strategy']:<31} {row['laps']:>4} laps, {finish}; at lap "
            f"{row['compared at lap']} {row[SHARE]:.0%} of full history's dollars; cheaper {pays}"
        )
    lines.append(
        f"  cheapest to finish (fix on staging): {results['cheapest to finish'] or 'none'}"
    )
    return "\n".join(lines)


def main() -> int:
    print(report(run_all()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
