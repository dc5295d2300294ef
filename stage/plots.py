"""The pictures of the desk: the token plot, the desk view, the cost frontier -- plain matplotlib, no widgets.

* ``plot_tokens``   -- raw-history tokens (dashed, climbing) against assembled-context tokens (solid: what was
                       sent), the window and the compaction threshold, a marker wherever the strategy dropped,
                       compacted, folded or cleared, and an overflow as a big red X.
* ``draw_desk``     -- one lap's message array as blocks sized by tokens, coloured and hatched by zone, against
                       the desk's edge (the window), and whether the standing rule and the request are still on it.
* ``plot_cost_frontier`` -- dollars with caching against input tokens, one marker per strategy and setting,
                       with the frontier joined up (``stage.frontier`` makes the points).
* ``summary_text``, ``headline``, ``visibility_lines`` -- the words beside the pictures.

Readable on a projector and without colour: the colours come from ``stage.palette`` (one palette, WCAG
contrast), every line has a style or a marker of its own and a label at its end, in the margin, and the
legend sits in a band no line enters. Text is at least 15 points, 15 pixels at the 72 dpi used here.
Everything only *reads* the loop's ``Lap`` records. The animated picture is ``stage.picture``, the dashboard
``stage.widgets``. Left out: zoom and hover, and any drawing that is not driven by a real run.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np

from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.text import Annotation
from matplotlib.ticker import FuncFormatter, MaxNLocator

from harness.compaction import ThreeZoneCompaction
from harness.context import Strategy
from harness.laps import Lap
from harness.messages import text_of
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from stage.palette import EVENTS, FIXED, GOOD, INK, MUTED, SERIES, WALL, ZONES

FONT = 15  # points; at 72 dpi, pixels: legends, ticks, labels, the desk's words
TITLE = 17  # headlines and titles
DPI = 72
SINGLE = SERIES[0]  # one run alone: blue
# Kept for old imports: the green of "still on the desk".
OK_GREEN = GOOD


# ---- 1. the token plot ------------------------------------------------------------------------------


def plot_tokens(laps_by_label, window: int | None = None, threshold: int | None = None, ax=None):
    """Raw-history tokens (dashed) and assembled-context tokens (solid) per lap, for one run or several.

    ``laps_by_label`` is ``{label: laps}`` (or just a list of laps). ``window`` defaults to the laps' own;
    ``threshold`` is in tokens, e.g. ``threshold_tokens(strategy, model)``. Several runs each get a colour,
    a marker and their name at the end of their line. Returns the Axes.
    Example: plot_tokens({"full history": run.laps}) -> two climbing lines, the window, a red X at lap 10.
    """
    ax = ax if ax is not None else _new_axes((11.5, 5.2))
    runs = _as_runs(laps_by_label)
    if threshold is not None and 0 < threshold <= 1:
        raise ValueError(
            f"threshold is in tokens (e.g. threshold_tokens(strategy, model) -> 3366), "
            f"not a fraction like {threshold}."
        )
    window = window or next((laps[0].window for laps in runs.values() if laps), None)
    plot_lines(ax, runs)
    plot_frame(ax, window, threshold)
    every = [lap for laps in runs.values() for lap in laps]
    highest = max(
        [lap.raw_tokens for lap in every]
        + [lap.assembled_tokens for lap in every]
        + [window or 0, 1]
    )
    ax.set_ylim(0, highest * (1.15 if any(lap.kind == "overflow" for lap in every) else 1.05))
    end_labels(ax, line_ends(runs, window, threshold))
    make_room_right(ax)
    plot_legend(ax, runs)
    shared = short_names(list(runs))[0]
    if shared and not ax.get_title(loc="left"):  # the words the labels left out: "session two"
        ax.set_title(shared, loc="left", fontsize=FONT, fontweight="bold", color=INK)
    return ax


def plot_lines(ax, runs: dict) -> list:
    """The lines and markers of each run (what grows lap by lap). Returns the artists drawn."""
    drawn, several = [], len(runs) > 1
    for style, (label, laps) in zip(_styles(runs), runs.items()):
        x, suffix = [lap.number for lap in laps], f" — {label}" if several else ""
        marks = dict(
            marker=style.marker, markevery=_every(len(laps)), ms=8
        )  # one run alone: dots on "sent"
        drawn += ax.plot(
            x,
            [lap.raw_tokens for lap in laps],
            ls=(0, (5, 2.5)),
            lw=2.5,
            color=style.colour,
            label=f"raw history{suffix}",
            **(marks if several else {}),
        )
        drawn += ax.plot(
            x,
            [lap.assembled_tokens for lap in laps],
            lw=4,
            color=style.colour,
            label=f"assembled (sent){suffix}",
            **(marks if several else {**marks, "ms": 6}),
        )
    every = [lap for laps in runs.values() for lap in laps]
    for kind, (marker, colour, words) in EVENTS.items():
        hits = [lap for lap in every if lap.kind == kind]
        if hits:
            drawn.append(
                ax.scatter(
                    [h.number for h in hits],
                    [h.assembled_tokens for h in hits],
                    marker=marker,
                    s=170,
                    color=colour,
                    edgecolor=INK,
                    zorder=5,
                    label=words,
                )
            )
    for lap in (lap for lap in every if lap.kind == "overflow"):
        drawn.append(
            ax.scatter(
                [lap.number],
                [lap.assembled_tokens],
                marker="X",
                s=520,
                color=WALL,
                edgecolor="white",
                zorder=6,
                label="overflow",
            )
        )
        drawn.append(
            ax.annotate(
                "overflow",
                (lap.number, lap.assembled_tokens),
                xytext=(-18, 14),
                textcoords="offset points",
                ha="right",
                color=WALL,
                fontsize=TITLE,
                fontweight="bold",
                gid="overflow",
            )
        )
    return drawn


def update_lines(drawn: list, laps: list[Lap]) -> None:
    """Show ``laps`` (one run) on the artists ``plot_lines`` drew for that run: lines, markers, the overflow."""
    x = [lap.number for lap in laps]
    words = {words: kind for kind, (_, _, words) in EVENTS.items()}
    overflowed = any(lap.kind == "overflow" for lap in laps)
    for artist in drawn:
        label = artist.get_label()
        if label.startswith("raw history"):
            artist.set_data(x, [lap.raw_tokens for lap in laps])
        elif label.startswith("assembled"):
            artist.set_data(x, [lap.assembled_tokens for lap in laps])
        elif label in words:
            hits = [(lap.number, lap.assembled_tokens) for lap in laps if lap.kind == words[label]]
            artist.set_offsets(hits or np.empty((0, 2)))
        elif label == "overflow" or artist.get_gid() == "overflow":
            artist.set_visible(overflowed)


def _styles(runs: dict) -> list:
    return [SINGLE] if len(runs) == 1 else [SERIES[i % len(SERIES)] for i in range(len(runs))]


def _every(count: int) -> int:
    """Markers on a run's lines: about eight of them, however long the run."""
    return max(1, math.ceil(count / 8))


def plot_frame(ax, window: int | None, threshold: int | None):
    """What stays put while laps go by: the window, the threshold, the ticks."""
    if window:
        ax.axhline(window, color=WALL, lw=3, label=f"window ({window:,})")
    if threshold:
        ax.axhline(
            threshold, color=WALL, lw=2.5, ls=(0, (1, 1.2)), label=f"threshold ({threshold:,})"
        )
    ax.set_xlabel("lap", fontsize=FONT, loc="right", labelpad=1)
    ax.set_ylabel("tokens", fontsize=FONT)
    ax.tick_params(labelsize=FONT)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=5))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=4))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:,.0f}"))
    ax.grid(alpha=0.3)


def plot_legend(ax, runs: dict):
    """The legend, in as few rows as fit the plot's width, in a band along its top that no line enters.

    It names what the end labels do not: the event markers, and for several runs what dashed and solid mean.
    """
    entries = {}
    if len(runs) > 1:
        entries = {
            "dashed: raw history": Line2D([], [], ls=(0, (5, 2.5)), lw=2.5, color=MUTED),
            "solid: sent": Line2D([], [], lw=4, color=MUTED),
        }
    handles, labels = ax.get_legend_handles_labels()
    entries.update(
        {
            label: handle
            for label, handle in zip(labels, handles)
            if not label.startswith(("raw history", "assembled", "window", "threshold"))
        }
    )
    if not entries:
        return None
    renderer = _renderer(ax)
    for rows in range(1, len(entries) + 1):
        legend = ax.legend(
            entries.values(),
            entries.keys(),
            fontsize=FONT,
            loc="upper left",
            ncol=math.ceil(len(entries) / rows),
            framealpha=1,
            borderaxespad=0.3,
            handlelength=1.6,
            columnspacing=1.0,
            handletextpad=0.5,
            borderpad=0.3,
        )
        if (
            renderer is None
            or legend.get_window_extent(renderer).width <= ax.get_window_extent(renderer).width - 8
        ):
            break
    keep_band_clear(ax, legend)
    return legend


def keep_band_clear(ax, legend):
    """Raise the top of the y axis until the legend's band holds no line: lines stay under it."""
    renderer = _renderer(ax)
    if renderer is None:
        return
    box, frame = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
    band = (frame.y1 - box.y0 + 4) / frame.height  # the part of the height the legend takes
    bottom, top = ax.get_ylim()
    if 0 < band < 0.6:
        ax.set_ylim(bottom, bottom + (top - bottom) / (1 - band))


def line_ends(runs: dict, window: int | None = None, threshold: int | None = None) -> list[tuple]:
    """What the margin labels say, and where: (y in tokens, words, colour, the line's label, fixed?).

    The window and the threshold are fixed (their lines never move); a run's ends move as laps arrive.
    With several runs each line's label names its run and which line it is, "no memory (raw)", whole: a long
    name wraps at a space, and words every name starts with are left to the title (``short_names``).
    """
    ends, several = [], len(runs) > 1
    short = short_names(list(runs))[1]
    for style, (label, laps) in zip(_styles(runs), runs.items()):
        if not laps:
            continue
        suffix = f" — {label}" if several else ""
        for tokens, kind, line in (
            (laps[-1].raw_tokens, "raw", "raw history"),
            (laps[-1].assembled_tokens, "sent", "assembled (sent)"),
        ):
            words = (
                _wrap(f"{short[label]} ({kind})") if several else kind.replace("raw", "raw history")
            )
            ends.append((tokens, words, style.colour, f"{line}{suffix}", False))
    if window:
        ends.append((window, "window", WALL, f"window ({window:,})", True))
    if threshold:
        ends.append((threshold, "threshold", WALL, f"threshold ({threshold:,})", True))
    return ends


class EndLabel(Annotation):
    """A line's name in the right margin, level with the line's last point, moved apart from its neighbours.

    Where the neighbours are is only known when drawing (the caller may still change the axes), so the labels
    of one Axes are placed at draw time, all together (``place``). ``gid`` names the line it labels.
    """

    def __init__(
        self, group: list, y: float, words: str, colour: str, line: str, fixed: bool = False
    ):
        super().__init__(
            words,
            xy=(1, y),
            xycoords=("axes fraction", "data"),
            xytext=(7, 0),
            textcoords="offset points",
            va="center",
            ha="left",
            color=colour,
            fontsize=FONT,
            fontweight="bold",
            annotation_clip=False,
            clip_on=False,
            gid=f"label-for:{line}",
            linespacing=1.05,
        )
        self.group, self.y, self.fixed = group, y, fixed
        group.append(self)

    def move_to(self, y: float, words: str | None = None):
        """Follow the line to its new end: the anchor and the wanted height both move, never one alone."""
        self.y, self.xy = y, (1, y)
        if words is not None:
            self.set_text(words)

    def draw(self, renderer):
        place(self.group, renderer)
        super().draw(renderer)


def end_labels(ax, ends: list[tuple], group: list | None = None) -> list[EndLabel]:
    """Margin labels for ``ends`` (from ``line_ends``), placed together with any already in ``group``."""
    group = [] if group is None else group
    return [ax.add_artist(EndLabel(group, *end)) for end in ends]


def place(labels: list, renderer=None) -> None:
    """Put each label level with its line's end: fixed ones exactly there, the others at the nearest free height.

    Example: "sent" ends just under "threshold" -> "threshold" stays, "sent" moves down a line.
    """
    labels = [label for label in labels if label.axes is not None]
    if not labels:
        return
    ax = labels[0].axes
    frame, points = ax.get_window_extent(renderer), ax.figure.dpi / 72
    taken = []  # (bottom, top) in pixels, placed so far
    for label in sorted(labels, key=lambda label: not label.fixed):
        half = label.get_fontsize() * points * 0.6 * (label.get_text().count("\n") + 1)
        want = min(max(ax.transData.transform((0, label.y))[1], frame.y0 + half), frame.y1 - half)
        tries = [want] + [edge for low, high in taken for edge in (high + half, low - half)]
        free = [
            y
            for y in tries
            if frame.y0 + half - 1 <= y <= frame.y1 - half + 1
            and all(y + half <= low or y - half >= high for low, high in taken)
        ]
        y = min(free, key=lambda y: abs(y - want)) if free and not label.fixed else want
        taken.append((y - half, y + half))
        anchor = ax.transData.transform((0, label.y))[1]
        label.xyann = (7, (y - anchor) / points)


def make_room_right(ax, extra=()) -> None:
    """Narrow the axes, if needed, so the margin labels (and ``extra`` artists) end inside the figure."""
    renderer = _renderer(ax)
    labels = [a for a in ax.get_children() if isinstance(a, EndLabel)]
    if renderer is None or not (labels or extra):
        return
    place(labels, renderer)
    right = max(a.get_window_extent(renderer).x1 for a in [*labels, *extra]) / ax.figure.bbox.width
    if right > 0.99:
        box = ax.get_position()
        ax.set_position([box.x0, box.y0, box.width - (right - 0.99), box.height])


def threshold_tokens(strategy: Strategy, model) -> int | None:
    """The assembled size at which ``strategy`` compacts, in tokens, or None if it has no such line.

    Example: ThreeZoneCompaction(threshold=0.75) with a 5,000-token window (512 reserved) -> 3366
    """
    if isinstance(strategy, ThreeZoneCompaction) and not isinstance(strategy, RunningSummary):
        return strategy.limit(model)
    return None  # a running summary folds every few turns, whatever the size


# ---- 2. the desk view --------------------------------------------------------------------------------

ROW = 1.35  # a line of text is 1.35 font sizes tall
BAND = 0.5  # the blocks run from -BAND to +BAND on the desk's y axis


def draw_desk(
    lap: Lap,
    rule: str | None = None,
    request: str | None = None,
    ax=None,
    meter: Meter | None = None,
    threshold: int | None = None,
):
    """One lap's desk: each message sent is a block as wide as its tokens, coloured and hatched by zone.

    The system prompt and tool definitions come first (grey); the window is the desk's edge. Two lines
    below say whether ``rule`` and ``request`` are still in what was sent. Pass the run's ``meter``.
    Example: a three-zone lap after compacting -> [system+tools][head][summary][tail][tail] ... | edge
    """
    ax = ax if ax is not None else _new_axes((11.5, 3.0))
    lines = visibility_lines(lap, rule, request)
    desk_frame(
        ax,
        lap.window,
        max(lap.window, lap.assembled_tokens) * 1.02,
        threshold,
        ["fixed", *lap.zones],
        len(lines),
    )
    desk_blocks(ax, lap, meter or default_meter())
    desk_words(ax, lines, threshold)
    return ax


def desk_frame(ax, window: int, room: float, threshold: int | None, zones, lines: int = 2) -> None:
    """What stays put: the desk's edge at the window, the threshold, the key for the zones in ``zones``.

    The words sit at fixed distances in points from the blocks -- the headline and the edge's label above,
    the threshold's label, ``lines`` visibility lines and the key below -- and the y axis is set so that all
    of them fit the axes' height, whatever its size in inches or dots.
    """
    key = desk_key(ax, zones)
    above = 4 + FONT * ROW + 4 + TITLE * ROW
    below = (4 + FONT * ROW if threshold else 0) + 6 + lines * FONT * ROW + key + FONT * 0.5
    height = ax.get_position().height * ax.figure.get_figheight() * 72  # the axes' height in points
    per_unit = max((height - above - below) / (2 * BAND), 36)  # the blocks at least 36 points tall
    ax.set_ylim(-BAND - below / per_unit, BAND + above / per_unit)
    ax.set_xlim(0, room)
    ax.set_axis_off()
    ax.plot(
        [window, window],
        [-BAND, BAND],
        color=WALL,
        lw=5,
        solid_capstyle="butt",
        label="edge: window",
    )
    ax.annotate(
        f"edge: window {window:,}",
        (window, BAND),
        xytext=(0, 4),
        textcoords="offset points",
        color=WALL,
        fontsize=FONT,
        ha="right",
        va="bottom",
        fontweight="bold",
        gid="label-for:edge: window",
    )
    if threshold:
        ax.plot(
            [threshold, threshold],
            [-BAND, BAND],
            color=WALL,
            lw=2.5,
            ls=(0, (1, 1.2)),
            label="threshold",
        )
        ax.annotate(
            "threshold",
            (threshold, -BAND),
            xytext=(0, -4),
            textcoords="offset points",
            color=WALL,
            fontsize=FONT,
            ha="center",
            va="top",
            gid="label-for:threshold",
        )


def desk_key(ax, zones) -> float:
    """The key to the zones in ``zones``, along the bottom of the desk, in as few rows as fit its width.

    Returns its height in points, so the desk can leave it that much room.
    """
    shown = [FIXED] + [ZONES[zone] for zone in ZONES if zone in set(zones)]
    keys = [
        Patch(facecolor=z.colour, hatch=z.hatch, edgecolor="white", label=z.words) for z in shown
    ]
    renderer = _renderer(ax)
    for rows in range(1, len(keys) + 1):
        legend = ax.legend(
            handles=keys,
            loc="lower left",
            bbox_to_anchor=(0, 0),
            ncol=math.ceil(len(keys) / rows),
            fontsize=FONT,
            frameon=False,
            handlelength=1.4,
            handleheight=1.0,
            columnspacing=0.8,
            handletextpad=0.4,
            borderaxespad=0,
            borderpad=0,
        )
        if renderer is None:
            return FONT * (1.4 + 1.7 * (rows - 1))
        box = legend.get_window_extent(renderer)
        if box.x1 <= ax.get_window_extent(renderer).x1:
            break
    return box.height * 72 / ax.figure.dpi


def desk_blocks(ax, lap: Lap, meter: Meter, zones=None) -> list:
    """This lap's blocks, left to right as sent, one collection per zone, and the headline. Returns them.

    ``zones``: a collection for each of these even where this lap has none, so ``update_desk`` can show
    any later lap of the run on the same artists (the dashboard does, lap after lap).
    """
    drawn = [
        ax.add_artist(
            Rectangle(
                (0, -BAND),
                0,
                2 * BAND,
                facecolor=FIXED.colour,
                edgecolor="white",
                hatch=FIXED.hatch,
                gid="zone:fixed",
            )
        )
    ]
    for zone in dict.fromkeys(zones or lap.zones):
        look = ZONES.get(zone, ZONES["middle"])
        drawn.append(
            ax.broken_barh(
                [],
                (-BAND, 2 * BAND),
                facecolors=look.colour,
                edgecolor="white",
                linewidth=1,
                hatch=look.hatch or None,
                gid=f"zone:{zone}",
            )
        )
    drawn.append(
        ax.annotate(
            "▼",
            (0, BAND),
            xytext=(0, 1),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=FONT,
            color=ZONES["notice"].colour,
            gid="notice",
        )
    )
    drawn.append(
        ax.annotate(
            "",
            (0, BAND),
            xycoords=("axes fraction", "data"),
            xytext=(0, 4 + FONT * ROW + 4),
            textcoords="offset points",
            fontsize=TITLE,
            fontweight="bold",
            va="bottom",
            color=INK,
            gid="headline",
        )
    )
    update_desk(drawn, lap, meter)
    return drawn


def update_desk(drawn: list, lap: Lap, meter: Meter) -> None:
    """Move the artists of ``desk_blocks`` to show ``lap``: block widths, the notice's pointer, the headline."""
    sizes = [meter.count(message) for message in lap.sent]
    fixed = max(lap.assembled_tokens - sum(sizes), 0) if lap.sent else 0
    lefts = [fixed + sum(sizes[:i]) for i in range(len(sizes))]
    for artist in drawn:
        gid = artist.get_gid() or ""
        if gid == "zone:fixed":
            artist.set_width(fixed)
        elif gid.startswith("zone:"):
            spans = [
                (left, size)
                for left, size, zone in zip(lefts, sizes, lap.zones)
                if zone == gid[5:] or (gid == "zone:middle" and zone not in ZONES)
            ]
            artist.set_verts(
                [
                    [(x, -BAND), (x, BAND), (x + w, BAND), (x + w, -BAND), (x, -BAND)]
                    for x, w in spans
                ]
            )
        elif gid == "notice":  # a notice is a few tokens wide: point at it
            notices = [
                left + size / 2
                for left, size, zone in zip(lefts, sizes, lap.zones)
                if zone == "notice"
            ]
            artist.set_visible(bool(notices))
            artist.xy = (notices[0] if notices else 0, BAND)
        elif gid == "headline":
            artist.set_fontsize(TITLE)
            fit_first(artist.axes, artist, headlines(lap))


def desk_words(ax, lines: list[str], threshold: int | None = None) -> list:
    """The visibility lines under the desk: green with ✓ while something is on the desk, red with ✗ once not.

    A line too long for the desk keeps its verdict and loses words of the quote, from the end.
    """
    start = (4 + FONT * ROW if threshold else 0) + 6
    return [
        fit_first(
            ax,
            ax.annotate(
                line,
                (0, -BAND),
                xycoords=("axes fraction", "data"),
                xytext=(0, -start - FONT * ROW * row),
                textcoords="offset points",
                va="top",
                fontsize=FONT,
                color=WALL if "not visible" in line else GOOD,
                gid="visibility",
            ),
            shorter_forms(line, clauses=False, keep=line.find('"') + 1),
        )
        for row, line in enumerate(lines)
    ]


def fit_first(ax, text, forms: list[str], smallest: float = FONT):
    """Show the first of ``forms`` that ends inside the axes, at the text's own size or else at ``smallest``.

    ``forms`` go from the whole sentence to its shortest form (``shorter_forms``), so what fits is the most
    that fits; the last one is shown whatever its width. The texts fitted here start at the axes' left edge.
    Example: a 17-point headline too long for the desk -> the same words at 15 points, or a shorter form.
    """
    renderer = _renderer(ax)
    if renderer is None:  # no way to measure: the whole sentence
        text.set_text(forms[0])
        return text
    right, per_point = ax.get_window_extent(renderer).x1, ax.figure.dpi / 72
    width = right - ax.get_window_extent(renderer).x0
    sizes = list(dict.fromkeys((text.get_fontsize(), min(smallest, text.get_fontsize()))))
    for words in forms:
        for size in sizes:
            if len(words) * size * 0.35 * per_point > width:
                continue  # too long by any font's measure: no need to lay it out
            text.set_text(words)
            text.set_fontsize(size)
            if text.get_window_extent(renderer).x1 <= right:
                return text
    text.set_text(forms[-1])
    text.set_fontsize(sizes[-1])
    return text


CLAUSE_ENDS = (
    "; ",
    " (",
    ", ",
    ": ",
    " — ",
)  # where a sentence's first clause (what happened) ends


def shorter_forms(text: str, clauses: bool = True, keep: int = 0) -> list[str]:
    """``text``, then shorter ways to say it, longest first, none cut inside a word.

    First the later clauses go, the last first (what happened stays, the detail goes); then whole words
    from the end, marked "…", but never within the first ``keep`` characters. A quote cut short keeps
    its closing mark.
    Example: shorter_forms("cleared 1 more old tool results (21 in all)")[:3] ->
    ['cleared 1 more old tool results (21 in all)', 'cleared 1 more old tool results',
     'cleared 1 more old tool…']
    """
    forms = [text]
    if clauses:
        for cut in sorted(_clause_ends(text, keep), reverse=True):
            first = text[:cut].rstrip()
            if first and _balanced(first):
                forms.append(first)
    last, keep = forms[-1], min(keep, len(forms[-1]))
    words = last[keep:].split(" ")
    for count in range(len(words) - 1, 0, -1):
        kept = (last[:keep] + " ".join(words[:count])).rstrip(" ,;:·—(-")
        if len(kept) <= keep or not kept[keep:].strip():
            continue
        forms.append(kept + "…" + ('"' if kept.count('"') % 2 else ""))
    return list(dict.fromkeys(forms))


def _clause_ends(text: str, keep: int) -> set:
    """Every place after ``keep`` where a clause ends. Example: _clause_ends("a, b (c)", 0) -> {1, 4}"""
    found = set()
    for end in CLAUSE_ENDS:
        at = text.find(end, max(keep, 1))
        while at > 0:
            found.add(at)
            at = text.find(end, at + 1)
    return found


def _balanced(text: str) -> bool:
    return text.count('"') % 2 == 0 and text.count("(") == text.count(")")


def headline(lap: Lap) -> str:
    """The desk view's title, whole. Example: 'Lap 8 · compacted 9 messages into one summary · 1,650 of
    5,000 tokens sent'. ``headlines`` gives it and its shorter forms, for a narrow desk."""
    return headlines(lap)[0]


def headlines(lap: Lap) -> list[str]:
    """The headline, then shorter forms of it: the lap and what happened first, the tokens sent after.

    Example: ['Lap 10 · OVERFLOW: the request no longer fits · 5,368 of 5,000 tokens sent',
              'Lap 10 · OVERFLOW: the request no longer fits', 'Lap 10 · OVERFLOW', ...]
    """
    what = "OVERFLOW: the request no longer fits" if lap.kind == "overflow" else lap.event
    lead, sent = f"Lap {lap.number}", f"{lap.assembled_tokens:,} of {lap.window:,} tokens sent"
    if not what:
        return [f"{lead} · {sent}"]
    return [f"{lead} · {what} · {sent}"] + [f"{lead} · {form}" for form in shorter_forms(what)]


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

    The verdict comes first and the quoted words after, so a line shortened for a narrow desk
    (``desk_words``) still says which. Example: after a sliding window dropped the first message ->
    ['✗ Rule not visible: "Never touch production: run database changes on staging only."',
     '✗ Request not visible: "Users whose email address contains capital letters cannot log in. ..."']
    """
    lines = []
    for name, text in (("Rule", rule), ("Request", request)):
        if text:
            zone = where_on_desk(lap, text)
            seen = f"on the desk, in the {zone}" if zone else "not visible"
            lines.append(f'{"✓" if zone else "✗"} {name} {seen}: "{" ".join(text.split())}"')
    return lines


def summary_text(lap: Lap | None) -> str:
    """The summary the desk carries at this lap, or "none yet"."""
    return (lap.summary if lap is not None else None) or "none yet"


# ---- 3. the cost frontier ---------------------------------------------------------------------------

FAMILIES = [
    "full history",
    "sliding window",
    "three-zone",
    "running summary",
    "clear tool results",
    "clear, then compact",
]


def family_style(family: str):
    """Each strategy family's colour and marker, the same on every frontier picture."""
    index = FAMILIES.index(family) if family in FAMILIES else len(FAMILIES) + hash(family)
    return SERIES[index % len(SERIES)]


def plot_cost_frontier(
    points,
    goal: tuple[float, float] | None = None,
    title: str = "",
    label=None,
    limits: tuple[float, float] | None = None,
    ax=None,
):
    """Dollars with caching (up) against input tokens (across), both as % of full history's, one marker a run.

    ``points`` are ``stage.frontier.Point``s from ``measure()``. Each family has its own marker and colour, and
    its name beside its rightmost run. Filled markers kept the rule and reached the billing lap; hollow ones
    did not (never on the frontier). The frontier -- runs no other beats on both counts -- is joined by a
    line. ``goal=(tokens, dollars)`` shades the region that meets it; ``label``, one of the points, gets its
    family and settings written beside it; ``limits=(tokens, dollars)`` zooms in (e.g. ``(0.4, 1.5)``),
    otherwise the axes reach past full history's 100 %. The legend sits outside, to the right.
    Example: plot_cost_frontier(measure(task, sweep(), at_lap=20), goal=(0.35, 0.60)) -> the Axes.
    """
    ax = ax if ax is not None else _new_axes((11.5, 6.4))
    if goal:
        ax.add_patch(Rectangle((0, 0), goal[0] * 100, goal[1] * 100, color=GOOD, alpha=0.12, lw=0))
        ax.annotate(
            f"goal: <= {goal[0]:.0%} of the tokens,\n<= {goal[1]:.0%} of the dollars",
            (0, 0),
            xytext=(6, 6),
            textcoords="offset points",
            ha="left",
            va="bottom",
            color=GOOD,
            fontsize=FONT,
            gid="goal",
        )
    if limits:
        ax.set_xlim(0, limits[0] * 100)
        ax.set_ylim(0, limits[1] * 100)
    else:
        ax.set_xlim(0, 105)
        ax.set_ylim(0, round_up(max([p.dollars * 100 for p in points] + [105]), 25))
    for family in dict.fromkeys(p.family for p in points):
        style, mine = family_style(family), [p for p in points if p.family == family]
        for counts, face in ((True, style.colour), (False, "none")):
            chosen = [p for p in mine if p.counts == counts]
            if chosen:
                ax.scatter(
                    [p.tokens * 100 for p in chosen],
                    [p.dollars * 100 for p in chosen],
                    s=130,
                    marker=style.marker,
                    facecolor=face,
                    edgecolor=style.colour,
                    lw=2.2,
                    zorder=4,
                    label=family if counts else "_hollow",
                    gid=None if counts else f"hollow:{family}",
                )
    front = sorted((p for p in points if p.on_frontier), key=lambda p: p.tokens)
    if front:
        ax.plot(
            [p.tokens * 100 for p in front],
            [p.dollars * 100 for p in front],
            color=WALL,
            lw=2.5,
            zorder=3,
            label="frontier",
        )
        ax.scatter(
            [p.tokens * 100 for p in front],
            [p.dollars * 100 for p in front],
            s=300,
            marker="*",
            color=WALL,
            zorder=5,
        )
    if label is not None:
        words = textwrap.fill(f"{label.family} ({label.settings})", 34)
        ax.annotate(
            words,
            (label.tokens * 100, label.dollars * 100),
            xytext=(30, -90),
            textcoords="offset points",
            fontsize=FONT,
            bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.9},
            arrowprops={"arrowstyle": "->", "color": INK},
        )
    ax.axhline(100, color=INK, lw=1, ls=":")
    ax.axvline(100, color=INK, lw=1, ls=":")
    ax.set_xlabel("input tokens, % of full history's", fontsize=FONT)
    ax.set_ylabel("dollars with caching, % of full history's", fontsize=FONT)
    ax.tick_params(labelsize=FONT)
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title, fontsize=FONT, loc="left")
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    if any(not p.counts for p in points):  # one entry says what hollow means, for every family
        unique["hollow: rule lost or stopped early"] = Line2D(
            [], [], ls="", marker="o", ms=10, mfc="none", mec=INK, mew=2
        )
    legend = ax.legend(
        unique.values(),
        unique.keys(),
        fontsize=FONT,
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
        borderaxespad=0,
        framealpha=1,
    )
    make_room_right(ax, [legend])
    placed = []
    if front:
        _name_point(ax, "frontier", (front[-1].tokens * 100, front[-1].dollars * 100), WALL, placed)
    for family in dict.fromkeys(p.family for p in points):
        inside = [p for p in points if p.family == family and _inside(ax, p)]
        if inside:
            last = max(inside, key=lambda p: (p.tokens, -p.dollars))
            _name_point(
                ax,
                family,
                (last.tokens * 100, last.dollars * 100),
                family_style(family).colour,
                placed,
            )
    return ax


def _inside(ax, point) -> bool:
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    return x0 <= point.tokens * 100 <= x1 and y0 <= point.dollars * 100 <= y1


SIDES = [
    ((12, 0), "left", "center"),
    ((-12, 0), "right", "center"),
    ((0, 12), "center", "bottom"),
    ((0, -12), "center", "top"),
    ((12, -12), "left", "top"),
    ((-12, 12), "right", "bottom"),
]


def _marker_points(ax) -> list:
    """Where every scatter marker of ``ax`` is, in pixels."""
    return [
        tuple(point)
        for group in ax.collections
        if hasattr(group, "get_offsets")
        for point in group.get_offset_transform().transform(group.get_offsets())
    ]


def _name_point(ax, words: str, xy: tuple, colour: str, placed: list) -> None:
    """A direct label beside ``xy``, on the first side where it crosses no line and no other label."""
    renderer = _renderer(ax)
    frame = ax.get_window_extent(renderer) if renderer else None
    for offset, ha, va in SIDES:
        text = ax.annotate(
            words,
            xy,
            xytext=offset,
            textcoords="offset points",
            ha=ha,
            va=va,
            fontsize=FONT,
            color=colour,
            fontweight="bold",
            gid=f"label-for:{words}",
            zorder=6,
            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1},
        )
        if renderer is None:
            return
        box = text.get_window_extent(renderer)
        crossed = any(
            line.get_transform().transform_path(line.get_path()).intersects_bbox(box, filled=False)
            for line in ax.lines
        )
        covers = any(box.expanded(1.0, 1.0).padded(7).contains(x, y) for x, y in _marker_points(ax))
        if (
            frame.contains(box.x0, box.y0)
            and frame.contains(box.x1, box.y1)
            and not crossed
            and not covers
            and not any(box.overlaps(other) for other in placed)
        ):
            placed.append(box)
            return
        text.remove()
    placed.append(
        ax.annotate(
            words,
            xy,
            xytext=SIDES[0][0],
            textcoords="offset points",
            va="center",
            fontsize=FONT,
            color=colour,
            fontweight="bold",
            gid=f"label-for:{words}",
            zorder=6,
            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1},
        ).get_window_extent(renderer)
    )


# ---- helpers ------------------------------------------------------------------------------------------


def _as_runs(laps_by_label) -> dict:
    return laps_by_label if isinstance(laps_by_label, dict) else {"": list(laps_by_label)}


def _new_axes(size):
    """A figure at 72 dpi, so its points are pixels: 11.5 inches is 828 pixels, which a 1280-pixel screen
    with JupyterLab's file browser open shows at full size."""
    import matplotlib.pyplot as plt  # pyplot only when the caller gave no Axes (slides, notebooks)

    return plt.subplots(figsize=size, dpi=DPI)[1]


def _renderer(ax):
    try:
        return ax.figure.canvas.get_renderer()
    except AttributeError:
        return None


_METERS: list[Meter] = []


def default_meter() -> Meter:
    if not _METERS:
        _METERS.append(Meter())
    return _METERS[0]


def round_up(value: float, step: float) -> float:
    """Example: round_up(11_200, 2_500) -> 12_500"""
    return math.ceil(value / step) * step


def _squash(text: str) -> str:
    return " ".join(text.lower().split())


def short_names(names: list[str]) -> tuple[str, dict]:
    """The words every name starts with, up to a comma or colon, and each name without them.

    Example: short_names(["session two, no memory", "session two, your loader"]) ->
    ("session two", {"session two, no memory": "no memory", "session two, your loader": "your loader"})
    """
    shared = ""
    if len(names) > 1:
        first = min(names, key=len)
        for end in (", ", ": "):
            at = first.find(end)
            while at > 0:
                if all(name.startswith(first[: at + len(end)]) for name in names):
                    shared = first[: at + len(end)]
                at = first.find(end, at + 1)
    rest = {name: name[len(shared) :] for name in names}
    if not all(rest.values()):
        return "", {name: name for name in names}
    return shared.rstrip(" ,:"), rest


def _wrap(words: str, width: int = 28) -> str:
    """A margin label on as few lines as keep it ``width`` characters wide; breaks only at spaces."""
    return textwrap.fill(words, width, break_long_words=False, break_on_hyphens=False)
