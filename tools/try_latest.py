"""Try the newest version of every dependency in a throwaway venv, and say what moved and what broke.

`make try-latest` runs this. Everyone else installs the exact, hash-checked versions of
requirements.lock (and class/requirements.lock for the class tools); this script ignores both locks,
installs the newest releases that requirements.txt and class/requirements.txt allow into
build/try-latest/.venv, lists every package whose version differs from the lock, and runs the tests there.
If they pass, `make lock UPGRADE=--upgrade` moves everyone forward;
if not, the failures printed here are what a student would meet next year.

Left out: it does not bisect which package broke a test (the list of moved packages is the lead), and
it needs PyPI, so it is not part of `make test`.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PLACE = REPO / "build" / "try-latest"
LOCKED = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)(?:\s*;\s*([^\\\n]+))?", re.MULTILINE)


def locked_versions(lock_file: Path, python: Path) -> dict[str, str]:
    """The pins of a lock file that apply on this machine, as {normalized name: version}."""
    pins = {}
    for name, version, marker in LOCKED.findall(lock_file.read_text()):
        if marker and not applies(marker, python):
            continue
        pins[normalize(name)] = version
    return pins


def applies(marker: str, python: Path) -> bool:
    """Ask the new venv's python whether an environment marker holds there (packaging is in every venv)."""
    code = "import sys; from packaging.markers import Marker; print(Marker(sys.argv[1]).evaluate())"
    done = subprocess.run([str(python), "-c", code, marker], capture_output=True, text=True)
    return done.stdout.strip() == "True"


def installed_versions(python: Path) -> dict[str, str]:
    code = (
        "import importlib.metadata as m, json; "
        "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))"
    )
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return {normalize(name): version for name, version in json.loads(done.stdout).items()}


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def main() -> int:
    shutil.rmtree(PLACE, ignore_errors=True)
    print(f"A throwaway venv in {PLACE.relative_to(REPO)} with the newest versions...")
    venv.create(
        PLACE / ".venv", with_pip=True
    )  # named .venv, so the repository's file scans skip it
    python = PLACE / ".venv" / ("Scripts" if sys.platform == "win32" else "bin") / "python"
    pip = [
        str(python),
        "-m",
        "pip",
        "install",
        "--quiet",
        "--upgrade",
        "--upgrade-strategy",
        "eager",
    ]
    subprocess.run(pip + ["pip"], check=True, cwd=REPO)
    install = subprocess.run(
        pip + ["-r", "requirements.txt", "-r", "class/requirements.txt"], cwd=REPO
    )
    if install.returncode != 0:
        print(
            "BROKEN: the newest versions cannot even be installed together (pip's message is above)."
        )
        return install.returncode
    subprocess.run([str(python), "tools/lab_settings.py"], check=True, cwd=REPO)

    locked = locked_versions(REPO / "class" / "requirements.lock", python)
    now = installed_versions(python)
    moved = [
        (name, locked[name], now[name])
        for name in sorted(locked)
        if name in now and now[name] != locked[name]
    ]
    print(f"\n{len(moved)} of {len(locked)} locked packages have a newer version:")
    for name, old, new in moved:
        print(f"  {name:32} {old:>12} -> {new}")

    print("\nThe tests, with the newest versions:")
    # The lock test would only repeat the list above: the newest versions are not the locked ones.
    tests = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-rfE", "--tb=line", *sys.argv[1:]],
        cwd=REPO,
        env=dict(os.environ, CONTEXT_DESK_TRY_LATEST="1"),
    )
    if tests.returncode == 0:
        print(
            "\nEverything passes with the newest versions: `make lock UPGRADE=--upgrade` moves the pins forward."
        )
    else:
        print(
            "\nWhat breaks is listed above (FAILED/ERROR lines); the locks still hold the versions that pass."
        )
    return tests.returncode


if __name__ == "__main__":
    sys.exit(main())
