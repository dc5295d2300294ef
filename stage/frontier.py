"""The trade-off: dollars with prompt caching against input tokens, for each strategy and its settings.

``sweep()`` lists strategies with a range of settings (threshold, low-water mark, batch size, ...);
``measure()`` runs each on one task with the offline model and bills it at a given lap, and to the
end of the task (``stage.finish``: only a fix on staging finishes), against full history on a window that
never overflows; ``frontier()`` marks the runs no other run beats on
both counts. ``stage.plots.plot_cost_frontier`` draws the picture.

A run only counts for the frontier if it *kept the rule* (the standing constraint is on its last
desk and the fix went to staging) and was still working at the billing lap: a cheap run that ran
the fix on production, or stopped early, is drawn hollow and never on the frontier.

Left out: real models (the bill is the offline model's own token counts) and any setting the
strategies do not have.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harness.clear_then_compact import ClearThenCompact
from harness.clearing import ClearToolResults
from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.sliding_window import SlidingWindow
from harness.cost import PRICES, Bill, Prices, bill
from harness.laps import Run
from harness.loop import run_agent
from harness.messages import text_of
from harness.model import CLASS_WINDOW
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from harness.tools import WORKSPACE, Toolbox
from stage.finish import Finish
from stage.long_session import BIG_WINDOW
from stage.offline import OfflineModel
from stage.tasks import Task


@dataclass
class Point:
    """One strategy with one set of settings, billed at one lap against full history."""

    family: str
    settings: str
    tokens: float  # input tokens, as a fraction of full history's
    dollars: float  # dollars with caching, as a fraction of full history's
    kept_rule: bool
    reached: bool  # still working (or done) at the billing lap
    laps: int
    stopped: str
    database: str
    summary_calls: int
    finish_tokens: float | None = (
        None  # to finish the task (fix on staging), a share of full history's
    )
    finish_dollars: float | None = None  # None: the run never finished
    on_frontier: bool = False

    @property
    def counts(self) -> bool:
        """May it be on the frontier? Only if it kept the rule and did not stop early."""
        return self.kept_rule and self.reached


def sweep(quick: bool = False) -> list[tuple[str, str, object]]:
    """(family, settings in words, strategy) for every strategy and a range of its settings.

    Example: sweep(quick=True)[0] -> ("full history", "big window", FullHistory())
    """
    rows = [("full history", "big window", FullHistory())]
    budgets, thresholds, tails = (
        ((2500, 4000), (0.5, 0.9), (1, 2))
        if quick
        else ((2000, 3000, 4000), (0.5, 0.65, 0.8, 0.95), (1, 2, 3))
    )
    rows += [("sliding window", f"budget {b:,}", SlidingWindow(budget=b)) for b in budgets]
    rows += [
        ("three-zone", f"threshold {t}, tail {k}", ThreeZoneCompaction(threshold=t, tail_turns=k))
        for t in thresholds
        for k in tails
    ]
    rows += [
        ("running summary", f"chunk {c}", RunningSummary(chunk_turns=c))
        for c in ((2, 6) if quick else (1, 2, 4, 8))
    ]
    rows += [
        ("clear tool results", f"keep {k}", ClearToolResults(tail_turns=k))
        for k in ((1, 3) if quick else (1, 2, 3, 5))
    ]
    highs, lows, batches = (
        ((0.8, 1.0), (0.1, 0.4), (0, 1500))
        if quick
        else ((0.6, 0.8, 1.0), (0.1, 0.3, 0.5), (0, 600, 1500))
    )
    rows += [
        (
            "clear, then compact",
            f"threshold {t}, low water {w}, batch {b}",
            ClearThenCompact(threshold=t, low_water=w, clear_at_least=b),
        )
        for t in highs
        for w in lows
        for b in batches
        if w < t
    ]
    return rows


def one_run(task: Task, strategy, window: int, workspace: Path, meter: Meter, max_laps: int = 200):
    """Run ``task`` once with the offline model."""
    model = OfflineModel(window=window, meter=meter)
    return run_agent(
        task.request,
        model,
        tools=Toolbox(workspace),
        context=strategy,
        remarks=task.remarks,
        max_laps=max_laps,
    )


def measure(
    task: Task,
    strategies: list[tuple[str, str, object]],
    at_lap: int,
    window: int = CLASS_WINDOW,
    workspace: Path | str = WORKSPACE,
    meter: Meter | None = None,
) -> list[Point]:
    """Run every strategy on ``task`` (full history on a big window) and bill each at ``at_lap``.

    The first row must be full history: it is the 100 % both shares are measured against.
    Example: measure(task, sweep(quick=True), at_lap=20)[0].dollars -> 1.0
    """
    meter, workspace = meter or Meter("tiktoken"), Path(workspace)
    points, base, base_done = [], None, None
    for family, settings, strategy in strategies:
        size = BIG_WINDOW if isinstance(strategy, FullHistory) else window
        run = one_run(task, strategy, size, workspace, meter)
        upto = min(at_lap, len(run.laps))
        paid, done = bill(run.laps[:upto], meter=meter), Finish.of(family, run, meter)
        if base is None:
            if not isinstance(strategy, FullHistory):
                raise ValueError(
                    "The first strategy must be full history: the shares are measured against it."
                )
            base, base_done = paid, done
        last_desk = "\n".join(text_of(m) for m in run.laps[-1].sent).lower()
        kept = (
            task.rule is not None
            and _rule_words(task.rule) in last_desk
            and run.database_target == "staging"
        )
        reached = len(run.laps) >= at_lap or run.stopped == "answered"
        points.append(
            Point(
                family,
                settings,
                paid.input / base.input,
                paid.cost / base.cost,
                kept,
                reached,
                len(run.laps),
                run.stopped,
                run.database_target or "-",
                sum(lap.summary_calls for lap in run.laps[:upto]),
                done.paid.input / base_done.paid.input if done.finished else None,
                done.paid.cost / base_done.paid.cost if done.finished else None,
            )
        )
    frontier(points)
    return points


def frontier(points: list[Point]) -> list[Point]:
    """Mark (and return, cheapest tokens first) the counting runs that no other counting run beats on
    both tokens and dollars. Example: (0.2, 0.9), (0.3, 0.5), (0.4, 0.6) -> the first two."""
    eligible = [p for p in points if p.counts]
    for p in points:
        p.on_frontier = p.counts and not any(
            q.tokens <= p.tokens
            and q.dollars <= p.dollars
            and (q.tokens, q.dollars) != (p.tokens, p.dollars)
            for q in eligible
        )
    return sorted((p for p in points if p.on_frontier), key=lambda p: p.tokens)


def _rule_words(rule: str) -> str:
    """The rule's first clause, lower case: what must still be on the desk. Example: 'never touch production'"""
    return rule.split(":")[0].strip().lower()


# ---- "what would our bill be without the summary?" -------------------------------------------------


@dataclass
class BillComparison:
    """A strategy's run and a full-history run of the same task, with their bills."""

    strategy: Bill
    full_history: Bill
    strategy_run: Run = field(repr=False)
    full_run: Run = field(repr=False)

    @property
    def input_share(self) -> float:
        """The strategy's input tokens as a fraction of full history's. Example: 0.18 -> 18 %."""
        return self.strategy.input / self.full_history.input

    @property
    def cost_share(self) -> float:
        """The same, in dollars with caching on both sides."""
        return self.strategy.cost / self.full_history.cost


def bill_without_summary(
    task,
    strategy,
    window: int = 5000,
    big_window: int = 1_000_000,
    workspace: str | Path | None = None,
    max_laps: int = 200,
    prices: Prices = PRICES,
    meter: Meter | None = None,
) -> BillComparison:
    """Run ``task`` twice with the offline model -- with ``strategy`` at ``window``, and with
    full history at a ``big_window`` that never overflows -- and bill both.

    The honest "without the summary" is not the same laps minus the summary calls: without
    management the desk keeps growing, so every lap re-sends more. Only a second run shows that.
    Example: bill_without_summary(file_reading_task(), RunningSummary()).input_share -> about 0.5
    """
    meter = meter or Meter("tiktoken")
    runs = []
    for context, size in ((strategy, window), (FullHistory(), big_window)):
        model, tools = OfflineModel(window=size, meter=meter), Toolbox(workspace or WORKSPACE)
        runs.append(
            run_agent(
                task.request,
                model,
                tools=tools,
                context=context,
                remarks=task.remarks,
                max_laps=max_laps,
            )
        )
    return BillComparison(
        bill(runs[0].laps, prices, meter), bill(runs[1].laps, prices, meter), *runs
    )
