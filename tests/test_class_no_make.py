"""The README's make-less install, run exactly as written, in a fresh clone of the repository.

The macOS/Linux block under "Without make" is read out of README.md and its lines run one by one in
bash from a `git clone` in a temporary folder: the venv, the hash-checked install from the lock, the
editable harness, the lab settings, and `jupyter lab`, which must then serve the workbook and run a
kernel from the new venv that imports the clone's harness. Only the environment is ours: a Jupyter
config folder that allows root and picks the port and token (the command line stays the README's).
The Windows block cannot run here; it is checked to be the same steps with Windows paths.
The wheels come from a wheelhouse that `pip download --require-hashes -r requirements.lock` fills once per
machine (~/.cache/context-desk/wheelhouse): pip's own HTTP cache is not kept on these machines, and
downloading 130 wheels each run would take minutes. The README's pip then reads only that folder
(PIP_NO_INDEX, PIP_FIND_LINKS in the environment), still checking every hash against the lock; the
build requirement of `-e .` (setuptools) is fetched into the same folder.
Left out: how long a cold download takes on a student's laptop.
"""

import os
import re
import socket
import subprocess
import time
import tomllib
from pathlib import Path

import pytest
import requests
from remote_run import JupyterServer, KernelChannels

pytestmark = pytest.mark.integration  # a fresh clone and a venv

REPO = Path(__file__).resolve().parent.parent


def readme_blocks() -> dict[str, list[str]]:
    """The fenced blocks of the "Without make" section, by their language tag: {"sh": [...], "bat": [...]}."""
    text = (REPO / "README.md").read_text()
    section = text.split("## Without make", 1)[1].split("\n## ", 1)[0]
    return {
        tag: [line for line in body.splitlines() if line.strip()]
        for tag, body in re.findall(r"```(\w+)\n(.*?)```", section, re.DOTALL)
    }


def test_the_windows_lines_are_the_same_steps():
    blocks = readme_blocks()
    as_posix = [
        line.replace(".venv\\Scripts\\", ".venv/bin/")
        .replace("tools\\", "tools/")
        .replace("py -m venv", "python3 -m venv")
        for line in blocks["bat"]
    ]
    assert as_posix == blocks["sh"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_make_less_install_runs_as_written(tmp_path):
    lines = readme_blocks()["sh"]
    assert lines[0].startswith("python3 -m venv") and "jupyter lab" in lines[-1], lines
    clone = tmp_path / "context-desk"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)

    port, token = free_port(), "no-make-test"
    config = tmp_path / "jupyter-config"
    config.mkdir()
    (config / "jupyter_server_config.py").write_text(
        f"c.ServerApp.allow_root = True\nc.ServerApp.open_browser = False\nc.ServerApp.port = {port}\n"
        f"c.ServerApp.port_retries = 0\nc.IdentityProvider.token = {token!r}\n"
    )
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("VIRTUAL_ENV", "PYTHONPATH"))
    }
    env.update(
        JUPYTER_CONFIG_DIR=str(config),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
        IPYTHONDIR=str(tmp_path / "ipython"),
    )

    def run(line, extra_env=None):
        done = subprocess.run(
            ["bash", "-c", line],
            cwd=clone,
            env=dict(env, **(extra_env or {})),
            capture_output=True,
            text=True,
            timeout=900,
        )
        return done.returncode, done.stderr[-3000:]

    def must(line, extra_env=None):
        code, errors = run(line, extra_env)
        assert code == 0, f"`{line}` failed:\n{errors}"

    # The wheelhouse: pip reads only this folder while the README's lines run. When a wheel is missing
    # (first run on a machine, or the lock moved), the new venv's pip fetches it for its own Python.
    wheelhouse = Path.home() / ".cache" / "context-desk" / "wheelhouse"
    offline = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse)}
    build_requires = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"][
        "requires"
    ]

    def fill_wheelhouse():
        must(
            f".venv/bin/python -m pip download --quiet --require-hashes -r requirements.lock -d {wheelhouse}"
        )
        must(
            f".venv/bin/python -m pip download --quiet -d {wheelhouse} "
            + " ".join(f"'{r}'" for r in build_requires)
        )

    must(lines[0], offline)
    for line in lines[1:-1]:
        code, errors = run(line, offline)
        if code != 0 and (
            "No matching distribution" in errors or "Could not find a version" in errors
        ):
            fill_wheelhouse()
            code, errors = run(line, offline)
        assert code == 0, f"`{line}` failed:\n{errors}"
    env.update(offline)

    lab = subprocess.Popen(
        ["bash", "-c", "exec " + lines[-1]],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        server = JupyterServer(f"http://127.0.0.1:{port}/", token)
        deadline = time.monotonic() + 60
        while True:
            assert lab.poll() is None, f"jupyter lab exited:\n{lab.stdout.read()[-3000:]}"
            try:
                server.api("GET", "status")
                break
            except (requests.ConnectionError, RuntimeError):
                assert time.monotonic() < deadline, "jupyter lab did not answer within 60 s"
                time.sleep(0.5)
        lab_page = requests.get(
            f"http://127.0.0.1:{port}/lab/tree/notebooks/00_start_here.ipynb",
            headers={"Authorization": f"token {token}"},
            timeout=30,
        )
        assert lab_page.status_code == 200 and "JupyterLab" in lab_page.text
        assert (
            server.api("GET", "contents/notebooks/00_start_here.ipynb?content=0")["type"]
            == "notebook"
        )

        session = server.open_session("notebooks/00_start_here.ipynb")
        try:
            with KernelChannels(server, session["kernel"]["id"]) as kernel:
                code = (
                    "import sys, harness, pathlib\n"
                    f"assert pathlib.Path(sys.prefix).resolve() == pathlib.Path({str(clone / '.venv')!r}).resolve()\n"
                    f"assert pathlib.Path(harness.__file__).resolve().is_relative_to({str(clone)!r})\n"
                    "from stage.classroom import setup_check\nsetup_check()"
                )
                assert kernel.execute(code, timeout=60) == ("ok", "")
        finally:
            server.close_session(session)
    finally:
        lab.terminate()
        try:
            lab.wait(timeout=20)
        except subprocess.TimeoutExpired:
            lab.kill()
