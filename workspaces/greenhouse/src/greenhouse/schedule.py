"""Which beds may be watered now, and in what order.

Only one valve is open at a time, because the pump cannot hold pressure on two
lines. Beds are served house by house, driest first, so a short window still
reaches the beds that need it most.
"""

from datetime import datetime, timezone

from greenhouse import store
from greenhouse.beds import Bed

HOUSE_ORDER = {"propagation": 0, "east": 1, "west": 2}


def all_beds():
    rows = store.query("SELECT * FROM beds WHERE retired_at IS NULL ORDER BY house, name", ())
    return [Bed.from_row(r) for r in rows]


def local_hour(now):
    # HACK: daylight saving is ignored here, so the night pump window drifts by one hour twice a year
    return (now.hour + 1) % 24


def window_open(bed, now):
    hour = local_hour(now)
    return bed.window_start <= hour < bed.window_end


def beds_in_order(now=None):
    now = now or datetime.now(timezone.utc)
    open_beds = [b for b in all_beds() if window_open(b, now)]
    return sorted(open_beds, key=lambda b: (HOUSE_ORDER.get(b.house, 9), b.moisture_floor_pct * -1, b.name))
