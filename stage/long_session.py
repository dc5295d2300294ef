"""The long session: the class task on a bigger codebase, long enough for the bill to tell strategies apart.

The class workspace plus generated filler modules under ``app/features/`` makes the task take about sixty
laps; the rule is said once, at lap 3, so only a summary can carry it. Lesson 04 and ``make bench`` both
run it from here, so the figures the lesson prints are the figures the benchmark computes.

* ``long_workspace(root)`` -- write the bigger codebase into ``root``
* ``cumulative_dollars(laps)`` -- the bill so far after each lap, with prompt caching
* ``break_even_lap(strategy_laps, full_laps)`` -- from which lap a strategy's bill so far stays at or
  below full history's: the session length at which managing the desk starts to pay
* ``bill_race(strategies)`` -- full history and each strategy on a session of about 180 laps, billed lap
  by lap, with each one's break-even lap; ``plot_race`` draws it

Left out: real prices (the lesson's illustrative ones, ``harness.cost.PRICES``) and the cache's lifetime.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.context import FullHistory, Strategy
from harness.cost import PRICES, Prices, lap_bills
from harness.laps import Lap, Run
from harness.loop import run_agent
from harness.tokens import Meter
from harness.tools import WORKSPACE, Toolbox
from stage.offline import OfflineModel
from stage.tasks import file_reading_task

FILLERS = 43  # about 60 laps in all
AT_LAP = 60  # where the long session is billed
BIG_WINDOW = 1_000_000  # full history's window when it must never overflow
LONG_TASK = file_reading_task(
    rule_at_lap=3
)  # the rule said once, in passing: a summary must carry it
TOPICS = [
    "labels",
    "refunds",
    "quotes",
    "credits",
    "vouchers",
    "reminders",
    "exports",
    "ledgers",
    "receipts",
    "currencies",
    "discounts",
    "webhooks",
    "audits",
    "schedules",
    "templates",
    "teams",
    "projects",
    "contracts",
    "expenses",
    "payouts",
]


def filler_module(i: int) -> str:
    """A small, plausible module with nothing the task needs (every ninth has a passing TODO)."""
    topic = TOPICS[i % len(TOPICS)]
    todo = (
        [f"    # TODO: page the {topic} once an owner has more than a few hundred"]
        if i % 9 == 4
        else []
    )
    return "\n".join(
        [
            f'"""Feature {i:02d}: {topic} for invoices (generated filler for the long benchmark)."""',
            "",
            "from app import db",
            "",
            "",
            f"def list_{topic}(owner_id):",
            f'    """Every one of the owner\'s {topic}, newest first."""',
            f'    rows = db.select("{topic}", owner_id=owner_id)',
            *todo,
            '    return sorted(rows, key=lambda row: row["created"], reverse=True)',
            "",
            "",
            f"def find_{topic}(owner_id, item_id):",
            f'    return [row for row in list_{topic}(owner_id) if row["id"] == item_id]',
            "",
            "",
            f"def count_{topic}(owner_id):",
            f"    return len(list_{topic}(owner_id))",
            "",
        ]
    )


def long_workspace(root: Path, fillers: int = FILLERS) -> Path:
    """The class workspace plus ``fillers`` modules under app/features/, written into ``root``.

    The planted facts stay where they were (app/auth.py:40, app/db.py:25, the pending migration),
    and the migrations come last in the listing, so the task needs about ``fillers + 20`` laps.
    """
    shutil.copytree(WORKSPACE, root, ignore=shutil.ignore_patterns(".*"))
    (root / "app" / "features").mkdir()
    for i in range(fillers):
        (root / "app" / "features" / f"feature_{i:02d}.py").write_text(
            filler_module(i), encoding="utf-8"
        )
    return root


def cumulative_dollars(
    laps: list[Lap], meter: Meter | None = None, prices: Prices = PRICES
) -> list[float]:
    """The bill so far after each lap, in dollars with caching. Example: [0.0021, 0.0030, 0.0041, ...]"""
    total, found = 0.0, []
    for one in lap_bills(laps, prices, meter):
        total += one.cost
        found.append(total)
    return found


def break_even_lap(
    strategy_laps: list[Lap], full_laps: list[Lap], meter: Meter | None = None
) -> int | None:
    """The first lap from which the strategy's bill so far is at or below full history's, to the end of the
    shorter run; None if it never gets there. Example: full history cheaper until lap 27, then dearer -> 27
    """
    mine, full = cumulative_dollars(strategy_laps, meter), cumulative_dollars(full_laps, meter)
    laps = min(len(mine), len(full))
    found = None
    for i in range(laps):
        if mine[i] <= full[i]:
            found = found or i + 1
        else:
            found = None
    return found


# ---- the race: every strategy's bill, lap by lap, against full history's ----------------------------

RACE_FILLERS = 160  # about 180 laps: long enough for compaction to pay back


@dataclass
class SessionBill:
    """One strategy's run of the long session, its bill after each lap, and where it breaks even."""

    name: str
    run: Run
    dollars: list[float]  # the bill so far after each lap, with caching
    break_even: int | None  # None: still dearer than full history at the end of the shorter run


def bill_race(
    strategies: dict[str, tuple[Strategy, int]],
    fillers: int = RACE_FILLERS,
    meter: Meter | None = None,
) -> list[SessionBill]:
    """Full history (on a desk that never overflows) and each ``{name: (strategy, window)}``, on the long
    session with ``fillers`` extra modules, each billed lap by lap. The first row is full history."""
    meter = meter or Meter()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        tools = long_workspace(Path(folder) / "workspace", fillers)
        for name, (strategy, window) in {
            "full history": (FullHistory(), BIG_WINDOW),
            **strategies,
        }.items():
            run = run_agent(
                LONG_TASK.request,
                OfflineModel(window=window, meter=meter),
                tools=Toolbox(tools),
                context=strategy,
                remarks=LONG_TASK.remarks,
                meter=meter,
                max_laps=4 * fillers,
            )
            rows.append(SessionBill(name, run, cumulative_dollars(run.laps, meter), None))
    for row in rows[1:]:
        row.break_even = break_even_lap(row.run.laps, rows[0].run.laps, meter)
    return rows


def plot_race(rows: list[SessionBill], ax=None):
    """The bill so far against the lap, one line per strategy, each labelled at its end (no legend needed)."""
    import matplotlib.pyplot as plt

    ax = ax or plt.subplots(figsize=(11, 4.2))[1]
    styles = ["-", "--", "-.", ":", (0, (5, 1, 1, 1))]
    for row, style in zip(rows, styles * 2, strict=False):
        ax.plot(range(1, len(row.dollars) + 1), row.dollars, linestyle=style, linewidth=2.4)
        ax.annotate(f" {row.name}", (len(row.dollars), row.dollars[-1]), fontsize=13, va="center")
    for row in rows[1:]:
        if row.break_even:
            ax.axvline(row.break_even, color="0.55", linewidth=1, linestyle=":")
    ax.set_xlabel("lap", fontsize=13)
    ax.set_ylabel("the bill so far ($, with caching)", fontsize=13)
    ax.margins(x=0.25)
    ax.spines[["top", "right"]].set_visible(False)
    return ax
