"""JupyterHub for one class of Context Desk on one server: `jupyterhub -f class/jupyterhub_config.py`.

Everything a class changes is an environment variable (class/README.md lists them), so the same file
runs the real class and the multi-user test (tests/test_class_hub.py):

- who logs in: a shared class password (JupyterHub's SharedPasswordAuthenticator) by default;
  CLASS_AUTH=native for sign-up with instructor approval (jupyterhub-nativeauthenticator), or the
  entry-point name of the school's own authenticator (e.g. "generic-oauth", "ldapauthenticator").
- where each student's server runs: CLASS_SPAWNER=simple (a process as the hub's own user, a home under
  CLASS_STATE/home/NAME; for a workshop and the test), "systemd" (a sandboxed systemd unit per student
  with real memory and CPU limits; needs root), or "local" (one Unix account per student).
- the workbook reaches each student through an nbgitpuller link (README, step 6); the idle culler stops
  servers nobody has touched for CLASS_IDLE_TIMEOUT seconds.

Left out on purpose: TLS (put the hub behind the school's reverse proxy, or set CLASS_SSL_CERT and
CLASS_SSL_KEY), and per-student limits for the "simple" and "local" spawners, which cannot enforce them
(the hub only passes MEM_LIMIT and CPU_LIMIT to the server as environment variables).
"""

import os
import shutil
import sys
from pathlib import Path

c = get_config()  # noqa: F821 -- JupyterHub provides get_config() when it loads this file

HERE = Path(__file__).resolve().parent
# Outside the repository: the students' homes hold notebooks with outputs, which the repo's scans would find.
STATE = Path(os.environ.get("CLASS_STATE", Path.home() / "context-desk-class")).expanduser().resolve()
STATE.mkdir(parents=True, exist_ok=True)


def setting(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def names(variable: str) -> set[str]:
    return {name.strip() for name in setting(variable).split(",") if name.strip()}


# ---- the hub and its proxy ----------------------------------------------------

c.JupyterHub.bind_url = setting("CLASS_BIND_URL", "http://127.0.0.1:8000")
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
if setting("CLASS_SSL_CERT"):
    c.JupyterHub.ssl_cert = setting("CLASS_SSL_CERT")
    c.JupyterHub.ssl_key = setting("CLASS_SSL_KEY")

# configurable-http-proxy from npm: `make class-deps` runs `npm ci` in class/ (package-lock.json pins it).
local_proxy = HERE / "node_modules" / ".bin" / "configurable-http-proxy"
c.ConfigurableHTTPProxy.command = [str(local_proxy) if local_proxy.exists()
                                   else shutil.which("configurable-http-proxy") or "configurable-http-proxy"]
if setting("CLASS_PROXY_API_PORT"):
    c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{setting('CLASS_PROXY_API_PORT')}"
if setting("CLASS_HUB_PORT"):
    c.JupyterHub.hub_port = int(setting("CLASS_HUB_PORT"))

# ---- who logs in ------------------------------------------------------------------

instructors = names("CLASS_INSTRUCTORS")
students = names("CLASS_STUDENTS")
c.Authenticator.admin_users = instructors
if students:
    c.Authenticator.allowed_users = students | instructors
else:
    c.Authenticator.allow_all = True      # anyone who knows the class password (or is approved)

auth = setting("CLASS_AUTH", "shared-password")
if auth == "shared-password":
    c.JupyterHub.authenticator_class = "shared-password"
    c.SharedPasswordAuthenticator.user_password = setting("CLASS_PASSWORD") or None      # at least 8 characters
    c.SharedPasswordAuthenticator.admin_password = setting("CLASS_ADMIN_PASSWORD") or None  # at least 32
    if not setting("CLASS_PASSWORD"):
        sys.exit("Set CLASS_PASSWORD (8 characters or more): the password you write on the board for the class.")
elif auth == "native":
    c.JupyterHub.authenticator_class = "native"          # students sign up at /hub/signup, you approve them
    c.NativeAuthenticator.open_signup = False
    c.NativeAuthenticator.minimum_password_length = 8
    import nativeauthenticator  # its sign-up and approval pages
    c.JupyterHub.template_paths = [str(Path(nativeauthenticator.__file__).parent / "templates")]
else:
    c.JupyterHub.authenticator_class = auth             # the school's own; configure it below this file

# ---- where each student's server runs ------------------------------------------

spawner = setting("CLASS_SPAWNER", "simple")
c.JupyterHub.spawner_class = {"simple": "simple", "systemd": "systemdspawner.SystemdSpawner",
                              "local": "localprocess"}.get(spawner, spawner)
if spawner == "simple":
    c.SimpleLocalProcessSpawner.home_dir_template = str(STATE / "home" / "{username}")
    if os.geteuid() == 0:                                 # a container or a CI machine: the servers run as root too
        c.Spawner.args = ["--allow-root"]
if spawner == "systemd":
    c.SystemdSpawner.dynamic_users = True                 # no Unix accounts to create
    c.SystemdSpawner.isolate_tmp = True
    c.SystemdSpawner.isolate_devices = True
    c.SystemdSpawner.disable_user_sudo = True

# The same Python (and so the same locked packages) as the hub: this venv has the workbook installed.
c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.mem_limit = setting("CLASS_MEM_LIMIT", "1G")        # enforced by the systemd spawner only
c.Spawner.cpu_limit = float(setting("CLASS_CPU_LIMIT", "1"))  # likewise
c.Spawner.start_timeout = 120        # thirty students pressing "start" at 7:00 on a small server
c.Spawner.http_timeout = 120
c.JupyterHub.concurrent_spawn_limit = int(setting("CLASS_SPAWN_LIMIT", "20"))
c.Spawner.environment = {
    # The lab settings that keep the dashboard drawing (tools/lab_settings.py) live in this venv already.
    "CONTEXT_DESK_MODEL": setting("CONTEXT_DESK_MODEL"),
    # One endpoint for the whole class instead of thirty keys (class/README.md, "With a key").
    "ANTHROPIC_BASE_URL": setting("CLASS_ANTHROPIC_BASE_URL"),
    "ANTHROPIC_API_KEY": setting("CLASS_ANTHROPIC_API_KEY"),
}
c.Spawner.environment = {key: value for key, value in c.Spawner.environment.items() if value}

# ---- the idle culler: stops a server after CLASS_IDLE_TIMEOUT seconds without activity -------------

idle_timeout = setting("CLASS_IDLE_TIMEOUT", "3600")
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={idle_timeout}"],
}]
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
