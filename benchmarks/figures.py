"""The benchmark figures the READMEs quote, written from ``benchmarks/results/latest.json``: one source.

    .venv/bin/python -m benchmarks.figures           # rewrite the marked blocks from latest.json
    .venv/bin/python -m benchmarks.figures --check   # exit 1 if a block says something latest.json does not

``make bench`` runs it after writing ``latest.json``. A block is everything between
``<!-- figures:NAME -->`` and ``<!-- /figures:NAME -->`` in ``benchmarks/README.md``;
the text around the blocks is the authors', and says no numbers the blocks do not.
Left out: any number that is not in latest.json (those are not quoted as results).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LATEST = ROOT / "benchmarks" / "results" / "latest.json"
READMES = {
    "goals": ROOT / "benchmarks" / "README.md",
    "bill": ROOT / "benchmarks" / "README.md",
    "frontier": ROOT / "benchmarks" / "README.md",
    "speed": ROOT / "benchmarks" / "README.md",
}


def conditions(results: dict) -> str:
    """The machine the run was taken on (if latest.json records it) and its load, measured by the run itself.

    The load is the share of a core the benchmark's long sessions got: their CPU time over their wall time.
    On a busy machine the rows timed by the clock (the redraw, the notebooks) read slower than the code runs.
    Example: 11.0 s of CPU in 24.4 s of wall time -> "... got 45% of a core ..."
    """
    machine = results.get("machine")
    where = (
        ", ".join(f"{key} {value}" for key, value in machine.items())
        if isinstance(machine, dict) and machine
        else "a machine this run did not record"
    )
    sessions = results.get("speed", {}).get("sessions", [])
    cpu = sum(s.get("seconds", 0) for s in sessions)
    wall = sum(s.get("wall s", 0) for s in sessions)
    if not (cpu and wall):
        return f"Taken on {where}, load not measured: compare only the shares and the ratios (the x rows)."
    if cpu / wall < 0.8:
        reading = (
            "the machine was busy, so the rows timed by the clock (wall time: the redraw, the notebooks) "
            "read slower than the code runs; the CPU-time rows, the shares and the ratios are the ones "
            "to compare"
        )
    else:
        reading = "wall time and CPU time agree"
    return (
        f"Taken on {where}. Load: the long sessions got {cpu / wall:.0%} of a core ({cpu:.1f} s of "
        f"CPU time in {wall:.1f} s); {reading}."
    )


def goals_block(results: dict) -> str:
    """The goals table: every goal `make bench` checks, with its result, after the machine and its load."""
    rows = [("goal", "result"), ("---", "---")]
    at = results["strategies"]["long_session"]["at_lap"]
    for g in results["strategies"]["long_session"]["goals"]:
        finish = (
            "never finished"
            if g.get("finish share") is None
            else f"to finish {g['finish share']:.1%} of the tokens, {g['finish cost share']:.0%} of "
            "the dollars"
        )
        rows.append(
            (
                g["goal"],
                f"at lap {at} {g['share']:.1%} of the tokens, {g['cost share']:.0%} of the dollars "
                f"with prompt caching; {finish} ({g['result']})",
            )
        )
    cache = results["cache_frontier"]["goal"]
    cache_finish = (
        "never finished"
        if cache.get("finish dollars") is None
        else f"to finish {cache['finish dollars']:.1%} of the dollars, "
        f"{cache['finish tokens']:.1%} of the tokens"
    )
    rows.append(
        (
            f"clear, then compact (default settings), at lap {results['cache_frontier']['at_lap']} and "
            "to finish the task: ≤ 60 % of full history's dollars with caching and ≤ 35 % of its "
            "tokens, keeping the rule",
            f"at lap {results['cache_frontier']['at_lap']} {cache['dollars']:.1%} of the dollars, "
            f"{cache['tokens']:.1%} of the tokens; {cache_finish} ({cache['result']})",
        )
    )
    speed = results.get("speed", {})
    for g in speed.get("goals", []):
        rows.append((g["goal"], f"{g['measured']} ({g['result']})"))
    if speed.get("redraw"):
        r = speed["redraw"]
        if "median_ms" in r:
            verdict = "PASS" if r.get("goal_met") else "MISS"
            cpu = f" ({r['cpu_median_ms']:.0f} ms of CPU)" if "cpu_median_ms" in r else ""
            rows.append(
                (
                    f"dashboard redraw ≤ {r['goal_ms']} ms per lap (wall time)",
                    f"median {r['median_ms']:.0f} ms{cpu}, p90 {r['p90_ms']:.0f} ms ({verdict})",
                )
            )
    notebooks = speed.get("notebooks", {})
    if "total s" in notebooks:
        verdict = "PASS" if notebooks["total s"] <= 60 and not notebooks.get("errors") else "MISS"
        rows.append(
            (
                "every notebook headless ≤ 60 s (wall time)",
                f"{notebooks['total s']:.0f} s for all {len(notebooks['seconds'])} ({verdict})",
            )
        )
    when = results.get("written", "date not recorded")
    return "\n".join(
        [f"The latest `make bench` ({when}). {conditions(results)}", ""]
        + [f"| {a} | {b} |" for a, b in rows]
    )


def bill_block(results: dict) -> str:
    """benchmarks/README's bill table: the long session's rows at the billing lap."""
    long = results["strategies"]["long_session"]
    lines = [
        f"Billed at lap {long['at_lap']} and to finish the task, the fix on staging "
        f"({long.get('workspace', 'long session')}); share = input tokens as a fraction of full "
        "history's, $ share = dollars with caching, the same way:",
        "",
        "| strategy | laps | stopped | share at lap | $ share at lap | cache read | finished | "
        "share to finish | $ share to finish | rule kept | database |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in long["rows"]:
        lines.append(
            f"| {r['strategy']} | {r['laps']} | {r['stopped']} | {r['share']} | {r['$ share']} | "
            f"{r['cache read']} | {r['finished']} | {r['to finish share']} | "
            f"{r['to finish $ share']} | {r['rule kept']} | {r['database']} |"
        )
    return "\n".join(lines)


def frontier_block(results: dict) -> str:
    """benchmarks/README's frontier list and the cache goal line."""
    frontier = results["cache_frontier"]
    lines = [
        f"Frontier at lap {frontier['at_lap']} ({len(frontier['points'])} runs swept; kept the rule, reached "
        "the lap, and no other such run is cheaper on both counts):",
        "",
    ]
    lines += [
        f"- {p['tokens']:.1%} of the tokens, {p['dollars']:.1%} of the dollars: {p['family']}, {p['settings']}"
        for p in frontier["frontier"]
    ]
    lines += ["", f"**Goal line:** `{frontier['goal']['line']}`"]
    return "\n".join(lines)


def speed_block(results: dict) -> str:
    """benchmarks/README's speed table: CPU time of the benchmark process (wall time is in latest.json)."""
    speed = results.get("speed")
    if not speed:
        return "(no speed figures in latest.json: it was written with --no-speed)"
    o, m = speed["overhead"], speed["meter"]
    rows = [
        (
            "per lap on the class task",
            f"{o['ms per lap']:.1f} ms = model {o['model ms']:.1f} + tools "
            f"{o['tools ms']:.1f} + harness {o['harness ms']:.1f}",
        ),
        (
            f"meter vs recounting every lap, {m['laps']} laps",
            f"{m['meter s']} s vs {m['naive s']} s: {m['speed-up']}x",
        ),
    ]
    rows += [
        (f"{s['laps']:,}-lap session", f"{s['seconds']} s CPU, {s['ms per lap']:.1f} ms per lap")
        for s in speed["sessions"]
    ]
    rows += [(f"goal: {g['goal']}", f"{g['measured']}: **{g['result']}**") for g in speed["goals"]]
    r = speed.get("redraw") or {}
    if "median_ms" in r:
        rows.append(
            (
                "dashboard redraw per lap",
                f"median {r['median_ms']} ms, p90 {r['p90_ms']} ms (goal <= {r['goal_ms']} ms)",
            )
        )
    notebooks = speed.get("notebooks", {})
    if "seconds" in notebooks:
        rows.append(
            (
                "notebooks headless",
                ", ".join(
                    f"`{k.removesuffix('.ipynb')}` {v} s" for k, v in notebooks["seconds"].items()
                ),
            )
        )
    return "\n".join(
        ["| measure | result |", "| --- | --- |"] + [f"| {a} | {b} |" for a, b in rows]
    )


BLOCKS = {
    "goals": goals_block,
    "bill": bill_block,
    "frontier": frontier_block,
    "speed": speed_block,
}


def render(text: str, name: str, body: str) -> str:
    """``text`` with the block ``name`` replaced by ``body``. A missing block is a clear error."""
    pattern = re.compile(
        rf"(<!-- figures:{name} -->\n)(?:.*?\n)?(<!-- /figures:{name} -->)", re.DOTALL
    )
    if not pattern.search(text):
        raise ValueError(f"No <!-- figures:{name} --> ... <!-- /figures:{name} --> block to fill.")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text, count=1)


def updated(results: dict) -> dict[Path, str]:
    """Every README as it should read, from ``results``."""
    texts: dict[Path, str] = {}
    for name, path in READMES.items():
        text = texts.get(path) or path.read_text(encoding="utf-8")
        texts[path] = render(text, name, BLOCKS[name](results))
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.figures", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--check", action="store_true", help="only say whether the READMEs match latest.json"
    )
    parser.add_argument("--latest", type=Path, default=LATEST)
    args = parser.parse_args(argv)
    results = json.loads(args.latest.read_text(encoding="utf-8"))
    stale = [
        path for path, text in updated(results).items() if path.read_text(encoding="utf-8") != text
    ]
    if args.check:
        for path in stale:
            print(
                f"{path.relative_to(ROOT)} does not match {args.latest.name}: run python -m benchmarks.figures"
            )
        return 1 if stale else 0
    for path, text in updated(results).items():
        path.write_text(text, encoding="utf-8")
    print(
        "Figures written from",
        args.latest.relative_to(ROOT) if args.latest.is_relative_to(ROOT) else args.latest,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
