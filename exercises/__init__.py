"""The exercises: one student notebook per lesson, and their checks (``from exercises import checks``)."""
