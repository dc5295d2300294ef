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


def pytest_collection_modifyitems(items):
    """A browser test is an integration test too: it starts JupyterLab or a deck in Chromium."""
    for item in items:
        if item.get_closest_marker("browser") and not item.get_closest_marker("integration"):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """Every test runs as a student would without a key, unless it sets one itself."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
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
