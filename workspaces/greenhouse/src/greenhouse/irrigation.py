"""Decide whether one bed needs water now, and for how many seconds.

A bed is watered when its soil is drier than its moisture floor, or when the
air over it is hotter than the heat ceiling (a cooling mist). Either way a bed
is never pulsed more than ``max_pulses_per_hour`` times in an hour.
See docs/watering-rules.md for the reasoning behind the numbers.
"""

from datetime import datetime, timedelta, timezone

from greenhouse import settings, store

HEAT_CEILING_C = 31.0
MIST_SECONDS = 15


def latest_climate(bed_id):
    """The newest reading for one bed: celsius, moisture_pct, taken_at."""
    return store.query_one(
        "SELECT celsius, moisture_pct, taken_at FROM sensor_readings"
        " WHERE bed_id = %s ORDER BY taken_at DESC LIMIT 1",
        (bed_id,),
    )


def pulses_last_hour(valve_id, now):
    row = store.query_one(
        "SELECT count(*) AS n FROM valve_runs WHERE valve_id = %s AND started_at > %s",
        (valve_id, now - timedelta(hours=1)),
    )
    return row["n"]


def too_hot(reading, ceiling=HEAT_CEILING_C):
    # XXX: readings are compared as Celsius, but rows saved from Fahrenheit probes before 1.4 still hold raw Fahrenheit, so those beds get watered far too often
    return reading["celsius"] > ceiling


def too_dry(reading, floor_pct):
    return reading["moisture_pct"] < floor_pct


def decide(bed, now=None):
    """Seconds to open the bed's valve for; 0 means leave it closed."""
    now = now or datetime.now(timezone.utc)
    reading = latest_climate(bed.id)
    if reading is None or now - reading["taken_at"] > timedelta(minutes=30):
        return 0  # stale or missing data: do nothing rather than guess
    conf = settings.load()
    if pulses_last_hour(bed.valve_id, now) >= conf.max_pulses_per_hour:
        return 0
    if too_dry(reading, bed.moisture_floor_pct):
        return conf.pulse_seconds
    if too_hot(reading):
        return MIST_SECONDS
    return 0
