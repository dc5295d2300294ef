"""One palette for every picture -- the plots, the desk view, the slides and the verdicts -- defined once.

Nothing here carries meaning by colour alone:

* **contrast**: every colour that draws a line, a block or a marker meets WCAG's 3:1 against the white page,
  every colour that writes words meets 4.5:1 (``contrast``; ``tests/test_palette.py`` checks them all);
* **a second channel**: each zone of the desk has its own hatch, each run or strategy its own marker and
  line style (``SERIES``), so a greyscale print still tells them apart;
* **words**: the plots label their lines directly, and a verdict is a symbol and a word beside its colour.

``simulate(colour, "greyscale")`` and ``simulate(colour, "deuteranopia")`` show what a colour becomes on a
black-and-white handout and for the most common colour blindness; the figure tests render through both.
Left out: dark themes (every picture is drawn on white), and other colour blindnesses than red-green.
"""

from __future__ import annotations

import textwrap
from html import escape
from typing import NamedTuple

PAGE = "#FFFFFF"  # every picture is drawn on white
INK = "#222222"  # words
MUTED = "#595959"  # secondary words (7:1 on white)
WALL = "#C00000"  # the window, the threshold, an overflow, a FAIL: the red of a wall
GOOD = "#006400"  # still on the desk, a PASS


class Zone(NamedTuple):
    """How one kind of message looks on the desk: a fill, the class's name for it, a hatch for greyscale."""

    colour: str
    words: str
    hatch: str = ""


ZONES = {
    "head": Zone("#0072B2", "head (request)"),
    "summary": Zone("#007A5A", "summary", "//"),
    "tail": Zone("#AD5000", "verbatim tail", "\\\\"),
    "notice": Zone("#AA4499", "dropped notice", "xx"),
    "cleared": Zone("#555555", "cleared result", ".."),
    "middle": Zone("#7A6A00", "middle", "++"),
}
FIXED = Zone("#888888", "system + tools", "|")  # on the desk every lap, before any message
MEMORY = Zone("#3A6EA5", "CLAUDE.md", "--")  # the notebook beside the desk (lesson 05)

EVENTS = {  # lap kind -> (marker, colour, words): the shape alone names the event
    "drop": ("<", "#AD5000", "dropped oldest"),
    "compact": ("v", "#007A5A", "compacted"),
    "fold": ("D", "#007A5A", "folded"),
    "clear": ("s", "#555555", "cleared results"),
    "stuck": ("^", "#AA4499", "cannot compact"),
    "summary_failed": ("P", "#AA4499", "summary failed"),
}


class Series(NamedTuple):
    """One of several runs (or strategies) on one plot: a colour, a marker and a line style of its own."""

    colour: str
    marker: str
    linestyle: object


SERIES = [
    Series("#0072B2", "o", "-"),
    Series("#AD5000", "s", (0, (6, 2))),
    Series("#007A5A", "^", (0, (1, 1.5))),
    Series("#AA4499", "D", (0, (6, 2, 1, 2))),
    Series("#222222", "v", (0, (3, 1, 1, 1, 1, 1))),
    Series("#7A6A00", "P", (0, (10, 3))),
]


# ---- measuring colours -------------------------------------------------------------------------------


def rgb(colour: str) -> tuple[float, float, float]:
    """Example: rgb("#FF8000") -> (1.0, 0.502, 0.0)"""
    value = colour.lstrip("#")
    return tuple(int(value[i : i + 2], 16) / 255 for i in (0, 2, 4))


def hex_of(channels) -> str:
    """Example: hex_of((1.0, 0.5, 0.0)) -> "#FF8000" """
    return "#" + "".join(f"{round(min(max(c, 0.0), 1.0) * 255):02X}" for c in channels)


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _encoded(c: float) -> float:
    c = min(max(c, 0.0), 1.0)
    return c * 12.92 if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def luminance(colour: str) -> float:
    """WCAG's relative luminance: 0 for black, 1 for white."""
    r, g, b = (_linear(c) for c in rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(colour: str, background: str = PAGE) -> float:
    """WCAG contrast ratio, from 1 (none) to 21 (black on white). Example: contrast("#767676") -> 4.54"""
    light, dark = sorted((luminance(colour), luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


# Machado, Oliveira & Fernandes (2009), full deuteranopia, applied to linear RGB.
DEUTERANOPIA = (
    (0.367322, 0.860646, -0.227968),
    (0.280085, 0.672501, 0.047413),
    (-0.011820, 0.042940, 0.968881),
)


def simulate(colour: str, vision: str) -> str:
    """What ``colour`` looks like in ``vision``: "greyscale" (a black-and-white print) or "deuteranopia".

    Example: simulate("#AD5000", "greyscale") -> "#6F6F6F"; simulate("#FF0000", "deuteranopia") -> olive
    """
    linear = [_linear(c) for c in rgb(colour)]
    if vision == "greyscale":
        grey = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
        return hex_of([_encoded(grey)] * 3)
    if vision == "deuteranopia":
        return hex_of(_encoded(sum(m * c for m, c in zip(row, linear))) for row in DEUTERANOPIA)
    raise ValueError(f"Unknown vision {vision!r}: choose 'greyscale' or 'deuteranopia'.")


# ---- verdicts -----------------------------------------------------------------------------------------

VERDICTS = {
    True: ("✔", "PASS", GOOD),
    False: ("✘", "FAIL", WALL),
    None: ("○", "Not done yet", MUTED),
}


def verdict_line(passed: bool | None, words: str, colour: bool = True) -> str:
    """One verdict line: a symbol and the word first, then what was found. ``passed=None``: not done yet.

    The symbol and the word carry the verdict; the colour (an ANSI code, which JupyterLab shows as the
    palette's own green or red, bold) is a third signal. ``colour=False`` for plain text (a log, a file).
    Example: verdict_line(True, "the window slides") -> "✔ PASS: the window slides" (in bold green)
    """
    symbol, word, ink = VERDICTS[passed]
    if not colour:
        return f"{symbol} {word}: {words}"
    r, g, b = (round(c * 255) for c in rgb(ink))
    return f"\x1b[1;38;2;{r};{g};{b}m{symbol} {word}\x1b[0m: {words}"


def verdict_bundle(passed: bool | None, words: str) -> dict:
    """The verdict as a display bundle: HTML at 16 px (symbol and word bold, in colour), plain text beside it.

    Printed text in JupyterLab is 13 px; this is big enough for a projector. Show it with
    ``IPython.display.display(verdict_bundle(True, "..."), raw=True)``; a terminal or a log gets the plain line.
    Example: verdict_bundle(False, "the rule fell off")["text/plain"] -> "✘ FAIL: the rule fell off"
    """
    symbol, word, ink = VERDICTS[passed]
    html = (
        f"<div style='font-size:16px; line-height:1.4'><span style='color:{ink}; font-weight:bold'>"
        f"{symbol} {word}</span>: {escape(words)}</div>"
    )
    return {"text/html": html, "text/plain": verdict_line(passed, words, colour=False)}


# ---- printed lines ------------------------------------------------------------------------------------

PRINT_WIDTH = 80  # characters: what a 1280-pixel projector shows of a printed line at 15 px, file browser open


def wrap_printed(text: str, indent: str = "", width: int = PRINT_WIDTH) -> str:
    """``text`` broken between words into lines of at most ``width`` characters, for ``print``.

    Each line of ``text`` is wrapped on its own; lines after the first of each get ``indent``. A word
    longer than the whole line (a long path) is left whole, never cut.
    Example: wrap_printed("ok   " + "word " * 20, indent="     ") -> two lines, the second indented 5
    """
    return "\n".join(
        textwrap.fill(
            line,
            width,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        )
        if len(line) > width
        else line
        for line in text.split("\n")
    )
