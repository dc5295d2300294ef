"""The grading guard (class/grading_guard.py, run by class/grading.py's GuardedExecute), without accounts.

One kernel, the guard installed as autograde installs it, then a sweep of cheats a student could put in an
answer cell, one after another: each must be reported by the next guard call and put back, so that the
call after that finds nothing. Then the honest control: every exercise's solution, graded the way
autograde grades it (UseGraderChecks + GuardedExecute), scores full marks and flags nothing. The same
cheats with real accounts and nbgrader's exchange are in tests/test_class_grading.py.
"""

import ast
import json
import secrets
from pathlib import Path

import nbformat
import pytest
from conftest import load_class as load

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parent.parent
CHECKS = REPO / "exercises" / "checks"

# (what the cheat does, the answer cell's code, what the guard must say, whether it can be put back)
CHEATS = [
    (
        "an input transformer",
        "get_ipython().input_transformers_cleanup.append(lambda lines: [l.replace('assert ', 'pass #') for l in lines])",
        "an input transformer (cleanup) was added",
        True,
    ),
    (
        "a late input transformer",
        "get_ipython().input_transformers_post.append(lambda lines: lines)",
        "an input transformer (post) was added",
        True,
    ),
    (
        "an AST transformer",
        "import ast\nclass Quiet(ast.NodeTransformer):\n    def visit_Assert(self, node):\n        return ast.Pass()\n"
        "get_ipython().ast_transformers.append(Quiet())",
        "an AST transformer was added",
        True,
    ),
    (
        "a meta path finder",
        "import sys\nclass Finder:\n    def find_spec(self, name, path=None, target=None):\n        return None\n"
        "sys.meta_path.insert(0, Finder())",
        "an import hook (sys.meta_path) was added",
        True,
    ),
    (
        "a path hook",
        "import sys\ndef hook(path):\n    raise ImportError\nsys.path_hooks.insert(0, hook)",
        "an import hook (sys.path_hooks) was added",
        True,
    ),
    (
        "a planted finder",
        "import sys\nclass Finder:\n    def find_spec(self, name, target=None):\n        return None\n"
        f"sys.path_importer_cache[{str(CHECKS)!r}] = Finder()",
        "a finder was planted in sys.path_importer_cache",
        True,
    ),
    (
        "a patched loader",
        "import importlib._bootstrap_external as bootstrap\n"
        "real = bootstrap.SourceFileLoader.get_code\n"
        "bootstrap.SourceFileLoader.get_code = lambda self, name: real(self, name)",
        "SourceFileLoader.get_code was added",
        True,
    ),
    (
        "a patched import",
        "import builtins\nreal_import = builtins.__import__\n"
        "builtins.__import__ = lambda *a, **k: real_import(*a, **k)",
        "builtins.__import__ was replaced",
        True,
    ),
    (
        "a silenced traceback, on the shell",
        "get_ipython().showtraceback = lambda *a, **k: None",
        "the shell.showtraceback was added",
        True,
    ),
    (
        "a silenced traceback, on its class",
        "type(get_ipython()).showtraceback = lambda self, *a, **k: None",
        "ZMQInteractiveShell.showtraceback was added",
        True,
    ),
    (
        "a custom exception handler that swallows failed asserts",
        "get_ipython().set_custom_exc((AssertionError,), lambda *a, **k: [])",
        "the shell.CustomTB was replaced",
        True,
    ),
    (
        "a handler of the cell's own for NameError, where the checks install theirs",
        "def quiet(shell, etype, value, tb, tb_offset=None):\n    return []\n"
        "get_ipython().set_custom_exc((NameError,), quiet)",
        "the shell.CustomTB was replaced",
        True,
    ),
    (
        "a trace function",
        "import sys\ndef tracer(frame, event, arg):\n    return None\nsys.settrace(tracer)",
        "a trace or profile function was set",
        True,
    ),
    (
        "an event callback",
        "def again(*args):\n    pass\nget_ipython().events.register('pre_run_cell', again)",
        "a pre_run_cell callback was registered",
        True,
    ),
    (
        "the notebook's own builtins",
        "import builtins\nglobals()['__builtins__'] = dict(vars(builtins))",
        "the notebook's __builtins__ was replaced",
        True,
    ),
    (
        "a patched harness function",
        "import harness.loop\nharness.loop.run_agent = lambda *a, **k: None",
        "harness.loop.run_agent was replaced by code from a cell",
        False,
    ),
    (
        "a thread left running",
        "import threading, time\n"
        "threading.Thread(target=lambda: time.sleep(60), name='helper', daemon=True).start()",
        "a thread started by the answers is still running: helper",
        False,
    ),
]


@pytest.fixture(scope="module")
def kernel():
    from jupyter_client import KernelManager

    manager = KernelManager(transport="ipc", ip=f"/tmp/cd-guard-{secrets.token_hex(4)}")
    manager.start_kernel(cwd=str(REPO / "exercises"))
    client = manager.blocking_client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    nonce = secrets.token_hex(8)

    def execute(code: str, expression: str | None = None):
        msg_id = client.execute(code, user_expressions={"answer": expression} if expression else {})
        while True:
            reply = client.get_shell_msg(timeout=120)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        assert reply["content"]["status"] == "ok", reply["content"]
        if expression:
            answer = reply["content"]["user_expressions"]["answer"]
            assert answer["status"] == "ok", answer
            return ast.literal_eval(answer["data"]["text/plain"])

    source = (REPO / "class" / "grading_guard.py").read_text()
    trusted = [str(REPO), str(CHECKS)]
    assert execute(source, f"_context_desk_install({nonce!r}, {trusted!r})") == "installed"

    def guard() -> list[str]:
        report = json.loads(execute("", "_context_desk_guard()"))
        assert report["nonce"] == nonce
        return report["found"]

    assert guard() == [], "the guard finds something before any cheat"
    yield execute, guard
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def test_every_cheat_is_reported_and_put_back(kernel):
    execute, guard = kernel
    for label, code, said, put_back in CHEATS:
        execute(code)
        found = guard()
        assert any(said in line for line in found), f"{label}: {found}"
        if put_back:
            assert guard() == [], f"{label} was not put back: {guard()}"
    # the input transformer is gone: an assert in a cell fails again
    msg = "assert False, 'the asserts are back'"
    with pytest.raises(AssertionError, match="AssertionError"):
        execute(msg)


def test_every_solution_scores_full_marks_and_nothing_is_flagged(tmp_path):
    """The honest control, for every exercise: what the guard looks at, an honest answer never does."""
    assignments, grading = load("nbgrader_assignments"), load("grading")
    for path in sorted((REPO / "exercises" / "solutions").glob("*.ipynb")):
        notebook = assignments.to_assignment(nbformat.read(path, as_version=4))
        rewrite = grading.UseGraderChecks(grader_checks=str(CHECKS))
        for index, cell in enumerate(notebook.cells):
            rewrite.preprocess_cell(cell, {}, index)
        execute = grading.GuardedExecute(
            timeout=300, grader_checks=str(CHECKS), kernel_name="python3"
        )
        graded, _ = execute.preprocess(notebook, {"metadata": {"path": str(tmp_path)}})
        tests = [cell for cell in graded.cells if grading.is_graded_test(cell)]
        failed = [
            cell.metadata.nbgrader.grade_id
            for cell in tests
            if any(output.output_type == "error" for output in cell.outputs)
        ]
        assert tests and failed == [], f"{path.name}: {failed}"
        assert "context_desk" not in graded.metadata, graded.metadata
