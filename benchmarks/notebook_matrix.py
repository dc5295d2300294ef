"""The notebook matrix: every notebook against the offline model through the SDK, and against each misbehaving model.

    .venv/bin/python -m benchmarks.notebook_matrix            # the whole matrix (tens of minutes)
    .venv/bin/python -m benchmarks.notebook_matrix --jobs 2   # two notebooks at a time

Each run starts a local Anthropic-compatible server (``stage/offline_server.py``) and executes one notebook
with ``ANTHROPIC_API_KEY``/``ANTHROPIC_BASE_URL`` pointing at it and ``CONTEXT_DESK_MODEL`` naming the
model, so the real ``anthropic`` SDK and ``ClaudeModel`` carry every call. A run is clean when no cell
raised. ``tests/test_notebook_matrix.py`` runs a representative part of this in ``make test``.

The rows: every lesson notebook (00-06) x {offline model, each misbehaving model}, and every exercise
solution x the offline model only -- the solutions build ``OfflineModel`` themselves (their checks must be
deterministic), so the server sees no request from them and a misbehaving model would not reach them.
Left out: the browser (see tests/test_browser_dashboard.py) and Anthropic's real servers.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def cells() -> list[tuple[Path, str]]:
    """Every (notebook, model name) of the matrix."""
    from stage.notebook_matrix import DESK, MODELS, NOTEBOOKS

    return [
        (path, model)
        for path in NOTEBOOKS
        for model in MODELS
        if model == DESK or path.parent.name == "notebooks"
    ]


def run_cell(pair):
    """One notebook against one model, with a server of its own."""
    from stage.offline_server import OfflineServer
    from stage.notebook_matrix import execute

    path, model, keep = (*pair, None)[:3]
    with OfflineServer() as server:
        return execute(path, server, model, keep=keep)


def run_all(jobs: int = 1, pairs: list | None = None) -> dict:
    from stage.notebook_matrix import summary

    pairs = cells() if pairs is None else pairs
    runs = []
    with ProcessPoolExecutor(max(1, jobs)) as pool:
        for run in pool.map(run_cell, pairs):
            mark = "ok " if run.clean else "ERR"
            print(
                f"  {mark} {run.notebook:<36} {run.model:<36} {run.seconds:5.1f} s  {run.requests:>4} requests"
                + ("" if run.clean else f"  {run.errors[0]}"),
                flush=True,
            )
            runs.append(run)
    print(summary(runs), flush=True)
    return {
        "runs": len(runs),
        "clean": sum(r.clean for r in runs),
        "errors": [
            {"notebook": r.notebook, "model": r.model, "errors": r.errors}
            for r in runs
            if not r.clean
        ],
        "requests": sum(r.requests for r in runs),
        "count_tokens": sum(r.counted for r in runs),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.notebook_matrix", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="notebooks at a time (each has its own server)"
    )
    parser.add_argument("--model", action="append", help="only these model names (repeatable)")
    parser.add_argument(
        "--notebook", action="append", help="only notebooks whose name contains this"
    )
    parser.add_argument("--keep", type=Path, help="a folder to write the executed notebooks into")
    args = parser.parse_args(argv)
    pairs = [
        (p, m, args.keep)
        for p, m in cells()
        if (not args.model or m in args.model)
        and (not args.notebook or any(n in str(p) for n in args.notebook))
    ]
    found = run_all(args.jobs, pairs)
    return 0 if found["clean"] == found["runs"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
