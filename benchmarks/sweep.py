"""The sweep: every setting the dashboard's controls allow, run to its end, and the crashes counted.

    .venv/bin/python -m benchmarks.sweep              # the whole control space (minutes; `make bench` runs it)
    .venv/bin/python -m benchmarks.sweep --sample 200 # a seeded sample of it

The space is read from a real ``Dashboard``'s controls, not typed in here: every strategy in its
dropdown, every window its slider allows (min to max in its step), every threshold and tail,
each with the rule in the request and the rule said at lap 3. A run must end in a *clean stop* --
answered, overflow, compaction_failed, max_laps -- or be *refused* with a message (a ``ValueError``
such as "the window is smaller than the pinned head"). Anything else is a crash, and counted.

Settings a strategy ignores (the threshold for a running summary, say) build the same strategy, so
they are run once: each run stands for every setting that builds the same strategy on the same window.
Left out: the play/pause animation (``tests/test_widgets.py`` covers it) and any real model.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from harness.loop import run_agent
from harness.strategies import StrategySettings
from harness.tokens import Meter
from stage.offline import OfflineModel
from stage.tasks import file_reading_task

CLEAN_STOPS = ("answered", "overflow", "compaction_failed", "max_laps")
RULE_PLACES = (None, 3)  # the rule in the request; the rule said at lap 3
MAX_LAPS = 80  # the dashboard's own limit


@dataclass(frozen=True)
class Setting:
    """One position of every control, plus where the rule is given."""

    strategy: str
    window: int
    threshold: float
    tail_turns: int
    rule_at_lap: int | None

    @property
    def desk(self) -> StrategySettings:
        return StrategySettings(self.strategy, self.window, self.threshold, self.tail_turns)


@dataclass
class Outcome:
    setting: Setting
    stopped: str  # a clean stop, "refused", or "crash"
    laps: int = 0
    problem: str = ""
    covers: int = 1  # how many settings of the space this run stands for
    seconds: float = 0.0


@dataclass
class Sweep:
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def crashes(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.stopped == "crash"]

    @property
    def settings_covered(self) -> int:
        return sum(o.covers for o in self.outcomes)


# ---- the space ------------------------------------------------------------------------------------


def control_space() -> list[Setting]:
    """Every combination the dashboard's controls allow, read from the widgets themselves.

    Example: 6 strategies x 77 windows (1,000 to 20,000 in steps of 250) x 10 thresholds x 7 tails x 2.
    """
    from stage.widgets import Dashboard

    controls = Dashboard(delay=0).controls
    window = controls["window"]
    windows = range(window.min, window.max + 1, window.step)
    thresholds = [value for _label, value in controls["threshold"].options]
    tails = range(controls["tail_turns"].min, controls["tail_turns"].max + 1)
    return [
        Setting(s, w, t, k, r)
        for s in controls["strategy"].options
        for w in windows
        for t in thresholds
        for k in tails
        for r in RULE_PLACES
    ]


def distinct(space: list[Setting]) -> list[tuple[Setting, int]]:
    """One setting for each distinct strategy-on-a-window, with the number of settings it stands for."""
    from stage.widgets import default_strategies

    makers, groups = default_strategies(), {}
    for setting in space:
        strategy = makers[setting.strategy](setting.desk)
        knobs = tuple(
            sorted(
                (k, repr(v))
                for k, v in vars(strategy).items()
                if k != "state" and not k.startswith("_")
            )
        )
        key = (setting.strategy, setting.window, setting.rule_at_lap, knobs)
        first, count = groups.get(key, (setting, 0))
        groups[key] = (first, count + 1)
    return list(groups.values())


# ---- one run ----------------------------------------------------------------------------------


def run_one(setting: Setting, covers: int = 1) -> Outcome:
    """Run the agent as the dashboard would for ``setting``; say how it ended. Never raises."""
    from stage.widgets import default_strategies

    meter = (
        Meter()
    )  # one per run, as the dashboard has: a shared one would keep every run's messages
    task = file_reading_task(rule_at_lap=setting.rule_at_lap)
    start = time.perf_counter()
    try:
        strategy = default_strategies()[setting.strategy](setting.desk)
        run = run_agent(
            task.request,
            OfflineModel(window=setting.window, meter=meter),
            context=strategy,
            remarks=task.remarks,
            max_laps=MAX_LAPS,
            meter=meter,
        )
        outcome = Outcome(setting, run.stopped, len(run.laps), run.problem, covers)
        if run.stopped not in CLEAN_STOPS:
            outcome.stopped, outcome.problem = (
                "crash",
                f"unknown stop {run.stopped!r}: {run.problem}",
            )
    except ValueError as refused:  # a setting the harness refuses, with its reason
        outcome = Outcome(setting, "refused", 0, str(refused), covers)
        if not str(refused).strip():
            outcome.stopped, outcome.problem = "crash", "refused without a message"
    except Exception as crash:  # noqa: BLE001 -- this is what the sweep is here to count
        where = traceback.extract_tb(crash.__traceback__)[-1]
        outcome = Outcome(
            setting,
            "crash",
            0,
            f"{type(crash).__name__}: {crash} ({where.filename.split('/')[-1]}:{where.lineno})",
            covers,
        )
    outcome.seconds = time.perf_counter() - start
    return outcome


def _run_pair(pair):
    return run_one(*pair)


def sweep(pairs: list[tuple[Setting, int]], jobs: int = 1, every: int = 0) -> Sweep:
    """Run every (setting, covers) pair, in ``jobs`` processes; with ``every``, say how far it got that often."""
    result = Sweep()
    with ProcessPoolExecutor(jobs) if jobs > 1 else _InProcess() as pool:
        for outcome in pool.map(_run_pair, pairs, chunksize=16):
            result.outcomes.append(outcome)
            done = len(result.outcomes)
            if every and done % every == 0:
                print(
                    f"  ... {done:,} of {len(pairs):,} runs, {len(result.crashes)} crashes so far",
                    flush=True,
                )
    return result


class _InProcess:
    """The one-process stand-in for a process pool (same ``map``), so the sweep reads one way."""

    def map(self, function, items, chunksize=1):
        return map(function, items)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        return False


def sample(
    pairs: list[tuple[Setting, int]], size: int, seed: int = 15, corners: bool = True
) -> list[tuple[Setting, int]]:
    """A seeded sample of ``size`` runs; with ``corners`` it always holds each strategy at the smallest
    and largest window, with the extreme thresholds and tails, for both rule placements (40 runs)."""

    def corner(s: Setting, lo_hi: dict) -> bool:
        return all(getattr(s, name) in values for name, values in lo_hi.items())

    ends = {
        name: {min(getattr(s, name) for s, _ in pairs), max(getattr(s, name) for s, _ in pairs)}
        for name in ("window", "threshold", "tail_turns")
    }
    edge_runs = [p for p in pairs if corners and corner(p[0], ends)]
    rest = [p for p in pairs if p not in edge_runs]
    return edge_runs + random.Random(seed).sample(
        rest, max(0, min(size - len(edge_runs), len(rest)))
    )


# ---- the report -----------------------------------------------------------------------------------


def report(result: Sweep, space_size: int) -> str:
    """How many runs, how each ended, and every crash with its setting."""
    counts: dict[str, int] = {}
    for o in result.outcomes:
        counts[o.stopped] = counts.get(o.stopped, 0) + 1
    ends = ", ".join(f"{name} {n}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    lines = [
        f"Sweep of the dashboard's controls: {len(result.outcomes):,} runs standing for "
        f"{result.settings_covered:,} of {space_size:,} settings; {len(result.crashes)} crashes.",
        f"  how they ended: {ends}",
    ]
    refusals = sorted({o.problem.split(":")[0] for o in result.outcomes if o.stopped == "refused"})
    lines += [f"  refused: {why}" for why in refusals[:5]]
    lines += [f"  CRASH {o.setting}: {o.problem}" for o in result.crashes[:20]]
    return "\n".join(lines)


def run_all(quick: bool = False, jobs: int = 2, size: int | None = None) -> dict:
    """The whole space (or a sample of ``size``, or a small one in quick mode); a JSON-ready summary."""
    space = control_space()
    pairs = distinct(space)
    if quick or size:
        pairs = sample(pairs, size or 8, corners=not quick)
    random.Random(15).shuffle(
        pairs
    )  # so the progress lines of a long run describe a fair sample of it
    start = time.perf_counter()
    result = sweep(pairs, jobs=jobs, every=0 if quick else 1000)
    print(report(result, len(space)), flush=True)
    return {
        "runs": len(result.outcomes),
        "settings_covered": result.settings_covered,
        "space": len(space),
        "crashes": [{"setting": vars(o.setting), "problem": o.problem} for o in result.crashes],
        "stops": {
            s: sum(o.stopped == s for o in result.outcomes) for s in CLEAN_STOPS + ("refused",)
        },
        "seconds": round(time.perf_counter() - start, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.sweep", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--sample", type=int, help="run a seeded sample of this many distinct settings"
    )
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    args = parser.parse_args(argv)
    found = run_all(size=args.sample, jobs=args.jobs)
    print(f"{found['runs']:,} runs in {found['seconds']:.0f} s, {len(found['crashes'])} crashes")
    return 1 if found["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
