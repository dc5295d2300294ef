"""Dollars with caching against input tokens on the long session: every strategy, swept over its
settings, the frontier, and the cache goal (issue 19) -- offline, every number from a real run.

    .venv/bin/python -m benchmarks.cache_frontier          # the table, the frontier, the goal, the PNG

The long session is the one ``benchmarks.strategies`` bills (the class workspace plus 43 generated
modules, the rule said once at lap 3), billed at lap 60 against full history on a window that never
overflows. **The goal**: ``ClearThenCompact`` with its *default* settings -- not the best point of
the sweep -- at most 60 % of full history's dollars with caching and at most 35 % of its input
tokens, keeping the rule. The sweep is there to show the trade-off, not to pick a winner after the fact.

Left out: real models and the real cache's minimum length and lifetime (see ``harness/cost.py``).
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict
from itertools import groupby
from pathlib import Path

from benchmarks.compare import table
from stage.long_session import LONG_TASK, long_workspace
from harness.clear_then_compact import ClearThenCompact
from harness.tokens import Meter
from stage.frontier import frontier, measure, sweep

GOAL = {"strategy": "clear, then compact", "tokens": 0.35, "dollars": 0.60}
GOAL_LAP = 60
DEFAULTS = "defaults: " + ", ".join(
    f"{k} {v}"
    for k, v in (
        ("keep", 1),
        ("batch", 0),
        ("threshold", 0.8),
        ("low water", 0.1),
        ("max words", 120),
    )
)


def run_all(quick: bool = False) -> dict:
    """Sweep every strategy on the long session and check the goal. ``quick``: a small session and grid."""
    fillers, at_lap = (4, 20) if quick else (43, GOAL_LAP)
    strategies = sweep(quick) + [("clear, then compact", DEFAULTS, ClearThenCompact())]
    with tempfile.TemporaryDirectory() as folder:
        workspace = long_workspace(Path(folder) / "workspace", fillers)
        points = measure(
            LONG_TASK, strategies, at_lap, workspace=workspace, meter=Meter("tiktoken")
        )
    return {
        "at_lap": at_lap,
        "workspace": f"class workspace + {fillers} generated modules",
        "points": [asdict(p) | {"counts": p.counts} for p in points],
        "frontier": [asdict(p) for p in frontier(points)],
        "goal": check_goal(points[-1], at_lap),
    }


def check_goal(point, at_lap: int) -> dict:
    """PASS or FAIL for the default ClearThenCompact, with the numbers and every reason it misses."""
    why = []
    if point.dollars > GOAL["dollars"]:
        why.append(f"dollars {point.dollars:.1%} > {GOAL['dollars']:.0%}")
    if point.tokens > GOAL["tokens"]:
        why.append(f"tokens {point.tokens:.1%} > {GOAL['tokens']:.0%}")
    if not point.kept_rule:
        why.append(f"rule not kept (database: {point.database})")
    if not point.reached:
        why.append(f"stopped ({point.stopped}) at lap {point.laps}, before lap {at_lap}")
    return {
        "strategy": f"{point.family} ({point.settings})",
        "tokens": round(point.tokens, 4),
        "dollars": round(point.dollars, 4),
        "kept rule": point.kept_rule,
        "result": "FAIL" if why else "PASS",
        "why": "; ".join(why),
        "line": (
            f"{'FAIL' if why else 'PASS'}  {GOAL['strategy']} (default settings) at lap {at_lap}: "
            f"{point.dollars:.1%} of full history's dollars with caching (goal <= {GOAL['dollars']:.0%}), "
            f"{point.tokens:.1%} of its input tokens (goal <= {GOAL['tokens']:.0%}), rule "
            f"{'kept' if point.kept_rule else 'lost'}" + (f" -- {'; '.join(why)}" if why else "")
        ),
    }


SHOWN = [
    "family",
    "settings",
    "tokens",
    "dollars",
    "rule",
    "laps",
    "stopped",
    "summary calls",
    "frontier",
]


def report(results: dict) -> str:
    """The sweep as a table (frontier rows starred), the frontier in one line each, and the goal line."""
    rows = [
        {
            "family": p["family"],
            "settings": p["settings"],
            "tokens": f"{p['tokens']:.1%}",
            "dollars": f"{p['dollars']:.1%}",
            "rule": "kept" if p["kept_rule"] else "LOST",
            "laps": p["laps"],
            "stopped": p["stopped"],
            "summary calls": p["summary_calls"],
            "frontier": "*" if p["on_frontier"] else "",
        }
        for p in results["points"]
    ]
    lines = [
        f"Cost frontier: long session ({results['workspace']}), billed at lap {results['at_lap']}; "
        "tokens and dollars (with caching) as a share of full history's:",
        table([{k: r[k] for k in SHOWN} for r in rows]),
        "",
        "Frontier (kept the rule, reached the lap, and no other such run is cheaper on both counts):",
    ]
    for (tokens, dollars), same in groupby(
        results["frontier"], key=lambda p: (p["tokens"], p["dollars"])
    ):
        same = list(same)
        also = (
            f" (and {len(same) - 1} more settings with the very same run)" if len(same) > 1 else ""
        )
        lines.append(
            f"  {tokens:6.1%} tokens  {dollars:6.1%} dollars  {same[0]['family']}, {same[0]['settings']}{also}"
        )
    lines += ["", results["goal"]["line"]]
    if results["at_lap"] != GOAL_LAP:
        lines.append(
            f"  (quick mode: a short session billed at lap {results['at_lap']}; the goal is set for the "
            f"long session at lap {GOAL_LAP}, so this line only shows that the check runs)"
        )
    return "\n".join(lines)


def plot(results: dict, path: Path) -> Path:
    """The frontier picture, drawn by stage.plots.plot_cost_frontier, saved as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from stage.frontier import Point
    from stage.plots import plot_cost_frontier

    points = [Point(**{k: v for k, v in p.items() if k != "counts"}) for p in results["points"]]
    fig, (whole, near) = plt.subplots(1, 2, figsize=(20, 8))
    goal = (GOAL["tokens"], GOAL["dollars"])
    plot_cost_frontier(
        points,
        goal=goal,
        ax=whole,
        title=f"Long session at lap {results['at_lap']}: dollars with caching vs input tokens",
    )
    plot_cost_frontier(
        points,
        goal=goal,
        ax=near,
        label=points[-1],
        limits=(0.4, 1.6),
        title="the same runs, near the goal",
    )
    near.get_legend().remove()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


if __name__ == "__main__":
    found = run_all()
    print(report(found))
    print(plot(found, Path(__file__).resolve().parent / "results" / "cache_frontier.png"))
