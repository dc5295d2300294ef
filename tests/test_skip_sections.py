"""Skip-safe lessons: each `##` section runs after the lesson's setup cell alone.

For every lesson 01-05 the test builds one notebook: for each section, a namespace reset, the setup
cell, then that section's code cells only. One kernel per lesson (a reset between sections is what a
fresh kernel would give the section; modules stay imported, which a fresh kernel would redo).
It prints, per lesson, how many sections failed and which, and asserts that none did.
"""

import nbformat
import pytest
from nbclient import NotebookClient

from tools.lessons import LESSONS, read, tags

pytestmark = pytest.mark.integration  # runs notebook sections in kernels

RESET = "get_ipython().run_line_magic('reset', '-f')"


def test_every_lesson_has_one_setup_cell_first():
    for path in LESSONS:
        lesson = read(path)
        setups = lesson.tagged("setup")
        first_code = next(i for i, c in enumerate(lesson.cells) if c.cell_type == "code")
        assert setups == [first_code], (
            f"{path.name}: the first code cell, and only it, must be tagged 'setup'"
        )
        assert all(c.cell_type == "markdown" or "setup" in tags(c) for c in lesson.preamble), (
            f"{path.name}: code before the first ## section must be the setup cell alone"
        )


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_each_section_runs_after_the_setup_cell_alone(path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    lesson = read(path)
    cells, owner = [], []  # owner[i]: the section title of built cell i (None: plumbing)
    for section in lesson.sections:
        if not section.code:
            continue
        for source in (RESET, lesson.setup.source):
            cells.append(nbformat.v4.new_code_cell(source))
            owner.append(None)
        for cell in section.code:
            cells.append(nbformat.v4.new_code_cell(cell.source))
            owner.append(section.title)
    notebook = nbformat.v4.new_notebook(cells=cells)
    NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    failed = {}
    for cell, title in zip(notebook.cells, owner):
        for output in cell.outputs:
            if output.output_type == "error":
                failed.setdefault(title or "(setup)", f"{output.ename}: {output.evalue}")
    ran = sum(1 for s in lesson.sections if s.code)
    print(
        f"\n{path.stem}: {ran} sections with code, {len(failed)} failing after the setup cell alone"
    )
    assert not failed, failed
