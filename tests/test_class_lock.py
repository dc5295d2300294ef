"""The lock files: every requirement pinned exactly, with hashes, the same in both locks, and installed here.

requirements.lock (the student install) and class/requirements.lock (the class tools on top) are made by
`make lock` with uv. These tests catch a requirements.txt edited without re-locking, a pin that no
longer satisfies its requirement, and a venv that drifted from the lock the tests are meant to pass with.
Left out: whether the pinned files still exist on PyPI (that needs the network; `make try-latest` does).
"""

import importlib.metadata
import os
import re
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parent.parent
STUDENT_LOCK = REPO / "requirements.lock"
CLASS_LOCK = REPO / "class" / "requirements.lock"
ENTRY = re.compile(
    r"^([A-Za-z0-9][A-Za-z0-9_.\-]*)==(\S+?)(?:\s*;\s*(.+?))?\s*\\\n((?:\s+--hash=\S+(?:\s*\\)?\n?)+)",
    re.MULTILINE,
)


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(path: Path) -> list[Requirement]:
    """The requirement lines of a requirements file (comments, options and `-e .` skipped)."""
    found = []
    for line in path.read_text().splitlines():
        line = line.split(" #")[0].strip()
        if line and not line.startswith(("#", "-")):
            found.append(Requirement(line))
    return found


def pins(lock: Path) -> dict[str, list[tuple[str, str | None, int]]]:
    """{name: [(version, marker, number of hashes), ...]}; one name may have a pin per Python version."""
    table: dict[str, list] = {}
    for name, version, marker, hashes in ENTRY.findall(lock.read_text()):
        table.setdefault(normalize(name), []).append(
            (version, marker or None, hashes.count("--hash=sha256:"))
        )
    return table


def pinned_here(lock: Path) -> dict[str, str]:
    """The version each package is pinned to for the Python running the tests."""
    return {
        name: version
        for name, entries in pins(lock).items()
        for version, marker, _ in entries
        if marker is None or Marker(marker).evaluate()
    }


@pytest.mark.parametrize("lock", [STUDENT_LOCK, CLASS_LOCK], ids=["student", "class"])
def test_every_pin_is_exact_and_hashed(lock):
    text = lock.read_text()
    requirement_lines = [
        line for line in text.splitlines() if line and not line[0].isspace() and line[0] != "#"
    ]
    table = pins(lock)
    assert len(requirement_lines) == sum(len(entries) for entries in table.values()), (
        f"{lock.name}: some lines are not `name==version \\ --hash=...` entries"
    )
    assert "-e " not in text, (
        "hashes and an editable install do not mix: install the harness with --no-deps -e ."
    )
    for name, entries in table.items():
        assert all(count >= 1 for _, _, count in entries), f"{name} has no hash in {lock.name}"


@pytest.mark.parametrize(
    "lock, sources",
    [
        (STUDENT_LOCK, ["requirements.txt"]),
        (CLASS_LOCK, ["requirements.txt", "class/requirements.txt"]),
    ],
    ids=["student", "class"],
)
def test_each_requirement_is_locked_to_a_version_it_allows(lock, sources):
    here = pinned_here(lock)
    for source in sources:
        for requirement in requirements(REPO / source):
            name = normalize(requirement.name)
            assert name in here, (
                f"{requirement} ({source}) is not in {lock.relative_to(REPO)}: run `make lock`"
            )
            assert requirement.specifier.contains(here[name], prereleases=True), (
                f"{lock.relative_to(REPO)} pins {name}=={here[name]}, but {source} asks for {requirement}: run `make lock`"
            )


def test_the_class_lock_keeps_the_students_versions():
    student, whole_class = pins(STUDENT_LOCK), pins(CLASS_LOCK)
    for name, entries in student.items():
        assert name in whole_class, (
            f"{name} is in requirements.lock but not in class/requirements.lock"
        )
        # Markers may differ (the class needs psutil everywhere, a student only where jupyter does): versions may not.
        assert {e[0] for e in whole_class[name]} == {e[0] for e in entries}, (
            f"{name}: the class lock has {whole_class[name]}, the student lock {entries}"
        )


LATEST = os.environ.get("CONTEXT_DESK_TRY_LATEST") == "1"  # make try-latest: newest on purpose


def drift_from(lock: Path) -> list[str]:
    """Each package the lock pins for this Python that is missing or at another version here."""
    drift = []
    for name, version in pinned_here(lock).items():
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            drift.append(f"{name} (locked {version}) is not installed")
            continue
        if installed != version:
            drift.append(f"{name} {installed} is installed, the lock says {version}")
    return drift


@pytest.mark.skipif(LATEST, reason="make try-latest: newest on purpose")
def test_this_environment_is_the_locked_one():
    """The tests pass with the lock's versions, so the venv they run in must hold exactly those."""
    drift = drift_from(STUDENT_LOCK)
    assert not drift, (
        "the venv is not the locked one (run `make lab` or `make venv`): " + "; ".join(drift)
    )


@pytest.mark.class_tools
@pytest.mark.skipif(LATEST, reason="make try-latest: newest on purpose")
def test_with_the_class_tools_the_environment_is_the_class_lock():
    drift = drift_from(CLASS_LOCK)
    assert not drift, "the venv is not the class lock (run `make class-deps`): " + "; ".join(drift)
