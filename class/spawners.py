"""Where each student's server runs: their own Unix account, inside a memory limit the kernel enforces.

`ClassLocalSpawner` is JupyterHub's own `LocalProcessSpawner` (the server runs as the student's Unix
account: the hub, as root, sets the uid and groups before it starts the server) plus one step: before the
switch to the student, the new process joins a control group of its own, `context-desk-NAME`, under the
hub's own control group, whose memory limit (and CPU quota and process count) the Linux kernel enforces
for the server and every kernel it starts. When a student's processes together go past the memory limit,
the kernel's OOM killer stops the biggest one, which is the kernel that allocated; the other students'
groups are untouched. class/memory_guard.py, run inside every kernel, then tells the student why.

Used where systemd is not PID 1 (containers, CI); on a server with systemd the hub config picks
`systemdspawner.SystemdSpawner` instead, which does the same with a transient unit's MemoryMax.

Shared memory is the student's own too. Files in /dev/shm live in memory, are charged to the cgroup of
whoever wrote them, and outlive the process: 300 MiB left there by a student's cell would be charged to
every later server of theirs, which the OOM killer would then stop while it starts. So each server gets a
/dev/shm of its own (a new mount namespace with a tmpfs of `shm_size` bytes, well under the memory
limit) and a System V IPC namespace of its own; both vanish with the server's last process. When a
server stops, or dies, whatever the student left running in their cgroup is stopped too, and the group
is removed; a server that the OOM killer took is remembered, and the next start says so (on the spawn
page, and in the first cell the student runs: class/memory_guard.py).

At each start the student's home is measured (class/disk_use.py); over `disk_warning` bytes, the hub's
log and the student's first cell say so. That is a warning, not a quota: see class/README.md.

cgroup v1 (a `memory` hierarchy, as on this machine) is used and tested; the cgroup v2 branch (a unified
hierarchy with the memory controller) follows the kernel's documented files but is not run by the tests
here, whose machine has the memory controller on v1. Left out: disk quotas, network limits, and a
memory limit without cgroups at all (the spawner then refuses to start a server rather than run it
unlimited; set CLASS_MEM_LIMIT=none to accept that on purpose).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import inspect
import os
import pwd
import re
import signal
import subprocess
import time
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def parse_bytes(value: str | int | None) -> int | None:
    """'600M' -> 629145600; 'none' or '' -> None (no limit); a clear error otherwise."""
    if value is None or isinstance(value, int):
        return value
    text = str(value).strip().upper()
    if text in ("", "NONE", "0"):
        return None
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGT]?)I?B?", text)
    if not match:
        raise ValueError(f"memory limit {value!r}: write a size such as 800M or 1G (or 'none')")
    return int(float(match.group(1)) * UNITS[match.group(2)])


class Cgroups:
    """The control groups of one student, made under the hub's own groups; v1 or v2, whichever has memory."""

    def __init__(self, root: Path = CGROUP_ROOT, self_cgroup: str = "/proc/self/cgroup"):
        self.root = Path(root)
        lines = Path(self_cgroup).read_text().splitlines()
        self.mine: dict[str, str] = {}  # controller -> this process's path in it
        for line in lines:
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                self.mine[controller] = path
        v1_memory = self.root / "memory"
        if (v1_memory / "memory.limit_in_bytes").exists():
            self.version = 1
        elif (self.root / "cgroup.controllers").exists() and "memory" in (
            self.root / "cgroup.controllers"
        ).read_text().split():
            self.version = 2
        else:
            self.version = 0

    def folder(self, controller: str, name: str) -> Path:
        """Where the student's group lives: under the group the hub itself runs in (delegation, not the root)."""
        if self.version == 2:
            parent = self.root / self.mine.get("", "/").lstrip("/")
        else:
            parent = self.root / controller / self.mine.get(controller, "/").lstrip("/")
        return parent / f"context-desk-{name}"

    def prepare(
        self, name: str, memory: int | None, cpus: float | None, pids: int | None
    ) -> list[Path]:
        """Make (or update) the student's groups with these limits; the files to write a new pid into."""
        if self.version == 0:
            raise RuntimeError(
                "no cgroup memory controller is mounted (neither cgroup v1 'memory' nor v2): "
                "per-student memory limits cannot be enforced on this machine"
            )
        join = []
        if self.version == 1:
            group = self.folder("memory", name)
            group.mkdir(exist_ok=True)
            # No swap on class servers; where there is some, count it in the same limit.
            limit = str(memory) if memory else "-1"
            memsw = group / "memory.memsw.limit_in_bytes"
            plain = group / "memory.limit_in_bytes"
            if memsw.exists():
                # The kernel keeps memsw >= the plain limit: widen memsw first, narrow it last.
                growing = memory is None or int(plain.read_text()) <= memory
                order = [memsw, plain] if growing else [plain, memsw]
                for file in order:
                    file.write_text(limit)
            else:
                plain.write_text(limit)
            (group / "memory.swappiness").write_text("0")
            join.append(group / "cgroup.procs")
            if cpus and (self.root / "cpu" / "cpu.cfs_quota_us").exists():
                cpu = self.folder("cpu", name)
                cpu.mkdir(exist_ok=True)
                period = int((cpu / "cpu.cfs_period_us").read_text())
                (cpu / "cpu.cfs_quota_us").write_text(str(int(cpus * period)))
                join.append(cpu / "cgroup.procs")
            if pids and (self.root / "pids").is_dir():
                pid_group = self.folder("pids", name)
                pid_group.mkdir(exist_ok=True)
                (pid_group / "pids.max").write_text(str(pids))
                join.append(pid_group / "cgroup.procs")
        else:
            group = self.folder("", name)
            parent = group.parent
            wanted = {"memory"} | ({"cpu"} if cpus else set()) | ({"pids"} if pids else set())
            available = set((parent / "cgroup.controllers").read_text().split())
            enabled = set((parent / "cgroup.subtree_control").read_text().split())
            for controller in (wanted & available) - enabled:
                (parent / "cgroup.subtree_control").write_text(f"+{controller}")
            group.mkdir(exist_ok=True)
            (group / "memory.max").write_text(str(memory) if memory else "max")
            if (group / "memory.swap.max").exists():
                (group / "memory.swap.max").write_text("0")
            if cpus and (group / "cpu.max").exists():
                (group / "cpu.max").write_text(f"{int(cpus * 100_000)} 100000")
            if pids and (group / "pids.max").exists():
                (group / "pids.max").write_text(str(pids))
            join.append(group / "cgroup.procs")
        return join

    def remove(self, name: str) -> None:
        """Remove the student's (now empty) groups; a group that still has processes stays."""
        for controller in self.controllers():
            try:
                self.folder(controller, name).rmdir()
            except OSError:
                pass

    def controllers(self) -> list[str]:
        return ["memory", "cpu", "pids"] if self.version == 1 else [""]

    def processes(self, name: str) -> set[int]:
        """Every process still in the student's groups."""
        found = set()
        for controller in self.controllers():
            try:
                found |= {
                    int(pid)
                    for pid in (self.folder(controller, name) / "cgroup.procs").read_text().split()
                }
            except OSError:
                pass
        return found

    def oom_kills(self, name: str) -> int:
        """How many processes the OOM killer has stopped in the student's memory group (0 if none)."""
        group = self.folder("memory" if self.version == 1 else "", name)
        events = group / ("memory.oom_control" if self.version == 1 else "memory.events")
        try:
            return int(re.search(r"^oom_kill (\d+)", events.read_text(), re.MULTILINE).group(1))
        except (OSError, AttributeError):
            return 0


# ---- a /dev/shm and System V IPC of the server's own -------------------------------------------------

CLONE_NEWNS, CLONE_NEWIPC = 0x00020000, 0x08000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 16384, 1 << 18
_LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def own_shared_memory(size: int):
    """A function for between fork and exec (still root): new mount and IPC namespaces, and a fresh
    tmpfs of `size` bytes on /dev/shm that no other process sees and that goes when the server goes.

    Everything is prepared here, before the fork, so the child only makes three system calls."""
    options = f"size={size},mode=1777".encode()

    def check(result: int, what: str) -> None:
        if result != 0:
            number = ctypes.get_errno()
            raise OSError(number, f"{what}: {os.strerror(number)}")

    def make():
        check(_LIBC.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare")
        # the server's mounts stay its own: nothing it mounts shows outside, nothing outside leaks in
        check(_LIBC.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
        check(
            _LIBC.mount(b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV, options),
            "mount /dev/shm",
        )

    return make


def private_shared_memory_works() -> str:
    """'' when this machine lets root give a process its own /dev/shm; otherwise what went wrong."""
    try:
        done = subprocess.run(
            [
                "unshare",
                "--mount",
                "--ipc",
                "--propagation",
                "private",
                "--",
                "sh",
                "-c",
                "mount -t tmpfs -o size=1m tmpfs /dev/shm",
            ],
            capture_output=True,
            text=True,
        )
    except FileNotFoundError:
        return "the unshare command (util-linux) is missing"
    return (
        "" if done.returncode == 0 else (done.stderr.strip() or f"unshare exited {done.returncode}")
    )


def _spawner_class():
    from jupyterhub.spawner import LocalProcessSpawner
    from traitlets import Integer, Unicode

    disk_use = _load_beside("disk_use")

    class ClassLocalSpawner(LocalProcessSpawner):
        """LocalProcessSpawner whose server (and so every kernel) starts inside the student's own cgroup,
        with a /dev/shm of its own; cleaned up when it stops, and it says so when memory stopped it.

        `mem_limit` and `cpu_limit` (the Spawner's own settings) become the group's memory limit and CPU
        quota; `pids_limit` caps the processes (a fork bomb stops there). Runs only as root.
        """

        pids_limit = Integer(
            512, config=True, help="most processes (and threads) one student may run"
        )
        memory_limit_text = Unicode("", config=True, help="CLASS_MEM_LIMIT as given, for messages")
        shm_size = Integer(
            64 * 1024**2,
            config=True,
            help="bytes of /dev/shm each server gets (0: the machine's own)",
        )
        disk_warning = Integer(
            0, config=True, help="warn a student whose home holds more bytes than this (0: never)"
        )

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.stopped_for_memory = ""  # when the OOM killer took the server, a line saying when
            self.stopping = False
            self.exit_status = None
            self.notices: list[str] = []

        # The hub makes a new Spawner for each start, from the state it saved: the memory note lives there.
        def get_state(self):
            state = super().get_state()
            if self.stopped_for_memory:
                state["stopped_for_memory"] = self.stopped_for_memory
            return state

        def load_state(self, state):
            super().load_state(state)
            self.stopped_for_memory = state.get("stopped_for_memory", "")

        def make_preexec_fn(self, name):
            setuid = super().make_preexec_fn(name)
            memory = parse_bytes(self.mem_limit) if self.mem_limit else None
            join = (
                Cgroups().prepare(name, memory, self.cpu_limit, self.pids_limit) if memory else []
            )
            private_shm = own_shared_memory(self.shm_size) if self.shm_size else None

            def preexec():
                # Between fork and exec, still root: join the student's groups, take a /dev/shm of the
                # server's own, then become the student.
                pid = str(os.getpid())
                for procs in join:
                    with open(procs, "w") as handle:
                        handle.write(pid)
                if private_shm:
                    private_shm()
                setuid()

            return preexec

        def user_env(self, env):
            env = super().user_env(env)
            memory = parse_bytes(self.mem_limit) if self.mem_limit else None
            if memory:
                env["CLASS_MEM_LIMIT_BYTES"] = str(
                    memory
                )  # memory_guard.py quotes it to the student
            if self.stopped_for_memory:
                env["CLASS_SERVER_STOPPED_FOR_MEMORY"] = self.stopped_for_memory
            disk = [notice for notice in self.notices if notice.startswith("Disk use")]
            if disk:
                env["CLASS_DISK_NOTICE"] = disk[0]
            return env

        async def start(self):
            self.stopping, self.exit_status, self.notices = False, None, []
            if self.stopped_for_memory:
                self.notices.append(
                    "Your server was stopped last time because your kernels and server together went "
                    "past your memory limit; it starts afresh now."
                )
            if self.disk_warning:
                home = Path(pwd.getpwnam(self.user.name).pw_dir)
                used = await asyncio.get_running_loop().run_in_executor(None, disk_use.usage, home)
                if used.bytes > self.disk_warning:
                    self.log.warning(
                        "%s's home holds %s, over the class's warning", self.user.name, used
                    )
                    self.notices.append(disk_use.warning(used, self.disk_warning))
            started = await super().start()
            self.stopped_for_memory = ""  # told once: the server's environment carries it now
            return started

        async def progress(self):
            for notice in self.notices:
                yield {"progress": 10, "message": notice}
            yield {"progress": 50, "message": "Spawning server..."}

        async def poll(self):
            proc = self.proc
            status = await super().poll()
            if status is not None and proc is not None and self.exit_status is None:
                self.exit_status = proc.returncode
            return status

        async def stop(self, now=False):
            self.stopping = True
            await super().stop(now=now)

        async def run_post_stop_hook(self):
            """After every stop, asked for or not: say if memory stopped it, clear up what is left."""
            try:
                await self.clear_up()
            except (OSError, RuntimeError):
                self.log.exception("Clearing up after %s's server", self.user.name)
            result = super().run_post_stop_hook()
            return (await result) if inspect.isawaitable(result) else result

        async def clear_up(self):
            groups = Cgroups()
            name = self.user.name
            if groups.version == 0:
                return
            if (
                not self.stopping
                and self.exit_status == -signal.SIGKILL
                and groups.oom_kills(name) > 0
            ):
                self.stopped_for_memory = time.strftime("%Y-%m-%d %H:%M:%S")
                self.log.warning("%s's server was stopped by the OOM killer", name)
            for _ in range(
                50
            ):  # what the student left running (a kernel, a background job) goes too
                left = groups.processes(name)
                if not left:
                    break
                for pid in left:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                await asyncio.sleep(0.1)
            groups.remove(name)

    return ClassLocalSpawner


def _load_beside(name: str):
    """A script of this folder as a module (class/ is scripts, not a package)."""
    import importlib.util
    import sys

    key = f"context_desk_class_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, Path(__file__).parent / f"{name}.py")
        sys.modules[key] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[key])
    return sys.modules[key]


def __getattr__(attribute):
    if attribute == "ClassLocalSpawner":
        cls = _spawner_class()
        globals()["ClassLocalSpawner"] = cls
        return cls
    raise AttributeError(attribute)


def systemd_is_running() -> bool:
    """True where systemd is PID 1 (the SystemdSpawner needs it); False in most containers."""
    try:
        return (
            Path("/proc/1/comm").read_text().strip() == "systemd"
            and Path("/run/systemd/system").is_dir()
        )
    except OSError:
        return False
