"""The class hub's configuration and the roster, without starting anything (the fast tier).

class/jupyterhub_config.py is loaded as JupyterHub loads it; class/roster.py's passwords, roster file and
login are checked on their own. The hub itself, with real accounts, is tests/test_class_hub.py.
Loading the hub's config, and the login, need the class tools (JupyterHub, the proxy's Node.js): marked
``class_tools``, they are skipped with a one-line reason in an environment `make lab` built alone.
"""

import asyncio
import os
from pathlib import Path

import pytest
from conftest import load_class as load
from hypothesis import given, settings
from hypothesis import strategies as st

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
@pytest.mark.class_tools
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
@pytest.mark.class_tools
def test_the_workshop_mode_refuses_root_and_the_shared_password_needs_it(monkeypatch, tmp_path):
    with pytest.raises(SystemExit, match="never as root"):
        load_hub_config(
            monkeypatch, tmp_path, CLASS_SPAWNER="workshop", CLASS_PASSWORD="long-enough"
        )
    with pytest.raises(SystemExit, match="workshop only"):
        load_hub_config(
            monkeypatch, tmp_path, CLASS_AUTH="shared-password", CLASS_PASSWORD="long-enough"
        )


@pytest.mark.class_tools
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
@pytest.mark.class_tools
def test_the_spawn_limit_covers_the_roster_and_the_culler_waits_an_hour(monkeypatch, tmp_path):
    roster = load("roster")
    people = {f"s{n:03d}": {"role": "student", "uid": 5000 + n, "hash": "x"} for n in range(60)}
    roster.Roster(tmp_path / "state").save(people)
    config = load_hub_config(monkeypatch, tmp_path, CLASS_SPAWN_LIMIT="20")
    assert config.JupyterHub.concurrent_spawn_limit >= 60
    culler = next(s for s in config.JupyterHub.services if s["name"] == "idle-culler")
    assert culler["command"][-1] == "--timeout=3600"


@root_only
@pytest.mark.class_tools
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


@pytest.mark.class_tools
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


@pytest.mark.class_tools
def test_the_login_checks_each_persons_own_password_and_slows_only_the_guesser(tmp_path):
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
    auth = roster.RosterAuthenticator(state=str(tmp_path), free_failures=3)
    auth.source_of = lambda handler: handler  # the "handler" here is just where the try comes from

    def login(name, password, source="203.0.113.5"):
        return asyncio.run(auth.authenticate(source, {"username": name, "password": password}))

    assert login("ada", "ada-secret") == {"name": "ada", "admin": False}
    assert login("grace", "grace-secret") == {"name": "grace", "admin": True}
    assert login("ada", "grace-secret") is None and login("nobody", "ada-secret") is None
    assert auth.check_allowed("ada") and not auth.check_allowed("nobody")
    for _ in range(3):
        assert login("ada", "wrong", source="198.51.100.66") is None
    from tornado import web

    with pytest.raises(web.HTTPError, match="try again in 1 seconds") as refused:
        login("ada", "ada-secret", source="198.51.100.66")  # even the right password waits there
    assert refused.value.status_code == 429
    assert login("ada", "ada-secret", source="203.0.113.5") == {"name": "ada", "admin": False}
    # a new password from the console (roster.py reset) clears every delay on the name
    entry = store.load()
    entry["ada"]["hash"] = roster.hash_password("ada-new")
    store.save(entry)
    assert login("ada", "ada-new", source="198.51.100.66") == {"name": "ada", "admin": False}
    assert (tmp_path / "roster.json").stat().st_mode & 0o777 == 0o600


@pytest.mark.class_tools  # the roster login is a JupyterHub authenticator
def test_instructors_may_be_limited_to_their_own_networks(tmp_path):
    roster = load("roster")
    roster.Roster(tmp_path).save(
        {"grace": {"role": "instructor", "uid": 5002, "hash": roster.hash_password("g-secret")}}
    )
    auth = roster.RosterAuthenticator(state=str(tmp_path), instructor_networks=["10.1.0.0/16"])
    auth.source_of = lambda handler: handler

    def login(source):
        return asyncio.run(auth.authenticate(source, {"username": "grace", "password": "g-secret"}))

    assert login("192.0.2.7") is None and login("local account 1005") is None
    assert login("10.1.4.20") == {"name": "grace", "admin": True}


@given(
    tries=st.lists(
        st.tuples(st.sampled_from(["victim", "a", "b", "c"]), st.booleans(), st.floats(0, 50)),
        max_size=60,
    )
)
@settings(max_examples=200, deadline=None)
def test_failures_from_other_sources_never_delay_the_victim(tries):
    """Whatever strangers send, and whenever, the victim's own source waits only for its own failures."""
    roster = load("roster")
    throttle, alone = roster.Throttle(free=3), roster.Throttle(free=3)
    now = 0.0
    for source, fails, gap in tries:
        now += gap
        key = ("ada", source)
        if fails:
            throttle.failed(key, now)
            if source == "victim":
                alone.failed(key, now)
        else:
            throttle.succeeded(key)
            if source == "victim":
                alone.succeeded(key)
        assert throttle.wait(("ada", "victim"), now) == alone.wait(("ada", "victim"), now)


def test_delays_double_and_are_capped():
    roster = load("roster")
    throttle = roster.Throttle(free=2, first_delay=1.0, max_delay=8.0, forget_after=900)
    waits = []
    for _ in range(8):
        throttle.failed("key", 0.0)
        waits.append(throttle.wait("key", 0.0))
    assert waits == [0.0, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0]
    assert throttle.wait("key", 8.0) == 0.0 and throttle.wait("key", 7.0) == 1.0
    assert throttle.wait("key", 901.0) == 0.0 and "key" not in throttle.failures


@pytest.mark.parametrize(
    "peer_ip, peer_uid, forwarded_for, trusted, source",
    [
        ("127.0.0.1", 0, "192.0.2.7", (), "192.0.2.7"),  # through the proxy
        ("127.0.0.1", 0, "10.9.9.9, 192.0.2.7", (), "192.0.2.7"),  # a made-up first hop is ignored
        ("127.0.0.1", 0, "192.0.2.7, 10.0.0.2", ("10.0.0.2",), "192.0.2.7"),  # the school's proxy
        ("127.0.0.1", 1005, "192.0.2.7", (), "local account 1005"),  # a student's own process
        ("127.0.0.1", None, "192.0.2.7", (), "local account unknown"),
        ("127.0.0.1", 0, "", (), "127.0.0.1"),  # root at the console, straight to the hub
        ("127.0.0.1", 0, "not-an-address", (), "unreadable address"),
    ],
)
def test_the_login_source_is_what_the_proxy_saw_never_what_a_header_claims(
    peer_ip, peer_uid, forwarded_for, trusted, source
):
    roster = load("roster")
    assert roster.login_source(peer_ip, peer_uid, forwarded_for, trusted) == source


def test_a_sockets_owner_is_read_from_the_kernels_table(tmp_path):
    roster = load("roster")
    assert roster._tcp_table_address("0100007F:1F90") == ("127.0.0.1", 8080)
    table = tmp_path / "tcp"
    table.write_text(
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
        "   0: 0100007F:C350 0100007F:1F91 01 00000000:00000000 00:00000000 00000000  1005\n"
    )
    assert roster.socket_owner(("127.0.0.1", 50000), ("127.0.0.1", 8081), [table]) == 1005
    assert roster.socket_owner(("127.0.0.1", 50001), ("127.0.0.1", 8081), [table]) is None
    import socket

    with socket.socket() as server, socket.socket() as client:
        server.bind(("127.0.0.1", 0))
        server.listen()
        client.connect(server.getsockname())
        assert roster.socket_owner(client.getsockname(), server.getsockname()) == os.geteuid()


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


# ---- disk use and shared memory -------------------------------------------------------------------------


def test_disk_use_counts_blocks_once_and_never_follows_links(tmp_path):
    disk_use = load("disk_use")
    home = tmp_path / "home"
    home.mkdir()
    (home / "work.bin").write_bytes(b"x" * 1024 * 1024)
    os.link(home / "work.bin", home / "same-work.bin")  # one file, two names: counted once
    with open(home / "sparse.bin", "wb") as sparse:  # 100 MiB long, almost nothing on disk
        sparse.seek(100 * 1024 * 1024)
        sparse.write(b"x")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "huge.bin").write_bytes(b"y" * 4 * 1024 * 1024)
    (home / "link").symlink_to(elsewhere)  # not followed
    used = disk_use.usage(home)
    assert used.complete and used.files == 3
    assert 1024 * 1024 <= used.bytes < 1.5 * 1024 * 1024, used
    assert "Disk use: your files take 1.0 MiB" in disk_use.warning(used, 512 * 1024)


@pytest.mark.parametrize(
    "text, size", [("2G", 2 * 1024**3), ("500M", 500 * 1024**2), ("1.5GiB", 1536 * 1024**2)]
)
def test_disk_sizes_parse_or_say_how_to_write_them(text, size):
    disk_use = load("disk_use")
    assert disk_use.parse_size(text) == size
    with pytest.raises(ValueError, match="500M or 2G"):
        disk_use.parse_size("lots")


@root_only
def test_a_server_gets_a_bounded_dev_shm_of_its_own():
    import subprocess

    spawners = load("spawners")
    assert spawners.private_shared_memory_works() == ""
    seen = subprocess.run(
        ["sh", "-c", "touch /dev/shm/cdtest-own && stat -f -c '%b %S' /dev/shm"],
        preexec_fn=spawners.own_shared_memory(2 * 1024 * 1024),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert int(seen[0]) * int(seen[1]) == 2 * 1024 * 1024
    assert not Path("/dev/shm/cdtest-own").exists(), "the file went to the machine's /dev/shm"


@pytest.mark.class_tools  # reads the hub config
@root_only
@pytest.mark.parametrize(
    "settings, message",
    [
        ({"CLASS_MEM_LIMIT": "400M", "CLASS_SHM_SIZE": "500M"}, "must stay under CLASS_MEM_LIMIT"),
        ({"CLASS_DISK_WARNING": "plenty"}, "500M or 2G"),
    ],
)
def test_shared_memory_and_disk_settings_are_checked(monkeypatch, tmp_path, settings, message):
    with pytest.raises(SystemExit, match=message):
        load_hub_config(monkeypatch, tmp_path, **settings)


@pytest.mark.class_tools  # reads the hub config
@root_only
def test_shared_memory_defaults_to_a_quarter_of_the_limit(monkeypatch, tmp_path):
    if load("spawners").systemd_is_running():
        pytest.skip("with systemd the unit's TemporaryFileSystem sets it (not run here)")
    config = load_hub_config(monkeypatch, tmp_path, CLASS_MEM_LIMIT="400M")
    assert config.ClassLocalSpawner.shm_size == 100 * 1024**2
    assert config.ClassLocalSpawner.disk_warning == 2 * 1024**3


# ---- grading: what counts as tampering ----------------------------------------------------------------


@pytest.mark.class_tools  # class/grading.py extends nbgrader
@pytest.mark.parametrize(
    "answer, flagged",
    [
        ('{"nonce": "n0nce", "found": []}', []),
        ('{"nonce": "n0nce", "found": ["an AST transformer was added: x"]}', ["AST transformer"]),
        ('{"nonce": "guessed", "found": []}', ["did not answer"]),  # a stand-in for the guard
        (None, ["did not answer"]),  # the guard was deleted, or the kernel died
        ("not json", ["did not answer"]),
    ],
)
def test_the_guards_answer_counts_only_with_its_nonce(answer, flagged):
    grading = load("grading")
    execute = grading.GuardedExecute()
    execute.found, execute.nonce = {}, "n0nce"
    execute.ask = lambda code, expression: answer
    execute.check("before cell 3")
    assert len(execute.found) == len(flagged)
    assert all(word in line for word, line in zip(flagged, execute.found))


@pytest.mark.class_tools  # class/grading.py extends nbgrader
@pytest.mark.parametrize(
    "source, suspicious",
    [
        ("def compact(m, s, k):\n    return m", False),
        ("import re\nPATTERN = re.compile('x')", False),  # re.compile is not compile()
        ("checks.check_compact = lambda *a: True", True),
        ("get_ipython().input_transformers_cleanup.append(f)", True),
        ("import sys\nsys.meta_path.insert(0, F())", True),
        ("exec(code)", True),
        ("f.__code__ = g.__code__", True),
        ("del _context_desk_guard", True),
    ],
)
def test_the_static_scan_flags_answer_cells_that_reach_for_the_machinery(
    source, suspicious, tmp_path
):
    grading = load("grading")
    cell = {"cell_type": "code", "source": source, "metadata": {"nbgrader": {"solution": True}}}
    assert bool(grading.static_findings({"cells": [cell]}, tmp_path)) == suspicious
