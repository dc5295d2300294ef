"""How many students one server holds: a real JupyterHub, N students, lesson 03 in every server at once.

    .venv/bin/python class/sizing.py --students 10      # prints the sizing table (class/README.md quotes it)

What it does, in the order a class does it: start the hub of class/jupyterhub_config.py on 127.0.0.1
(its own state folder, the proxy from class/node_modules), log every student in through the hub's REST
API with the class password, start their servers, hand out the workbook with each student's nbgitpuller
link, then run every code cell of notebooks/03_three_zone_compaction.ipynb in all the servers at the same
moment (class/remote_run.py: the notebook's session and kernel websocket, behind the proxy, with that
student's token). Meanwhile it samples, with psutil, each student's server and kernel process.

Left out: the browser (the lesson's widgets draw for nobody, which saves a little CPU), students
typing (a lesson is run top to bottom in one go, the worst moment of a class), and shared pages: RSS
counts shared libraries once per process, so memory per student is an overestimate (USS is printed too).
"""

import argparse
import json
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import psutil
import requests
from remote_run import JupyterServer

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
LESSON = "notebooks/03_three_zone_compaction.ipynb"
WORKBOOK_FOLDER = "context-desk"          # where nbgitpuller puts the workbook in each home
MIB = 1024 * 1024


@dataclass
class Student:
    name: str
    token: str = ""
    server_start_s: float = 0.0
    pull_s: float = 0.0
    lesson_started: float = 0.0           # time.monotonic() when the first cell was sent
    lesson_s: float = 0.0
    cells_run: int = 0
    errors: list[str] = field(default_factory=list)
    server_pid: int = 0
    kernel_pid: int = 0
    server_rss_peak: int = 0
    kernel_rss_peak: int = 0
    kernel_uss: int = 0
    server_cpu_s: float = 0.0
    kernel_cpu_s: float = 0.0
    kernel_cwd: str = ""

    @property
    def cpu_s(self) -> float:
        return self.server_cpu_s + self.kernel_cpu_s

    @property
    def rss_peak(self) -> int:
        return self.server_rss_peak + self.kernel_rss_peak


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


class ClassHub:
    """The hub of class/jupyterhub_config.py, run in a state folder of its own, stopped on exit."""

    def __init__(self, state: Path, students: list[str], password: str):
        self.state, self.students, self.password = state, students, password
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None

    def __enter__(self):
        env = dict(os.environ, CLASS_STATE=str(self.state), CLASS_BIND_URL=self.url + "/",
                   CLASS_PASSWORD=self.password, CLASS_STUDENTS=",".join(self.students),
                   CLASS_HUB_PORT=str(free_port()), CLASS_PROXY_API_PORT=str(free_port()),
                   CLASS_SPAWNER="simple", CLASS_AUTH="shared-password")
        self.state.mkdir(parents=True, exist_ok=True)
        self.log = open(self.state / "jupyterhub.log", "w")
        self.process = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(HERE / "jupyterhub_config.py")],
                                        cwd=self.state, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the hub exited ({self.process.returncode}):\n{self.log_tail()}")
            try:
                if requests.get(self.url + "/hub/api/", timeout=5).ok:
                    return self
            except requests.ConnectionError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the hub did not answer within 60 s:\n{self.log_tail()}")
            time.sleep(0.3)

    def __exit__(self, *exc):
        children = psutil.Process(self.process.pid).children(recursive=True) if self.process.poll() is None else []
        self.process.terminate()               # the hub stops the students' servers and its proxy itself
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        for child in children:                 # and whatever it could not stop, so nothing outlives the run
            if child.is_running():
                child.kill()
        self.log.close()

    def log_tail(self, lines: int = 40) -> str:
        self.log.flush()
        return "\n".join((self.state / "jupyterhub.log").read_text().splitlines()[-lines:])

    # ---- what a student does, through the hub's REST API ------------------------------------

    def login(self, student: Student) -> None:
        """Exchange the class password for an API token, as the hub's login would for a cookie."""
        reply = requests.post(f"{self.url}/hub/api/users/{student.name}/tokens", timeout=30,
                              json={"auth": {"username": student.name, "password": self.password},
                                    "note": "sizing benchmark", "expires_in": 3600})
        reply.raise_for_status()
        student.token = reply.json()["token"]

    def api(self, student: Student, method: str, path: str, **kwargs) -> requests.Response:
        return requests.request(method, f"{self.url}/hub/api/{path}", timeout=60,
                                headers={"Authorization": f"token {student.token}"}, **kwargs)

    def start_server(self, student: Student, timeout: float = 180) -> None:
        started = time.perf_counter()
        reply = self.api(student, "POST", f"users/{student.name}/server")
        if reply.status_code not in (201, 202):
            raise RuntimeError(f"starting {student.name}'s server: {reply.status_code} {reply.text[:300]}")
        while not self.api(student, "GET", f"users/{student.name}").json()["servers"].get("", {}).get("ready"):
            if time.perf_counter() - started > timeout:
                raise RuntimeError(f"{student.name}'s server was not ready within {timeout:.0f} s:\n{self.log_tail()}")
            time.sleep(0.3)
        student.server_start_s = time.perf_counter() - started

    def server(self, student: Student) -> JupyterServer:
        return JupyterServer(f"{self.url}/user/{student.name}/", student.token)

    def pull_workbook(self, student: Student, repo: str, branch: str) -> None:
        """What the student's nbgitpuller link does: clone (or update) the workbook into their home."""
        started = time.perf_counter()
        reply = requests.get(f"{self.url}/user/{student.name}/git-pull/api", stream=True, timeout=120,
                             headers={"Authorization": f"token {student.token}"},
                             params={"repo": repo, "branch": branch, "targetpath": WORKBOOK_FOLDER})
        reply.raise_for_status()
        phase, message = "", ""
        for line in reply.iter_lines(decode_unicode=True):
            if line.startswith("data: "):
                event = json.loads(line[len("data: "):])
                phase, message = event.get("phase", phase), event.get("message", message)
                if phase in ("finished", "error"):
                    break
        if phase != "finished":
            raise RuntimeError(f"nbgitpuller for {student.name} ended in {phase!r}: {message}")
        student.pull_s = time.perf_counter() - started


def find_processes(hub_pid: int, student: Student) -> tuple[psutil.Process | None, psutil.Process | None]:
    """The student's single-user server (started by the hub) and its lesson kernel, if running."""
    server = None
    for process in psutil.Process(hub_pid).children(recursive=True):
        try:
            if "jupyterhub.singleuser" in " ".join(process.cmdline()) and \
                    process.environ().get("JUPYTERHUB_USER") == student.name:
                server = process
                break
        except psutil.Error:
            continue
    if server is None:
        return None, None
    kernels = [p for p in server.children() if "ipykernel" in " ".join(p.cmdline())]
    return server, (kernels[0] if kernels else None)


class Sampler(threading.Thread):
    """Every 0.2 s: each student's server and kernel RSS, keeping the peaks."""

    def __init__(self, hub_pid: int, students: list[Student]):
        super().__init__(daemon=True)
        self.hub_pid, self.students = hub_pid, students
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(0.2):
            for student in self.students:
                try:
                    server, kernel = find_processes(self.hub_pid, student)
                    if server:
                        student.server_rss_peak = max(student.server_rss_peak, server.memory_info().rss)
                    if kernel:
                        student.kernel_rss_peak = max(student.kernel_rss_peak, kernel.memory_info().rss)
                except psutil.Error:
                    continue


def run_lesson(hub: ClassHub, student: Student, notebook_path: str, barrier: threading.Barrier) -> None:
    """Run the lesson in the student's own server; CPU is read from their processes just before the kernel stops."""
    server_api = hub.server(student)
    notebook = nbformat.from_dict(server_api.api("GET", f"contents/{notebook_path}")["content"])
    server, _ = find_processes(hub.process.pid, student)
    student.server_pid = server.pid
    server_cpu_before = cpu_seconds(server)

    def before_close(_session):
        _, kernel = find_processes(hub.process.pid, student)
        student.kernel_pid, student.kernel_cpu_s = kernel.pid, cpu_seconds(kernel)
        student.kernel_uss = kernel.memory_full_info().uss
        student.kernel_cwd = kernel.cwd()
        student.server_cpu_s = cpu_seconds(server) - server_cpu_before

    barrier.wait()
    student.lesson_started = time.monotonic()
    run = server_api.run_notebook(notebook_path, notebook, before_close=before_close)
    student.lesson_s = run.seconds
    student.cells_run = len(run.cells)
    student.errors = [f"cell {cell.index}: {cell.error}" for cell in run.errors]


def current_branch() -> str:
    return subprocess.run(["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=REPO, capture_output=True,
                          text=True, check=True).stdout.strip()


def run_class(count: int, state: Path, repo: str | None = None) -> dict:
    """Start the hub, bring `count` students in, run the lesson in all their servers at once; the measurements."""
    students = [Student(f"student{i:02}") for i in range(1, count + 1)]
    password = secrets.token_urlsafe(12)
    repo = repo or str(REPO)
    branch = current_branch()
    load_before = os.getloadavg()[0]
    with ClassHub(state, [s.name for s in students], password) as hub:
        hub_process = psutil.Process(hub.process.pid)

        def bring_in(student):
            hub.login(student)
            hub.start_server(student)
            hub.pull_workbook(student, repo, branch)

        run_threads(bring_in, students)
        sampler = Sampler(hub.process.pid, students)
        sampler.start()
        overhead_cpu_before = sum(cpu_seconds(p) for p in hub_and_proxy(hub_process))
        barrier = threading.Barrier(count)
        wall = time.perf_counter()
        run_threads(lambda s: run_lesson(hub, s, f"{WORKBOOK_FOLDER}/{LESSON}", barrier), students)
        wall = time.perf_counter() - wall
        sampler.done.set()
        sampler.join()
        overhead = hub_and_proxy(hub_process)
        isolation = other_students_server_refused(hub, students)
        return {
            "students": students, "wall_s": wall, "isolation": isolation,
            "hub_proxy_rss": sum(p.memory_info().rss for p in overhead),
            "hub_proxy_cpu_s": sum(cpu_seconds(p) for p in overhead) - overhead_cpu_before,
            "load_before": load_before, "cores": psutil.cpu_count(), "memory": psutil.virtual_memory().total,
            "jupyterhub": __import__("jupyterhub").__version__, "state": state,
        }


def hub_and_proxy(hub_process: psutil.Process) -> list[psutil.Process]:
    """The hub itself and the processes that serve everyone (proxy, idle culler), not the students' servers."""
    shared = [hub_process]
    for child in hub_process.children():
        command = " ".join(child.cmdline())
        if "jupyterhub.singleuser" not in command:
            shared.append(child)
    return shared


def other_students_server_refused(hub: ClassHub, students: list[Student]) -> bool:
    """A student's token must not open another student's server."""
    if len(students) < 2:
        return True
    first, second = students[0], students[1]
    reply = requests.get(f"{hub.url}/user/{second.name}/api/status", timeout=30, allow_redirects=False,
                         headers={"Authorization": f"token {first.token}"})
    return reply.status_code in (302, 403)


def run_threads(work, students: list[Student]) -> None:
    """Run work(student) for every student at once; re-raise the first failure."""
    failures = []

    def guarded(student):
        try:
            work(student)
        except BaseException as error:     # noqa: BLE001 -- reported below with the student's name
            failures.append((student.name, error))

    threads = [threading.Thread(target=guarded, args=(s,)) for s in students]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        name, error = failures[0]
        raise RuntimeError(f"{name}: {error}") from error


# ---- the sizing table ----------------------------------------------------------------------

def sizing_table(result: dict, budget_s: float = 60.0) -> str:
    students = result["students"]
    n = len(students)
    rows = [("server RSS, peak (MiB)", [s.server_rss_peak / MIB for s in students]),
            ("kernel RSS, peak (MiB)", [s.kernel_rss_peak / MIB for s in students]),
            ("kernel USS at the end (MiB)", [s.kernel_uss / MIB for s in students]),
            ("CPU seconds (server + kernel)", [s.cpu_s for s in students]),
            ("lesson wall time (s)", [s.lesson_s for s in students]),
            ("server start (s)", [s.server_start_s for s in students]),
            ("nbgitpuller hand-out (s)", [s.pull_s for s in students])]
    lines = [f"Lesson 03 in {n} students' servers at once: JupyterHub {result['jupyterhub']}, "
             f"{result['cores']} cores, {result['memory'] / 1024**3:.0f} GiB, load average {result['load_before']:.1f} "
             f"before the run; all {n} lessons done in {result['wall_s']:.1f} s.", "",
             "| per student | median | max |", "| --- | ---: | ---: |"]
    lines += [f"| {label} | {statistics.median(values):.1f} | {max(values):.1f} |" for label, values in rows]
    lines += [f"| hub + proxy + culler, shared | {result['hub_proxy_rss'] / MIB:.0f} MiB | "
              f"{result['hub_proxy_cpu_s']:.1f} CPU s |", ""]

    memory = max(s.rss_peak for s in students) / MIB          # the heaviest student, peak, RSS: conservative
    cpu = statistics.median(s.cpu_s for s in students)
    per_gib = 1024 / memory
    per_core = budget_s / cpu
    lines += [f"Sizing: memory from the heaviest student's peak (server + kernel RSS, {memory:.0f} MiB); "
              f"CPU from the median {cpu:.1f} CPU s, if every student runs all cells within {budget_s:.0f} s.", "",
              "| class | memory | cores |", "| --- | ---: | ---: |",
              f"| per GiB / per core | {per_gib:.1f} students | {per_core:.1f} students |"]
    for size in (30, 100):
        gib = (size * memory + result["hub_proxy_rss"] / MIB) / 1024
        lines.append(f"| {size} students | {gib:.1f} GiB | {size * cpu / budget_s:.1f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument("--budget", type=float, default=60.0, help="seconds a 'run all' may take (default 60)")
    parser.add_argument("--json", type=Path, help="also write the measurements to this file")
    args = parser.parse_args()
    state = Path(tempfile.mkdtemp(prefix="context-desk-class-"))
    try:
        result = run_class(args.students, state)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    broken = [(s.name, s.errors) for s in result["students"] if s.errors]
    print(sizing_table(result, args.budget))
    if args.json:
        data = {key: value for key, value in result.items() if key not in ("students", "state")}
        data["students"] = [dict(vars(s), token="") for s in result["students"]]
        args.json.write_text(json.dumps(data, indent=2))
    if broken:
        print("\nErrors:", broken)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
