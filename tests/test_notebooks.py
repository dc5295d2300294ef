"""Every lesson notebook runs headless, offline, without error, and quickly; and each one carries
what the class needs (time box, checkpoint with a hidden answer, links). Committed notebooks have
no outputs: that is the policy, and this file enforces it."""

import re
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.integration  # runs every notebook in a kernel

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ALL = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
LESSONS = [p for p in ALL if not p.name.startswith(("00_", "06_"))]
TIMINGS: dict[str, float] = {}


def execute(path: Path):
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    TIMINGS[path.name] = time.perf_counter() - start
    return notebook


def test_there_are_notebooks():
    assert (NOTEBOOKS / "00_start_here.ipynb").exists()


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_notebook_runs_headless_offline(path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    notebook = execute(path)
    errors = [
        o
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert not errors, errors[0].get("evalue") if errors else ""
    first_code = next(c for c in notebook.cells if c.cell_type == "code")
    printed = "".join(o.get("text", "") for o in first_code.outputs)
    assert "Active model:" in printed, "the first code cell must say which model is active"


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_committed_notebooks_carry_no_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, (
                f"{path.name} has committed outputs"
            )


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_each_lesson_has_its_time_box_checkpoint_and_links(path):
    text = "\n".join(
        c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"
    )
    assert re.search(r"\b[789]:\d\d\s*[–-]\s*[789]:\d\d\b", text), "no time box like 7:20–7:50"
    assert "Checkpoint" in text and "<details>" in text, (
        "no checkpoint question with a hidden answer"
    )
    assert "Instructor note" in text
    assert "../exercises/" in text and "../slides/" in text
    book = nbformat.read(path, as_version=4)
    builds = [i for i, c in enumerate(book.cells) if "build" in c.metadata.get("tags", [])]
    assert len(builds) == 1, (
        f"{path.name}: one build cell, where the class writes this lesson's piece"
    )
    reveal = book.cells[builds[0] + 1]
    assert "piece" in reveal.metadata.get("tags", []) and "<details>" in reveal.source, (
        "the finished piece sits behind a reveal right after the build cell, not in the next code cell"
    )
    assert (
        "raise NotImplementedError" in book.cells[builds[0]].source
        and "Goal:" in book.cells[builds[0]].source
    ), "the build cell states the goal, the interface and a hint, and leaves the lines to the class"
