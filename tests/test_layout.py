"""The shape of the repository: the lesson apart from the stage, no import circles, no path hacks.

``harness/`` is what the class reads in one sitting; ``stage/`` is everything around it and may import
the harness, never the reverse. These tests read the source as text and syntax trees; they run nothing.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["harness", "stage", "exercises", "benchmarks", "tools", "slides"]
LESSON_LINES = 3350  # "about 3,300": harness/, formatted at 100 columns: read in one sitting
MODULE_LINES = 300  # one idea a module, short enough to read aloud


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_files() -> list[Path]:
    return sorted(
        p
        for package in PACKAGES
        for p in (ROOT / package).rglob("*.py")
        if "node_modules" not in p.parts
    )


def imports_of(path: Path) -> set[str]:
    """Every project module ``path`` imports, at the top or inside a function (a lazy import still ties them)."""
    found, here = set(), module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}  # `from pkg import module`
    known = {module_name(p) for p in project_files()}
    return {name for name in found if name in known and name != here}


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in project_files()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each a circle of imports."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_circle_and_passes_a_line():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_circle_anywhere_in_the_projects_packages():
    assert cycles(graph()) == []


def test_the_lesson_never_imports_the_stage():
    for module, imported in graph().items():
        if module.startswith("harness"):
            outside = {name for name in imported if not name.startswith("harness")}
            assert not outside, (
                f"{module} imports {sorted(outside)}: the lesson must not depend on the stage"
            )


def test_the_lesson_reads_in_one_sitting():
    sizes = {
        p.name: len(p.read_text(encoding="utf-8").splitlines())
        for p in (ROOT / "harness").glob("*.py")
    }
    assert sum(sizes.values()) <= LESSON_LINES, f"harness/ has {sum(sizes.values())} lines"
    too_long = {name: n for name, n in sizes.items() if n > MODULE_LINES}
    assert not too_long, f"modules over {MODULE_LINES} lines: {too_long}"
    assert not [
        p for p in (ROOT / "harness").iterdir() if p.is_dir() and p.name != "__pycache__"
    ], "harness/ is flat: one module per idea"


def reading_order() -> list[str]:
    """The harness's modules as ``harness/__init__.py`` lists them: "* ``name`` -- ...", in order."""
    text = (ROOT / "harness" / "__init__.py").read_text(encoding="utf-8")
    return re.findall(r"^\* ``(\w+)``\s+--", text, re.M)


def test_the_reading_order_names_every_lesson_module_once():
    order = reading_order()
    modules = sorted(p.stem for p in (ROOT / "harness").glob("*.py") if p.stem != "__init__")
    assert sorted(order) == modules, "harness/__init__.py must list every module once, in order"


def backward_imports(order: list[str], edges: dict[str, set[str]]) -> list[str]:
    """Every "a imports b" of the harness where b is listed after a. Example: [messages, loop] with
    messages importing loop -> ["harness.messages imports harness.loop"]"""
    place = {f"harness.{name}": i for i, name in enumerate(order)}
    return [
        f"{module} imports {other}"
        for module in place
        for other in sorted(edges.get(module, ()))
        if place.get(other, -1) > place[module]
    ]


def test_the_code_glossary_uses_the_lessons_words():
    """Every *word* harness/__init__.py maps to code names is a term of notebooks/GLOSSARY.md."""
    glossary = (ROOT / "notebooks" / "GLOSSARY.md").read_text(encoding="utf-8")
    terms = {t.strip().lower() for t in re.findall(r"^\| ([^|]+?) \|", glossary, re.M)}
    code = (ROOT / "harness" / "__init__.py").read_text(encoding="utf-8")
    words = re.findall(r"\*([a-zA-Z][^*]+?)\*", code)
    assert len(words) >= 10 and [w for w in words if w.lower() not in terms] == []


def test_every_lesson_module_has_a_test_file_named_after_it():
    missing = [n for n in reading_order() if not (ROOT / "tests" / f"test_{n}.py").is_file()]
    assert missing == [], f"no tests/test_<module>.py for {missing}"


def test_the_reading_order_goes_forward_only():
    """A module imports only modules listed before it: read top to bottom, nothing is used unseen."""
    assert backward_imports(reading_order(), graph()) == []


def test_the_forward_check_catches_a_backward_import():
    edges = {"harness.messages": {"harness.loop"}, "harness.loop": {"harness.messages"}}
    assert backward_imports(["messages", "loop"], edges) == [
        "harness.messages imports harness.loop"
    ]
    assert backward_imports(["loop", "messages"], edges) == [
        "harness.loop imports harness.messages"
    ]


@pytest.mark.parametrize("suffix", [".py", ".ipynb", "Makefile"])
def test_no_file_edits_the_import_path(suffix):
    pattern = re.compile(r"sys\.path\.(insert|append)|sys\.path\s*\+?=|PYTHONPATH=")
    tracked = [
        p
        for p in ROOT.rglob(f"*{suffix}" if suffix.startswith(".") else suffix)
        if not {".venv", "node_modules", ".git"} & set(p.parts) and "test-artifacts" not in p.parts
    ]
    offenders = [
        str(p.relative_to(ROOT))
        for p in tracked
        if p != Path(__file__) and pattern.search(p.read_text(encoding="utf-8", errors="replace"))
    ]
    assert offenders == []


def test_tests_and_benchmarks_do_not_reach_into_each_other():
    for path in (ROOT / "benchmarks").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not {
            n for n in names if n.split(".")[0] in {"tests", "conftest"} or n.startswith("test_")
        }, path
