"""Probe ingest: turn the payloads the probes send into ``sensor_readings`` rows.

Two probe models are in use:

* SoilSense M2 (west house, propagation house) sends Celsius.
* Thermo TH-20 (east house, installed February 2025) sends Fahrenheit and
  says so in its payload: ``{"t": 78.8, "u": "F", "m": 402}``.

Since release 1.4 every temperature is converted to Celsius here, before it is
stored; ``source_unit`` keeps what the probe reported.
"""

import json
import urllib.request
from datetime import datetime, timezone

from greenhouse import store, units

GATEWAY = "http://probe-gw.fernhill.lan:8060/latest"


def fetch_payloads(url=GATEWAY, timeout=4):
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        return json.load(resp)


def to_row(probe, payload, now=None):
    unit = payload.get("u", "C")
    return {
        "probe_id": probe["id"],
        "bed_id": probe["bed_id"],
        "celsius": units.to_celsius(payload["t"], unit),
        "source_unit": unit.upper(),
        "moisture_pct": units.moisture_pct(payload["m"]),
        "taken_at": now or datetime.now(timezone.utc),
    }


def collect():
    probes = {p["id"]: p for p in store.query("SELECT id, bed_id, model FROM probes WHERE active", ())}
    stored = 0
    for probe_id, payload in fetch_payloads().items():
        probe = probes.get(probe_id)
        if probe is None:
            continue
        store.insert("sensor_readings", **to_row(probe, payload))
        stored += 1
    return stored


def offsets_for(probe_id):
    row = store.query_one("SELECT model, offset_c FROM probes WHERE id = %s", (probe_id,))
    if row is None:
        return f"no probe {probe_id}"
    return f"{probe_id}: {row['model']}, offset {row['offset_c']:+.1f} C"
