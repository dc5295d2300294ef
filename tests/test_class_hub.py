"""The class hub with three real student accounts, started the README's way: who can log in, who runs as
whom, what a student can read, and a memory limit that holds.

class/testbed.py does the set-up the README describes: the student copy with its own venv, the roster
(three students and one instructor get real Unix accounts and their own printed passwords), a
self-signed certificate, and the hub as root over HTTPS with class/jupyterhub_config.py. Every read
attempt below runs AS the student, in a kernel of that student's own server. The memory limit is set low
(400 MiB) so that a kernel can pass it in a second. Needs root (useradd, cgroups); skipped otherwise.
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


@pytest.fixture(scope="module")
def room():
    testbed = load("testbed")
    server = testbed.install_server()
    with testbed.Classroom(server, STUDENTS, [INSTRUCTOR], mem_limit=f"{LIMIT_MIB}M") as classroom:
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
    while True:
        states.append(server.api("GET", f"kernels/{kernel_id}")["execution_state"])
        channels = remote_run.KernelChannels(server, kernel_id)
        room.kernels[ada] = (server, kernel_id, channels)
        status, error, output = run(room, ada, "print('after')", timeout=10)
        if status == "ok":
            break
        assert time.monotonic() < deadline, (
            f"ada's kernel did not come back: {states}, {status} {error}"
        )
        channels.socket.close()
        time.sleep(1)
    assert "Memory limit" in output and f"{LIMIT_MIB} MiB" in output, output
    assert "hog" not in run(room, ada, "print(sorted(globals()))")[2]
    ada_after = {p.pid for p in room.server_processes(ada) if "ipykernel" in " ".join(p.cmdline())}
    assert ada_after and not (ada_after & ada_before), (
        "a new kernel process should have replaced the stopped one"
    )
    # the next cell says nothing more
    assert "Memory limit" not in run(room, ada, "print('again')")[2]


def test_the_students_memory_limit_is_the_kernels_own(room):
    spawners = load("spawners")
    for name in STUDENTS:
        groups = spawners.Cgroups()
        folder = groups.folder("memory", name) if groups.version == 1 else groups.folder("", name)
        limit_file = "memory.limit_in_bytes" if groups.version == 1 else "memory.max"
        assert int((folder / limit_file).read_text()) == LIMIT_MIB * 1024 * 1024
        members = {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}
        assert {p.pid for p in room.server_processes(name)} <= members
