"""`make bench`: the strategy tables, the bill goals and the speed figures, in one run.

    .venv/bin/python -m benchmarks               # everything; the full sweep of dashboard settings takes longest
    .venv/bin/python -m benchmarks --quick       # a tiny version in seconds (the smoke test runs this)

Prints the tables to the terminal and writes ``latest.json``, ``assembled_tokens.png`` and
``cache_frontier.png`` into ``benchmarks/results/`` (or ``--out``).
Left out: any network model -- everything here is offline.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from benchmarks import (
    break_even,
    cache_frontier,
    figures,
    notebook_matrix,
    speed,
    strategies,
    sweep,
    workspaces,
)

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmarks, print them, write the results. Example: main(["--quick", "--out", "/tmp/b"])"""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--quick", action="store_true", help="short sessions, no notebooks (seconds, not minutes)"
    )
    parser.add_argument(
        "--out", type=Path, default=RESULTS, help="folder for latest.json and the plot"
    )
    parser.add_argument(
        "--no-speed", action="store_true", help="only the strategy tables and the bill goals"
    )
    parser.add_argument(
        "--no-sweep", action="store_true", help="skip the sweep of every dashboard setting"
    )
    parser.add_argument(
        "--no-matrix",
        action="store_true",
        help="skip the notebook matrix (every notebook through the SDK, against each model)",
    )
    args = parser.parse_args(argv)

    written = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    results = {
        "quick": args.quick,
        "written": written,
        "strategies": strategies.run_all(quick=args.quick),
    }
    print(strategies.report(results["strategies"]), flush=True)
    print(
        "", flush=True
    )  # dollars with caching vs input tokens: every strategy and setting, the goal line
    results["cache_frontier"] = cache_frontier.run_all(quick=args.quick)
    print(cache_frontier.report(results["cache_frontier"]), flush=True)
    print(
        "", flush=True
    )  # from which lap compaction pays in dollars, with caching: lesson 04's race
    results["break_even"] = break_even.run_all(quick=args.quick)
    print(break_even.report(results["break_even"]), flush=True)
    print("\nOther workspaces (the rule said at lap 3, a name corrected at lap 2):", flush=True)
    results["workspaces"] = workspaces.run_all(quick=args.quick)
    print(workspaces.report(results["workspaces"]), flush=True)
    if not args.no_speed:
        print("\nSpeed" + (" (quick mode: short sessions)" if args.quick else "") + ":", flush=True)
        results["speed"] = speed.run_all(quick=args.quick)
        print(speed.report(results["speed"]))
    if not args.no_sweep:  # every dashboard setting, run to its end: the count of crashes must be 0
        print("\nSweep" + (" (quick mode: a small sample)" if args.quick else "") + ":", flush=True)
        results["sweep"] = sweep.run_all(quick=args.quick)
    if (
        not args.no_matrix and not args.quick
    ):  # tens of minutes: every notebook x every model, through the SDK
        print("\nNotebook matrix:", flush=True)
        results["notebook_matrix"] = notebook_matrix.run_all(jobs=2)
    write(results, args.out)
    if (
        not args.quick and args.out.resolve() == RESULTS
    ):  # the READMEs quote the full run, and only it
        figures.main([])
    return results


def write(results: dict, folder: Path) -> None:
    """latest.json (every number above, and each strategy's assembled-token line) and the plot."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "latest.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    picture = strategies.plot(results["strategies"], folder / "assembled_tokens.png")
    frontier = cache_frontier.plot(results["cache_frontier"], folder / "cache_frontier.png")
    print(f"\nWrote {folder / 'latest.json'}, {picture} and {frontier}")


if __name__ == "__main__":
    main(sys.argv[1:])
