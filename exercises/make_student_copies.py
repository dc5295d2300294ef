"""Make the student copies of the exercises from their one source, the solution notebooks.

For each ``exercises/solutions/NN_name.ipynb`` this writes ``exercises/NN_name.ipynb``:

* the code between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` becomes a stub. Inside a function
  (an indented block) the stub is ``raise NotImplementedError("Your code here")`` at the same indent;
  at the top level, where the answer is a value (``PROMPT = "..."``), every name the block assigns
  becomes ``NAME = None  # your answer``. The marker lines stay, so students see which lines to change.
* links are re-based: a solution sits one folder deeper, so each relative link loses one ``../``
  (``../../notebooks/...`` becomes ``../notebooks/...``, ``../checks/...`` becomes ``checks/...``).
* outputs and execution counts are stripped (they are stripped in the solutions too).

    python exercises/make_student_copies.py           # write the copies
    python exercises/make_student_copies.py --check   # exit 1 if a committed copy differs

Left out: nbgrader's grading metadata, hidden tests, and "solution only" cells.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
SOLUTIONS = HERE / "solutions"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = 'raise NotImplementedError("Your code here")'


def stub_source(source: str, where: str = "a cell") -> str:
    """Replace every solution block of one code cell with its stub.

    Example: '    ### BEGIN SOLUTION\\n    return 42\\n    ### END SOLUTION'
    -> '    ### BEGIN SOLUTION\\n    raise NotImplementedError("Your code here")\\n    ### END SOLUTION'
    """
    out, block, indent = [], None, ""
    for line in source.split("\n"):
        marker = line.strip()
        if block is None:
            out.append(line)
            if marker == BEGIN:
                block, indent = [], line[: len(line) - len(line.lstrip())]
            elif marker == END:
                raise ValueError(f"{where}: '{END}' without a '{BEGIN}' before it.")
        elif marker == END:
            out += [indent + stub for stub in _stub_for(block, indent, where)]
            out.append(line)
            block = None
        elif marker == BEGIN:
            raise ValueError(f"{where}: '{BEGIN}' inside another solution block.")
        else:
            block.append(line)
    if block is not None:
        raise ValueError(f"{where}: '{BEGIN}' is never closed by '{END}'.")
    return "\n".join(out)


def _stub_for(block: list[str], indent: str, where: str) -> list[str]:
    if indent:
        return [STUB]
    # A top-level block is a value answer: the student writes the values, so each name starts as None.
    tree = ast.parse("\n".join(block))
    names = []
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and all(
            isinstance(t, ast.Name) for t in statement.targets
        ):
            names += [t.id for t in statement.targets]
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names.append(statement.target.id)
        else:
            raise ValueError(
                f"{where}: a top-level solution block may only assign values (NAME = ...); put "
                "code "
                "inside a function instead, so the student copy can raise NotImplementedError "
                "there."
            )
    if not names:
        raise ValueError(f"{where}: an empty top-level solution block.")
    return [f"{name} = None  # your answer" for name in dict.fromkeys(names)]


def student_copy(solution: nbformat.NotebookNode, name: str = "") -> nbformat.NotebookNode:
    """The student notebook for one solution notebook (a new object; the solution is not changed)."""
    notebook = nbformat.from_dict(solution)
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type == "code":
            cell.source = stub_source(cell.source, f"{name}, cell {number}")
        elif cell.cell_type == "markdown":
            cell.source = cell.source.replace("](../", "](")  # one folder up: one "../" fewer
    return strip_outputs(notebook)


def strip_outputs(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """No outputs, no execution counts, no run-time metadata: what every committed notebook looks like."""
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        for key in ("execution", "collapsed", "scrolled"):
            cell.metadata.pop(key, None)
    notebook.metadata.pop("widgets", None)
    return notebook


def pairs() -> list[tuple[Path, Path]]:
    """(solution, student copy) for every exercise, in order."""
    return [(path, HERE / path.name) for path in sorted(SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))]


def render(notebook: nbformat.NotebookNode) -> str:
    return nbformat.writes(notebook) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="only compare; exit 1 if a student copy is out of date"
    )
    args = parser.parse_args(argv)
    if not pairs():
        print(f"No solution notebooks found in {SOLUTIONS}.", file=sys.stderr)
        return 1
    stale = []
    for solution, copy in pairs():
        try:
            wanted = render(student_copy(nbformat.read(solution, as_version=4), solution.name))
        except ValueError as problem:
            print(f"{solution.relative_to(HERE.parent)}: {problem}", file=sys.stderr)
            return 1
        current = copy.read_text(encoding="utf-8") if copy.exists() else None
        if current == wanted:
            continue
        if args.check:
            stale.append(copy)
        else:
            copy.write_text(wanted, encoding="utf-8")
            print(f"wrote {copy.relative_to(HERE.parent)}")
    if stale:
        names = ", ".join(str(p.relative_to(HERE.parent)) for p in stale)
        print(
            f"Out of date: {names}. Run `make exercises` (or this script without --check).",
            file=sys.stderr,
        )
        return 1
    if args.check:
        print(f"All {len(pairs())} student copies match their solutions.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
