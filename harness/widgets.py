"""The live desk dashboard: watch the desk fill, lap by lap (ipywidgets + matplotlib).

Everything here only *reads* the loop's ``Lap`` records; nothing reaches back into the loop.

* ``plot_tokens``   -- raw-history tokens (climbing) against assembled-context tokens (what was sent),
                       the window and the compaction threshold, a marker wherever the strategy dropped,
                       compacted, folded or cleared, and an overflow as a big red X.
* ``draw_desk``     -- one lap's message array as blocks sized by tokens and coloured by zone, against
                       the desk's edge (the window); and are the standing rule and the request still on it?
* ``summary_text``  -- the summary on the desk, or "none yet".
* ``Dashboard``     -- controls (strategy, window, threshold, tail size) and step / play / pause / reset;
                       ``show_dashboard()`` displays one already showing the last lap of a default run.
* ``live_plot``     -- an ``on_lap`` callback for a cell that calls ``run_agent`` itself.
* ``Picture``       -- the plot above the desk as one PNG per lap, fast enough to animate (both use it).

Every redraw is a plain PNG. The dashboard sets it as the one output of an ``ipywidgets.Output`` (its
``outputs``, not ``display()`` inside ``with out:``: pictures displayed from the play animation, an asyncio
task, never reached the widget in JupyterLab 4.6), so it moves live. It also offers the PNG as the fallback
of its own display, so a notebook executed headless (nbclient) keeps the picture as an image output.

Left out: zoom and hover (ipympl looks nicer live but leaves no image headless); pausing a Claude run
half-way (offline runs are computed first, in a fraction of a second, then replayed; a Claude run is drawn
lap by lap as it arrives); several strategies in one dashboard (``plot_tokens`` takes several runs for that).
"""

from __future__ import annotations

import asyncio
import base64
import math
import struct
import time
import zlib
from dataclasses import dataclass
from html import escape
from itertools import cycle
from typing import Callable

import ipywidgets as widgets
import numpy as np
from IPython.display import Image, display
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter, MaxNLocator

from harness.context import (ClearToolResults, FullHistory, RunningSummary, SlidingWindow, Strategy,
                             ThreeZoneCompaction)
from harness.desk_model import DeskModel
from harness.loop import Lap, run_agent
from harness.messages import text_of
from harness.model import CLASS_WINDOW, pick_model
from harness.tasks import Task, file_reading_task
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
SUMMARY_HTML = ("<div style='font-size:17px; line-height:1.35'><b>Summary on the desk</b>"
                "<div style='font-size:15px; white-space:pre-wrap; overflow-wrap:anywhere'>{}</div></div>")


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
    ax.legend(unique.values(), unique.keys(), fontsize=FONT - 4, loc="upper left", ncol=2, framealpha=0.9)


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
    drawn.append(ax.text(0, 1.08, headline(lap), transform=ax.transAxes, fontsize=FONT + 1,
                         fontweight="bold"))
    return drawn


def _desk_words(ax, lines: list[str]) -> list:
    """The visibility lines under the desk: green while something is on the desk, red once it is not."""
    return [ax.text(0, -1.05 - 0.75 * row, line, fontsize=FONT, va="center",
                    color=WALL if "not visible" in line else OK_GREEN) for row, line in enumerate(lines)]


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


# ---- 4. the dashboard -------------------------------------------------------------------------------

StrategyMaker = Callable[[float, int], Strategy]      # (threshold, tail size) -> a fresh strategy


def default_strategies() -> dict[str, StrategyMaker]:
    """The five strategies of the morning, each built from the threshold and tail-size controls."""
    return {
        "full history": lambda threshold, tail: FullHistory(),
        "sliding window": lambda threshold, tail: SlidingWindow(),
        "three-zone compaction": lambda threshold, tail: ThreeZoneCompaction(threshold, tail_turns=tail),
        "running summary": lambda threshold, tail: RunningSummary(keep_turns=tail),
        "clear tool results": lambda threshold, tail: ClearToolResults(keep_last=tail),
    }


@dataclass(frozen=True)
class Settings:
    """What the controls say. A run made with other settings is stale."""

    strategy: str
    window: int
    threshold: float
    tail: int


class Dashboard:
    """The live desk: pick a strategy, a window, a threshold and a tail size; step, play, pause, reset.

    Offline, a run is computed first (a fraction of a second) and play replays it with ``delay`` seconds
    between laps; with Claude, laps are drawn as they arrive. After a control changes, play or step starts
    again from lap 0. ``strategies`` maps names to strategies, or to ``(threshold, tail) -> strategy``.
    Example: desk = Dashboard(); desk.step(); desk.shown -> 1
    """

    def __init__(self, task: Task | None = None, model_factory: Callable[[int], object] | None = None,
                 strategies: dict | None = None, window: int = CLASS_WINDOW, delay: float = 0.3,
                 max_laps: int = 80, strategy: str | None = None):
        self.task = task or file_reading_task()
        self.meter = Meter()
        self.model_factory = model_factory or (lambda window: pick_model(window=window, meter=self.meter))
        self.strategies = strategies or default_strategies()
        self.delay, self.max_laps = delay, max_laps
        self.run, self.laps, self.shown, self.playing = None, [], 0, False
        self.png, self._ran_with, self._stream, self._player = b"", None, False, None
        self.picture = Picture(rule=self.task.rule, request=self.task.request, meter=self.meter)
        self._build(window, strategy)

    # -- what the class clicks --
    def step(self, _button=None):
        """Show the next lap (running the agent first if the settings changed)."""
        self._stop()
        self._ensure_run()
        if self.shown < len(self.laps):
            self.shown += 1
        self.redraw()

    def play(self, _button=None):
        """Replay lap by lap from where it stands; from lap 0 if the settings changed or it had ended."""
        if self.playing:
            return                                    # a second click must not start a second player
        if self._ensure_run() and self._stream:
            return                                    # a Claude run was drawn lap by lap as it arrived
        if self.shown >= len(self.laps):
            self.shown = 0
        self.playing = True
        loop = _running_loop()
        if loop and self.delay > 0:
            self._player = loop.create_task(self._animate())   # waits between laps: a pause click gets in
        else:
            while self.playing and self._advance():
                time.sleep(self.delay)
            self.playing = False

    def pause(self, _button=None):
        """Stop playing; the lap on screen stays."""
        self._stop()
        self._say_status()

    def reset(self, _button=None):
        """Back to lap 0: nothing sent yet."""
        self._stop()
        self.shown = 0
        self.redraw()

    def show_end(self):
        """Jump to the last lap of the run for the current settings (what ``show_dashboard`` shows)."""
        self._ensure_run()
        self.shown = len(self.laps)
        self.redraw()

    # -- drawing --
    def redraw(self):
        """Draw the lap on screen into the output area; update the summary panel and the status line."""
        self.png = self.picture.png(self.laps, self.shown)
        self.out.outputs = (_image_output(self.png, self.status_text()),)   # replaces the last one at once
        lap = self.laps[self.shown - 1] if self.shown else None
        self.summary.value = SUMMARY_HTML.format(escape(summary_text(lap)))
        self._say_status()

    def _repr_mimebundle_(self, **kwargs):
        """The live widget where widgets render; the PNG of the lap on screen where they do not (headless)."""
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = self.status_text()
        if self.png:
            bundle["image/png"] = base64.b64encode(self.png).decode("ascii")
        return bundle

    def status_text(self) -> str:
        """Example: 'three-zone compaction · lap 24 of 24 · stopped: answered'"""
        if not self.laps:
            return "No run yet: press step or play."
        end = f" · stopped: {self.run.stopped}" if self.run and self.shown == len(self.laps) else ""
        return f"{self._ran_with.strategy} · lap {self.shown} of {len(self.laps)}{end}" + (
            " · playing" if self.playing else "")

    # -- the run --
    def settings(self) -> Settings:
        c = self.controls
        return Settings(c["strategy"].value, c["window"].value, c["threshold"].value, c["tail"].value)

    def _ensure_run(self) -> bool:
        """Run the agent for the current settings, unless that run is already here. True if it ran."""
        settings = self.settings()
        if self.run is not None and settings == self._ran_with:
            return False
        self._stop()
        self.laps, self.shown, self._ran_with = [], 0, settings
        model = self.model_factory(settings.window)
        made = self.strategies[settings.strategy]
        strategy = made if isinstance(made, Strategy) else made(settings.threshold, settings.tail)
        self.picture.threshold, self.picture.label = threshold_tokens(strategy, model), settings.strategy
        self._stream = not isinstance(model, DeskModel)         # Claude is slow: draw each lap as it comes
        self.run = run_agent(self.task.request, model, context=strategy, remarks=self.task.remarks,
                             max_laps=self.max_laps, meter=self.meter, on_lap=self._arrived)
        return True

    def _arrived(self, lap: Lap):
        self.laps.append(lap)
        if self._stream:
            self.shown = len(self.laps)
            self.redraw()

    def _advance(self) -> bool:
        """Show one more lap, if there is one. False at the end of the run."""
        if self.shown >= len(self.laps):
            return False
        self.shown += 1
        self.redraw()
        return True

    async def _animate(self):
        while self.playing and self._advance():
            await asyncio.sleep(self.delay)
        self.playing = False
        self._say_status()

    def _stop(self):
        self.playing = False
        if self._player:
            self._player.cancel()                     # it is waiting between laps; it never stops mid-drawing
            self._player = None

    # -- the widgets --
    def _build(self, window: int, strategy: str | None):
        names, style = list(self.strategies), {"description_width": "80px"}
        wide = widgets.Layout(width="340px")
        first = strategy or ("three-zone compaction" if "three-zone compaction" in names else names[0])
        self.controls = {
            "strategy": widgets.Dropdown(options=names, value=first, description="strategy", style=style,
                                         layout=wide),
            "window": widgets.IntSlider(value=window, min=1000, max=max(20_000, window), step=250,
                                        description="window", style=style, layout=wide),
            "threshold": widgets.SelectionSlider(options=[(f"{p}%", p / 100) for p in range(50, 100, 5)],
                                                 value=0.75, description="threshold", style=style,
                                                 layout=wide),
            "tail": widgets.IntSlider(value=2, min=0, max=6, description="tail size", style=style,
                                      layout=wide),
        }
        for control in self.controls.values():
            control.observe(self._changed, "value")
        self.buttons = {name: widgets.Button(description=name, icon=icon, layout=widgets.Layout(width="90px"))
                        for name, icon in [("step", "step-forward"), ("play", "play"), ("pause", "pause"),
                                           ("reset", "undo")]}
        for name, button in self.buttons.items():
            button.on_click(getattr(self, name))
        self.status = widgets.HTML()
        self.out = widgets.Output(layout=widgets.Layout(flex="0 0 auto"))        # the picture keeps its size
        self.summary = widgets.HTML(layout=widgets.Layout(flex="1 1 300px", min_width="300px",
                                                          padding="0 0 0 12px"))
        controls = list(self.controls.values())
        picture_and_summary = widgets.HBox([self.out, self.summary],   # on a narrow screen, summary below
                                           layout=widgets.Layout(flex_flow="row wrap"))
        buttons_and_status = widgets.HBox(list(self.buttons.values()) + [self.status])
        self.widget = widgets.VBox([widgets.HBox(controls[:2]), widgets.HBox(controls[2:]),
                                    buttons_and_status, picture_and_summary])
        self.widget.add_class("context-desk-dashboard")      # the browser test finds the parts by these names
        self.out.add_class("context-desk-picture")
        self._say_status()

    def _changed(self, _change):
        self._stop()
        self._say_status()

    def _say_status(self):
        stale = self._ran_with is not None and self.settings() != self._ran_with
        note = " · settings changed: press play to run again from lap 0" if stale else ""
        self.status.value = f"<span style='font-size:17px'>&nbsp;{escape(self.status_text() + note)}</span>"


def show_dashboard(**options) -> None:
    """Display a dashboard already showing the last lap of a default run (so a headless run keeps a picture).

    Options are ``Dashboard``'s. To keep a handle on it: ``desk = Dashboard(); desk.show_end(); desk``.
    """
    desk = Dashboard(**options)
    desk.show_end()
    display(desk)


# ---- 5. a live plot for a cell that runs the loop itself ---------------------------------------------

class LivePlot:
    """An ``on_lap`` callback: keeps the laps and redraws the plot and the desk in place as each arrives.

    It updates one ordinary display output (not a widget), so the last picture stays when run headless.
    """

    def __init__(self, on_lap: Callable[[Lap], None] | None = None, threshold: int | None = None,
                 rule: str | None = None, request: str | None = None, meter: Meter | None = None,
                 label: str = ""):
        self.on_lap, self.laps, self.handle = on_lap, [], None
        self.picture = Picture(threshold, rule, request, meter, label)

    def __call__(self, lap: Lap):
        self.laps.append(lap)
        picture = Image(self.picture.png(self.laps, len(self.laps)))
        if self.handle is None:
            self.handle = display(picture, display_id=True)
        else:
            self.handle.update(picture)
        if self.on_lap:
            self.on_lap(lap)


def live_plot(on_lap: Callable[[Lap], None] | None = None, **options) -> LivePlot:
    """An ``on_lap=`` for ``run_agent`` that redraws as laps arrive, then calls ``on_lap`` if given.

    Options are ``LivePlot``'s. Example: run_agent(task.request, model, on_lap=live_plot(rule=task.rule))
    """
    return LivePlot(on_lap, **options)


# ---- helpers ------------------------------------------------------------------------------------------

def _as_runs(laps_by_label) -> dict:
    return laps_by_label if isinstance(laps_by_label, dict) else {"": list(laps_by_label)}


def _new_axes(size):
    import matplotlib.pyplot as plt          # pyplot only when the caller gave no Axes (slides, notebooks)

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


def _image_output(png: bytes, words: str) -> dict:
    """A display_data output holding a PNG, as an ``Output`` widget stores it."""
    return {"output_type": "display_data", "metadata": {},
            "data": {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": words}}


def _running_loop():
    """The kernel's event loop, if this runs inside one (a Jupyter kernel does; a plain script does not)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
