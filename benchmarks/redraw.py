"""How long the dashboard takes to draw its picture (token plot + desk view, to PNG bytes), beside plain matplotlib.

    .venv/bin/python -m benchmarks.redraw              # a 100-lap session
    .venv/bin/python -m benchmarks.redraw --laps 300

Two numbers, each measured in the same run as a plain matplotlib draw of the same figure, so the ratio holds
however busy the machine is:

* **first draw** -- a new ``Picture`` draws lap ``n`` of a run: the axes, ticks, legends and words (its
  background), then the lap. Plain: the same figure built and saved with ``savefig`` (what a dashboard that
  redraws from scratch does on every lap). Goal: 100 ms or less.
* **redraw** -- the next lap of the same run on the same picture (only the lap's own lines, markers, labels,
  blocks and headline are drawn, over a copy of the background). Plain: again the whole figure. Goal: a
  median of 30 ms or less.

How the laps are made: the offline task ends after about 20 laps, so one real three-zone run (window
5,000) is replayed end to end until there are enough. Lap numbers continue and the raw history keeps
climbing (each replay adds the run's final raw size); what was sent, the zones, the events and the
summaries are the run's own. So every desk drawn is real; only the plot's later numbers are made up.
Times are wall clock and, beside them, CPU time of this process (on a busy machine the two part); matplotlib
is warmed up first (fonts loaded), as it is in a kernel by the time a dashboard appears.
Left out: the browser's side (sending the PNG, decoding it), and a Claude run (its laps take seconds).
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from dataclasses import replace

from harness.compaction import ThreeZoneCompaction
from harness.laps import Lap
from harness.loop import run_agent
from harness.tokens import Meter
from stage.offline import OfflineModel
from stage.picture import Picture
from stage.plots import threshold_tokens
from stage.tasks import file_reading_task

FIRST_GOAL_MS, GOAL_MS = 100, 30
FIRSTS = 7  # first draws measured (each a new Picture), the median reported
PLAIN_LAPS = 15  # laps drawn the plain way (each a whole figure): enough for a median


def long_session(laps: int, meter: Meter, window: int = 5000) -> tuple[list[Lap], int]:
    """``laps`` lap records from one real run replayed end to end, and the run's threshold in tokens."""
    task, strategy = file_reading_task(), ThreeZoneCompaction()
    model = OfflineModel(window=window, meter=meter)
    run = run_agent(task.request, model, context=strategy, max_laps=80, meter=meter)
    session, climbed = [], 0
    while len(session) < laps:
        for lap in run.laps[: laps - len(session)]:
            session.append(
                replace(lap, number=len(session) + 1, raw_tokens=lap.raw_tokens + climbed)
            )
        climbed += run.laps[-1].raw_tokens
    return session, threshold_tokens(strategy, model)


def timed(draw) -> tuple[float, float]:
    """(wall ms, CPU ms) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    draw()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def measure_redraw(laps: int = 100, firsts: int = FIRSTS, plain_laps: int = PLAIN_LAPS) -> dict:
    """First draw and redraw of the dashboard's picture, and of a plain matplotlib draw of the same figure.

    Example: measure_redraw(100) -> {"laps": 100, "first_ms": 80.1, "median_ms": 21.5, "plain_median_ms": 190.2,
    "redraw_ratio": 0.11, ..., "goal_met": True}
    """
    meter, task = Meter(), file_reading_task()
    session, threshold = long_session(laps, meter)
    new = lambda: Picture(threshold, task.rule, task.request, meter, label="three-zone compaction")  # noqa: E731

    def plain(shown: int) -> bytes:
        """The same figure the plain way: built afresh, drawn whole, saved with matplotlib's own PNG writer."""
        figure, out = new().still(session, shown), io.BytesIO()
        figure.savefig(out, format="png", dpi=figure.dpi)
        return out.getvalue()

    for _ in range(2):  # warm up: fonts, text layout caches, numpy
        new().png(session, laps)
        plain(laps)
    middle = laps // 2
    plain_firsts = [timed(lambda: plain(middle)) for _ in range(firsts)]
    firsts = [timed(lambda: new().png(session, middle)) for _ in range(firsts)]
    picture = new()
    picture.png(session, 1)
    redraws = [
        timed(lambda shown=shown: picture.png(session, shown)) for shown in range(2, laps + 1)
    ]
    step = max(1, laps // plain_laps)
    plain_redraws = [timed(lambda shown=shown: plain(shown)) for shown in range(2, laps + 1, step)]

    def ms(values, at=statistics.median) -> float:
        return round(at(values), 1)

    first, plain_first = ms([w for w, _ in firsts]), ms([w for w, _ in plain_firsts])
    median, plain_median = ms([w for w, _ in redraws]), ms([w for w, _ in plain_redraws])
    p90 = ms([w for w, _ in redraws], lambda v: _percentile(v, 90))
    return {
        "laps": laps,
        "first_ms": first,
        "first_cpu_ms": ms([c for _, c in firsts]),
        "plain_first_ms": plain_first,
        "first_ratio": round(first / plain_first, 2),
        "median_ms": median,
        "p90_ms": p90,
        "max_ms": ms([w for w, _ in redraws], max),
        "cpu_median_ms": ms([c for _, c in redraws]),
        "plain_median_ms": plain_median,
        "plain_cpu_median_ms": ms([c for _, c in plain_redraws]),
        "redraw_ratio": round(median / plain_median, 2),
        "png_kb": round(len(picture.png(session, laps)) / 1024),
        "first_goal_ms": FIRST_GOAL_MS,
        "goal_ms": GOAL_MS,
        "goal_met": first <= FIRST_GOAL_MS and median <= GOAL_MS,
    }


def report(r: dict) -> str:
    """Example: 'first draw 85 ms (plain matplotlib 240 ms: 0.35x) · redraw median 22 ms, p90 30 ms (plain ...)'"""
    return (
        f"first draw {r['first_ms']} ms, CPU {r['first_cpu_ms']} ms (plain matplotlib {r['plain_first_ms']} ms: "
        f"{r['first_ratio']}x; goal <= {r['first_goal_ms']} ms) · redraw median {r['median_ms']} ms, p90 "
        f"{r['p90_ms']} ms, CPU {r['cpu_median_ms']} ms (plain {r['plain_median_ms']} ms: {r['redraw_ratio']}x; "
        f"goal <= {r['goal_ms']} ms) · {r['laps']} laps, {r['png_kb']} KB a PNG"
    )


def _percentile(values: list[float], percent: float) -> float:
    """Nearest-rank percentile. Example: _percentile([1, 2, ..., 10], 90) -> 9"""
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * percent // 100) - 1)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--laps", type=int, default=100)
    result = measure_redraw(parser.parse_args().laps)
    print("Dashboard picture: " + report(result))
    print("Goals met." if result["goal_met"] else "Over a goal.")
