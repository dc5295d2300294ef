from datetime import datetime, timezone

from greenhouse import sensors

PROBE = {"id": "P-E3-1", "bed_id": 7, "model": "TH-20"}
WHEN = datetime(2025, 3, 12, 9, 55, tzinfo=timezone.utc)


def test_fahrenheit_payload_is_stored_in_celsius():
    row = sensors.to_row(PROBE, {"t": 78.8, "u": "F", "m": 390}, now=WHEN)
    assert row["celsius"] == 26.0
    assert row["source_unit"] == "F"


def test_payload_without_unit_is_celsius():
    row = sensors.to_row(PROBE, {"t": 21.4, "m": 300}, now=WHEN)
    assert row["celsius"] == 21.4 and row["source_unit"] == "C"


def test_collect_skips_unknown_probes(fake_store, monkeypatch):
    monkeypatch.setattr(sensors, "fetch_payloads", lambda: {"P-X": {"t": 20, "m": 300}})
    assert sensors.collect() == 0
    assert fake_store.tables["sensor_readings"] == []
