"""Unit helpers for probe values.

Temperatures are kept in degrees Celsius everywhere inside the package and in
the ``celsius`` column of ``sensor_readings``. Soil moisture is a volumetric
percentage, 0 to 100.
"""


def f_to_c(fahrenheit):
    """78.8 -> 26.0"""
    return round((fahrenheit - 32.0) * 5.0 / 9.0, 1)


def c_to_f(celsius):
    return round(celsius * 9.0 / 5.0 + 32.0, 1)


def to_celsius(value, unit):
    """Normalise one probe temperature; ``unit`` is 'C' or 'F' as the probe says."""
    unit = (unit or "C").upper()
    if unit == "C":
        return round(float(value), 1)
    if unit == "F":
        return f_to_c(float(value))
    raise ValueError(f"unknown temperature unit {unit!r}")


def moisture_pct(raw, dry=520, wet=260):
    """Map a capacitive probe count to a percentage (dry soil gives a high count)."""
    raw = max(min(raw, dry), wet)
    return round(100 * (dry - raw) / (dry - wet))
