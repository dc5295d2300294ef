from datetime import datetime, timedelta, timezone

from greenhouse import irrigation
from greenhouse.beds import Bed

NOW = datetime(2025, 3, 12, 10, 0, tzinfo=timezone.utc)
BED = Bed(id=1, house="east", name="E3", valve_id="V003", crop="tomato", moisture_floor_pct=40)


def reading(celsius=22.0, moisture=50, age_minutes=5):
    return {"celsius": celsius, "moisture_pct": moisture, "taken_at": NOW - timedelta(minutes=age_minutes)}


def test_hot_air_is_detected():
    assert irrigation.too_hot(reading(celsius=33.0))
    assert not irrigation.too_hot(reading(celsius=24.0))


def test_dry_soil_is_detected():
    assert irrigation.too_dry(reading(moisture=30), BED.moisture_floor_pct)


def test_stale_reading_means_no_water(monkeypatch):
    monkeypatch.setattr(irrigation, "latest_climate", lambda bed_id: reading(age_minutes=45))
    assert irrigation.decide(BED, now=NOW) == 0


def test_missing_reading_means_no_water(monkeypatch):
    monkeypatch.setattr(irrigation, "latest_climate", lambda bed_id: None)
    assert irrigation.decide(BED, now=NOW) == 0
