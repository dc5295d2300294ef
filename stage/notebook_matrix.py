"""Run notebooks headless against the desk server: the shared code of the matrix test and its benchmark.

``execute(path, server, model_name)`` runs one notebook with ``ANTHROPIC_API_KEY`` and
``ANTHROPIC_BASE_URL`` pointing at ``server`` and ``CONTEXT_DESK_MODEL=model_name``, in a kernel whose
HOME and TMPDIR are fresh folders (the SDK reads profiles from ~/.config/anthropic; the memory tool
writes under the temp folder). It returns a ``NotebookRun``: the errors, the seconds, and how many
requests (and ``count_tokens`` calls) the server answered while it ran.

Left out: running cells that need a browser, and any notebook outside notebooks/ and exercises/solutions/.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from stage.misbehaving import KINDS, PREFIX
from stage.standin_server import SDK_ENV, TEST_KEY

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) + sorted(
    (ROOT / "exercises" / "solutions").glob("[0-9][0-9]_*.ipynb")
)
DESK = "claude-haiku-5-5"  # any name outside the misbehaving ones gets the offline model
MODELS = [DESK] + [PREFIX + kind for kind in KINDS]


@dataclass
class NotebookRun:
    notebook: str
    model: str
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    requests: int = 0
    counted: int = 0

    @property
    def clean(self) -> bool:
        return not self.errors


def label(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def kernel_env(server_url: str, model_name: str, home: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in SDK_ENV}
    env.update(
        {
            "ANTHROPIC_API_KEY": TEST_KEY,
            "ANTHROPIC_BASE_URL": server_url,
            "CONTEXT_DESK_MODEL": model_name,
            "HOME": home,
            "TMPDIR": home,
            "NO_PROXY": "127.0.0.1,localhost",
        }
    )
    return env


def execute(
    path: Path, server, model_name: str, timeout: int = 300, keep: Path | None = None
) -> NotebookRun:
    """Run one notebook to its end against ``server`` as ``model_name``; never raises for a cell's error.

    ``keep`` is a folder to write the executed notebook into (to read what it printed).
    """
    record = NotebookRun(label(path), model_name)
    before, counted_before = len(server.requests), server.count("/count_tokens")
    notebook = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="desk-home-") as home:
        client = NotebookClient(
            notebook,
            timeout=timeout,
            kernel_name="python3",
            allow_errors=True,
            resources={"metadata": {"path": str(path.parent)}},
        )
        start = time.perf_counter()
        client.execute(env=kernel_env(server.url, model_name, home))
        record.seconds = time.perf_counter() - start
    for number, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if output.output_type == "error":
                record.errors.append(f"cell {number}: {output.ename}: {output.evalue}"[:400])
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, keep / f"{path.parent.name}__{path.stem}__{model_name}.ipynb")
    record.requests = len(server.requests) - before
    record.counted = server.count("/count_tokens") - counted_before
    return record


def summary(runs: list[NotebookRun]) -> str:
    """One line: how many notebook runs, how many clean, and the requests the server answered."""
    clean = sum(r.clean for r in runs)
    return (
        f"notebook matrix: {len(runs)} runs ({len({r.notebook for r in runs})} notebooks x "
        f"{len({r.model for r in runs})} models), {clean} clean, {len(runs) - clean} with errors; "
        f"{sum(r.requests for r in runs):,} requests through the SDK "
        f"({sum(r.counted for r in runs)} count_tokens), {sum(r.seconds for r in runs):.0f} s"
    )
