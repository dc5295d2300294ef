"""The pictures of the desk: the token plot, the desk view, the summary -- plain matplotlib, no widgets.

* ``plot_tokens``   -- raw-history tokens (climbing) against assembled-context tokens (what was sent),
                       the window and the compaction threshold, a marker wherever the strategy dropped,
                       compacted, folded or cleared, and an overflow as a big red X.
* ``draw_desk``     -- one lap's message array as blocks sized by tokens and coloured by zone, against the
                       desk's edge (the window), and whether the standing rule and the request are still on it.
* ``summary_text``  -- the summary on the desk, or "none yet".
* ``Picture``       -- the plot above the desk, one PNG per lap, fast enough to animate (``stage.widgets``).
* ``plot_cost_frontier`` -- dollars with caching against input tokens, one dot per strategy and setting,
                       with the frontier joined up (``stage.frontier`` makes the points).

Everything here only *reads* the loop's ``Lap`` records. Slides, benchmarks and notebooks use these
pieces alone; the live dashboard is ``stage.widgets``.
Left out: zoom and hover, and any drawing that is not driven by a real run.
"""

from __future__ import annotations

import math
import struct
import textwrap
import zlib
from dataclasses import dataclass
from itertools import cycle

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter, MaxNLocator

from harness.compaction import ThreeZoneCompaction
from harness.context import Strategy
from harness.laps import Lap
from harness.messages import text_of
from harness.model import CLASS_WINDOW
from harness.running_summary import RunningSummary
from harness.tokens import Meter

FONT = 17                       # points = pixels at DPI 72: readable from the back of the room
DPI = 72
SIZE = (13, 9)                  # inches: 936 x 648 pixels
WALL = "#C00000"                # the window, the threshold and the overflow: the red of a wall
OK_GREEN = "#006400"
ZONES = {                       # zone -> (colour, what the class calls it); Okabe-Ito, colour-blind safe
    "head": ("#0072B2", "head (request)"),
    "summary": ("#009E73", "summary"),
    "tail": ("#E69F00", "verbatim tail"),
    "notice": ("#CC79A7", "dropped notice"),
    "cleared": ("#555555", "cleared result"),
    "middle": ("#F0E442", "middle"),
}
FIXED = ("#DDDDDD", "system + tools")   # on the desk every lap, before any message
EVENTS = {                      # lap kind -> (marker, colour, legend words)
    "drop": ("<", "#D55E00", "dropped oldest"),
    "compact": ("v", "#009E73", "compacted"),
    "fold": ("D", "#009E73", "folded"),
    "clear": ("s", "#555555", "cleared results"),
    "stuck": ("^", "#CC79A7", "cannot compact"),
    "summary_failed": ("P", "#CC79A7", "summary failed"),
}
RUN_COLOURS = ["#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]



# ---- 1. the token plot ------------------------------------------------------------------------------

def plot_tokens(laps_by_label, window: int | None = None, threshold: int | None = None, ax=None):
    """Raw-history tokens (dashed) and assembled-context tokens (solid) per lap, for one run or several.

    ``laps_by_label`` is ``{label: laps}`` (or just a list of laps). ``window`` defaults to the laps' own;
    ``threshold`` is in tokens, e.g. ``threshold_tokens(strategy, model)``. Returns the Axes.
    Example: plot_tokens({"full history": run.laps}) -> two climbing lines, the window, a red X at lap 10.
    """
    ax = ax if ax is not None else _new_axes((12, 5.5))
    runs = _as_runs(laps_by_label)
    _plot_lines(ax, runs)
    _plot_frame(ax, runs, window, threshold)
    ax.set_ylim(bottom=0)
    return ax


def _plot_lines(ax, runs: dict) -> list:
    """The lines and markers of each run (what grows lap by lap). Returns the artists drawn."""
    drawn = []
    for colour, (label, laps) in zip(cycle(RUN_COLOURS), runs.items()):
        x, suffix = [lap.number for lap in laps], f" — {label}" if label and len(runs) > 1 else ""
        drawn += ax.plot(x, [lap.raw_tokens for lap in laps], ls="--", lw=2.5, color=colour, alpha=0.7,
                         label=f"raw history{suffix}")
        drawn += ax.plot(x, [lap.assembled_tokens for lap in laps], lw=4, color=colour,
                         label=f"assembled (sent){suffix}")
    every = [lap for laps in runs.values() for lap in laps]
    for kind, (marker, colour, words) in EVENTS.items():
        hits = [lap for lap in every if lap.kind == kind]
        if hits:
            drawn.append(ax.scatter([h.number for h in hits], [h.assembled_tokens for h in hits],
                                    marker=marker, s=180, color=colour, edgecolor="black", zorder=5,
                                    label=words))
    for lap in (lap for lap in every if lap.kind == "overflow"):
        drawn.append(ax.scatter([lap.number], [lap.assembled_tokens], marker="X", s=600, color=WALL,
                                edgecolor="white", zorder=6, label="overflow"))
        drawn.append(ax.annotate("overflow", (lap.number, lap.assembled_tokens), xytext=(-18, 14),
                                 textcoords="offset points", ha="right", color=WALL, fontsize=FONT + 2,
                                 fontweight="bold"))
    return drawn


def _plot_frame(ax, runs: dict, window: int | None, threshold: int | None):
    """What stays put while laps go by: the window, the threshold, the labels, the legend."""
    if threshold is not None and 0 < threshold <= 1:
        raise ValueError(f"threshold is in tokens (e.g. threshold_tokens(strategy, model) -> 3366), "
                         f"not a fraction like {threshold}.")
    window = window or next((laps[0].window for laps in runs.values() if laps), None)
    if window:
        ax.axhline(window, color=WALL, lw=3, label=f"window ({window:,})")
    if threshold:
        ax.axhline(threshold, color=WALL, lw=2, ls=":", label=f"threshold ({threshold:,})")
    ax.set_xlabel("lap", fontsize=FONT)
    ax.set_ylabel("tokens", fontsize=FONT)
    ax.tick_params(labelsize=FONT - 2)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:,.0f}"))
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))          # one legend entry per name, however many runs
    if len(runs) > 1:
        unique = _legend_for_several(unique, runs)
    ax.legend(unique.values(), unique.keys(), fontsize=FONT - 4, loc="upper left", ncol=2, framealpha=0.9)


def _legend_for_several(entries: dict, runs: dict) -> dict:
    """Several runs: one colour entry per run and one entry per line style, instead of two long labels a run.

    Long "raw history — session two, …" labels made a legend wide enough to hide the lines it names.
    """
    keys = {"raw history (dashed)": Line2D([], [], ls="--", lw=2.5, color="#555555"),
            "sent (solid)": Line2D([], [], lw=4, color="#555555")}
    for label in runs:
        entries.pop(f"raw history — {label}", None)
        solid = entries.pop(f"assembled (sent) — {label}", None)
        if solid is not None:
            keys[label] = Line2D([], [], lw=4, color=solid.get_color())
    return {**keys, **entries}


def threshold_tokens(strategy: Strategy, model) -> int | None:
    """The assembled size at which ``strategy`` compacts, in tokens, or None if it has no such line.

    Example: ThreeZoneCompaction(threshold=0.75) with a 5,000-token window (512 reserved) -> 3366
    """
    if isinstance(strategy, ThreeZoneCompaction) and not isinstance(strategy, RunningSummary):
        return strategy.limit(model)
    return None            # a running summary folds every few turns, whatever the size


# ---- 2. the desk view --------------------------------------------------------------------------------

def draw_desk(lap: Lap, rule: str | None = None, request: str | None = None, ax=None,
              meter: Meter | None = None, threshold: int | None = None):
    """One lap's desk: each message sent is a block as wide as its tokens, coloured by its zone.

    The system prompt and tool definitions come first (grey); the window is the desk's edge. Two lines
    below say whether ``rule`` and ``request`` are still in what was sent. Pass the run's ``meter``.
    Example: a three-zone lap after compacting -> [system+tools][head][summary][tail][tail] ... | edge
    """
    ax = ax if ax is not None else _new_axes((12, 3.2))
    _desk_frame(ax, lap.window, max(lap.window, lap.assembled_tokens) * 1.04, threshold)
    _desk_blocks(ax, lap, meter or _default_meter())
    _desk_words(ax, visibility_lines(lap, rule, request))
    return ax


def _desk_frame(ax, window: int, room: float, threshold: int | None):
    """What stays put: the desk's edge at the window, the threshold, the colour key."""
    ax.axvline(window, color=WALL, lw=5)
    ax.text(window, 0.6, "edge: window ", color=WALL, fontsize=FONT - 2, ha="right", fontweight="bold")
    if threshold:
        ax.axvline(threshold, color=WALL, lw=2, ls=":")
    ax.set_xlim(0, room)
    ax.set_ylim(-2.4, 1.9)
    ax.set_yticks([])
    ax.tick_params(labelsize=FONT - 3)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
    shown = [FIXED] + [ZONES[zone] for zone in ZONES if zone != "middle"]
    keys = [Patch(color=colour, label=words) for colour, words in shown]
    ax.legend(handles=keys, loc="upper left", ncol=6, fontsize=FONT - 5, frameon=False, handlelength=1.0,
              columnspacing=0.9, handletextpad=0.4)


def _desk_blocks(ax, lap: Lap, meter: Meter) -> list:
    """This lap's blocks, left to right as sent, and its headline. Returns the artists drawn."""
    sizes = [meter.count(message) for message in lap.sent]
    fixed = max(lap.assembled_tokens - sum(sizes), 0) if lap.sent else 0
    lefts = [fixed + sum(sizes[:i]) for i in range(len(sizes))]
    colours = [ZONES.get(zone, ("black",))[0] for zone in lap.zones]
    drawn = [ax.add_artist(Rectangle((0, -0.45), fixed, 0.9, facecolor=FIXED[0], edgecolor="white")),
             ax.broken_barh(list(zip(lefts, sizes)), (-0.45, 0.9), facecolors=colours, edgecolor="white",
                            linewidth=0.8, gid="messages")]        # one block per message, in one artist
    notices = [left + size / 2 for left, size, zone in zip(lefts, sizes, lap.zones) if zone == "notice"]
    if notices:                                        # a notice is a few tokens wide: point at it
        drawn += ax.plot(notices, [0.75] * len(notices), ls="", marker="v", ms=16, color=ZONES["notice"][0])
    drawn.append(_fit(ax, ax.text(0, 1.08, headline(lap), transform=ax.transAxes, fontsize=FONT + 1,
                                  fontweight="bold")))
    return drawn


def _desk_words(ax, lines: list[str]) -> list:
    """The visibility lines under the desk: green while something is on the desk, red once it is not."""
    return [_fit(ax, ax.text(0, -1.05 - 0.75 * row, line, fontsize=FONT, va="center",
                             color=WALL if "not visible" in line else OK_GREEN)) for row, line in enumerate(lines)]


def _fit(ax, text, smallest: float = 10):
    """Shrink ``text`` until it ends inside the axes, so a long rule or event never runs past the frame.

    Left out: wrapping (a desk line stays one line); canvases without a renderer are left as they are.
    """
    try:
        renderer = ax.figure.canvas.get_renderer()
    except AttributeError:
        return text
    right, box = ax.get_window_extent(renderer).x1, text.get_window_extent(renderer)
    if box.x1 > right and box.width > 0:
        text.set_fontsize(max(smallest, text.get_fontsize() * (right - box.x0) / box.width * 0.98))
    return text


def headline(lap: Lap) -> str:
    """The desk view's title. Example: 'Lap 8 · 1,650 of 5,000 tokens sent · compacted 9 messages into …'"""
    what = "OVERFLOW: the request no longer fits" if lap.kind == "overflow" else lap.event
    sent = f"Lap {lap.number} · {lap.assembled_tokens:,} of {lap.window:,} tokens sent"
    return f"{sent} · {_shorten(what, 46)}" if what else sent


def where_on_desk(lap: Lap, text: str) -> str | None:
    """The zone of the first message sent that contains ``text`` (case and spacing ignored), else None.

    Example: the rule carried in a summary -> "summary"; the rule dropped by a sliding window -> None
    """
    wanted = _squash(text)
    for message, zone in zip(lap.sent, lap.zones):
        if wanted in _squash(text_of(message)):
            return zone
    return None


def visibility_lines(lap: Lap, rule: str | None = None, request: str | None = None) -> list[str]:
    """One line each: is the standing rule still on the desk? the original request?

    Example: after a sliding window dropped the first message ->
    ['Rule "Never touch production: run data…": not visible ✗',
     'Request "Users whose email address contai…": not visible ✗']
    """
    lines = []
    for name, text in (("Rule", rule), ("Request", request)):
        if text:
            zone = where_on_desk(lap, text)
            seen = f"on the desk, in the {ZONES.get(zone, (None, zone))[1]} ✓" if zone else "not visible ✗"
            lines.append(f'{name} "{_shorten(text, 32)}": {seen}')
    return lines


# ---- 3. the summary ---------------------------------------------------------------------------------

def summary_text(lap: Lap | None) -> str:
    """The summary the desk carries at this lap, or "none yet"."""
    return (lap.summary if lap is not None else None) or "none yet"


# ---- the picture: token plot above, desk below, one PNG per lap -------------------------------------

class Picture:
    """The token plot above the desk view, as one PNG per lap -- fast enough to animate.

    The axes, ticks, legends, window and threshold stay put while a run plays, and the visibility lines
    change only a few times a run, so they are drawn into a background; each lap draws only its own lines,
    markers, blocks and headline on top of a copy (matplotlib calls this blitting). Text is the slow part
    of a matplotlib drawing: this makes a lap cost tens of milliseconds instead of hundreds.
    Example: Picture(rule=task.rule).png(run.laps, 5) -> laps 1-5 on the plot, the desk as sent at lap 5.
    """

    def __init__(self, threshold: int | None = None, rule: str | None = None, request: str | None = None,
                 meter: Meter | None = None, label: str = ""):
        self.threshold, self.rule, self.request, self.label = threshold, rule, request, label
        self.meter = meter or _default_meter()
        self.figure = Figure(figsize=SIZE, dpi=DPI)
        self.canvas = FigureCanvasAgg(self.figure)
        self._layout, self._background = None, None

    def png(self, laps: list[Lap], shown: int) -> bytes:
        """Lap ``shown`` of ``laps`` (0: nothing sent yet). ``laps`` (all known so far) sets the axes."""
        lap = laps[shown - 1] if shown else None
        self._prepare(laps, visibility_lines(lap, self.rule, self.request) if lap else [])
        self.canvas.restore_region(self._background)
        foreground = _plot_lines(self.plot_ax, {self.label: laps[:shown]})
        if lap:
            foreground += _desk_blocks(self.desk_ax, lap, self.meter)
        for artist in foreground:
            self.figure.draw_artist(artist)
            artist.remove()
        return _encode_png(self.canvas)

    def _prepare(self, laps: list[Lap], words: list[str]):
        """Redraw the background only when it changes: a new run, a live run outgrew the axes, new words."""
        layout = _Layout.of(laps, words, self.threshold, self.label)
        if layout == self._layout:
            return
        self.figure.clear()
        self.plot_ax, self.desk_ax = self.figure.subplots(2, 1, gridspec_kw=dict(
            height_ratios=[3, 1.6], hspace=0.4, left=0.095, right=0.985, top=0.95, bottom=0.05))
        legend_from = _plot_lines(self.plot_ax, {self.label: laps})   # drawn for the legend, then taken away
        _plot_frame(self.plot_ax, {self.label: laps}, layout.window, self.threshold)
        for artist in legend_from:
            artist.remove()
        self.plot_ax.set_xlim(0.5, layout.laps_room + 0.5)
        self.plot_ax.set_ylim(0, layout.tokens_room)
        if self.label:
            self.plot_ax.set_title(self.label, loc="left", fontsize=FONT + 1, fontweight="bold")
        _desk_frame(self.desk_ax, layout.window, layout.desk_room, self.threshold)
        _desk_words(self.desk_ax, words)
        self.canvas.draw()
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)
        self._layout = layout


@dataclass(frozen=True)
class _Layout:
    """Everything the background depends on. Axes are rounded up, so a live run rarely outgrows them."""

    window: int
    threshold: int | None
    label: str
    kinds: frozenset            # which markers the legend names
    words: tuple                # the visibility lines
    laps_room: int              # the plot's x axis, in laps
    tokens_room: float          # its y axis, in tokens
    desk_room: float            # the desk's drawn length, in tokens

    @classmethod
    def of(cls, laps: list[Lap], words: list[str], threshold: int | None, label: str) -> "_Layout":
        window = laps[0].window if laps else CLASS_WINDOW
        return cls(window, threshold, label, frozenset(lap.kind for lap in laps), tuple(words),
                   _round_up(len(laps) + 1, 5),
                   _round_up(max([lap.raw_tokens for lap in laps] + [window]) * 1.08, window / 2),
                   max([window] + [lap.assembled_tokens for lap in laps]) * 1.04)


def _encode_png(canvas: FigureCanvasAgg) -> bytes:
    """The canvas's pixels as a PNG, written directly: rows unfiltered, deflated at the fastest level.

    Pillow's PNG writer picks a filter for every row, which costs more than drawing the lap; a plot is
    mostly flat colour, so plain deflate packs it as small (about 70 KB).
    """
    width, height = canvas.get_width_height(physical=True)
    rows = np.zeros((height, 1 + 3 * width), np.uint8)          # each row starts with filter 0: none
    rows[:, 1:] = np.asarray(canvas.buffer_rgba())[:, :, :3].reshape(height, -1)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)   # 8-bit RGB, no interlace
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), 1)) + _png_chunk(b"IEND", b""))


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


# ---- 4. the cost frontier ---------------------------------------------------------------------------

FAMILY_COLOURS = {"full history": "#000000", "sliding window": "#D55E00", "three-zone": "#0072B2",
                  "running summary": "#009E73", "clear tool results": "#777777", "clear, then compact": "#CC79A7"}


def plot_cost_frontier(points, goal: tuple[float, float] | None = None, title: str = "", label=None,
                       limits: tuple[float, float] | None = None, ax=None):
    """Dollars with caching (up) against input tokens (across), both as % of full history's, one dot a run.

    ``points`` are ``stage.frontier.Point``s from ``measure()``. Filled dots kept the rule and reached
    the billing lap; hollow ones did not (never on the frontier). The frontier -- runs no other beats
    on both counts -- is joined by a line. ``goal=(tokens, dollars)`` shades the region that meets it;
    ``label``, one of the points, gets its family and settings written beside it; ``limits=(tokens,
    dollars)`` zooms in (e.g. ``(0.4, 1.5)``), otherwise the axes reach past full history's 100 %.
    Example: plot_cost_frontier(measure(task, sweep(), at_lap=20), goal=(0.35, 0.60)) -> the Axes.
    """
    ax = ax if ax is not None else _new_axes((12, 7))
    if goal:
        ax.add_patch(Rectangle((0, 0), goal[0] * 100, goal[1] * 100, color=OK_GREEN, alpha=0.12, lw=0))
        ax.annotate(f"goal: <= {goal[0]:.0%} of the tokens,\n<= {goal[1]:.0%} of the dollars",
                    (goal[0] * 100, 0), xytext=(-8, 8), textcoords="offset points", ha="right", va="bottom",
                    color=OK_GREEN, fontsize=FONT - 5)
    for family in dict.fromkeys(p.family for p in points):
        colour = FAMILY_COLOURS.get(family, "#56B4E9")
        mine = [p for p in points if p.family == family]
        for counts, face in ((True, colour), (False, "none")):
            chosen = [p for p in mine if p.counts == counts]
            if chosen:
                ax.scatter([p.tokens * 100 for p in chosen], [p.dollars * 100 for p in chosen], s=120,
                           facecolor=face, edgecolor=colour, lw=2, zorder=4,
                           label=family if counts else f"{family} (rule lost or stopped early)")
    front = sorted((p for p in points if p.on_frontier), key=lambda p: p.tokens)
    if front:
        ax.plot([p.tokens * 100 for p in front], [p.dollars * 100 for p in front], color=WALL, lw=2.5,
                zorder=3, label="frontier")
        ax.scatter([p.tokens * 100 for p in front], [p.dollars * 100 for p in front], s=320, marker="*",
                   color=WALL, zorder=5)
    if label is not None:
        words = textwrap.fill(f"{label.family} ({label.settings})", 34)
        ax.annotate(words, (label.tokens * 100, label.dollars * 100),
                    xytext=(30, -90), textcoords="offset points", fontsize=FONT - 6,
                    bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.85},
                    arrowprops={"arrowstyle": "->", "color": "black"})
    ax.axhline(100, color="black", lw=1, ls=":")
    ax.axvline(100, color="black", lw=1, ls=":")
    ax.set_xlabel("input tokens, % of full history's", fontsize=FONT)
    ax.set_ylabel("dollars with caching, % of full history's", fontsize=FONT)
    if limits:
        ax.set_xlim(0, limits[0] * 100)
        ax.set_ylim(0, limits[1] * 100)
    else:
        ax.set_xlim(0, 105)
        ax.set_ylim(0, _round_up(max([p.dollars * 100 for p in points] + [105]), 25))
    ax.tick_params(labelsize=FONT - 2)
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title, fontsize=FONT - 2)
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    ax.legend(unique.values(), unique.keys(), fontsize=FONT - 7, loc="upper right", framealpha=0.9)
    return ax


# ---- helpers ------------------------------------------------------------------------------------------

def _as_runs(laps_by_label) -> dict:
    return laps_by_label if isinstance(laps_by_label, dict) else {"": list(laps_by_label)}


def _new_axes(size):
    import matplotlib.pyplot as plt  # pyplot only when the caller gave no Axes (slides, notebooks)

    return plt.subplots(figsize=size)[1]


_METERS: list[Meter] = []


def _default_meter() -> Meter:
    if not _METERS:
        _METERS.append(Meter())
    return _METERS[0]


def _round_up(value: float, step: float) -> float:
    """Example: _round_up(11_200, 2_500) -> 12_500"""
    return math.ceil(value / step) * step


def _squash(text: str) -> str:
    return " ".join(text.lower().split())


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width].rstrip() + "…"
