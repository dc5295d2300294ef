import pytest

from greenhouse import units


def test_fahrenheit_to_celsius():
    assert units.f_to_c(78.8) == 26.0
    assert units.f_to_c(32) == 0.0


def test_round_trip():
    for c in (-5.0, 0.0, 18.5, 31.0):
        assert units.f_to_c(units.c_to_f(c)) == c


def test_to_celsius_accepts_lowercase_unit():
    assert units.to_celsius(68, "f") == 20.0
    assert units.to_celsius(20, None) == 20.0


def test_unknown_unit_is_refused():
    with pytest.raises(ValueError):
        units.to_celsius(300, "K")


def test_moisture_is_clamped():
    assert units.moisture_pct(900) == 0
    assert units.moisture_pct(100) == 100
