"""The break-even race: from which lap does managing the desk cost fewer dollars than sending it all?

    .venv/bin/python -m benchmarks.break_even

Full history (on a desk that never overflows) against three-zone compaction, the running summary and
clear-then-compact on the class desk, over the long session of ``stage.long_session`` (about 180 laps),
each billed lap by lap with prompt caching. Lesson 04 runs the same race (with the class's own fold for
the running summary), so the three-zone figure it prints is this one.
Left out: other prices and windows; ``stage.long_session`` says what the bill models.
"""

from __future__ import annotations

import sys

from harness.clear_then_compact import ClearThenCompact
from harness.compaction import ThreeZoneCompaction
from harness.model import CLASS_WINDOW
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from stage.long_session import RACE_FILLERS, bill_race

SHARE = "dollars at the last lap both ran, as a share of full history's"
RACERS = {
    "three-zone compaction": ThreeZoneCompaction,
    "running summary": RunningSummary,
    "clear, then compact": ClearThenCompact,
}


def run_all(quick: bool = False) -> dict:
    """Each strategy's laps, its bill at the end as a share of full history's, and its break-even lap."""
    fillers = 20 if quick else RACE_FILLERS
    rows = bill_race(
        {name: (make(), CLASS_WINDOW) for name, make in RACERS.items()}, fillers, Meter()
    )
    full = rows[0]
    return {
        "fillers": fillers,
        "full history laps": len(full.run.laps),
        "rows": [
            {
                "strategy": row.name,
                "laps": len(row.run.laps),
                "stopped": row.run.stopped,
                "break_even_lap": row.break_even,
                "compared at lap": _common(row, full),
                SHARE: round(
                    row.dollars[_common(row, full) - 1] / full.dollars[_common(row, full) - 1], 3
                ),
            }
            for row in rows[1:]
        ],
    }


def _common(row, full) -> int:
    return min(len(row.dollars), len(full.dollars))


def report(results: dict) -> str:
    lines = [
        f"Break-even race: the class workspace + {results['fillers']} modules, full history "
        f"{results['full history laps']} laps on a desk that never overflows"
    ]
    for row in results["rows"]:
        pays = (
            f"from lap {row['break_even_lap']}"
            if row["break_even_lap"]
            else "not within the session"
        )
        lines.append(
            f"  {row['strategy']:<22} {row['laps']:>4} laps ({row['stopped']}), "
            f"{row[SHARE]:.0%} of full history's dollars at lap {row['compared at lap']}; cheaper {pays}"
        )
    return "\n".join(lines)


def main() -> int:
    print(report(run_all()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
