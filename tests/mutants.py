"""A small hand-rolled mutation tool: every one-point change to a solution's answer lines.

``mutants(notebook, function)`` reads the function from its solution notebook and makes one mutant
for each place an operator below applies, inside the lines between ``### BEGIN SOLUTION`` and
``### END SOLUTION`` only (the given lines -- the signature, the docstring -- stay as they are):

* a comparison turned around or loosened: ``<`` / ``<=`` / ``>`` / ``>=``, ``==`` / ``!=``,
  ``in`` / ``not in``, ``is`` / ``is not``;
* a whole number one more or one less (an off-by-one), a string emptied;
* arithmetic swapped: ``+`` / ``-``, ``//`` / ``/``, ``*`` / ``//``;
* ``and`` / ``or``; a ``not`` dropped; ``min`` / ``max``, ``any`` / ``all``, ``reversed(x)`` -> ``x``;
* a condition dropped (``if c:`` -> ``if True:``) or never met (``if False:``);
* a statement dropped (replaced by ``pass``), a ``break`` or ``continue`` removed;
* a slice's bound moved by one (``x[a:]`` -> ``x[a + 1:]``), a method call dropped (``s.lower()`` -> ``s``);
* a lap record's field read in place of another (``lap.raw_tokens`` -> ``lap.billed_input``).

Each mutant is a function defined in a copy of the notebook's namespace, so it calls the notebook's
other (unmutated) functions as the solution does. Left out: mutants of value answers (prompts and
memories are text; their checks are run on hand-written variants in the corpus instead).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

import nbformat
from exercise_answers import EXERCISES, solution

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"

COMPARE_SWAPS = {
    ast.Lt: [ast.LtE, ast.Gt],
    ast.LtE: [ast.Lt, ast.GtE],
    ast.Gt: [ast.GtE, ast.Lt],
    ast.GtE: [ast.Gt, ast.LtE],
    ast.Eq: [ast.NotEq],
    ast.NotEq: [ast.Eq],
    ast.In: [ast.NotIn],
    ast.NotIn: [ast.In],
    ast.Is: [ast.IsNot],
    ast.IsNot: [ast.Is],
}
BINOP_SWAPS = {
    ast.Add: [ast.Sub],
    ast.Sub: [ast.Add],
    ast.FloorDiv: [ast.Div, ast.Mult],
    ast.Div: [ast.FloorDiv],
    ast.Mult: [ast.FloorDiv],
}
CALL_SWAPS = {"min": "max", "max": "min", "any": "all", "all": "any", "sum": "len"}
# The number fields of a lap record: reading the wrong one is the commonest slip of all.
LAP_FIELDS = (
    "number",
    "raw_tokens",
    "assembled_tokens",
    "billed_input",
    "billed_output",
    "total_input",
    "summary_calls",
)


@dataclass
class Mutant:
    task: str
    where: str  # e.g. "line 4: < -> <="
    source: str
    function: object


def answer_cell(notebook: str, function: str) -> tuple[str, range]:
    """The code cell that defines ``function``, and the range of its answer lines (1-based)."""
    book = nbformat.read(EXERCISES / "solutions" / f"{notebook}.ipynb", as_version=4)
    for cell in book.cells:
        if cell.cell_type == "code" and f"def {function}(" in cell.source:
            lines = cell.source.splitlines()
            begin = next(i for i, line in enumerate(lines) if BEGIN in line) + 1
            end = next(i for i, line in enumerate(lines) if END in line) + 1
            return cell.source, range(begin + 1, end)
    raise LookupError(function)


def _sites(tree: ast.AST, answer: range):
    """(path to a node, a description, the replacement maker) for every place a mutation applies."""
    for node in ast.walk(tree):
        line = getattr(node, "lineno", None)
        if line is None or line not in answer:
            continue
        yield from _node_mutations(node)


def _node_mutations(node):
    here = f"line {node.lineno}"
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            for other in COMPARE_SWAPS.get(type(op), []):
                yield (
                    node,
                    f"{here}: {type(op).__name__} -> {other.__name__}",
                    (lambda n, i=i, other=other: _set_op(n, i, other())),
                )
    elif isinstance(node, ast.BinOp):
        for other in BINOP_SWAPS.get(type(node.op), []):
            yield (
                node,
                f"{here}: {type(node.op).__name__} -> {other.__name__}",
                (lambda n, other=other: setattr(n, "op", other())),
            )
    elif isinstance(node, ast.BoolOp):
        other = ast.Or if isinstance(node.op, ast.And) else ast.And
        yield (
            node,
            f"{here}: {type(node.op).__name__} -> {other.__name__}",
            (lambda n, other=other: setattr(n, "op", other())),
        )
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield node, f"{here}: not dropped", lambda n: ("replace", n.operand)
    elif (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int)
        and not isinstance(node.value, bool)
    ):
        for delta in (1, -1):
            yield (
                node,
                f"{here}: {node.value} -> {node.value + delta}",
                (lambda n, d=delta: setattr(n, "value", n.value + d)),
            )
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        yield node, f"{here}: {node.value!r:.20} -> ''", lambda n: setattr(n, "value", "")
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name in CALL_SWAPS:
            yield (
                node,
                f"{here}: {name} -> {CALL_SWAPS[name]}",
                (lambda n, to=CALL_SWAPS[name]: setattr(n.func, "id", to)),
            )
        if name == "reversed" and node.args:
            yield node, f"{here}: reversed dropped", lambda n: ("replace", n.args[0])
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
        yield node, f"{here}: .{node.func.attr}() dropped", lambda n: ("replace", n.func.value)
    elif isinstance(node, ast.Attribute) and node.attr in LAP_FIELDS:
        for other in LAP_FIELDS:
            if other != node.attr:
                yield (
                    node,
                    f"{here}: .{node.attr} -> .{other}",
                    (lambda n, other=other: setattr(n, "attr", other)),
                )
    elif isinstance(node, (ast.If, ast.While)):
        yield (
            node,
            f"{here}: condition always true",
            lambda n: setattr(n, "test", ast.Constant(True)),
        )
        yield (
            node,
            f"{here}: condition never met",
            lambda n: setattr(n, "test", ast.Constant(False)),
        )
    elif isinstance(node, ast.Slice):
        for part in ("lower", "upper"):
            if getattr(node, part) is not None:
                yield (
                    node,
                    f"{here}: slice {part} + 1",
                    (
                        lambda n, part=part: setattr(
                            n, part, ast.BinOp(getattr(n, part), ast.Add(), ast.Constant(1))
                        )
                    ),
                )
    if isinstance(node, (ast.Break, ast.Continue, ast.Assign, ast.AugAssign, ast.Expr)):
        yield (
            node,
            f"{here}: {type(node).__name__.lower()} dropped",
            lambda n: ("replace", ast.Pass()),
        )


def _set_op(node, i, op):
    node.ops[i] = op


def _mutated(tree: ast.AST, target_index: int, change) -> ast.AST:
    """A copy of ``tree`` with ``change`` applied to the node that ast.walk meets at ``target_index``."""
    tree = copy.deepcopy(tree)
    nodes = list(ast.walk(tree))
    target = nodes[target_index]
    result = change(target)
    if isinstance(result, tuple) and result[0] == "replace":
        _replace(tree, target, result[1])
    return ast.fix_missing_locations(tree)


def _replace(tree, old, new):
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list) and any(v is old for v in value):
                setattr(parent, field, [new if v is old else v for v in value])
                return


def mutants(task: str, notebook: str, function: str) -> list[Mutant]:
    """Every one-point mutant of ``function``'s answer lines, each defined beside the solution's own."""
    source, answer = answer_cell(notebook, function)
    tree = ast.parse(source)
    solution(notebook, function)  # read the notebook's namespace
    from exercise_answers import _NAMESPACES

    index = {id(node): i for i, node in enumerate(ast.walk(tree))}
    found, seen = [], set()
    for node, where, change in _sites(tree, answer):
        mutated = _mutated(tree, index[id(node)], change)
        text = ast.unparse(mutated)
        if text in seen or text == ast.unparse(tree):
            continue
        seen.add(text)
        namespace = dict(_NAMESPACES[notebook])
        try:
            exec(compile(mutated, f"<mutant of {function}: {where}>", "exec"), namespace)
        except Exception:
            continue  # a mutant that does not even define the function is not a mutant
        found.append(Mutant(task, where, text, namespace[function]))
    return found
