"""Driver for the eight-channel relay board on the pump-room controller.

The board takes one line per command over serial: ``OPEN <ch>`` and
``SHUT <ch>``. Valve ids map to channels through the ``valves`` table.
Every run is written to ``valve_runs`` so the hourly limit can be enforced.
"""

import time
from datetime import datetime, timezone

import serial

from greenhouse import settings, store

_port = None


def board():
    global _port
    if _port is None:
        _port = serial.Serial(settings.load().relay_port, 9600, timeout=2)
    return _port


def channel_for(valve_id):
    row = store.query_one("SELECT channel FROM valves WHERE id = %s", (valve_id,))
    if row is None:
        raise KeyError(f"unknown valve {valve_id}")
    return row["channel"]


def pulse(valve_id, seconds):
    ch = channel_for(valve_id)
    started = datetime.now(timezone.utc)
    board().write(f"OPEN {ch}\n".encode("ascii"))
    try:
        time.sleep(seconds)
    finally:
        board().write(f"SHUT {ch}\n".encode("ascii"))
    store.insert("valve_runs", valve_id=valve_id, started_at=started, seconds=seconds)
