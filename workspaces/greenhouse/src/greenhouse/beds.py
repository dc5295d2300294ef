"""Growing beds and the valves that feed them."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Bed:
    id: int
    house: str
    name: str
    valve_id: str
    crop: str
    moisture_floor_pct: int = 35
    window_start: int = 5    # hour of day, local time, when the pump may run
    window_end: int = 21

    @classmethod
    def from_row(cls, row):
        return cls(
            id=row["id"],
            house=row["house"],
            name=row["name"],
            valve_id=row["valve_id"],
            crop=row["crop"],
            moisture_floor_pct=row["moisture_floor_pct"],
            window_start=row["window_start"],
            window_end=row["window_end"],
        )

    @property
    def label(self):
        return f"{self.house}/{self.name} ({self.crop})"


# Typical floors by crop, used when a new bed is planted.
FLOOR_BY_CROP = {
    "tomato": 40,
    "pepper": 38,
    "basil": 45,
    "lettuce": 50,
    "seedlings": 55,
    "succulents": 15,
}
