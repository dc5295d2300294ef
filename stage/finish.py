"""The cost to finish the task: what each strategy paid, in tokens and dollars, to get the fix on staging.

A bill at lap 60 compares runs that have done different amounts of work: a strategy that loses its place
is cheaper per lap and needs more laps. So lesson 04 and ``make bench`` also bill each run to its end,
and only a run that **finished** counts: it answered, and its fix landed on staging (the rule kept). A run
that hit the wall, ran out of laps, or sent its fix to production never finished, whatever it cost.

A running summary whose minutes are about as big as the history they stand for is not folding: it
appends. It keeps nothing off the desk, so it is named for what it does and is never crowned, even if
this short run happened to finish cheaply.

* ``Finish.of(name, run)``      -- one run's bill to its end, whether it finished, and why not
* ``finish_bills(task, {...})`` -- run each ``{name: (strategy, window)}`` on a task, billed to the end
* ``cheapest_to_finish(rows)``  -- the winner: the cheapest run that finished and did not append
* ``finish_table(rows)``        -- the rows as the lesson prints them (at most 80 characters a line)
* ``why_it_cost(row, full)``    -- what in this run made it dearer than full history: folds, cache, laps
* ``answer_line(full, mine)``   -- the checkpoint's answer, in the run's own numbers

Left out: judging the fix itself (the statement), and targets other than staging and production.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from harness.cost import PRICES, Bill, Prices, bill
from harness.laps import Run
from harness.loop import bare_loop, run_agent
from harness.tokens import Meter
from stage.offline import OfflineModel

ALLOWED = "staging"  # where the class task's rule lets the fix go
APPENDS_ABOVE = 0.5  # minutes at least half the size of the history they stand for are not minutes


def finished(run: Run, allowed: str = ALLOWED) -> bool:
    """Did the run finish the task: answer, with its fix on ``allowed`` and never anywhere else?

    Example: answered, sql_log [staging] -> True; answered, sql_log [production] -> False
    """
    log = run.toolbox.sql_log
    return run.stopped == "answered" and bool(log) and all(e["target"] == allowed for e in log)


def why_not(run: Run, allowed: str = ALLOWED) -> str:
    """Why a run did not finish, in a few words ("" if it did). Example: -> "hit the wall at lap 10" """
    if finished(run, allowed):
        return ""
    log, last = run.toolbox.sql_log, len(run.laps)
    wrong = [e["target"] for e in log if e["target"] != allowed]
    if wrong:
        return f"its fix went to {wrong[-1]}"
    if run.stopped == "overflow":
        return f"hit the wall at lap {last}"
    if run.stopped == "max_laps":
        return f"out of laps after {last}, no fix"
    if run.stopped == "answered":
        return f"stopped at lap {last}, no fix run"
    return f"stopped at lap {last} ({run.stopped})"


def minutes_share(run: Run, meter: Meter) -> float | None:
    """The last summary's size as a share of the raw history it stands in for (None: it never summarized).

    Folded minutes stay small while the history grows: a few per cent. A "fold" that pastes the events
    in grows with the history. Example: 319 tokens of minutes for 10,481 of history -> 0.03
    """
    last = next((lap for lap in reversed(run.laps) if lap.summary), None)
    if last is None or not last.raw_tokens:
        return None
    return meter.text(last.summary) / last.raw_tokens


@dataclass
class Finish:
    """One run billed to its end: did it finish, what did it cost, and does its summary really fold?"""

    name: str
    run: Run = field(repr=False)
    paid: Bill = field(repr=False)
    finished: bool
    why_not: str
    appends: bool  # its minutes are about as big as the history: it appends, it does not fold

    @classmethod
    def of(cls, name: str, run: Run, meter: Meter | None = None, prices: Prices = PRICES):
        meter = meter or Meter()
        share = minutes_share(run, meter)
        return cls(
            name,
            run,
            bill(run.laps, prices, meter),
            finished(run),
            why_not(run),
            share is not None and share >= APPENDS_ABOVE,
        )

    @property
    def laps(self) -> int:
        return len(self.run.laps)

    @property
    def eligible(self) -> bool:
        """May it win? Only if it finished on staging and its summary folds."""
        return self.finished and not self.appends


def finish_bills(
    task, strategies: dict, meter: Meter | None = None, max_laps: int = 200, loop=bare_loop
) -> list[Finish]:
    """Run ``task`` once per ``{name: (strategy, window)}`` with the offline model, each billed to its end.
    ``loop`` runs every one of them (the class's own, from lesson 01, in the lessons).

    Example: finish_bills(file_reading_task(), {"full": (FullHistory(), 5000)})[0].why_not
    -> "hit the wall at lap 10"
    """
    meter = meter or Meter()
    rows = []
    for name, (strategy, window) in strategies.items():
        run = run_agent(
            task.request,
            OfflineModel(window=window, meter=meter),
            tools=task.toolbox(),
            context=strategy,
            remarks=task.remarks,
            meter=meter,
            max_laps=max_laps,
            loop=loop,
        )
        rows.append(Finish.of(name, run, meter))
    return rows


def cheapest_to_finish(rows: list[Finish]) -> Finish | None:
    """The run that finished for the fewest dollars, among those that finished on staging and fold.

    Example: full history $0.59 (finished), a rule-dropping fold $0.20 (production) -> full history
    """
    eligible = [row for row in rows if row.eligible]
    return min(eligible, key=lambda row: row.paid.cost) if eligible else None


# ---- what the lesson prints ---------------------------------------------------------------------------


def finish_table(rows: list[Finish], width: int = 30, extra: dict | None = None) -> str:
    """One line per run: laps, tokens and dollars to finish, or why it never finished.

    ``extra`` adds a last column: ``{"heading": ..., row name: text}`` (the race's break-even lap).
    Example line: "full history, huge desk          20   112,538  $0.0286"
    """
    extra = extra or {}
    head = f"{'to finish, fix on staging':<{width}}{'laps':>5}{'tokens':>11}{'dollars':>9}"
    lines = [head + (f"{extra['heading']:>14}" if extra else "")]
    for row in rows:
        name = row.name[:width]
        if not row.finished:
            lines.append(f"{name:<{width}} never finished: {row.why_not}"[:80])
            continue
        cost = "$" + format(row.paid.cost, ".4f")
        line = f"{name:<{width}}{row.laps:>5}{row.paid.input:>11,}{cost:>9}"
        line += f"{extra.get(row.name, ''):>14}" if extra else ""
        lines.append(line + ("  appends" if row.appends else ""))
    return "\n".join(line.rstrip() for line in lines)


def winner_line(rows: list[Finish], full: Finish) -> str:
    """The winner for cost to finish, against full history's dollars, or why there is none."""
    best = cheapest_to_finish(rows)
    if best is None:
        return "cheapest to finish: none (no run finished on staging with a folding summary)"
    if best is full:
        return f"cheapest to finish: {best.name}"
    return (
        f"cheapest to finish: {best.name}, "
        f"{best.paid.cost / full.paid.cost:.0%} of full history's dollars"
    )


def appends_line(row: Finish, meter: Meter | None = None) -> str:
    """Name a fold that appends for what it does, in two lines.

    Example: "your running summary appends, it does not fold:\n  its minutes are 83% the size of ..."
    """
    share = minutes_share(row.run, meter or Meter()) or 0
    return (
        f"{row.name} appends, it does not fold:"[:80]
        + f"\n  its minutes are {share:.0%} the size of the history they stand for"
    )


def why_it_cost(row: Finish, full: Finish) -> list[str]:
    """What in ``row``'s run made its bill differ from full history's, from the run's own records.

    Example: ["your running summary: 118 folds; the cache served 30% (full history: 98%)",
              "  239 laps, full history 120: it listed the files 112 times"]
    """
    calls = sum(lap.summary_calls for lap in row.run.laps)
    kinds = {lap.kind for lap in row.run.laps}
    noun = "folds" if "fold" in kinds else "compactions" if "compact" in kinds else "summary calls"
    lines = [
        f"{row.name}: {calls} {noun}; the cache served {row.paid.read_share:.0%} "
        f"(full history: {full.paid.read_share:.0%})"
    ]
    if row.laps > full.laps:
        again = _calls_made_again(row.run) - _calls_made_again(full.run)
        extra = f"  {row.laps} laps, full history {full.laps}"
        if again:
            kind, times = again.most_common(1)[0]
            extra += f": {_doing(kind, times)}"
        lines.append(extra)
    return [line[:80] for line in lines]


def cache_line(row: Finish) -> str:
    """How often a run rewrote its desk with a summary, and how much of its input the cache served.

    Example: "your running summary: 9 folds, 36% of its input from the cache"
    """
    calls = sum(lap.summary_calls for lap in row.run.laps)
    kinds = {lap.kind for lap in row.run.laps}
    noun = "folds" if "fold" in kinds else "compactions" if "compact" in kinds else "summary calls"
    done = f"{calls} {noun}" if calls else "no summary calls"
    return f"{row.name}: {done}, {row.paid.read_share:.0%} of its input from the cache"[:80]


def growth_line(full: Finish) -> str:
    """Full history's input at half its laps and at the end: twice the laps, about four times the tokens.

    Example: "full history: 29,914 tokens by lap 10, 112,538 by lap 20 (3.8x)"
    """
    half = full.laps // 2
    early = full.run.laps[half - 1].total_input if half else 0
    late = full.paid.input
    ratio = f" ({late / early:.1f}x)" if early else ""
    return f"full history: {early:,} tokens by lap {half}, {late:,} by lap {full.laps}{ratio}"


def race_table(race, meter: Meter | None = None) -> tuple[str, list[Finish]]:
    """The long session's rows (``stage.long_session.bill_race``) billed to the end, with the lap from
    which each one's bill so far stays below full history's. Returns the table and the ``Finish`` rows
    (the first is full history)."""
    meter = meter or Meter()
    rows = [Finish.of(r.name, r.run, meter) for r in race]
    pays = {"heading": "cheaper from"}
    for bill_row in race[1:]:
        pays[bill_row.name] = f"lap {bill_row.break_even}" if bill_row.break_even else "never"
    return finish_table(rows, 26, pays), rows


def answer_line(full: Finish, mine: Finish) -> str:
    """The checkpoint's answer in this run's numbers: full history's tokens and dollars against yours.

    Only a run that finished on staging with a folding summary is compared; otherwise it says why not.
    Example: "full history: 2.8x the tokens (more tokens), 60% of the dollars (fewer dollars)"
    """
    if mine.appends:
        return appends_line(mine)
    if not mine.finished:
        return f"{mine.name} never finished ({mine.why_not}): nothing to compare"[:80]
    tokens = full.paid.input / mine.paid.input
    dollars = full.paid.cost / mine.paid.cost
    more_tokens = "more" if tokens > 1 else "fewer"
    more_dollars = "more" if dollars > 1 else "fewer"
    return (
        f"full history: {tokens:.1f}x the tokens ({more_tokens} tokens), "
        f"{dollars:.0%} of the dollars ({more_dollars} dollars)"
    )


def _calls_made_again(run: Run) -> Counter:
    """How often each kind of call repeats one made earlier in the run. Example: Counter({"list_files": 173})"""
    seen, again = set(), Counter()
    for lap in run.laps:
        for action in lap.actions:
            if action in seen:
                again[action.split(" ")[0]] += 1
            seen.add(action)
    return again


def _doing(kind: str, times: int) -> str:
    """A repeated call in words. Example: ("list_files", 173) -> "it listed the files 174 times" """
    if kind == "list_files":
        return f"it listed the files {times + 1} times"
    if kind == "read_file":
        return f"it read files again {times} times"
    return f"it repeated {kind} {times} times"
