"""How many students one server holds: a real class hub, N students, each living a whole evening at once.

    sudo .venv/bin/python class/sizing.py --students 10 --json class/results/sizing-evening-10.json

The hub is set up the README's way (class/testbed.py: the student copy with its venv, real Unix accounts,
HTTPS, one cgroup per student with the class memory limit). Each student logs in, starts their server,
takes the workbook with their nbgitpuller link, and then lives the evening: lessons 01 to 05 in order,
each opened in a kernel of its own as JupyterLab does (a new tab, never closed), every code cell run; after
each lesson the lesson's exercise, opened the same way, with the solution's answers typed in (the
instructor runs this from their own clone, which has them) and its checks run. The server's class
settings then do what they do in class: at most CLASS_MAX_KERNELS kernels, the least recently used idle
one shut down when another starts (class/server_config.py).

Meanwhile every student's processes are sampled twice a second. Memory is PSS (proportional set size,
from /proc/PID/smaps_rollup): a page shared by k processes counts 1/k in each, so the students' numbers
add up to what the machine really holds, unlike RSS, which counts a shared library once per process.
Reported per student: peak PSS (the whole evening), steady PSS (after the last cell, kernels idle), the
cgroup's own peak (what the memory limit is checked against: it also counts page cache the student's
processes read first), and CPU seconds per lesson (server + the kernels of that lesson and its exercise).

Left out: the browser (widgets draw for nobody, which saves a little CPU), students typing and reading (the
cells run back to back, the worst case for CPU), and a student who works past the kernel cap by running
two notebooks at the same time.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat
import psutil
import requests

from stage.registry import registry

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORKBOOK_FOLDER = "context-desk"  # where nbgitpuller puts the workbook in each home


def registered_lessons(repo: Path = REPO) -> list[str]:
    """The lesson numbers of the lesson registry (notebooks/lessons.toml of ``repo``), in class order."""
    return [entry.number for entry in registry(repo / "notebooks" / "lessons.toml")]


LESSONS = registered_lessons()
MIB = 1024 * 1024


def load(name: str):
    """class/testbed.py, loaded by path; it loads the others (with a lock: students' threads load at once)."""
    key = "context_desk_class_testbed"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, HERE / "testbed.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key] if name == "testbed" else sys.modules[key].load(name)


@dataclass
class Step:
    """One notebook of the evening, in one student's server."""

    notebook: str
    cells: int = 0
    errors: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0  # the server's and every kernel's CPU while this notebook ran


@dataclass
class Student:
    name: str
    server_start_s: float = 0.0
    pull_s: float = 0.0
    steps: list[Step] = field(default_factory=list)
    peak_pss: int = 0  # bytes, server + kernels, the highest sample of the evening
    server_peak_pss: int = 0  # bytes, the single-user server alone
    kernel_peak_pss: int = 0  # bytes, the biggest single kernel
    steady_pss: int = 0  # bytes, after the evening, kernels idle
    cgroup_peak: int = 0  # bytes, the memory cgroup's own high-water mark
    most_kernels: int = 0
    samples: list[tuple[float, int, int]] = field(
        default_factory=list
    )  # (seconds, PSS bytes, kernels)

    @property
    def errors(self) -> list[str]:
        return [f"{s.notebook}: {e}" for s in self.steps for e in s.errors]


def pss(process: psutil.Process) -> int:
    """Proportional set size, from /proc/PID/smaps_rollup (shared pages split among their processes)."""
    try:
        with open(f"/proc/{process.pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return 0


def cpu_seconds(processes) -> float:
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
            total += times.user + times.system + times.children_user + times.children_system
        except psutil.Error:
            pass
    return total


class Sampler(threading.Thread):
    """Samples each student's processes (server + kernels) every `every` seconds: PSS and kernel count."""

    def __init__(self, room, students: list[Student], every: float = 0.5):
        super().__init__(daemon=True)
        self.room, self.students, self.every = room, students, every
        self.done = threading.Event()
        self.started = time.monotonic()

    def run(self):
        while not self.done.is_set():
            for student in self.students:
                processes = self.room.server_processes(student.name)
                sizes = [(pss(p), "ipykernel" in " ".join(safe_cmdline(p))) for p in processes]
                total = sum(size for size, _ in sizes)
                kernels = sum(1 for _, is_kernel in sizes if is_kernel)
                student.server_peak_pss = max(
                    [student.server_peak_pss] + [s for s, k in sizes if not k]
                )
                student.kernel_peak_pss = max(
                    [student.kernel_peak_pss] + [s for s, k in sizes if k]
                )
                student.peak_pss = max(student.peak_pss, total)
                student.most_kernels = max(student.most_kernels, kernels)
                student.samples.append((round(time.monotonic() - self.started, 1), total, kernels))
            self.done.wait(self.every)


def safe_cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def evening_notebooks(
    repo: Path = REPO, lessons: list[str] | None = None
) -> list[tuple[str, Path, bool]]:
    """(path in the student's workbook, notebook whose cells are run, is it an exercise) in class order.

    The lessons are the registry's of ``repo`` (notebooks/lessons.toml), or those of them numbered in
    ``lessons``; each is followed by its exercise's solution (the registry's `exercise` column).
    """
    plan = []
    for entry in registry(repo / "notebooks" / "lessons.toml"):
        if lessons is not None and entry.number not in lessons:
            continue
        plan.append((f"{WORKBOOK_FOLDER}/notebooks/{entry.path.name}", entry.path, False))
        if not entry.solution_path.exists():
            raise FileNotFoundError(
                f"no exercises/solutions/{entry.solution_path.name}: run sizing from the "
                "instructor's clone, which has the answers the simulated students type in"
            )
        plan.append(
            (f"{WORKBOOK_FOLDER}/exercises/{entry.solution_path.name}", entry.solution_path, True)
        )
    return plan


def pull_workbook(room, name: str, repo: str, branch: str) -> float:
    """What the student's nbgitpuller link does: clone (or update) the workbook into their home."""
    started = time.perf_counter()
    reply = requests.get(
        f"{room.url}/user/{name}/git-pull/api",
        stream=True,
        timeout=300,
        verify=str(room.cert),
        headers={"Authorization": f"token {room.tokens[name]}"},
        params={"repo": repo, "branch": branch, "targetpath": WORKBOOK_FOLDER},
    )
    reply.raise_for_status()
    phase, message = "", ""
    for line in reply.iter_lines(decode_unicode=True):
        if line.startswith("data: "):
            event = json.loads(line[len("data: ") :])
            phase, message = event.get("phase", phase), event.get("message", message)
            if phase in ("finished", "error"):
                break
    if phase != "finished":
        raise RuntimeError(f"nbgitpuller for {name} ended in {phase!r}: {message}")
    return time.perf_counter() - started


def live_evening(room, student: Student, plan, cell_timeout: float = 300) -> None:
    """Every notebook of the evening in order, each in a new session (kernel) that stays open."""
    server = room.server_api(student.name)
    for path, source, _ in plan:
        notebook = nbformat.read(source, as_version=4)
        step = Step(notebook=path.split("/", 1)[1])
        before = cpu_seconds(room.server_processes(student.name))
        # The kernels of earlier notebooks that the cap shuts down take their CPU with them: count them now.
        started = time.perf_counter()
        try:
            run = server.run_notebook(path, notebook, cell_timeout=cell_timeout, close=False)
        except Exception as error:  # noqa: BLE001 -- a lost connection is this step's error, not the run's
            step.errors, step.wall_s = (
                [f"{type(error).__name__}: {error}"],
                time.perf_counter() - started,
            )
            student.steps.append(step)
            continue
        after = cpu_seconds(room.server_processes(student.name))
        step.cells, step.wall_s, step.cpu_s = len(run.cells), run.seconds, max(0.0, after - before)
        step.errors = [f"cell {cell.index}: {cell.error}" for cell in run.errors]
        student.steps.append(step)


def in_parallel(work, students: list[Student]) -> None:
    failures = []

    def guarded(student):
        try:
            work(student)
        except Exception as error:  # noqa: BLE001 -- re-raised below with the student's name
            failures.append((student.name, error))

    threads = [threading.Thread(target=guarded, args=(s,)) for s in students]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        name, error = failures[0]
        raise RuntimeError(f"{name}: {error}") from error


def run_class(
    count: int,
    mem_limit: str = "1G",
    max_kernels: int = 2,
    prefix: str = "cdsize",
    lessons: list[str] = LESSONS,
) -> dict:
    """Set up the hub, bring `count` students in, live the evening (these lessons) in all their servers at once."""
    testbed = load("testbed")
    server = testbed.install_server()
    plan = evening_notebooks(lessons=lessons)
    students = [Student(f"{prefix}{i:02}") for i in range(1, count + 1)]
    load_before = os.getloadavg()[0]
    with testbed.Classroom(
        server,
        [s.name for s in students],
        mem_limit=mem_limit,
        extra_env={"CLASS_MAX_KERNELS": str(max_kernels)},
    ) as room:
        branch = subprocess.run(
            ["git", "-C", str(server), "rev-parse", "--abbrev-ref", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

        def bring_in(student):
            room.login(student.name)
            student.server_start_s = room.start(student.name)
            student.pull_s = pull_workbook(room, student.name, room.workbook_url, branch)

        in_parallel(bring_in, students)
        hub = psutil.Process(room.process.pid)
        shared = [hub] + [
            c for c in hub.children() if "jupyterhub.singleuser" not in " ".join(safe_cmdline(c))
        ]
        shared_cpu_before = cpu_seconds(shared)
        sampler = Sampler(room, students)
        sampler.start()
        wall = time.perf_counter()
        in_parallel(lambda s: live_evening(room, s, plan), students)
        wall = time.perf_counter() - wall
        time.sleep(3)  # the kernels settle, idle
        sampler.done.set()
        sampler.join()
        spawners = load("spawners")
        for student in students:
            student.steady_pss = sum(pss(p) for p in room.server_processes(student.name))
            groups = spawners.Cgroups()
            if groups.version == 1:
                usage = groups.folder("memory", student.name) / "memory.max_usage_in_bytes"
            else:
                usage = groups.folder("", student.name) / "memory.peak"
            if usage.exists():
                student.cgroup_peak = int(usage.read_text())
        return {
            "students": students,
            "wall_s": wall,
            "notebooks": [p for p, _, _ in plan],
            "shared_pss": sum(pss(p) for p in shared),
            "shared_cpu_s": cpu_seconds(shared) - shared_cpu_before,
            "load_before": load_before,
            "cores": psutil.cpu_count(),
            "memory": psutil.virtual_memory().total,
            "mem_limit": mem_limit,
            "max_kernels": max_kernels,
            "jupyterhub": __import__("jupyterhub").__version__,
            "date": time.strftime("%Y-%m-%d"),
        }


def load_result(path: Path) -> dict:
    """A run written with --json, back as run_class returns it (the README's table is made from it)."""
    data = json.loads(Path(path).read_text())
    students = []
    for raw in data["students"]:
        raw = {k: v for k, v in raw.items() if k != "errors"}
        raw["steps"] = [Step(**step) for step in raw["steps"]]
        raw["samples"] = [tuple(sample) for sample in raw["samples"]]
        students.append(Student(**raw))
    return dict(data, students=students)


# ---- the sizing table ----------------------------------------------------------------------


def per_lesson_cpu(students: list[Student]) -> dict[str, float]:
    """Median CPU seconds of each lesson, its exercise included, across the students."""
    table = {}
    for number in sorted(
        {Path(s.notebook).name[:2] for student in students for s in student.steps}
    ):
        values = [
            sum(s.cpu_s for s in student.steps if Path(s.notebook).name.startswith(number))
            for student in students
        ]
        table[number] = statistics.median(values)
    return table


def sizing_table(result: dict, budget_s: float = 60.0) -> str:
    students = result["students"]
    n = len(students)
    peak = max(s.peak_pss for s in students) / MIB
    steady = statistics.median(s.steady_pss for s in students) / MIB
    cgroup = max(s.cgroup_peak for s in students) / MIB
    shared = result["shared_pss"] / MIB
    lessons = per_lesson_cpu(students)
    heaviest = max(lessons.values())
    lines = [
        f"A whole evening (lessons {min(lessons)}-{max(lessons)} and their exercises) in {n} students' servers "
        f"at once: JupyterHub "
        f"{result['jupyterhub']}, {result['cores']} cores, {result['memory'] / 1024**3:.0f} GiB, memory limit "
        f"{result['mem_limit']} and at most {result['max_kernels']} kernels per student; load average "
        f"{result['load_before']:.1f} before; all done in {result['wall_s']:.0f} s ({result['date']}).",
        "",
        "| per student | median | max |",
        "| --- | ---: | ---: |",
    ]
    rows = [
        ("peak PSS, server + kernels (MiB)", [s.peak_pss / MIB for s in students]),
        ("  the server alone, peak (MiB)", [s.server_peak_pss / MIB for s in students]),
        ("  the biggest kernel, peak (MiB)", [s.kernel_peak_pss / MIB for s in students]),
        ("steady PSS after the evening (MiB)", [s.steady_pss / MIB for s in students]),
        ("cgroup peak, page cache included (MiB)", [s.cgroup_peak / MIB for s in students]),
        ("most kernels at once", [s.most_kernels for s in students]),
        ("CPU seconds, whole evening", [sum(x.cpu_s for x in s.steps) for s in students]),
        ("server start (s)", [s.server_start_s for s in students]),
        ("nbgitpuller hand-out (s)", [s.pull_s for s in students]),
    ]
    lines += [
        f"| {label} | {statistics.median(values):.1f} | {max(values):.1f} |"
        for label, values in rows
    ]
    lines += [
        f"| hub + proxy + culler, shared | {shared:.0f} MiB PSS | {result['shared_cpu_s']:.1f} CPU s |",
        "",
    ]
    lines += [
        "| lesson (with its exercise) | " + " | ".join(lessons) + " |",
        "| --- |" + " ---: |" * len(lessons),
        "| CPU seconds, median student | "
        + " | ".join(f"{cpu:.1f}" for cpu in lessons.values())
        + " |",
        "",
    ]
    per_gib = 1024 / peak
    per_core = budget_s / heaviest
    lines += [
        f"Sizing: memory from the heaviest student's peak PSS ({peak:.0f} MiB; cgroup peak {cgroup:.0f} MiB); "
        f"CPU from the heaviest lesson ({heaviest:.1f} CPU s), if every student runs all its cells within "
        f"{budget_s:.0f} s.",
        "",
        "| class | memory | cores |",
        "| --- | ---: | ---: |",
        f"| per GiB / per core | {per_gib:.1f} students | {per_core:.1f} students |",
    ]
    for size in (30, 100):
        gib = (size * peak + shared) / 1024
        lines.append(f"| {size} students | {gib:.1f} GiB | {size * heaviest / budget_s:.1f} |")
    lines.append(f"\nSteady (kernels idle): {steady:.0f} MiB a student, median.")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument(
        "--mem-limit", default="1G", help="the per-student memory limit to run under (1G)"
    )
    parser.add_argument("--max-kernels", type=int, default=2, help="the per-student kernel cap (2)")
    parser.add_argument(
        "--budget", type=float, default=60.0, help="seconds a 'run all' may take (default 60)"
    )
    parser.add_argument("--json", type=Path, help="also write the measurements to this file")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print(
            "sizing: run as root (sudo): it makes real student accounts, as the class does",
            file=sys.stderr,
        )
        return 1
    if args.students < 1:
        print("sizing: --students must be at least 1", file=sys.stderr)
        return 1
    result = run_class(args.students, args.mem_limit, args.max_kernels)
    print(sizing_table(result, args.budget))
    if args.json:
        data = {key: value for key, value in result.items() if key != "students"}
        data["students"] = [dict(asdict(s), errors=s.errors) for s in result["students"]]
        args.json.write_text(json.dumps(data, indent=1))
    broken = [(s.name, s.errors) for s in result["students"] if s.errors]
    if broken:
        print("\nErrors:", broken)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
