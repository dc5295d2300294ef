"""The dashboard's picture: the token plot above the desk view, one PNG per lap, fast enough to animate.

``Picture(...).png(laps, shown)`` draws lap ``shown`` of a run with the pieces of ``stage.plots``. Its size is
made for a projector at 1280 x 720 with JupyterLab's file browser open: 600 x 480 pixels, text of 15 and
17 pixels, shown at its own size beside the summary panel. ``scale`` makes everything bigger at once --
text, lines and markers -- for a bigger screen (``scale=1.4``: 840 x 672).

Why it is fast: the axes, ticks, legends, the window and threshold lines, the key and the visibility lines
stay put while a run plays, so they are drawn once into a background; each lap draws only its own lines,
markers, labels, blocks and headline on a copy of it (matplotlib calls this blitting), and the pixels are
packed into a PNG directly. ``benchmarks/redraw.py`` measures it against drawing the same figure plainly.
Left out: vector output (a lap is a PNG), and redrawing only the part of the picture that changed.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from harness.laps import Lap
from harness.model import CLASS_WINDOW
from harness.tokens import Meter
from stage.palette import INK
from stage.plots import (
    DPI,
    FONT,
    TITLE,
    default_meter,
    desk_blocks,
    desk_frame,
    desk_words,
    end_labels,
    line_ends,
    plot_frame,
    plot_legend,
    plot_lines,
    round_up,
    update_desk,
    update_lines,
    visibility_lines,
)

WIDTH, HEIGHT = 600, 480  # pixels at scale 1
PLOT = (
    0.14,
    0.50,
    0.68,
    0.42,
)  # the token plot's axes, as fractions of the picture: left, bottom, width, height
DESK = (0.015, 0.0, 0.97, 0.405)  # the desk view's axes


class Picture:
    """The token plot above the desk view, as one PNG per lap.

    Example: Picture(rule=task.rule).png(run.laps, 5) -> laps 1-5 on the plot, the desk as sent at lap 5.
    """

    def __init__(
        self,
        threshold: int | None = None,
        rule: str | None = None,
        request: str | None = None,
        meter: Meter | None = None,
        label: str = "",
        scale: float = 1.0,
    ):
        self.threshold, self.rule, self.request, self.label = threshold, rule, request, label
        self.meter = meter or default_meter()
        self.figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI * scale)
        self.canvas = FigureCanvasAgg(self.figure)
        self._layout, self._background = None, None

    @property
    def scale(self) -> float:
        return self.figure.dpi / DPI

    @scale.setter
    def scale(self, value: float):
        if value != self.scale:
            self.figure.set_dpi(DPI * value)
            self._layout = None  # everything is drawn again, bigger

    def png(self, laps: list[Lap], shown: int) -> bytes:
        """Lap ``shown`` of ``laps`` (0: nothing sent yet). ``laps`` (all known so far) sets the axes."""
        self.canvas.restore_region(self._background_for(laps, shown))
        for artist in self._show(laps, shown):
            self.figure.draw_artist(artist)
        return encode_png(self.canvas)

    def still(self, laps: list[Lap], shown: int) -> Figure:
        """The same picture as one ordinary matplotlib figure, every artist in it (to save, test or compare)."""
        self._background_for(laps, shown)
        self._show(laps, shown)
        return self.figure

    def _background_for(self, laps: list[Lap], shown: int):
        lap = laps[shown - 1] if shown else None
        self._prepare(laps, visibility_lines(lap, self.rule, self.request) if lap else [])
        return self._background

    def _show(self, laps: list[Lap], shown: int) -> list:
        """The lap's own artists -- made once per background, moved to this lap -- in drawing order."""
        update_lines(self._lines, laps[:shown])
        if not shown:  # nothing sent yet: an empty plot, an empty desk
            for artist in self._labels + self._desk:
                artist.set_visible(False)
            return self._lines
        ends = line_ends({self.label: laps[:shown]})
        if not self._labels:
            self._labels = end_labels(self.plot_ax, ends, group=list(self._fixed))
        for label, end in zip(self._labels, ends):
            label.move_to(end[0], end[1])  # from this lap's own values, whatever was drawn before
            label.set_visible(True)
        if not self._desk:
            self._desk = desk_blocks(
                self.desk_ax, laps[shown - 1], self.meter, zones=self._layout.zones
            )
        for artist in self._desk:
            artist.set_visible(True)  # update_desk hides the notice pointer when there is none
        update_desk(self._desk, laps[shown - 1], self.meter)
        return self._lines + self._labels + self._desk

    def _prepare(self, laps: list[Lap], words: list[str]):
        """Redraw the background only when it changes: a new run, a live run outgrew the axes, new words."""
        layout = _Layout.of(laps, words, self.threshold, self.label, self.scale)
        if layout == self._layout:
            return
        self.figure.clear()
        self.plot_ax, self.desk_ax = self.figure.add_axes(PLOT), self.figure.add_axes(DESK)
        run = {self.label: laps}
        self._lines = plot_lines(
            self.plot_ax, run
        )  # the legend reads them; the background leaves them out
        plot_frame(self.plot_ax, layout.window, self.threshold)
        self.plot_ax.set_xlabel("")
        self.plot_ax.annotate(
            "lap",
            (1, 0),
            xycoords="axes fraction",
            xytext=(7, -5),
            textcoords="offset points",
            va="top",
            fontsize=FONT,
            color=INK,
        )
        self.plot_ax.set_xlim(0.5, layout.laps_room + 0.5)
        self.plot_ax.set_ylim(0, layout.tokens_room)
        plot_legend(self.plot_ax, run)
        fixed = end_labels(self.plot_ax, line_ends({}, layout.window, self.threshold))
        if self.label:
            self.figure.text(
                PLOT[0], 0.995, self.label, va="top", fontsize=TITLE, fontweight="bold", color=INK
            )
        desk_frame(
            self.desk_ax, layout.window, layout.desk_room, self.threshold, layout.zones, lines=2
        )
        desk_words(self.desk_ax, words, self.threshold)
        for artist in self._lines:
            artist.set_visible(False)
        self.canvas.draw()
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)
        for artist in self._lines:
            artist.set_visible(True)
        self._fixed, self._labels, self._desk, self._layout = fixed, [], [], layout


@dataclass(frozen=True)
class _Layout:
    """Everything the background depends on. Axes are rounded up, so a live run rarely outgrows them."""

    window: int
    threshold: int | None
    label: str
    scale: float
    kinds: frozenset  # which markers the legend names
    zones: frozenset  # which zones the key names
    words: tuple  # the visibility lines
    laps_room: int  # the plot's x axis, in laps
    tokens_room: float  # its y axis, in tokens
    desk_room: float  # the desk's drawn length, in tokens

    @classmethod
    def of(
        cls, laps: list[Lap], words: list[str], threshold: int | None, label: str, scale: float
    ) -> "_Layout":
        window = laps[0].window if laps else CLASS_WINDOW
        highest = max(
            [lap.raw_tokens for lap in laps] + [lap.assembled_tokens for lap in laps] + [window]
        )
        return cls(
            window,
            threshold,
            label,
            scale,
            frozenset(lap.kind for lap in laps),
            frozenset(zone for lap in laps for zone in lap.zones),
            tuple(words),
            round_up(len(laps) + 1, 5),
            round_up(highest * 1.08, window / 2),
            max([window] + [lap.assembled_tokens for lap in laps]) * 1.02,
        )


def encode_png(canvas: FigureCanvasAgg) -> bytes:
    """The canvas's pixels as a PNG, written directly: rows unfiltered, deflated at the fastest level.

    Pillow's PNG writer picks a filter for every row, which costs more than drawing the lap; a plot is
    mostly flat colour, so plain deflate packs it as small.
    """
    width, height = canvas.get_width_height(physical=True)
    rows = np.zeros((height, 1 + 3 * width), np.uint8)  # each row starts with filter 0: none
    rows[:, 1:] = np.asarray(canvas.buffer_rgba())[:, :, :3].reshape(height, -1)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), 1))
        + _png_chunk(b"IEND", b"")
    )


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
