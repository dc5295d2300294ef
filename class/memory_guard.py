"""Run at the start of every student kernel: says why the kernel (or the server) before it was stopped, if
memory was why, and warns when the student's files take too much disk.

The hub starts each student's server in a control group with a memory limit (class/spawners.py). When
the student's kernels together go past it, Linux stops the biggest one, and JupyterLab only says
"the kernel appears to have died. It will restart automatically." This file is the kernel-side half:
the kernel spec of the class (made by class/jupyterhub_config.py) runs it in every new kernel with
`--IPKernelApp.exec_files`. It reads the group's OOM-kill counter; when it went up since the student last
heard of it, the output of the next cell the student runs starts with what happened, the limit, and what
to do. The counter last reported is kept in ~/.local/share/context-desk/oom-kills-seen.

Two more things reach it through the server's environment, from the spawner: the OOM killer took the
whole server last time (CLASS_SERVER_STOPPED_FOR_MEMORY: the hub noticed when it restarted it), and the
student's home was over the class's disk-use warning when the server started (CLASS_DISK_NOTICE, the
sentence class/disk_use.py wrote). Each is said once, in the first cell run.

Left out: a warning before the limit is reached (a single large allocation outruns any polling), and
which notebook's kernel it was (the kernel that reports is the restarted one, or the next to start).
"""


def _context_desk_memory_guard():
    import os
    import re
    from pathlib import Path

    def memory_group():
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if "memory" in controllers.split(","):
                return Path("/sys/fs/cgroup/memory") / path.lstrip("/"), 1
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                return Path("/sys/fs/cgroup") / line[3:].lstrip("/"), 2
        return None, 0

    def tell_in_first_cell(messages):
        """Print the messages at the top of the next cell the student runs (stderr: red in JupyterLab)."""
        if not messages:
            return
        try:
            shell = get_ipython()  # noqa: F821 -- defined in every IPython kernel
        except NameError:
            return
        told = []

        def tell(*_):
            if not told:
                told.append(True)
                import sys

                sys.stderr.write("".join(messages))
                sys.stderr.flush()

        shell.events.register("pre_run_cell", tell)

    seen_folder = Path.home() / ".local" / "share" / "context-desk"
    limit = os.environ.get("CLASS_MEM_LIMIT_BYTES", "")
    limit_text = f"{int(limit) / 1024**2:.0f} MiB" if limit.isdigit() else "the class's limit"
    messages = []

    def once(name, value):
        """True the first time this value is seen under this name (kept in the student's own files)."""
        path = seen_folder / name
        try:
            if path.read_text() == value:
                return False
        except OSError:
            pass
        seen_folder.mkdir(parents=True, exist_ok=True)
        path.write_text(value)
        return True

    stopped = os.environ.get("CLASS_SERVER_STOPPED_FOR_MEMORY", "")
    if stopped and once("server-stop-seen", stopped):
        messages.append(
            f"Memory limit: your server itself was stopped (at {stopped}) because your kernels and "
            f"server together went past {limit_text}, the memory each student has on this server. It "
            "was started afresh when you logged in: run your notebooks' cells again from the top, and "
            "shut down the kernels of notebooks you are done with (Kernel > Shut Down Kernel).\n"
        )
    disk = os.environ.get("CLASS_DISK_NOTICE", "")
    if disk and once("disk-notice-seen", disk):
        messages.append(disk + "\n")

    group, version = memory_group()
    if group is None or not group.name.startswith("context-desk-"):
        tell_in_first_cell(messages)
        return  # not in a class server's group (a laptop, a test run): no kernel kills to count
    events = group / ("memory.oom_control" if version == 1 else "memory.events")
    try:
        kills = int(re.search(r"^oom_kill (\d+)", events.read_text(), re.MULTILINE).group(1))
    except (OSError, AttributeError):
        tell_in_first_cell(messages)
        return
    seen_file = seen_folder / "oom-kills-seen"
    try:
        seen = int(seen_file.read_text())
    except (OSError, ValueError):
        seen = kills if kills == 0 else 0  # the first kernel of a new group has nothing to report
    if kills < seen:
        seen = 0  # a new group (the server was restarted): counts from zero
    seen_folder.mkdir(parents=True, exist_ok=True)
    seen_file.write_text(str(kills))
    if kills > seen:
        messages.insert(
            0,
            f"Memory limit: a kernel of yours was stopped because your kernels together went past {limit_text}, "
            "the memory each student has on this server (Linux stops the biggest one; your classmates' kernels "
            "were not touched). What it held in memory is gone: run this notebook's cells again from the top. "
            "To stay under the limit, shut down the kernels of notebooks you are done with (Kernel > Shut Down "
            "Kernel), and avoid building very large lists or strings in one cell.\n",
        )
    tell_in_first_cell(messages)


_context_desk_memory_guard()
del _context_desk_memory_guard
