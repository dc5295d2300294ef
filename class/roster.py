"""The class roster: one Unix account and one password per person, and the hub's login that checks them.

Run as root on the class server, by the instructor, from the class venv:

    .venv/bin/python class/roster.py add roster.txt      # accounts + passwords for everyone new in the file
    .venv/bin/python class/roster.py reset ada           # a new password for one person (lost it, or leaked it)
    .venv/bin/python class/roster.py remove ada          # ada can no longer log in (her account and home stay)
    .venv/bin/python class/roster.py list                # who is on the roster, and who is an instructor

The roster file has one person a line: a Unix user name, then the word `instructor` for instructors.
`#` starts a comment. Example:

    # 7:00 class, spring term
    ada
    bob
    grace instructor

`add` creates each new person's Unix account with `useradd` (their own group, a home of their own that only
they can open, mode 0700), makes a random password, and prints each new name with its password ONCE, for
the instructor to hand out on paper. Only a salted scrypt hash is kept, in `roster.json` in the hub's state
folder (root only, 0600), which the hub's login (`RosterAuthenticator`, below) reads at every login, so
people added later can log in without restarting the hub. Instructors are the hub's admins; nobody becomes
one by signing up (there is no sign-up).

Wrong passwords slow down whoever sends them, never the person they name: the login counts failures per
name AND source (the address the browser connected from, or the local account for a process on this
server), lets five through, then makes each next try from that source wait twice as long as the one
before (1 s, 2 s, 4 s, ... at most 5 minutes). A stranger guessing at ada's password from elsewhere only
slows themselves; ada logs in at once from her own address. The source is the address configurable-http-
proxy saw (the last entry of the X-Forwarded-For it appends), trusted only when the connection to the hub
really comes from a root process (the proxy): a student's process that talks to the hub's port directly,
with whatever headers, is counted as its own local account. A browser that has logged in as ada before
holds a cookie the hub signed saying so; its tries count as ada's own browser, apart from anyone else at
the same address (a class behind one NAT shares one). `reset NAME` (a new password) also clears every
delay on that name; instructors can be limited to the addresses in CLASS_INSTRUCTOR_NETWORKS.

Refused, with a message: names that are not plain lowercase Unix names, and names of accounts that exist
but were not made by this roster (root, www-data, a staff member's login), so the roster cannot hand a
password for someone else's account to a student.

Left out: students changing their own password (reset it instead), single sign-on (use the school's
authenticator: class/README.md), and expiry of passwords.
"""

from __future__ import annotations

import argparse
import base64
import grp
import hashlib
import hmac
import ipaddress
import json
import os
import pwd
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path

NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
ROLES = ("student", "instructor")
INSTRUCTORS_GROUP = "context-desk-instructors"  # may read the course and the collected work
ROSTER_FILE = "roster.json"
DEVICE_COOKIE = "context-desk-device"  # signed by the hub: "this browser logged in as NAME before"
DEFAULT_STATE = "/var/lib/context-desk-class"
# scrypt's cost: about 50 ms a login on a small server, so a guessing script gets a few tries a second at most.
SCRYPT = {"n": 2**14, "r": 8, "p": 1}
WORDS = (
    "amber",
    "basil",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "grove",
    "harbor",
    "indigo",
    "juniper",
    "kettle",
    "lumen",
    "maple",
    "nectar",
    "orbit",
    "pebble",
    "quartz",
    "raven",
    "sable",
    "tundra",
    "umber",
    "violet",
    "willow",
    "yarrow",
    "zephyr",
    "anchor",
    "birch",
    "comet",
    "dune",
    "falcon",
    "garnet",
    "heron",
)


class RosterError(ValueError):
    """Bad input to the roster (a bad name, an account that is not ours): the message says what to do."""


# ---- passwords ----------------------------------------------------------------------------------


def new_password() -> str:
    """Three words and four digits, e.g. 'cedar-orbit-willow-4821': easy to read aloud, about 41 bits."""
    return "-".join(secrets.choice(WORDS) for _ in range(3)) + f"-{secrets.randbelow(10_000):04d}"


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=32, **SCRYPT)
    return "scrypt$" + base64.b64encode(salt).decode() + "$" + base64.b64encode(digest).decode()


def password_matches(password: str, stored: str) -> bool:
    try:
        kind, salt, digest = stored.split("$")
    except ValueError:
        return False
    if kind != "scrypt":
        return False
    got = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), dklen=32, **SCRYPT)
    return hmac.compare_digest(got, base64.b64decode(digest))


# ---- the roster file and the stored roster -------------------------------------------------------


def read_roster_file(path: Path) -> dict[str, str]:
    """{name: role} from the instructor's roster file; RosterError names the first bad line."""
    if not path.exists():
        raise RosterError(f"{path}: no such roster file")
    people: dict[str, str] = {}
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        name = parts[0]
        role = parts[1] if len(parts) > 1 else "student"
        if len(parts) > 2 or role not in ROLES:
            raise RosterError(
                f"{path}, line {number}: {raw.strip()!r}: write a name, then optionally 'instructor'"
            )
        check_name(name, where=f"{path}, line {number}")
        if name in people:
            raise RosterError(f"{path}, line {number}: {name} is on the roster twice")
        people[name] = role
    if not people:
        raise RosterError(f"{path}: nobody on the roster (one user name a line)")
    return people


def check_name(name: str, where: str = "") -> None:
    if not NAME.match(name):
        raise RosterError(
            f"{where + ': ' if where else ''}{name!r} is not a Unix user name this class can use: "
            "lowercase letters, digits, '_' and '-', starting with a letter, at most 32 characters"
        )


class Roster:
    """roster.json in the hub's state folder: {name: {"role": ..., "hash": ..., "uid": ...}}, root-only."""

    def __init__(self, state: Path):
        self.state = Path(state)
        self.path = self.state / ROSTER_FILE

    def load(self) -> dict[str, dict]:
        if not self.path.exists():
            return {}
        return json.loads(self.path.read_text())

    def save(self, people: dict[str, dict]) -> None:
        make_private_folder(self.state)
        temporary = self.path.with_suffix(".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(people, out, indent=1, sort_keys=True)
        os.replace(temporary, self.path)  # a crash mid-write leaves the old roster whole


def make_private_folder(path: Path) -> None:
    """The hub's state folder: owned by whoever runs the hub (root), nobody else may list or read it."""
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, 0o700)


# ---- Unix accounts -------------------------------------------------------------------------------


def ensure_account(name: str, known_uid: int | None, home_base: Path) -> int:
    """Create `name`'s account (own group, home 0700), or check an existing one is the roster's own."""
    try:
        existing = pwd.getpwnam(name)
    except KeyError:
        existing = None
    if existing is not None:
        if known_uid is None or existing.pw_uid != known_uid:
            raise RosterError(
                f"an account named {name} exists already (uid {existing.pw_uid}) and was not made by "
                "this roster: pick another name for this person, so nobody gets a password for "
                "an account that is not theirs"
            )
    else:
        subprocess.run(
            [
                "useradd",
                "--create-home",
                "--home-dir",
                str(home_base / name),
                "--user-group",
                "--shell",
                "/bin/bash",
                name,
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        existing = pwd.getpwnam(name)
    if existing.pw_uid == 0:
        raise RosterError(f"{name} has uid 0: a class account may never be root")
    os.chmod(
        existing.pw_dir, 0o700
    )  # useradd's mode depends on the distribution's HOME_MODE: be sure
    return existing.pw_uid


def ensure_group_member(name: str, group: str) -> None:
    try:
        members = grp.getgrnam(group).gr_mem
    except KeyError:
        subprocess.run(["groupadd", "--system", group], check=True, capture_output=True, text=True)
        members = []
    if name not in members:
        subprocess.run(
            ["usermod", "--append", "--groups", group, name],
            check=True,
            capture_output=True,
            text=True,
        )


def add(roster: Roster, people: dict[str, str], home_base: Path) -> dict[str, str]:
    """Accounts and passwords for everyone new; {name: password} of the new ones (the only copy)."""
    stored = roster.load()
    for name in people:  # check every name before creating anything
        if name not in stored:
            try:
                existing = pwd.getpwnam(name)
            except KeyError:
                continue
            raise RosterError(
                f"an account named {name} exists already (uid {existing.pw_uid}) and was not made "
                "by this roster: pick another name for this person"
            )
    passwords = {}
    for name, role in people.items():
        entry = stored.get(name)
        uid = ensure_account(name, entry["uid"] if entry else None, home_base)
        if role == "instructor":
            ensure_group_member(name, INSTRUCTORS_GROUP)
        if entry is None:
            passwords[name] = new_password()
            stored[name] = {"role": role, "uid": uid, "hash": hash_password(passwords[name])}
        else:
            entry["role"] = role
        roster.save(stored)
    return passwords


def reset(roster: Roster, name: str) -> str:
    stored = roster.load()
    if name not in stored:
        raise RosterError(f"{name} is not on the roster (see `roster.py list`)")
    password = new_password()
    stored[name]["hash"] = hash_password(password)
    roster.save(stored)
    return password


def remove(roster: Roster, name: str) -> None:
    stored = roster.load()
    if stored.pop(name, None) is None:
        raise RosterError(f"{name} is not on the roster (see `roster.py list`)")
    roster.save(stored)


# ---- who is trying to log in, and how long they must wait ----------------------------------------------


class Throttle:
    """Failures per key (a name and a source together): the first `free` are free, then each try must
    wait twice as long after the last failure as the one before, up to `max_delay` seconds. A key is
    forgotten `forget_after` seconds after its last failure, or at once when it logs in.

    Example (free=2, first_delay=1): failures at t=0, 0, 0 -> wait(t=0) is 1.0; after a 4th, 2.0."""

    def __init__(self, free=5, first_delay=1.0, max_delay=300.0, forget_after=900.0):
        self.free, self.first_delay = free, first_delay
        self.max_delay, self.forget_after = max_delay, forget_after
        self.failures: dict[
            tuple, tuple[int, float, str]
        ] = {}  # key -> (count, last, password hash)

    def wait(self, key, now: float, stored_hash: str = "") -> float:
        """Seconds this key must still wait before its next try is even checked (0: go ahead)."""
        count, last, against = self.failures.get(key, (0, 0.0, stored_hash))
        if now - last > self.forget_after or against != stored_hash:  # old, or a new password since
            self.failures.pop(key, None)
            return 0.0
        if count < self.free:
            return 0.0
        delay = min(self.first_delay * 2 ** (count - self.free), self.max_delay)
        return max(0.0, last + delay - now)

    def failed(self, key, now: float, stored_hash: str = "") -> None:
        count, _, _ = self.failures.get(key, (0, 0.0, stored_hash))
        self.failures[key] = (count + 1, now, stored_hash)
        if len(self.failures) > 10_000:  # a flood of made-up names: drop what is old
            for old in [k for k, (_, t, _) in self.failures.items() if now - t > self.forget_after]:
                del self.failures[old]

    def succeeded(self, key) -> None:
        self.failures.pop(key, None)


def _tcp_table_address(text: str) -> tuple[str, int]:
    """'0100007F:1F90' -> ('127.0.0.1', 8080): /proc/net/tcp writes addresses as 32-bit words in host order."""
    address, port = text.split(":")
    raw = bytes.fromhex(address)
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    ip = ipaddress.ip_address(words)
    if ip.version == 6 and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return str(ip), int(port, 16)


def socket_owner(local: tuple[str, int], remote: tuple[str, int], tables=None) -> int | None:
    """The uid of the process whose TCP socket runs from `local` to `remote` on this machine, or None.

    The kernel says who owns every socket (/proc/net/tcp), so a process cannot pretend to be another."""
    for table in tables or ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if _tcp_table_address(fields[1]) == (
                str(local[0]),
                int(local[1]),
            ) and _tcp_table_address(fields[2]) == (str(remote[0]), int(remote[1])):
                return int(fields[7])
    return None


def login_source(peer_ip: str, peer_uid: int | None, forwarded_for: str, trusted=()) -> str:
    """Who is trying to log in, in words a stranger cannot choose for someone else.

    The hub sits behind configurable-http-proxy, which appends the address it saw to X-Forwarded-For.
    That header is believed only when the connection comes from root (the proxy): its last entry (less
    any of the school's own proxies in `trusted`) is the browser's address. A process of another
    account talking to the hub directly is that local account, whatever it writes in its headers.

    Example: ("127.0.0.1", 0, "10.0.0.9, 192.0.2.7") -> "192.0.2.7";
             ("127.0.0.1", 1005, "192.0.2.7") -> "local account 1005"."""
    if peer_uid is not None and peer_uid != 0:
        return f"local account {peer_uid}"
    if peer_uid is None and ipaddress.ip_address(peer_ip).is_loopback:
        return "local account unknown"
    hops = [hop.strip() for hop in (forwarded_for or "").split(",") if hop.strip()]
    for hop in reversed(hops):
        if hop not in trusted:
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return "unreadable address"
    return peer_ip


def within(address: str, networks) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(network, strict=False) for network in networks)


# ---- the hub's login -------------------------------------------------------------------------------


def _authenticator_class():
    """Built only when JupyterHub is importable (the hub, the tests); the CLI above does not need it."""
    from jupyterhub.auth import Authenticator
    from tornado import web
    from traitlets import Float, Integer, List, Unicode

    class RosterAuthenticator(Authenticator):
        """Log in with your own name and the password the instructor handed you (class/roster.py).

        The roster is re-read at every login, so `roster.py add/reset/remove` take effect at once.
        Instructors on the roster are admins; nobody else is, and there is no sign-up. Wrong passwords
        are throttled per name and source together (`Throttle`, `login_source` above): after
        `free_failures`, each next try from that source for that name waits twice as long, so guessing
        is slow and nobody can keep someone else out.
        """

        state = Unicode(
            DEFAULT_STATE, config=True, help="the hub's state folder, where roster.json is"
        )
        free_failures = Integer(5, config=True, help="wrong passwords let through before delays")
        first_delay = Float(1.0, config=True, help="seconds of the first delay; each next doubles")
        max_delay = Float(300.0, config=True, help="the longest delay, in seconds")
        forget_after = Float(900.0, config=True, help="failures older than this are forgotten")
        trusted_proxies = List(
            Unicode(), config=True, help="the school's reverse proxies in front of the hub, if any"
        )
        instructor_networks = List(
            Unicode(),
            config=True,
            help="if set, instructors log in only from these networks (e.g. 10.1.0.0/16)",
        )
        device_days = Integer(120, config=True, help="how long a browser is known as its student's")

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.throttle = Throttle(
                self.free_failures, self.first_delay, self.max_delay, self.forget_after
            )

        def people(self) -> dict[str, dict]:
            return Roster(Path(self.state)).load()

        def check_allowed(self, username, authentication=None):
            return username in self.people()

        def is_admin(self, handler, authentication):
            entry = self.people().get(authentication["name"], {})
            return entry.get("role") == "instructor"

        def source_of(self, handler) -> str:
            """Where this login comes from (see login_source); "console" when there is no request."""
            if handler is None:
                return "console"
            request = handler.request
            stream = getattr(request.connection, "stream", None)
            try:
                peer = stream.socket.getpeername()[:2]
                mine = stream.socket.getsockname()[:2]
            except (AttributeError, OSError):
                return f"unverified {request.remote_ip}"
            uid = socket_owner(peer, mine)
            return login_source(
                peer[0], uid, request.headers.get("X-Forwarded-For", ""), self.trusted_proxies
            )

        def known_browser(self, handler) -> str:
            """The name this browser logged in as before, from the hub's signed cookie ('' if none)."""
            try:
                value = handler.get_signed_cookie(DEVICE_COOKIE, max_age_days=self.device_days)
            except Exception:  # noqa: BLE001 -- no request, no cookie, or a forged one: unknown
                return ""
            return value.decode() if value else ""

        def remember_browser(self, handler, name: str) -> None:
            try:
                handler.set_signed_cookie(
                    DEVICE_COOKIE,
                    name,
                    expires_days=self.device_days,
                    httponly=True,
                    secure=handler.request.protocol == "https",
                )
            except Exception:  # noqa: BLE001 -- an API call without a browser: nothing to remember
                pass

        async def authenticate(self, handler, data):
            name = (data.get("username") or "").strip()
            password = data.get("password") or ""
            source = self.source_of(handler)
            if name and handler is not None and self.known_browser(handler) == name:
                source = f"{name}'s own browser"  # counted apart from everyone else at that address
            entry = self.people().get(name)
            stored = entry["hash"] if entry else ""
            now = time.monotonic()
            key = (name, source)
            wait = self.throttle.wait(key, now, stored)
            if wait > 0:
                self.log.warning("Login for %s from %s must wait %.0f s more", name, source, wait)
                raise web.HTTPError(
                    429,
                    f"Too many wrong passwords for {name} from your address: try again in "
                    f"{wait:.0f} seconds, or ask your instructor for a new password.",
                )
            if (
                entry is not None
                and entry.get("role") == "instructor"
                and self.instructor_networks
                and not within(source, self.instructor_networks)
            ):
                self.log.warning("Instructor login for %s refused from %s", name, source)
                return None  # not counted: nobody outside may even try an instructor's password
            # Hash even for unknown names, so the answer's timing does not tell who is on the roster.
            checked = stored or hash_password(secrets.token_hex(8))
            if password and password_matches(password, checked) and entry is not None:
                self.throttle.succeeded(key)
                if handler is not None:
                    self.remember_browser(handler, name)
                return {"name": name, "admin": entry.get("role") == "instructor"}
            self.throttle.failed(key, now, stored)
            self.log.warning("Failed login for %s from %s", name, source)
            return None

    return RosterAuthenticator


def __getattr__(attribute):  # `roster.RosterAuthenticator`, built on first use
    if attribute == "RosterAuthenticator":
        cls = _authenticator_class()
        globals()["RosterAuthenticator"] = cls
        return cls
    raise AttributeError(attribute)


# ---- the command line ----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--state",
        type=Path,
        default=Path(os.environ.get("CLASS_STATE", DEFAULT_STATE)),
        help=f"the hub's state folder (CLASS_STATE; default {DEFAULT_STATE})",
    )
    parser.add_argument(
        "--home-base", type=Path, default=Path("/home"), help="where homes are made (/home)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "add", help="accounts and passwords for everyone new in a roster file"
    ).add_argument("roster_file", type=Path)
    commands.add_parser("reset", help="a new password for one person").add_argument("name")
    commands.add_parser("remove", help="take one person off the roster").add_argument("name")
    commands.add_parser("list", help="who is on the roster")
    args = parser.parse_args(argv)
    roster = Roster(args.state)
    try:
        if args.command in ("add", "reset", "remove") and os.geteuid() != 0:
            raise RosterError(
                "run this as root (sudo): it creates Unix accounts and writes the hub's state folder"
            )
        if args.command == "add":
            passwords = add(roster, read_roster_file(args.roster_file), args.home_base)
            if not passwords:
                print("Nobody new on the roster: no passwords made.")
            else:
                print("Hand each person their own line (printed once, stored only as a hash):")
                width = max(len(name) for name in passwords)
                for name, password in passwords.items():
                    print(f"  {name.ljust(width)}  {password}")
        elif args.command == "reset":
            print(f"{args.name}  {reset(roster, args.name)}")
        elif args.command == "remove":
            remove(roster, args.name)
            print(
                f"{args.name} can no longer log in (the account and home stay; `userdel -r {args.name}` removes them)"
            )
        else:
            for name, entry in sorted(roster.load().items()):
                print(f"{name}  {entry['role']}")
    except (RosterError, subprocess.CalledProcessError) as problem:
        detail = (
            problem.stderr.strip()
            if isinstance(problem, subprocess.CalledProcessError)
            else str(problem)
        )
        print(f"roster: {detail}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
