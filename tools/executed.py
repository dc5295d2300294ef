"""The lessons as they last ran: executed headless, offline, and kept in ``build/executed/``.

The rehearsal clock reads each cell's output to time its reading, and the runbook shows the expected
output of each cell, so both need a run. A run is kept with a fingerprint of everything that can change
an output (the notebook, the harness, the stage, the workspaces); a later call reuses it while the
fingerprint holds, and runs the lesson again when anything changed.

    python -m tools.executed            # run the five lessons (about half a minute, offline)

Left out: running with a key (the class's clock is the offline one; Claude's outputs would differ run to run).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tools.lessons import LESSONS, ROOT

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


def _clean_env() -> dict:
    """A student's environment without a key: the offline model, whatever the shell has set."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ANTHROPIC_") and k != "CONTEXT_DESK_MODEL"
    }
    env["PYTHONWARNINGS"] = "ignore"
    return env


async def _run(path: Path, notebook) -> None:
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    await client.async_execute(env=_clean_env())


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

    async def run_all(books):
        return await asyncio.gather(*(_run(p, b) for p, b in books.items()), return_exceptions=True)

    books = {p: nbformat.read(p, as_version=4) for p in stale}
    for (path, book), error in zip(
        books.items(), asyncio.run(run_all(books)) if books else [], strict=True
    ):
        if isinstance(error, BaseException):
            raise RuntimeError(f"{path.name} did not run to its end: {error}") from error
        nbformat.write(book, FOLDER / path.name)
        (FOLDER / f"{path.stem}.fingerprint").write_text(fingerprint(path))
        found[path.stem] = book
    return found


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
