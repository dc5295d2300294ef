"""Runtime settings, read once from the environment.

GREENHOUSE_TARGET picks the database section in ops/environments.ini
(``stage`` or ``live``). Nothing here has a default for the target on
purpose: a tick that does not know where it is should not start.
"""

import configparser
import os
from dataclasses import dataclass
from pathlib import Path

ENV_FILE = Path(__file__).resolve().parents[2] / "ops" / "environments.ini"


@dataclass(frozen=True)
class Settings:
    target: str
    dsn: str
    relay_port: str
    tick_minutes: int = 5
    pulse_seconds: int = 40
    max_pulses_per_hour: int = 3


def load():
    target = os.environ.get("GREENHOUSE_TARGET")
    if not target:
        raise RuntimeError("set GREENHOUSE_TARGET to a section of ops/environments.ini")
    parser = configparser.ConfigParser()
    parser.read(ENV_FILE)
    if target not in parser:
        raise RuntimeError(f"no section [{target}] in {ENV_FILE.name}")
    section = parser[target]
    dsn = (
        f"host={section['host']} port={section.getint('port')} "
        f"dbname={section['dbname']} user={section['user']}"
    )
    return Settings(
        target=target,
        dsn=dsn,
        relay_port=section.get("relay_port", "/dev/ttyUSB0"),
        pulse_seconds=section.getint("pulse_seconds", 40),
    )
