"""A real class hub on this machine, set up the README's way, for the class tests and the sizing run.

    server = install_server()                  # the student copy + its own venv (make class-deps), reused
    with Classroom(server, ["ada", "bob"], instructors=["grace"]) as room:
        token = room.login("ada")              # her own password, through the hub's API
        room.start("ada")                      # her server, as her own Unix account, in her cgroup

What it does, in the README's order: build the student copy (class/student_build.py) into a folder every
account can read but only root can write (/srv/context-desk-testbed by default, or CLASS_TESTBED; a place
another account could have made first, such as anything under /tmp or /var/tmp, is refused), make its venv there with
`make class-deps` using Debian's /usr/bin/python3 (students must be able to run the interpreter: a Python
under /root, like pyenv's, is closed to them), add the people with class/roster.py (real Unix accounts,
printed passwords), make a self-signed certificate with openssl, and start the hub as root over HTTPS
with the copy's class/jupyterhub_config.py and its own state folder. Each classroom has two folders: a
private one (0700: the hub's log, the roster file, the certificate's key, the state) and a shared one
(0755: the server settings every student's server reads and nbgrader's exchange, nothing secret). On exit
the hub stops, and the accounts, homes, cgroups and both folders are removed.

The venv is kept between runs and rebuilt only when the lock files change (make's own rule), so only
the first run on a machine pays for it (about two minutes). Runs as root only.
Left out: a real domain and certificate (the test trusts its own self-signed one).
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import requests

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_PLACE = Path(os.environ.get("CLASS_TESTBED", "/srv/context-desk-testbed"))
SYSTEM_PYTHON = "/usr/bin/python3"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def untrusted_folders(place: Path) -> list[str]:
    """The place and its existing parents that someone other than root owns or may write to, as sentences.

    The root hub runs the code installed here: if another account could make or change any folder on the
    way, it would own what root runs. Example: /var/tmp/x -> ["/var/tmp is writable by every account"]."""
    problems = []
    for folder in [place, *place.parents]:
        try:
            info = folder.lstat()
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(info.st_mode):
            problems.append(f"{folder} is a symbolic link")
        elif info.st_uid != 0:
            problems.append(f"{folder} belongs to uid {info.st_uid}, not root")
        elif info.st_mode & 0o022:
            problems.append(f"{folder} is writable by accounts other than root")
    return problems


def install_server(place: Path = DEFAULT_PLACE) -> Path:
    """The student copy with its venv and proxy, as README steps 2-3 make them; its folder."""
    if os.geteuid() != 0:
        raise RuntimeError("the class server is set up as root (accounts, cgroups, the hub)")
    place = Path(place).absolute()
    problems = untrusted_folders(place)
    if problems:
        raise RuntimeError(
            f"refusing to install the class server in {place}: {'; '.join(problems)}. Pick a place "
            "under a folder only root can write (the default is /srv/context-desk-testbed; set CLASS_TESTBED)."
        )
    place.mkdir(parents=True, exist_ok=True)
    os.chmod(place, 0o755)  # students' servers run its venv: readable by all, writable by root only
    subprocess.run(
        [sys.executable, str(HERE / "student_build.py"), str(place)],
        check=True,
        capture_output=True,
        text=True,
    )
    python = SYSTEM_PYTHON if Path(SYSTEM_PYTHON).exists() else "python3"
    done = subprocess.run(
        ["make", "-C", str(place), "class-deps", f"PYTHON={python}"],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"make class-deps in {place} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        )
    return place


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    key, cert = folder / "hub.key", folder / "hub.crt"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    os.chmod(key, 0o600)
    return cert, key


def remove_account(name: str) -> None:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return
    for attempt in range(5):  # userdel refuses while a process of the account is still exiting
        for process in psutil.process_iter(["username"]):
            if process.info["username"] == name:
                try:
                    process.kill()
                except psutil.Error:
                    pass
        subprocess.run(["userdel", "--remove", name], capture_output=True)
        try:
            pwd.getpwnam(name)
        except KeyError:
            return
        time.sleep(0.5)


class Classroom:
    """The hub of the server copy, with these people on its roster; stopped and cleaned up on exit."""

    def __init__(
        self,
        server: Path,
        students: list[str],
        instructors: list[str] = (),
        mem_limit: str = "1G",
        extra_env: dict | None = None,
    ):
        self.server = Path(server)
        self.python = str(self.server / ".venv" / "bin" / "python")
        self.students, self.instructors = list(students), list(instructors)
        self.people = self.students + self.instructors
        self.mem_limit = mem_limit
        self.extra_env = extra_env or {}
        # Private to root (mkdtemp makes it 0700): the hub's log, the roster file, the key, the state.
        self.folder = Path(tempfile.mkdtemp(prefix="context-desk-classroom-"))
        # What every student's server must read, and nothing secret: server settings, nbgrader's exchange.
        self.shared = Path(tempfile.mkdtemp(prefix="context-desk-classroom-shared-"))
        os.chmod(self.shared, 0o755)
        self.state = self.folder / "state"
        self.exchange = self.shared / "exchange"
        self.port = free_port()
        self.hub_port = (
            free_port()
        )  # the hub's own port, behind the proxy (students' servers call it)
        self.workbook_port = free_port()
        self.workbook_url = f"http://127.0.0.1:{self.workbook_port}/"  # the hub's workbook service
        self.url = f"https://127.0.0.1:{self.port}"
        self.passwords: dict[str, str] = {}
        self.tokens: dict[str, str] = {}
        self.process = None

    # ---- set-up and tear-down -------------------------------------------------------------------

    def __enter__(self):
        try:
            for name in self.people:
                remove_account(name)  # a crashed earlier run's leftovers
            roster = self.folder / "roster.txt"
            roster.write_text(
                "".join(f"{n}\n" for n in self.students)
                + "".join(f"{n} instructor\n" for n in self.instructors)
            )
            done = subprocess.run(
                [
                    self.python,
                    str(self.server / "class" / "roster.py"),
                    "--state",
                    str(self.state),
                    "add",
                    str(roster),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            self.passwords = dict(
                re.findall(r"^\s+(\S+)\s+(\S+-\d{4})$", done.stdout, re.MULTILINE)
            )
            assert set(self.passwords) == set(self.people), done.stdout
            self.cert, key = self_signed_certificate(self.folder)
            env = dict(
                os.environ,
                CLASS_STATE=str(self.state),
                CLASS_BIND_URL=self.url + "/",
                CLASS_SSL_CERT=str(self.cert),
                CLASS_SSL_KEY=str(key),
                CLASS_MEM_LIMIT=self.mem_limit,
                CLASS_HUB_PORT=str(self.hub_port),
                CLASS_PROXY_API_PORT=str(free_port()),
                CLASS_EXCHANGE=str(self.exchange),
                CLASS_SERVER_FILES=str(self.shared / "server-files"),
                CLASS_WORKBOOK_PORT=str(self.workbook_port),
                **self.extra_env,
            )
            for variable in (
                "CLASS_SPAWNER",
                "CLASS_AUTH",
                "CLASS_PASSWORD",
                "VIRTUAL_ENV",
                "PYTHONPATH",
            ):
                env.pop(variable, None)
            self.log_path = self.folder / "jupyterhub.log"
            self.log = open(self.log_path, "w")
            self.process = subprocess.Popen(
                [
                    self.python,
                    "-m",
                    "jupyterhub",
                    "-f",
                    str(self.server / "class" / "jupyterhub_config.py"),
                ],
                cwd=self.folder,
                env=env,
                stdout=self.log,
                stderr=subprocess.STDOUT,
            )
            self.wait_for_hub()
            return self
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def wait_for_hub(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the hub exited ({self.process.returncode}):\n{self.log_tail()}"
                )
            try:
                if requests.get(self.url + "/hub/api/", timeout=5, verify=str(self.cert)).ok:
                    return
            except requests.ConnectionError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the hub did not answer within {timeout:.0f} s:\n{self.log_tail()}"
                )
            time.sleep(0.3)

    def __exit__(self, *exc):
        """Stop the hub, remove the accounts, homes and cgroups; after a failure the hub's log is kept in
        /tmp/context-desk-classroom-failed.log."""
        if self.process is not None:
            children = (
                psutil.Process(self.process.pid).children(recursive=True)
                if self.process.poll() is None
                else []
            )
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
            for child in children:
                try:
                    child.kill()
                except psutil.Error:
                    pass
            self.log.close()
        if self.process is not None and exc and exc[0] is not None:
            shutil.copy(
                self.log_path, Path(tempfile.gettempdir()) / "context-desk-classroom-failed.log"
            )
        for name in self.people:
            remove_account(name)
        try:
            spawners = load("spawners")
            for name in self.people:
                spawners.Cgroups().remove(name)
        except (OSError, RuntimeError):
            pass
        shutil.rmtree(self.folder, ignore_errors=True)
        shutil.rmtree(self.shared, ignore_errors=True)

    def log_tail(self, lines: int = 60) -> str:
        self.log.flush()
        return "\n".join(self.log_path.read_text().splitlines()[-lines:])

    # ---- what a person does, through the hub's REST API ----------------------------------------------

    def request(
        self, method: str, path: str, token: str | None = None, **kwargs
    ) -> requests.Response:
        headers = {"Authorization": f"token {token}"} if token else {}
        return requests.request(
            method, self.url + path, headers=headers, timeout=60, verify=str(self.cert), **kwargs
        )

    def token_for(self, name: str, password: str) -> requests.Response:
        """The hub's own login check, through its API: a token in exchange for a name and password."""
        return self.request(
            "POST",
            f"/hub/api/users/{name}/tokens",
            json={"auth": {"username": name, "password": password}, "expires_in": 3600},
        )

    def login(self, name: str) -> str:
        reply = self.token_for(name, self.passwords[name])
        reply.raise_for_status()
        self.tokens[name] = reply.json()["token"]
        return self.tokens[name]

    def start(self, name: str, timeout: float = 180) -> float:
        """Start the person's server and wait until it is ready; the seconds it took."""
        token = self.tokens[name]
        started = time.perf_counter()
        reply = self.request("POST", f"/hub/api/users/{name}/server", token)
        if reply.status_code not in (201, 202):
            raise RuntimeError(
                f"starting {name}'s server: {reply.status_code} {reply.text[:300]}\n{self.log_tail()}"
            )
        while (
            not self.request("GET", f"/hub/api/users/{name}", token)
            .json()["servers"]
            .get("", {})
            .get("ready")
        ):
            if time.perf_counter() - started > timeout:
                raise RuntimeError(
                    f"{name}'s server was not ready within {timeout:.0f} s:\n{self.log_tail()}"
                )
            time.sleep(0.3)
        return time.perf_counter() - started

    def server_api(self, name: str):
        remote_run = load("remote_run")
        return remote_run.JupyterServer(
            f"{self.url}/user/{name}/", self.tokens[name], ca_file=str(self.cert)
        )

    def server_processes(self, name: str) -> list[psutil.Process]:
        """The person's server and everything it started (kernels), found under the hub's process."""
        hub = psutil.Process(self.process.pid)
        found = []
        for child in hub.children():
            try:
                if f"/user/{name}/" in child.environ().get("JUPYTERHUB_SERVICE_PREFIX", ""):
                    found += [child, *child.children(recursive=True)]
            except psutil.Error:
                continue
        return found


_LOADING = threading.Lock()


def load(name: str):
    """A module of this folder by its path (class/ is scripts, not a package); the same object each time.

    Students' threads call this at once: the lock keeps one from seeing another's half-loaded module."""
    import importlib.util

    key = f"context_desk_class_{name}"
    with _LOADING:
        if key not in sys.modules:
            spec = importlib.util.spec_from_file_location(key, HERE / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[key] = module  # before it runs: dataclasses look their module up
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[key]
                raise
    return sys.modules[key]
