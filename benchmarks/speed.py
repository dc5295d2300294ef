"""Speed: how much the harness itself costs per lap, and whether a long session stays fast.

    .venv/bin/python -m benchmarks.speed          (or `make bench`, which prints the strategy tables too)

Five measurements, all offline:

1. **Per-lap overhead** on the class task: the time of ``run_agent`` split into the model's replies
   (summary calls included), the tools, and the rest -- the harness (strategy, meter, bookkeeping).
2. **The meter's cache**: over a 500-lap session, counting the whole history every lap with the
   incremental ``Meter`` against re-tokenizing it every lap (``harness.tokens.naive_total``).
3. **Long sessions**: 500, 1,000 and 2,000 laps. Time per lap should stay flat (linear growth).
4. **The dashboard's picture**: its first draw and its redraw per lap, each beside a plain matplotlib draw
   of the same figure in the same run (``benchmarks.redraw``).
5. **Every notebook** in ``notebooks/`` executed headless, offline.

The long sessions use a *looping task*: the class task with a running summary capped at 40 words.
That summary is too short to carry the list of files read, so the agent keeps losing its place and
reading again -- it never finishes, and the desk never overflows, so a session lasts exactly as
many laps as asked.

Times are CPU seconds of this process (``time.process_time``), so other work on a shared machine
does not count against the harness; wall-clock seconds are shown beside them. The notebooks run in
their own kernel process, so they are timed by the wall clock.
Left out: memory use, and any network model (times here are the offline model's).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from harness.compaction import ThreeZoneCompaction
from harness.loop import run_agent
from harness.running_summary import RunningSummary
from harness.tokens import Meter, cl100k, naive_total
from harness.tools import Toolbox
from stage.offline import OfflineModel
from stage.tasks import file_reading_task

REPO = Path(__file__).resolve().parent.parent
clock = time.process_time  # CPU seconds of this process: other programs do not count
GOALS = {
    "meter speed-up": 20.0,
    "2,000 laps in seconds": 10.0,
    "time per lap, 2,000 vs 500 laps": 1.25,
}


# ---- stopwatches around the model and the tools ----------------------------------------------------


class TimedModel:
    """A model that adds up the CPU seconds spent in its replies.

    Example: TimedModel(OfflineModel()).seconds -> 0.0 until it has replied.
    """

    def __init__(self, model):
        self.model, self.seconds = model, 0.0
        self.name, self.window, self.meter = model.name, model.window, getattr(model, "meter", None)

    def reply(self, *args, **kwargs):
        start = clock()
        try:
            return self.model.reply(*args, **kwargs)
        finally:
            self.seconds += clock() - start


class TimedToolbox(Toolbox):
    """A toolbox that adds up the seconds spent running tools."""

    seconds = 0.0

    def run(self, call: dict) -> dict:
        start = clock()
        try:
            return super().run(call)
        finally:
            self.seconds += clock() - start


def timed_session(strategy, max_laps: int, window: int = 5000):
    """Run the class task once; return (run, {laps, seconds, ms per lap: total / model / tools / harness})."""
    task = file_reading_task()
    model, tools = TimedModel(OfflineModel(window=window, meter=Meter("tiktoken"))), TimedToolbox()
    start, wall = clock(), time.perf_counter()
    run = run_agent(
        task.request, model, tools=tools, context=strategy, remarks=task.remarks, max_laps=max_laps
    )
    seconds, wall, laps = clock() - start, time.perf_counter() - wall, len(run.laps)
    per_lap = lambda s: round(1000 * s / laps, 3)
    return run, {
        "laps": laps,
        "stopped": run.stopped,
        "seconds": round(seconds, 3),
        "wall s": round(wall, 3),
        "laps per second": round(laps / seconds, 1),
        "ms per lap": per_lap(seconds),
        "model ms": per_lap(model.seconds),
        "tools ms": per_lap(tools.seconds),
        "harness ms": per_lap(seconds - model.seconds - tools.seconds),
    }


def looping_task_strategy() -> RunningSummary:
    """The running summary too short to remember which files were read: the agent loops forever."""
    return RunningSummary(max_words=40)


# ---- the measurements ----------------------------------------------------------------------------------


def overhead_per_lap() -> dict:
    """Where a lap's time goes on the class task (three-zone compaction with the template)."""
    return timed_session(ThreeZoneCompaction(), max_laps=80)[1]


def meter_against_recount(laps: int = 500) -> dict:
    """Total time to count the history at every lap: the caching meter versus re-tokenizing it all.

    Replays the history of a ``laps``-lap session exactly as the loop sees it (lap k counts the first
    2k - 1 messages). Example: {"meter s": 0.2, "naive s": 37.0, "speed-up": 180.0}
    """
    run, _ = timed_session(looping_task_strategy(), max_laps=laps)
    sizes = [1 + 2 * k for k in range(len(run.laps))]
    meter = Meter("tiktoken")
    start = clock()
    cached = [meter.total(run.history[:n]) for n in sizes]
    with_meter = clock() - start
    start = clock()
    recounted = [naive_total(run.history[:n]) for n in sizes]
    naive = clock() - start
    assert cached == recounted, "the caching meter and the recount disagree"
    return {
        "laps": len(run.laps),
        "tokens recounted": sum(recounted),
        "meter s": round(with_meter, 3),
        "naive s": round(naive, 2),
        "speed-up": round(naive / with_meter, 1),
    }


def long_sessions(sizes=(500, 1000, 2000)) -> list[dict]:
    """One looping session per size; time per lap should not grow with the length."""
    return [timed_session(looping_task_strategy(), max_laps=n)[1] for n in sizes]


def redraw_per_lap(laps: int = 100, quick: bool = False) -> dict:
    """The dashboard picture's first draw and redraw, each beside plain matplotlib (``benchmarks.redraw``)."""
    try:
        from benchmarks.redraw import measure_redraw
    except ImportError:
        return {"skipped": "benchmarks/redraw.py (measure_redraw) does not exist yet"}
    try:
        measured = measure_redraw(laps, firsts=2, plain_laps=3) if quick else measure_redraw(laps)
    except Exception as problem:  # someone else's module: report, never crash the benchmark
        return {"error": f"measure_redraw() failed: {problem.__class__.__name__}: {problem}"}
    return measured if isinstance(measured, dict) else {"ms per lap": measured}


def notebooks_headless(folder: Path = REPO / "notebooks") -> dict:
    """Execute every notebook in ``folder`` headless and offline (outputs are not saved)."""
    paths = sorted(folder.glob("*.ipynb"))
    if not paths:
        return {"skipped": "no notebooks yet"}
    import nbformat
    from nbclient import NotebookClient

    key = os.environ.pop("ANTHROPIC_API_KEY", None)  # offline, like the class
    times, errors = {}, {}
    try:
        for path in paths:
            notebook = nbformat.read(path, as_version=4)
            start = time.perf_counter()
            client = NotebookClient(
                notebook,
                timeout=600,
                kernel_name="python3",
                resources={"metadata": {"path": str(path.parent)}},
            )
            try:
                client.execute(stderr=subprocess.DEVNULL)  # the kernel's own start-up warnings
            except Exception as problem:
                errors[path.name] = (
                    f"{problem.__class__.__name__}: {str(problem).splitlines()[0][:200]}"
                )
            times[path.name] = round(time.perf_counter() - start, 2)
    finally:
        if key is not None:
            os.environ["ANTHROPIC_API_KEY"] = key
    return {"seconds": times, "total s": round(sum(times.values()), 2), "errors": errors}


# ---- all of it -------------------------------------------------------------------------------------------


def run_all(quick: bool = False) -> dict:
    """Every measurement. ``quick`` uses short sessions and skips the notebooks (for the smoke test)."""
    cl100k()  # load the tokenizer first, so no timing includes it
    sizes = (25, 50, 100) if quick else (500, 1000, 2000)
    sessions = long_sessions(sizes)
    results = {
        "overhead": overhead_per_lap(),
        "meter": meter_against_recount(30 if quick else 500),
        "sessions": sessions,
        "redraw": redraw_per_lap(30, quick=True) if quick else redraw_per_lap(),
        "notebooks": {"skipped": "quick mode"} if quick else notebooks_headless(),
    }
    results["goals"] = check_goals(results, sizes)
    return results


def check_goals(results: dict, sizes) -> list[dict]:
    """PASS or MISS for the speed goals, with the measured numbers."""
    first, last = results["sessions"][0], results["sessions"][-1]
    growth = last["ms per lap"] / first["ms per lap"]
    checks = [
        (
            f"meter >= {GOALS['meter speed-up']:.0f}x faster than recounting ({results['meter']['laps']} laps)",
            results["meter"]["speed-up"] >= GOALS["meter speed-up"],
            f"{results['meter']['speed-up']}x",
        ),
        (
            f"{sizes[-1]:,}-lap session <= {GOALS['2,000 laps in seconds']:.0f} s (CPU)",
            last["seconds"] <= GOALS["2,000 laps in seconds"] and last["laps"] == sizes[-1],
            f"{last['seconds']} s CPU ({last['wall s']} s wall)",
        ),
        (
            f"linear: time per lap at {sizes[-1]:,} laps <= {GOALS['time per lap, 2,000 vs 500 laps']}x "
            f"that at {sizes[0]:,}",
            growth <= GOALS["time per lap, 2,000 vs 500 laps"],
            f"{growth:.2f}x",
        ),
    ]
    redraw = results.get("redraw", {})
    if "first_ms" in redraw:  # the picture's two goals, with plain matplotlib's time beside them
        checks += [
            (
                f"dashboard first draw <= {redraw['first_goal_ms']} ms",
                redraw["first_ms"] <= redraw["first_goal_ms"],
                f"{redraw['first_ms']} ms ({redraw['first_cpu_ms']} ms CPU), plain matplotlib "
                f"{redraw['plain_first_ms']} ms: {redraw['first_ratio']}x",
            ),
            (
                f"dashboard redraw <= {redraw['goal_ms']} ms (median)",
                redraw["median_ms"] <= redraw["goal_ms"],
                f"{redraw['median_ms']} ms ({redraw['cpu_median_ms']} ms CPU), plain matplotlib "
                f"{redraw['plain_median_ms']} ms: {redraw['redraw_ratio']}x",
            ),
        ]
    return [
        {"goal": goal, "result": "PASS" if ok else "MISS", "measured": measured}
        for goal, ok, measured in checks
    ]


def report(results: dict) -> str:
    """The speed figures as the terminal shows them."""
    o, m = results["overhead"], results["meter"]
    lines = [
        f"CPU time per lap on the class task ({o['laps']} laps, three-zone): {o['ms per lap']} ms = "
        f"model {o['model ms']} + tools {o['tools ms']} + harness {o['harness ms']} ms "
        f"({o['laps per second']} laps/s)",
        f"Meter vs recount over {m['laps']} laps ({m['tokens recounted']:,} tokens recounted): "
        f"{m['meter s']} s vs {m['naive s']} s = {m['speed-up']}x",
        "Looping sessions (running summary capped at 40 words):",
    ]
    lines += [
        f"  {s['laps']:>5} laps ({s['stopped']}): {s['seconds']} s CPU ({s['wall s']} s wall), "
        f"{s['ms per lap']} ms/lap = model {s['model ms']} + tools {s['tools ms']} "
        f"+ harness {s['harness ms']}"
        for s in results["sessions"]
    ]
    redraw, books = results["redraw"], results["notebooks"]
    if "first_ms" in redraw:
        from benchmarks.redraw import report as picture_report

        lines.append("Dashboard picture: " + picture_report(redraw))
    else:
        lines.append(
            "Dashboard picture: " + (redraw.get("skipped") or redraw.get("error") or str(redraw))
        )
    if "skipped" in books:
        lines.append(f"Notebooks headless: {books['skipped']}")
    else:
        lines.append(
            f"Notebooks headless: {books['total s']} s in all -- "
            + ", ".join(f"{name} {s} s" for name, s in books["seconds"].items())
            + (f"; ERRORS: {books['errors']}" if books["errors"] else "")
        )
    lines += [f"  {g['result']}  {g['goal']}: {g['measured']}" for g in results["goals"]]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(run_all()))
