"""The class hub with three real student accounts, started the README's way: who can log in, who runs as
whom, what a student can read, and limits that hold; then the hub attacked as a student would.

class/testbed.py does the set-up the README describes: the student copy with its own venv, the roster
(three students and one instructor get real Unix accounts and their own printed passwords), a
self-signed certificate, and the hub as root over HTTPS with class/jupyterhub_config.py. Every read
attempt below runs AS the student, in a kernel of that student's own server. The memory limit is set low
(400 MiB) so that a kernel can pass it in a second.

The attacks (issue 36), each from a student's own kernel or from another address: subscribing to a
classmate's kernel channels (with a kernel on TCP, Jupyter's default, as the control that is heard),
guessing a classmate's password to lock them out (from another address, from the server itself straight
to the hub's port, and from the same address as the victim's own browser), filling /dev/shm, getting the
server itself OOM-killed, and holding more kernels than the cap. Needs root (useradd, cgroups,
namespaces); skipped otherwise. The module shares one hub (about two and a half minutes here).
"""

import json
import os
import pwd
import time
from pathlib import Path

import pytest
from conftest import load_class as load

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: real Unix accounts and cgroups"),
]

STUDENTS = ["cdtest_ada", "cdtest_bob", "cdtest_cy"]
INSTRUCTOR = "cdtest_grace"
LIMIT_MIB = 400
DISK_WARNING_MIB = 50  # low, so that a 60 MiB file in a home is over it


@pytest.fixture(scope="module")
def room():
    testbed = load("testbed")
    server = testbed.install_server()
    with testbed.Classroom(
        server,
        STUDENTS,
        [INSTRUCTOR],
        mem_limit=f"{LIMIT_MIB}M",
        # a first login delay long enough that every guess after the fifth meets it, however slow
        # this machine is (the delays are checked to the second in tests/test_class_config.py)
        extra_env={"CLASS_DISK_WARNING": f"{DISK_WARNING_MIB}M", "CLASS_LOGIN_DELAY": "60"},
    ) as classroom:
        for name in STUDENTS + [INSTRUCTOR]:
            classroom.login(name)
        failures = []

        def start(name):
            try:
                classroom.start(name)
            except Exception as error:  # noqa: BLE001 -- reported below
                failures.append(error)

        import threading

        threads = [threading.Thread(target=start, args=(n,)) for n in STUDENTS]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not failures, failures[0]
        classroom.kernels = {}
        yield classroom


def kernel(room, name):
    """A kernel in the student's own server (one per student, opened once), and its websocket."""
    if name not in room.kernels:
        remote_run = load("remote_run")
        server = room.server_api(name)
        started = server.api("POST", "kernels", json={"name": "python3"})
        channels = remote_run.KernelChannels(server, started["id"])
        room.kernels[name] = (server, started["id"], channels)
    return room.kernels[name]


def run(room, name, code, timeout=60):
    _, _, channels = kernel(room, name)
    status, error = channels.execute(code, timeout=timeout)
    return status, error, channels.output


# ---- logging in ---------------------------------------------------------------------------------------


def test_each_student_logs_in_with_their_own_password_and_not_with_anothers(room):
    for name in STUDENTS:
        assert room.token_for(name, room.passwords[name]).status_code == 201
        for other in STUDENTS:
            if other != name:
                assert room.token_for(name, room.passwords[other]).status_code == 403, (
                    f"{name} logged in with {other}'s password"
                )
        assert room.token_for(name, "").status_code == 403
    assert room.token_for("cdtest_nobody", room.passwords[STUDENTS[0]]).status_code == 403


def test_the_login_page_works_over_https_with_a_cookie(room):
    import requests

    assert room.url.startswith("https://")
    verify = str(
        room.cert
    )  # per request: REQUESTS_CA_BUNDLE in the environment would beat Session.verify

    def form_login(name, password):
        session = requests.Session()
        assert session.get(room.url + "/hub/login", verify=verify).status_code == 200
        reply = session.post(
            room.url + "/hub/login",
            allow_redirects=False,
            verify=verify,
            data={"username": name, "password": password, "_xsrf": session.cookies.get("_xsrf")},
        )
        return reply, session

    reply, session = form_login(STUDENTS[1], room.passwords[STUDENTS[1]])
    assert reply.status_code == 302 and "jupyterhub-session-id" in session.cookies
    refused, _ = form_login(STUDENTS[1], room.passwords[STUDENTS[0]])
    assert refused.status_code == 403


def test_only_the_instructor_is_an_admin(room):
    assert room.request("GET", "/hub/api/users", room.tokens[INSTRUCTOR]).status_code == 200
    for name in STUDENTS:
        assert room.request("GET", "/hub/api/users", room.tokens[name]).status_code == 403
        assert (
            room.request("GET", f"/hub/api/users/{name}", room.tokens[name]).json()["admin"]
            is False
        )
    assert (
        room.request("GET", f"/hub/api/users/{INSTRUCTOR}", room.tokens[INSTRUCTOR]).json()["admin"]
        is True
    )


def test_a_students_token_does_not_open_anothers_server(room):
    ada, bob = STUDENTS[:2]
    reply = room.request("GET", f"/user/{bob}/api/status", room.tokens[ada], allow_redirects=False)
    assert reply.status_code in (302, 403), reply.status_code


class FromAddress:
    """A browser on another computer: requests sent from another loopback address (all of 127.0.0.0/8
    is this machine, and the proxy sees each as its own address)."""

    def __init__(self, address):
        from requests.adapters import HTTPAdapter

        class Adapter(HTTPAdapter):
            def init_poolmanager(self, *args, **kwargs):
                kwargs["source_address"] = (address, 0)
                super().init_poolmanager(*args, **kwargs)

        self.adapter = Adapter

    def form_login(self, room, name, password, headers=None, cookies=None):
        """The login page, as a new browser session at that address sends it (with these cookies)."""
        import requests

        session = requests.Session()
        session.mount("https://", self.adapter())
        session.cookies.update(cookies or {})
        session.headers.update(headers or {})
        assert session.get(room.url + "/hub/login", verify=str(room.cert)).status_code == 200
        reply = session.post(
            room.url + "/hub/login",
            data={"username": name, "password": password, "_xsrf": session.cookies.get("_xsrf")},
            allow_redirects=False,
            verify=str(room.cert),
            timeout=60,
        )
        reply.session = session
        return reply


# Run in bob's kernel: straight to the hub's own port (not through the proxy), claiming ada's address.
GUESS_DIRECTLY = """
import json, urllib.request, urllib.error
def guess():
    request = urllib.request.Request(
        "http://127.0.0.1:%d/hub/api/users/%s/tokens", method="POST",
        data=json.dumps({"auth": {"username": "%s", "password": "a-guess"}}).encode(),
        headers={"Content-Type": "application/json", "X-Forwarded-For": "127.0.0.1", "X-Real-Ip": "127.0.0.1"})
    try:
        return urllib.request.urlopen(request, timeout=30).status
    except urllib.error.HTTPError as error:
        return error.code
print("CODES", [guess() for _ in range(8)])
"""


def test_guessing_a_password_slows_the_guesser_and_never_locks_out_the_student(room):
    """A stranger at another address (claiming ada's in its headers) and bob on the server itself (talking
    to the hub's port directly) each guess ada's password eight times: after five, each of them waits;
    ada, from her own address, logs in at once."""
    ada, bob = STUDENTS[0], STUDENTS[1]
    stranger = FromAddress("127.0.0.2")
    claims = {"X-Forwarded-For": "127.0.0.1", "X-Real-Ip": "127.0.0.1"}
    codes = [stranger.form_login(room, ada, "a-guess", claims).status_code for _ in range(8)]
    assert codes[:5] == [403] * 5 and set(codes[5:]) == {429}, codes
    refused = stranger.form_login(
        room, ada, room.passwords[ada]
    )  # the right password waits there too
    assert refused.status_code == 429 and "Too many wrong passwords" in refused.text
    status, error, output = run(room, bob, GUESS_DIRECTLY % (room.hub_port, ada, ada), timeout=120)
    assert status == "ok", error
    assert json.loads(output.split("CODES", 1)[1]) == [403] * 8  # the token API says 403 to both
    bob_uid = pwd.getpwnam(bob).pw_uid
    assert f"Login for {ada} from local account {bob_uid} must wait" in room.log_tail(400)
    assert room.token_for(ada, room.passwords[ada]).status_code == 201
    assert f"Failed login for {ada} from 127.0.0.2" in room.log_tail(400)


def test_a_classmate_at_the_same_address_cannot_slow_a_student_who_logged_in_there_before(room):
    """A class behind one NAT shares one address. cy's own browser logged in there before (the hub gave
    it a signed cookie saying so); a classmate at that address guesses cy's password until they must
    wait; cy, in her browser, logs in at once."""
    cy = STUDENTS[2]
    classroom = FromAddress("127.0.0.4")
    first = classroom.form_login(room, cy, room.passwords[cy])
    assert first.status_code == 302
    device = {"context-desk-device": first.session.cookies.get("context-desk-device")}
    assert device["context-desk-device"], "the hub did not remember cy's browser"
    codes = [classroom.form_login(room, cy, "a-guess").status_code for _ in range(7)]
    assert codes[:5] == [403] * 5 and set(codes[5:]) == {429}, codes
    assert classroom.form_login(room, cy, room.passwords[cy], cookies=device).status_code == 302
    forged = {
        "context-desk-device": "cy|forged"
    }  # a cookie the hub did not sign counts for nothing
    assert classroom.form_login(room, cy, room.passwords[cy], cookies=forged).status_code == 429


# ---- who runs as whom --------------------------------------------------------------------------------


def test_no_student_process_runs_as_root_and_each_runs_as_its_student(room):
    for name in STUDENTS:
        kernel(room, name)  # a kernel too, so it is checked as well
        processes = room.server_processes(name)
        assert len(processes) >= 2, f"{name}: server and kernel expected, found {processes}"
        uid = pwd.getpwnam(name).pw_uid
        for process in processes:
            uids = process.uids()
            assert 0 not in (uids.real, uids.effective, uids.saved), (
                f"{name}'s {process.cmdline()} runs as root"
            )
            assert uids.real == uid, f"{name}'s {process.name()} runs as uid {uids.real}, not {uid}"
        assert not any("--allow-root" in " ".join(p.cmdline()) for p in processes)


def test_homes_are_private(room):
    for name in STUDENTS + [INSTRUCTOR]:
        home = Path(pwd.getpwnam(name).pw_dir)
        assert home.stat().st_mode & 0o777 == 0o700, f"{home} is {oct(home.stat().st_mode)}"


# ---- what a student can read ---------------------------------------------------------------------------

PROBE = """
import json, os
def attempt(path, listing=False):
    try:
        os.listdir(path) if listing else open(path, 'rb').read(16)
        return "read"
    except PermissionError:
        return "denied"
    except FileNotFoundError:
        return "missing"
print("PROBE " + json.dumps({label: attempt(path, listing) for label, path, listing in %s}))
"""


def probe(room, name, targets):
    status, error, output = run(room, name, PROBE % repr(targets))
    assert status == "ok", error
    line = next(line for line in output.splitlines() if line.startswith("PROBE "))
    return json.loads(line[len("PROBE ") :])


def test_a_student_cannot_read_another_students_home_or_the_hubs_secrets(room):
    ada, bob, cy = STUDENTS
    status, error, _ = run(
        room, bob, "import os; open(os.path.expanduser('~/notes.txt'), 'w').write('bob only')"
    )
    assert status == "ok", error
    bob_server = room.server_processes(bob)[0].pid
    targets = [
        ("own home", str(Path(pwd.getpwnam(ada).pw_dir)), True),  # the control: this works
        ("own environment", "/proc/self/environ", False),
        ("bob's home", str(Path(pwd.getpwnam(bob).pw_dir)), True),
        ("bob's notes", str(Path(pwd.getpwnam(bob).pw_dir) / "notes.txt"), False),
        ("the instructor's home", str(Path(pwd.getpwnam(INSTRUCTOR).pw_dir)), True),
        ("the hub's state folder", str(room.state), True),
        ("the hub's database", str(room.state / "jupyterhub.sqlite"), False),
        ("the cookie secret", str(room.state / "jupyterhub_cookie_secret"), False),
        ("the roster's password hashes", str(room.state / "roster.json"), False),
        ("the hub's environment", f"/proc/{room.process.pid}/environ", False),
        ("bob's server's environment", f"/proc/{bob_server}/environ", False),
        ("the certificate's key", str(room.folder / "hub.key"), False),
    ]
    for path in (
        room.state / "jupyterhub.sqlite",
        room.state / "jupyterhub_cookie_secret",
        room.state / "roster.json",
    ):
        assert path.exists(), f"{path} should exist for this test to mean something"
    seen = probe(room, ada, targets)
    assert seen.pop("own home") == "read" and seen.pop("own environment") == "read", (
        "the probe itself is broken"
    )
    assert seen == {label: "denied" for label in seen}, seen


def test_the_hubs_environment_holds_no_student_readable_secret(room):
    """The hub's /proc environ is closed (above); a student's own server gets only its own token."""
    ada = STUDENTS[0]
    status, error, output = run(
        room,
        ada,
        "import os; print(sorted(k for k in os.environ if 'TOKEN' in k or "
        "'SECRET' in k or 'PASSWORD' in k or k.startswith('CLASS_')))",
    )
    assert status == "ok", error
    names = eval(output.strip())  # noqa: S307 -- the printed list of names above
    assert "CONFIGPROXY_AUTH_TOKEN" not in names and not any(
        n.startswith("CLASS_") and n != "CLASS_MEM_LIMIT_BYTES" for n in names
    ), names


def test_the_classrooms_own_files_are_private(room):
    """The hub's log and the roster file sit in a 0700 folder of root's; the folder students' servers must
    read (server settings, the exchange) holds nothing else."""
    assert room.folder.stat().st_mode & 0o777 == 0o700 and room.folder.stat().st_uid == 0
    assert sorted(p.name for p in room.shared.iterdir()) == ["exchange", "server-files"]
    seen = probe(
        room,
        STUDENTS[2],
        [
            ("the server settings", str(room.shared / "server-files" / "config"), True),
            ("the hub's log", str(room.folder / "jupyterhub.log"), False),
            ("the roster file", str(room.folder / "roster.txt"), False),
            ("the classroom folder", str(room.folder), True),
        ],
    )
    assert seen.pop("the server settings") == "read", "the probe itself is broken"
    assert seen == {label: "denied" for label in seen}, seen


# ---- kernels only their student can reach -----------------------------------------------------------------

# Run in bob's kernel: what a classmate can find of ada's kernels, and what they say while she works.
SNIFF = r"""
import json, os, socket, threading, time, zmq

def listening_tcp_ports(uid):
    # /proc/net/tcp lists every listening port on the machine with its owner's uid, to every account
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in open(table).read().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and int(fields[7]) == uid:  # 0A: LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return sorted(ports)

def others_kernel_sockets():
    # /proc/net/unix lists the path of every bound Unix socket, whoever owns it
    mine = os.path.expanduser("~")
    paths = {line.split()[7] for line in open("/proc/net/unix").read().splitlines()[1:]
             if len(line.split()) >= 8 and "kernel-" in line.split()[7]}
    return sorted(p for p in paths if not p.startswith(mine))

sniffed = {"tcp": [], "ipc": {}, "heard": []}

def sniff(uid, seconds):
    subscriber = zmq.Context.instance().socket(zmq.SUB)
    subscriber.setsockopt(zmq.SUBSCRIBE, b"")
    for port in listening_tcp_ports(uid):
        subscriber.connect(f"tcp://127.0.0.1:{port}")
        sniffed["tcp"].append(port)
    for path in others_kernel_sockets():
        subscriber.connect(f"ipc://{path}")
        probe = socket.socket(socket.AF_UNIX)
        try:
            probe.connect(path)
            sniffed["ipc"][path] = "connected"
        except OSError as error:
            sniffed["ipc"][path] = type(error).__name__
        finally:
            probe.close()
    deadline = time.time() + seconds
    while time.time() < deadline:
        if subscriber.poll(100):
            sniffed["heard"].append(b" ".join(subscriber.recv_multipart()).decode("utf-8", "replace"))
    subscriber.close(linger=0)

sniffer = threading.Thread(target=sniff, args=(%d, %d))
sniffer.start()
"""

# Run in ada's kernel: a kernel on TCP, as Jupyter starts them by default (the set-up before this fix).
TCP_KERNEL = """
from jupyter_client import KernelManager
tcp_kernel = KernelManager(transport="tcp", ip="127.0.0.1")
tcp_kernel.start_kernel()
tcp_client = tcp_kernel.blocking_client()
tcp_client.start_channels()
tcp_client.wait_for_ready(timeout=60)
print("TCP PORTS", sorted(tcp_kernel.ports))
"""


def listening_ports(uid):
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and int(fields[7]) == uid:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def test_a_classmate_cannot_hear_a_kernel_but_could_hear_one_on_tcp(room):
    """bob finds ada's kernels the way the issue did (/proc/net/tcp, and /proc/net/unix for socket
    files) and subscribes to all of them while ada prints a secret in her own kernel (IPC, as the hub
    starts them) and another in a kernel she started on TCP (Jupyter's default: the control)."""
    ada, bob = STUDENTS[:2]
    ada_uid = pwd.getpwnam(ada).pw_uid
    status, error, output = run(room, ada, TCP_KERNEL, timeout=90)
    assert status == "ok", error
    tcp_ports = json.loads(output.split("TCP PORTS", 1)[1].strip())
    status, error, _ = run(room, bob, SNIFF % (ada_uid, 10))
    assert status == "ok", error
    time.sleep(1)  # bob's subscriptions settle (ZeroMQ connects in the background)
    secrets = (
        "import time\n"
        "tcp_client.execute(\"import time\\nfor _ in range(25): print('ada-tcp-secret'); time.sleep(0.2)\")\n"
        "for _ in range(25): print('ada-ipc-secret'); time.sleep(0.2)\n"
    )
    status, error, _ = run(room, ada, secrets, timeout=60)
    assert status == "ok", error
    status, error, output = run(
        room, bob, "sniffer.join(); print('SNIFFED', json.dumps(sniffed))", timeout=60
    )
    assert status == "ok", error
    sniffed = json.loads(output.split("SNIFFED", 1)[1])
    heard = " ".join(sniffed["heard"])

    assert set(tcp_ports) <= set(sniffed["tcp"]), "bob did not even find the TCP kernel's ports"
    assert "ada-tcp-secret" in heard, "the control failed: a TCP kernel should be readable by bob"
    assert sniffed["ipc"], "bob should see ada's kernel socket paths in /proc/net/unix"
    assert set(sniffed["ipc"].values()) == {"PermissionError"}, sniffed["ipc"]
    assert "ada-ipc-secret" not in heard, "bob read ada's kernel"

    # ada's own kernel runs over IPC, its sockets in her private runtime folder
    status, error, output = run(
        room,
        ada,
        "import json, os\nfrom ipykernel.connect import get_connection_file\n"
        "info = json.load(open(get_connection_file()))\n"
        "folder = os.path.dirname(get_connection_file())\n"
        "pipe = get_ipython().kernel.iopub_thread._pipe_port\n"
        "print('KERNEL', json.dumps([info['transport'], info['ip'], oct(os.stat(folder).st_mode & 0o777), pipe]))\n"
        "tcp_client.stop_channels(); tcp_kernel.shutdown_kernel(now=True)",
    )
    assert status == "ok", error
    transport, socket_base, mode, pipe_port = json.loads(output.split("KERNEL", 1)[1])
    assert transport == "ipc" and mode == "0o700", (transport, mode)
    assert socket_base.startswith(str(Path(pwd.getpwnam(ada).pw_dir)) + "/"), socket_base

    # With the TCP kernel gone, ada listens on two TCP ports: her server's, behind the hub's login (below),
    # and her kernel's IOPub pipe, a ZeroMQ PULL socket that only receives (from the kernel's own forked
    # children, each message keyed with 16 random bytes): bob subscribed to it above and heard nothing.
    server = room.server_processes(ada)[0]
    server_ports = {c.laddr.port for c in server.net_connections("tcp") if c.status == "LISTEN"}
    assert len(server_ports) == 1 and listening_ports(ada_uid) == server_ports | {pipe_port}
    assert pipe_port in sniffed["tcp"]
    port = server_ports.pop()
    status, error, output = run(
        room,
        bob,
        "import os, urllib.request, urllib.error\n"
        "def ask(headers):\n"
        f"    request = urllib.request.Request('http://127.0.0.1:{port}/user/{ada}/api/kernels', headers=headers)\n"
        "    try:\n"
        "        return urllib.request.urlopen(request, timeout=10).status\n"
        "    except urllib.error.HTTPError as error:\n"
        "        return error.code\n"
        "print('ASKED', ask({'Authorization': 'token ' + os.environ['JUPYTERHUB_API_TOKEN']}), ask({}))",
    )
    assert status == "ok", error
    with_bobs_token, without = output.split("ASKED", 1)[1].split()
    assert with_bobs_token == "403" and without in ("302", "403"), output


def test_the_kernel_cap_holds_even_when_every_kernel_is_busy(room):
    """cy may hold two kernels. Opening a third shuts the idle one down; when both are busy running
    cells, the third is refused with a message, and starts once one of them is idle again."""
    cy = STUDENTS[2]
    server, first, _ = kernel(room, cy)
    for kernel_id in server.api("GET", "kernels"):
        if kernel_id["id"] != first:
            server.api("DELETE", f"kernels/{kernel_id['id']}")
    second = server.api("POST", "kernels", json={"name": "python3"})["id"]
    remote_run = load("remote_run")
    channels = {first: room.kernels[cy][2], second: remote_run.KernelChannels(server, second)}
    import threading

    busy = [
        threading.Thread(target=channels[k].execute, args=("import time; time.sleep(8)", 60))
        for k in (first, second)
    ]
    for thread in busy:
        thread.start()
    deadline = time.monotonic() + 20
    while {server.api("GET", f"kernels/{k}")["execution_state"] for k in channels} != {"busy"}:
        assert time.monotonic() < deadline, "the two kernels never became busy"
        time.sleep(0.2)
    with pytest.raises(RuntimeError, match="409.*none of them is idle"):
        server.api("POST", "kernels", json={"name": "python3"})
    assert len(server.api("GET", "kernels")) == 2
    for thread in busy:
        thread.join()
    third = server.api("POST", "kernels", json={"name": "python3"})["id"]
    running = {k["id"] for k in server.api("GET", "kernels")}
    assert len(running) == 2 and third in running
    channels[second].socket.close()
    if (
        first not in running
    ):  # the least recently used one went; later tests get a kernel of their own
        channels[first].socket.close()
        room.kernels.pop(cy)


# ---- formgrader is for instructors -----------------------------------------------------------------------


def lab_page_config(room, name):
    page = room.request("GET", f"/user/{name}/lab", room.tokens[name])
    assert page.status_code == 200
    start = page.text.index('id="jupyter-config-data"')
    body = page.text[page.text.index(">", start) + 1 : page.text.index("</script>", start)]
    return json.loads(body)


def test_formgrader_is_off_in_a_students_server(room):
    ada = STUDENTS[0]
    reply = room.request("GET", f"/user/{ada}/formgrader", room.tokens[ada], allow_redirects=False)
    assert reply.status_code == 404, reply.status_code
    disabled = lab_page_config(room, ada)["disabledExtensions"]
    assert (
        "@jupyter/nbgrader:formgrader" in disabled
        and "@jupyter/nbgrader:create-assignment" in disabled
    )
    assert "@jupyter/nbgrader:assignment-list" not in disabled  # students still fetch and submit


# ---- the memory limit ------------------------------------------------------------------------------------


def test_a_kernel_past_the_memory_limit_is_stopped_told_why_and_the_others_go_on(room):
    ada, bob, cy = STUDENTS
    for name in (bob, cy):
        status, error, _ = run(
            room, name, "import time; started = time.time(); work = list(range(1000))"
        )
        assert status == "ok", error
    bob_kernel = [p for p in room.server_processes(bob) if "ipykernel" in " ".join(p.cmdline())]
    cy_kernel = [p for p in room.server_processes(cy) if "ipykernel" in " ".join(p.cmdline())]
    ada_before = {p.pid for p in room.server_processes(ada) if "ipykernel" in " ".join(p.cmdline())}

    # ada allocates one and a half times her limit, page by page (bytearray fills it with zeros)
    status, error, _ = run(
        room, ada, f"hog = bytearray({LIMIT_MIB * 3 // 2} * 1024 * 1024)", timeout=60
    )
    assert status == "died", f"ada's kernel should have been stopped, got {status} {error}"

    # the others' kernels are the same processes and still answer
    for name, before in ((bob, bob_kernel), (cy, cy_kernel)):
        assert all(p.is_running() for p in before)
        status, error, _ = run(room, name, "assert len(work) == 1000")
        assert status == "ok", f"{name}: {error}"

    # ada's server restarted her kernel; the first cell she runs there says why
    server, kernel_id, old_channels = room.kernels[ada]
    old_channels.socket.close()
    remote_run = load("remote_run")
    deadline = time.monotonic() + 60
    states = []
    said = ""  # what every try printed: a try that timed out under load may have run the cell
    while True:
        states.append(server.api("GET", f"kernels/{kernel_id}")["execution_state"])
        channels = remote_run.KernelChannels(server, kernel_id)
        room.kernels[ada] = (server, kernel_id, channels)
        status, error, output = run(room, ada, "print('after')", timeout=10)
        said += output
        if status == "ok":
            break
        assert time.monotonic() < deadline, (
            f"ada's kernel did not come back: {states}, {status} {error}"
        )
        channels.socket.close()
        time.sleep(1)
    assert "Memory limit" in said and f"{LIMIT_MIB} MiB" in said, said
    assert "hog" not in run(room, ada, "print(sorted(globals()))")[2]
    ada_after = {p.pid for p in room.server_processes(ada) if "ipykernel" in " ".join(p.cmdline())}
    assert ada_after and not (ada_after & ada_before), (
        "a new kernel process should have replaced the stopped one"
    )
    # the next cell says nothing more
    assert "Memory limit" not in run(room, ada, "print('again')")[2]


def forget_kernel(room, name):
    if name in room.kernels:
        try:
            room.kernels.pop(name)[2].socket.close()
        except Exception:  # noqa: BLE001 -- the server behind it may be gone already
            pass


def wait_until_stopped(room, name, timeout=60):
    deadline = time.monotonic() + timeout
    while room.request("GET", f"/hub/api/users/{name}", room.tokens[name]).json()["servers"]:
        assert time.monotonic() < deadline, f"{name}'s server did not stop:\n{room.log_tail()}"
        time.sleep(0.5)


FILL_SHM = """
import errno, os
written, problem = 0, None
try:
    with open("/dev/shm/cdtest-hog", "wb") as out:
        for _ in range(300):
            out.write(b"x" * 1024 * 1024)
            out.flush()
            written += 1
except OSError as error:
    problem = errno.errorcode[error.errno]
disk = os.statvfs("/dev/shm")
print("SHM", written, problem, disk.f_blocks * disk.f_frsize)
"""


def test_shared_memory_is_the_servers_own_bounded_and_gone_after_a_restart(room):
    """cy writes 300 MiB into /dev/shm (with a 400 MiB limit, this used to get her server OOM-killed at
    every start until root deleted the file): her /dev/shm is her server's own, a quarter of her limit,
    the write stops there, and a restart leaves nothing behind; she logs in and runs a cell. (She also
    leaves a file in her home over the disk-use warning: her next server's first cell says so.)"""
    cy = STUDENTS[2]
    uid = pwd.getpwnam(cy).pw_uid
    status, error, output = run(room, cy, FILL_SHM, timeout=120)
    assert status == "ok", error
    written, problem, size = output.split("SHM", 1)[1].split()
    assert problem == "ENOSPC" and int(size) == LIMIT_MIB // 4 * 1024 * 1024, output
    assert int(written) <= LIMIT_MIB // 4
    assert not Path("/dev/shm/cdtest-hog").exists(), "cy's /dev/shm is the machine's"
    assert run(room, cy, "print('still here')")[0] == "ok"
    # and a file in her home that takes more disk than the class's (test) warning allows
    big = f"open('big.bin', 'wb').write(bytes({DISK_WARNING_MIB + 10} * 1024 * 1024))"
    assert run(room, cy, big)[0] == "ok"

    forget_kernel(room, cy)
    reply = room.request("DELETE", f"/hub/api/users/{cy}/server", room.tokens[cy])
    assert reply.status_code in (202, 204), reply.text
    wait_until_stopped(room, cy)
    spawners = load("spawners")
    assert not spawners.Cgroups().folder("memory", cy).exists(), "cy's group was not removed"
    import psutil

    left = [p for p in psutil.process_iter(["uids", "status"]) if p.info["uids"].real == uid]
    assert not [p for p in left if p.info["status"] != psutil.STATUS_ZOMBIE], [
        (p.pid, p.info["status"], p.cmdline(), p.ppid()) for p in left
    ]

    room.start(cy)
    status, error, output = run(room, cy, "import os; print('LEFT', os.listdir('/dev/shm'))")
    assert status == "ok", error
    assert output.split("LEFT", 1)[1].strip() == "[]", output
    assert "Disk use: your files take" in output, output  # said once, in the first cell
    assert f"{room.log_tail(100)}".count(f"{cy}'s home holds") == 1
    status, error, output = run(room, cy, "import os; os.remove('big.bin'); print('removed')")
    assert status == "ok" and "Disk use" not in output, output


def test_a_server_the_oom_killer_took_says_so_at_the_next_login(room):
    """cy's server, not a kernel, is what the OOM killer takes (she marks it first in line, as a long
    list of open notebooks in one server would): the hub notices, clears up, and her next server's
    first cell says what happened; the one after says nothing more."""
    cy = STUDENTS[2]
    hog = (
        "import os\n"
        "open(f'/proc/{os.getppid()}/oom_score_adj', 'w').write('1000')  # the server goes first\n"
        f"hog = bytearray({LIMIT_MIB * 3 // 2} * 1024 * 1024)\n"
    )
    try:
        status, _, _ = run(room, cy, hog, timeout=60)
    except Exception as error:  # noqa: BLE001 -- the websocket goes with the server
        status = type(error).__name__
    assert status != "ok"
    forget_kernel(room, cy)
    wait_until_stopped(room, cy)
    assert f"{cy}'s server was stopped by the OOM killer" in room.log_tail(200)
    room.start(cy)
    status, error, output = run(room, cy, "print('back')")
    assert status == "ok", error
    assert "your server itself was stopped" in output and f"{LIMIT_MIB} MiB" in output, output
    assert "stopped" not in run(room, cy, "print('again')")[2]


def test_the_students_memory_limit_is_the_kernels_own(room):
    spawners = load("spawners")
    for name in STUDENTS:
        groups = spawners.Cgroups()
        folder = groups.folder("memory", name) if groups.version == 1 else groups.folder("", name)
        limit_file = "memory.limit_in_bytes" if groups.version == 1 else "memory.max"
        assert int((folder / limit_file).read_text()) == LIMIT_MIB * 1024 * 1024
        members = {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}
        assert {p.pid for p in room.server_processes(name)} <= members
