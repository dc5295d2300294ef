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

cgroup v1 (a `memory` hierarchy, as on this machine) is used and tested; the cgroup v2 branch (a unified
hierarchy with the memory controller) follows the kernel's documented files but is not run by the tests
here, whose machine has the memory controller on v1. Left out: disk quotas, network limits, and a
memory limit without cgroups at all (the spawner then refuses to start a server rather than run it
unlimited; set CLASS_MEM_LIMIT=none to accept that on purpose).
"""

from __future__ import annotations

import os
import re
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
        controllers = ["memory", "cpu", "pids"] if self.version == 1 else [""]
        for controller in controllers:
            try:
                self.folder(controller, name).rmdir()
            except OSError:
                pass


def _spawner_class():
    from jupyterhub.spawner import LocalProcessSpawner
    from traitlets import Integer, Unicode

    class ClassLocalSpawner(LocalProcessSpawner):
        """LocalProcessSpawner whose server (and so every kernel) starts inside the student's own cgroup.

        `mem_limit` and `cpu_limit` (the Spawner's own settings) become the group's memory limit and CPU
        quota; `pids_limit` caps the processes (a fork bomb stops there). Runs only as root.
        """

        pids_limit = Integer(
            512, config=True, help="most processes (and threads) one student may run"
        )
        memory_limit_text = Unicode("", config=True, help="CLASS_MEM_LIMIT as given, for messages")

        def make_preexec_fn(self, name):
            setuid = super().make_preexec_fn(name)
            memory = parse_bytes(self.mem_limit) if self.mem_limit else None
            if memory is None:
                return setuid  # no limit asked for: the plain LocalProcessSpawner
            join = Cgroups().prepare(name, memory, self.cpu_limit, self.pids_limit)

            def preexec():
                # Between fork and exec, still root: join the student's groups, then become the student.
                pid = str(os.getpid())
                for procs in join:
                    with open(procs, "w") as handle:
                        handle.write(pid)
                setuid()

            return preexec

        def user_env(self, env):
            env = super().user_env(env)
            memory = parse_bytes(self.mem_limit) if self.mem_limit else None
            if memory:
                env["CLASS_MEM_LIMIT_BYTES"] = str(
                    memory
                )  # memory_guard.py quotes it to the student
            return env

        async def stop(self, now=False):
            await super().stop(now=now)
            try:
                Cgroups().remove(self.user.name)
            except (OSError, RuntimeError):
                pass

    return ClassLocalSpawner


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
