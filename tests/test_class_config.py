"""The class hub's configuration and the roster, without starting anything (the fast tier).

class/jupyterhub_config.py is loaded as JupyterHub loads it; class/roster.py's passwords, roster file and
login are checked on their own. The hub itself, with real accounts, is tests/test_class_hub.py.
"""

import asyncio
import os
from pathlib import Path

import pytest
from conftest import load_class as load

CLASS = Path(__file__).resolve().parent.parent / "class"


def load_hub_config(monkeypatch, tmp_path, **settings):
    from traitlets.config.loader import PyFileConfigLoader

    for name in [n for n in os.environ if n.startswith("CLASS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CLASS_STATE", str(tmp_path / "state"))
    monkeypatch.setenv("CLASS_EXCHANGE", str(tmp_path / "exchange"))
    monkeypatch.setenv("CLASS_SERVER_FILES", str(tmp_path / "server-files"))
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    return PyFileConfigLoader("jupyterhub_config.py", path=str(CLASS)).load_config()


root_only = pytest.mark.skipif(
    os.geteuid() != 0, reason="the class hub's default set-up runs as root"
)


@root_only
def test_the_default_is_one_account_per_student_with_the_roster_login(monkeypatch, tmp_path):
    from jupyterhub.app import JupyterHub

    config = load_hub_config(monkeypatch, tmp_path)
    hub = JupyterHub(config=config)
    assert hub.authenticator_class.__name__ == "RosterAuthenticator"
    expected = "SystemdSpawner" if load("spawners").systemd_is_running() else "ClassLocalSpawner"
    assert hub.spawner_class.__name__ == expected
    assert (
        issubclass(hub.spawner_class, __import__("jupyterhub.spawner").spawner.LocalProcessSpawner)
        or expected == "SystemdSpawner"
    )
    assert config.Spawner.mem_limit == 1024**3 and config.Spawner.cmd[1:] == [
        "-m",
        "jupyterhub.singleuser",
    ]
    assert "--allow-root" not in " ".join(config.Spawner.cmd) and not config.Spawner.get("args")
    state = tmp_path / "state"
    assert state.stat().st_mode & 0o777 == 0o700


@root_only
def test_the_workshop_mode_refuses_root_and_the_shared_password_needs_it(monkeypatch, tmp_path):
    with pytest.raises(SystemExit, match="never as root"):
        load_hub_config(
            monkeypatch, tmp_path, CLASS_SPAWNER="workshop", CLASS_PASSWORD="long-enough"
        )
    with pytest.raises(SystemExit, match="workshop only"):
        load_hub_config(
            monkeypatch, tmp_path, CLASS_AUTH="shared-password", CLASS_PASSWORD="long-enough"
        )


@root_only
@pytest.mark.parametrize(
    "setting, value, message",
    [
        ("CLASS_IDLE_TIMEOUT", "300", "under ten minutes"),
        ("CLASS_MEM_LIMIT", "lots", "800M or 1G"),
        ("CLASS_SPAWNER", "docker", "choose auto"),
        ("CLASS_SSL_CERT", "/etc/ssl/hub.crt", "CLASS_SSL_KEY"),
    ],
)
def test_bad_settings_are_refused_with_a_message(monkeypatch, tmp_path, setting, value, message):
    with pytest.raises(SystemExit, match=message):
        load_hub_config(monkeypatch, tmp_path, **{setting: value})


@root_only
def test_the_spawn_limit_covers_the_roster_and_the_culler_waits_an_hour(monkeypatch, tmp_path):
    roster = load("roster")
    people = {f"s{n:03d}": {"role": "student", "uid": 5000 + n, "hash": "x"} for n in range(60)}
    roster.Roster(tmp_path / "state").save(people)
    config = load_hub_config(monkeypatch, tmp_path, CLASS_SPAWN_LIMIT="20")
    assert config.JupyterHub.concurrent_spawn_limit >= 60
    culler = next(s for s in config.JupyterHub.services if s["name"] == "idle-culler")
    assert culler["command"][-1] == "--timeout=3600"


@root_only
def test_servers_get_the_kernel_guard_and_students_no_formgrader(monkeypatch, tmp_path):
    import json

    config = load_hub_config(
        monkeypatch, tmp_path, CLASS_MAX_KERNELS="3", CLASS_KERNEL_IDLE_TIMEOUT="900"
    )
    files = tmp_path / "server-files"
    kernel = json.loads((files / "data" / "kernels" / "python3" / "kernel.json").read_text())
    assert any("memory_guard.py" in arg for arg in kernel["argv"])
    assert kernel["metadata"]["debugger"] is False  # debugpy would listen on a TCP port
    students = json.loads((files / "config" / "jupyter_server_config.json").read_text())[
        "ServerApp"
    ]
    instructors = json.loads(
        (files / "instructor-config" / "jupyter_server_config.json").read_text()
    )["ServerApp"]
    assert students["jpserver_extensions"]["nbgrader.server_extensions.formgrader"] is False
    assert instructors["jpserver_extensions"]["nbgrader.server_extensions.formgrader"] is True
    server = (files / "config" / "jupyter_server_config.py").read_text()
    assert (
        "MAX_KERNELS = 3" in server
        and "KERNEL_IDLE = 900" in server
        and "cull_connected = False" in server
        and 'c.KernelManager.transport = "ipc"' in server
    )
    assert config.Spawner.environment["JUPYTER_PATH"] == str(files / "data")


def test_the_class_endpoint_reaches_every_server(monkeypatch, tmp_path):
    if os.geteuid() != 0:
        settings = {"CLASS_SPAWNER": "workshop", "CLASS_PASSWORD": "long-enough"}
    else:
        settings = {}
    config = load_hub_config(
        monkeypatch,
        tmp_path,
        CLASS_ANTHROPIC_BASE_URL="http://127.0.0.1:9/gateway",
        CLASS_ANTHROPIC_API_KEY="class-token",
        **settings,
    )
    assert config.Spawner.environment["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9/gateway"
    assert config.Spawner.environment["ANTHROPIC_API_KEY"] == "class-token"


# ---- the roster --------------------------------------------------------------------------------------


def test_passwords_are_hashed_and_checked():
    roster = load("roster")
    password = roster.new_password()
    stored = roster.hash_password(password)
    assert password not in stored and stored.startswith("scrypt$")
    assert roster.password_matches(password, stored)
    assert not roster.password_matches(password + "x", stored)
    assert not roster.password_matches(password, "not-a-hash")
    assert roster.hash_password(password) != stored  # salted


@pytest.mark.parametrize(
    "text, message",
    [
        ("ada\nAda\n", "not a Unix user name"),
        ("ada\nada\n", "twice"),
        ("ada teacher\n", "optionally 'instructor'"),
        ("# nobody\n", "nobody on the roster"),
        ("1ada\n", "not a Unix user name"),
    ],
)
def test_a_bad_roster_file_says_which_line(tmp_path, text, message):
    roster = load("roster")
    path = tmp_path / "roster.txt"
    path.write_text(text)
    with pytest.raises(roster.RosterError, match=message):
        roster.read_roster_file(path)


def test_the_roster_file_reads_students_and_instructors(tmp_path):
    roster = load("roster")
    path = tmp_path / "roster.txt"
    path.write_text("# spring\nada\nbob   # late joiner\ngrace instructor\n")
    assert roster.read_roster_file(path) == {
        "ada": "student",
        "bob": "student",
        "grace": "instructor",
    }


def test_the_roster_refuses_an_account_it_did_not_make(tmp_path):
    roster = load("roster")
    with pytest.raises(roster.RosterError, match="not made by this roster"):
        roster.add(roster.Roster(tmp_path), {"root": "student"}, tmp_path)


def test_the_login_checks_each_persons_own_password_and_locks_out_guessing(tmp_path):
    roster = load("roster")
    store = roster.Roster(tmp_path)
    store.save(
        {
            "ada": {"role": "student", "uid": 5001, "hash": roster.hash_password("ada-secret")},
            "grace": {
                "role": "instructor",
                "uid": 5002,
                "hash": roster.hash_password("grace-secret"),
            },
        }
    )
    auth = roster.RosterAuthenticator(state=str(tmp_path), max_failures=3)

    def login(name, password):
        return asyncio.run(auth.authenticate(None, {"username": name, "password": password}))

    assert login("ada", "ada-secret") == {"name": "ada", "admin": False}
    assert login("grace", "grace-secret") == {"name": "grace", "admin": True}
    assert login("ada", "grace-secret") is None and login("nobody", "ada-secret") is None
    assert auth.check_allowed("ada") and not auth.check_allowed("nobody")
    assert login("ada", "wrong") is None and login("ada", "wrong") is None
    from tornado import web

    with pytest.raises(web.HTTPError, match="Too many wrong passwords"):
        login("ada", "ada-secret")
    assert (tmp_path / "roster.json").stat().st_mode & 0o777 == 0o600


def test_memory_sizes_parse_or_say_how_to_write_them():
    spawners = load("spawners")
    assert spawners.parse_bytes("600M") == 600 * 1024**2
    assert (
        spawners.parse_bytes("1G") == 1024**3 and spawners.parse_bytes("1.5GiB") == 1536 * 1024**2
    )
    assert spawners.parse_bytes("none") is None
    with pytest.raises(ValueError, match="800M or 1G"):
        spawners.parse_bytes("a lot")


def test_a_kernels_socket_path_must_fit_or_the_sockets_move(tmp_path):
    """Unix socket paths hold 107 bytes; the runtime folder plus a kernel's socket name must fit."""
    from traitlets.config import Config

    def server_settings(runtime: str) -> Config:
        namespace = {"get_config": Config}
        import jupyter_core.paths

        real = jupyter_core.paths.jupyter_runtime_dir
        jupyter_core.paths.jupyter_runtime_dir = lambda: runtime
        try:
            exec((CLASS / "server_config.py").read_text(), namespace)
        finally:
            jupyter_core.paths.jupyter_runtime_dir = real
        return namespace["c"]

    short = server_settings("/home/ada/.local/share/jupyter/runtime")
    assert short.KernelManager.transport == "ipc" and "runtime_dir" not in short.ServerApp
    long = server_settings("/home/" + "x" * 60 + "/.local/share/jupyter/runtime")
    moved = Path(long.ServerApp.runtime_dir)
    try:
        assert moved.stat().st_mode & 0o777 == 0o700 and len(str(moved)) + 57 <= 107
    finally:
        moved.rmdir()


@pytest.mark.parametrize(
    "place, trusted",
    [("/srv/context-desk-testbed", True), ("/var/tmp/context-desk", False), ("/tmp/x/y", False)],
)
def test_the_testbed_installs_only_where_root_alone_can_write(place, trusted):
    testbed = load("testbed")
    problems = testbed.untrusted_folders(Path(place))
    assert (problems == []) == trusted, problems
    if not trusted:
        assert any("writable by accounts other than root" in p for p in problems)
