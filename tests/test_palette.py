"""The one palette (stage/palette.py): WCAG contrast of every colour, the colour-vision simulations, verdicts.

Graphics (lines, blocks, markers) need 3:1 against the white page, words 4.5:1 -- and here both must still
hold after the greyscale and deuteranopia simulations, since a handout may be printed in black and white.
Every colour the palette names is used for words somewhere (zone names, labels, verdicts), so all get 4.5:1;
the grey of "system + tools" only ever fills a block, so it gets 3:1.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stage import palette

WORD_COLOURS = {
    "ink": palette.INK,
    "muted": palette.MUTED,
    "wall": palette.WALL,
    "good": palette.GOOD,
    **{f"zone {name}": zone.colour for name, zone in palette.ZONES.items()},
    "memory": palette.MEMORY.colour,
    **{f"event {kind}": colour for kind, (_, colour, _) in palette.EVENTS.items()},
    **{f"series {i}": series.colour for i, series in enumerate(palette.SERIES)},
}
GRAPHIC_COLOURS = {"system + tools": palette.FIXED.colour}


def test_the_worked_examples_of_wcag_contrast():
    """Black on white is (1 + 0.05) / (0 + 0.05) = 21; white on white 1; #767676 is the classic 4.54."""
    assert palette.contrast("#000000") == pytest.approx(21)
    assert palette.contrast("#FFFFFF") == pytest.approx(1)
    assert palette.contrast("#767676") == pytest.approx(4.54, abs=0.01)
    assert palette.contrast("#FFFFFF", "#000000") == palette.contrast("#000000", "#FFFFFF")


@pytest.mark.parametrize("name", WORD_COLOURS)
@pytest.mark.parametrize("vision", [None, "greyscale", "deuteranopia"])
def test_word_colours_keep_four_and_a_half_to_one(name, vision):
    colour = WORD_COLOURS[name] if vision is None else palette.simulate(WORD_COLOURS[name], vision)
    assert palette.contrast(colour) >= 4.5, (
        f"{name} {colour}: {palette.contrast(colour):.2f}:1 ({vision or 'colour'})"
    )


@pytest.mark.parametrize("vision", [None, "greyscale", "deuteranopia"])
def test_fills_keep_three_to_one(vision):
    for name, colour in GRAPHIC_COLOURS.items():
        seen = colour if vision is None else palette.simulate(colour, vision)
        assert palette.contrast(seen) >= 3, f"{name} {seen}: {palette.contrast(seen):.2f}:1"


def test_the_old_colours_fail_these_checks():
    """What the issue measured: the old tail orange and the old system-and-tools grey."""
    assert palette.contrast("#E69F00") == pytest.approx(2.25, abs=0.01)
    assert palette.contrast("#DDDDDD") == pytest.approx(1.36, abs=0.01)


def test_no_two_zones_look_alike_without_colour():
    hatches = [zone.hatch for zone in [*palette.ZONES.values(), palette.FIXED, palette.MEMORY]]
    assert len(set(hatches)) == len(hatches), "each zone has its own hatch"
    looks = [(series.marker, str(series.linestyle)) for series in palette.SERIES]
    assert len(set(s.marker for s in palette.SERIES)) == len(looks) and len(set(looks)) == len(
        looks
    )
    assert len({marker for marker, _, _ in palette.EVENTS.values()}) == len(palette.EVENTS)


def test_the_simulations_on_known_colours():
    """Grey stays grey; black and white stay put; pure red and pure green, told apart by colour alone,
    become two olive-yellows under deuteranopia -- the trap the line styles and labels are for."""
    for grey in ("#000000", "#777777", "#FFFFFF"):
        assert palette.simulate(grey, "greyscale") == grey
        assert palette.simulate(grey, "deuteranopia") == grey
    red, green = (
        palette.simulate("#FF0000", "deuteranopia"),
        palette.simulate("#00FF00", "deuteranopia"),
    )
    r, g, b = palette.rgb(red)
    assert b < 0.1 and abs(r - g) < 0.15, red
    assert palette.contrast(red, green) < 3, "red and green, the pair deuteranopia merges"
    with pytest.raises(ValueError, match="greyscale"):
        palette.simulate("#FF0000", "tritanopia")


@given(st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)))
def test_greyscale_keeps_luminance_and_contrast(channels):
    colour = "#" + "".join(f"{c:02X}" for c in channels)
    grey = palette.simulate(colour, "greyscale")
    assert len(set(palette.rgb(grey))) == 1
    assert palette.contrast(grey) == pytest.approx(palette.contrast(colour), rel=0.03, abs=0.03)


def test_verdicts_carry_a_symbol_a_word_and_a_colour():
    assert (
        palette.verdict_line(True, "the window slides", colour=False) == "✔ PASS: the window slides"
    )
    assert palette.verdict_line(False, "x", colour=False) == "✘ FAIL: x"
    assert palette.verdict_line(None, "x", colour=False) == "○ Not done yet: x"
    coloured = palette.verdict_line(False, "the rule fell off")
    assert coloured.startswith("\x1b[1;38;2;192;0;0m✘ FAIL\x1b[0m: ") and coloured.endswith(
        "the rule fell off"
    )
    shown = palette.verdict_bundle(True, "a <b> & c")
    assert shown["text/plain"] == "✔ PASS: a <b> & c"
    assert "font-size:16px" in shown["text/html"] and palette.GOOD in shown["text/html"]
    assert "a &lt;b&gt; &amp; c" in shown["text/html"], "the words are escaped"
