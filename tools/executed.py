"""The lessons as they last ran: executed headless, offline, and kept in ``build/executed/``.

The rehearsal clock reads each cell's output and run time to time it, and the runbook shows the
expected output of each cell, so both need a run. A run is kept with a fingerprint of everything that
can change an output (the notebook, the harness, the stage, the workspaces); a later call reuses it while
the fingerprint holds, and runs the lesson again when anything changed. The lessons run one at a time,
so each cell's recorded run time is what one machine takes, not what five lessons sharing it take.

``with_piece(path, source)`` runs a lesson's setup, its build cell holding ``source`` and its verdict
cells: what a room's own piece (a wrong one, for the runbook) prints and draws. Every run here uses an
empty agent file of its own (``stage.pieces.AGENT_FILE_VARIABLE``), so the pieces the instructor keeps in
``notebooks/my_agent.py`` never change what the runbook shows.

    python -m tools.executed            # run the lessons (about a minute, offline)

Left out: running with a key (the class's clock is the offline one; Claude's outputs would differ run to run).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from stage.pieces import AGENT_FILE_VARIABLE
from tools.lessons import LESSONS, ROOT, tags, with_piece_in

FOLDER = ROOT / "build" / "executed"
INPUTS = ("harness", "stage", "workspaces")


def fingerprint(path: Path) -> str:
    """A hash of the lesson and every source file its run depends on. Example: -> "3f2a..." (64 hex digits)"""
    digest = hashlib.sha256(path.read_bytes())
    for folder in INPUTS:
        for file in sorted((ROOT / folder).rglob("*")):
            if file.is_file() and "__pycache__" not in file.parts:
                digest.update(str(file.relative_to(ROOT)).encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def _clean_env(agent_file: Path) -> dict:
    """A student's environment without a key (the offline model, whatever the shell has set), with an
    agent file of its own."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ANTHROPIC_") and k != "CONTEXT_DESK_MODEL"
    }
    env["PYTHONWARNINGS"] = "ignore"
    env[AGENT_FILE_VARIABLE] = str(agent_file)
    return env


def _run(path: Path, notebook, agent_file: Path | None = None) -> None:
    """Run a notebook in a fresh kernel, in the lesson's folder, with ``agent_file`` as the class's agent
    file (an empty one of its own when None)."""
    with tempfile.TemporaryDirectory() as folder:
        client = NotebookClient(
            notebook,
            timeout=180,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        )
        agent = agent_file or Path(folder) / "my_agent.py"
        asyncio.run(client.async_execute(env=_clean_env(agent)))


def executed(
    paths: list[Path] | None = None, fresh: bool = False
) -> dict[str, nbformat.NotebookNode]:
    """{lesson name: the notebook with its outputs}, running only the lessons whose fingerprint changed."""
    paths = list(paths or LESSONS)
    FOLDER.mkdir(parents=True, exist_ok=True)
    found, stale = {}, []
    for path in paths:
        kept, mark = FOLDER / path.name, FOLDER / f"{path.stem}.fingerprint"
        if not fresh and kept.exists() and mark.exists() and mark.read_text() == fingerprint(path):
            found[path.stem] = nbformat.read(kept, as_version=4)
        else:
            stale.append(path)

    for path in stale:
        book = nbformat.read(path, as_version=4)
        try:
            _run(path, book)
        except Exception as error:
            raise RuntimeError(f"{path.name} did not run to its end: {error}") from error
        nbformat.write(book, FOLDER / path.name)
        (FOLDER / f"{path.stem}.fingerprint").write_text(fingerprint(path))
        found[path.stem] = book
    return found


def with_piece(path: Path, source: str | None) -> list:
    """The verdict cells of a lesson, run after its setup and its build cell holding ``source``.

    ``source`` None leaves the build cell out (a skipped build). Kept in ``build/executed/pieces/``
    under the lesson's fingerprint and the piece's hash, so the runbook reruns only what changed.
    Example: with_piece(notebooks/02_....ipynb, wrong_window) -> [the verdict cells, with outputs]
    """
    digest = hashlib.sha256((fingerprint(path) + repr(source)).encode()).hexdigest()[:16]
    kept = FOLDER / "pieces" / f"{path.stem}-{digest}.ipynb"
    if kept.exists():
        return [c for c in nbformat.read(kept, as_version=4).cells if "verdict" in tags(c)]
    book = lesson_cells(path, source)
    kept.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(book, kept)
    return [c for c in book.cells if "verdict" in tags(c)]


def lesson_cells(path: Path, source: str | None, agent_file: Path | None = None):
    """A lesson's setup cell, its build cell holding the piece ``source`` (left out when None; the
    skeleton's ``keep(...)`` line after it) and its verdict cells, run in one fresh kernel with
    ``agent_file`` as the class's agent file: the notebook, run."""
    cells = []
    for cell in nbformat.read(path, as_version=4).cells:
        if "setup" in tags(cell) or "verdict" in tags(cell):
            cells.append(nbformat.v4.new_code_cell(cell.source, metadata={"tags": tags(cell)}))
        elif "build" in tags(cell) and source is not None:  # the room's piece; its keep() stays
            filled = with_piece_in(cell.source, source)
            cells.append(nbformat.v4.new_code_cell(filled, metadata={"tags": ["build"]}))
    book = nbformat.v4.new_notebook(cells=cells)
    _run(
        path, book, agent_file
    )  # a wrong piece stops its own run cleanly; an error is the lesson's
    return book


def text_of_outputs(cell) -> str:
    """What a code cell printed or showed as text (images left out). Example: -> "stopped: overflow\\n" """
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(output.get("text", ""))
        elif (
            output.get("output_type") in ("execute_result", "display_data")
            and "image/png" not in output["data"]
        ):
            parts.append(str(output["data"].get("text/plain", "")))
        elif output.get("output_type") == "error":
            parts.append(f"{output.get('ename')}: {output.get('evalue')}")
    return "".join(parts)


def figures_of(cell) -> int:
    """How many pictures a code cell left (plots, desks, the dashboard's last frame)."""
    return sum(1 for o in cell.get("outputs", []) if "image/png" in o.get("data", {}))


def main() -> int:
    runs = executed(fresh="--fresh" in sys.argv)
    print(json.dumps({name: len(book.cells) for name, book in runs.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
