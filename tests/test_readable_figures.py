"""Every picture with more than one series stays readable without colour: in greyscale, for deuteranopia, on a
projector.

For each figure, drawn from real offline runs, each *series* is found in what matplotlib drew: a data line,
a reference line (window, threshold, the desk's edge), a kind of marker, a zone of the desk. Then:

1. no two series of one plot share a look apart from colour: line style and marker, marker shape, hatch;
2. each series is drawn: hidden and redrawn, its pixels are found, and their colour -- simulated in
   greyscale and for deuteranopia -- keeps 3:1 against the white page (WCAG's bar for graphics);
3. each line carries a direct label, level with its end, in a colour that keeps 4.5:1 in both simulations,
   and each marker or zone is named in a legend;
4. no line crosses the text of a legend or a label.

The filtered pictures go to ``test-artifacts/readable/`` for a person to look at.
"""

import math
from pathlib import Path

import numpy as np
import PIL.Image
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PathCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.text import Text

from harness.clearing import ClearToolResults
from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.sliding_window import SlidingWindow
from harness.loop import run_agent
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from stage import palette
from stage.frontier import Point, frontier
from stage.offline import OfflineModel
from stage.picture import Picture
from stage.plots import FAMILIES, draw_desk, plot_cost_frontier, plot_tokens, threshold_tokens
from stage.tasks import file_reading_task

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "readable"
VISIONS = ("greyscale", "deuteranopia")
ZONE_WORDS = {"fixed": palette.FIXED.words} | {
    zone: look.words for zone, look in palette.ZONES.items()
}


# ---- finding the series in a drawn figure -------------------------------------------------------------------


class Series:
    def __init__(self, ax, kind: str, name: str, look: tuple, artist, colour: str):
        self.ax, self.kind, self.name, self.look, self.artist, self.colour = (
            ax,
            kind,
            name,
            look,
            artist,
            colour,
        )

    def __repr__(self):
        return f"{self.kind} {self.name!r} {self.look}"


def _hex(colour) -> str:
    return palette.hex_of(to_rgba(colour)[:3])


def series_of(ax) -> list[Series]:
    """Every series drawn in ``ax``: labelled lines, labelled scatter markers, the desk's zones."""
    found = []
    (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
    for line in ax.lines:
        if line.get_label().startswith("_"):
            continue
        xs, ys = line.get_xdata(), line.get_ydata()
        if len(xs) and (min(xs) > x1 or max(xs) < x0 or min(ys) > y1 or max(ys) < y0):
            continue  # scrolled out of view (a slide zooms in on the desk)
        dashes = (
            getattr(line, "_unscaled_dash_pattern", None) or line.get_linestyle()
        )  # the dash pattern
        marker = (
            line.get_marker() if line.get_marker() not in (None, "None", "none", "", " ") else None
        )
        found.append(
            Series(
                ax, "line", line.get_label(), (str(dashes), marker), line, _hex(line.get_color())
            )
        )
    for group in ax.collections:
        gid = group.get_gid() or ""
        if gid.startswith("zone:"):
            found.append(
                Series(
                    ax,
                    "zone",
                    gid[5:],
                    (group.get_hatch() or "",),
                    group,
                    _hex(group.get_facecolors()[0]),
                )
            )
        elif isinstance(group, PathCollection) and (
            not group.get_label().startswith("_") or gid.startswith("hollow:")
        ):
            shape = tuple(np.round(group.get_paths()[0].vertices, 2).ravel())
            hollow = len(group.get_facecolors()) == 0 or group.get_facecolors()[0][3] == 0
            colour = group.get_edgecolors()[0] if hollow else group.get_facecolors()[0]
            named = (
                "hollow: rule lost or stopped early"
                if gid.startswith("hollow:")
                else group.get_label()
            )
            found.append(Series(ax, "marker", named, (shape, hollow), group, _hex(colour)))
    for patch in ax.patches:
        if (patch.get_gid() or "").startswith("zone:"):
            found.append(
                Series(
                    ax,
                    "zone",
                    patch.get_gid()[5:],
                    (patch.get_hatch() or "",),
                    patch,
                    _hex(patch.get_facecolor()),
                )
            )
    return found


def texts_of(figure) -> list[Text]:
    return [t for t in figure.findobj(Text) if t.get_visible() and t.get_text().strip()]


def legend_words(figure) -> set[str]:
    legends = [ax.get_legend() for ax in figure.axes if ax.get_legend()] + list(figure.legends)
    return {text.get_text() for legend in legends for text in legend.get_texts()}


# ---- the four checks --------------------------------------------------------------------------------------


def check_looks_differ(figure):
    for ax in figure.axes:
        found = series_of(ax)
        for i, one in enumerate(found):
            for other in found[i + 1 :]:
                if one.kind == other.kind:
                    assert one.look != other.look, f"{one} and {other} differ only by colour"


def drawn_colour(figure, series: Series, base: np.ndarray) -> str:
    """The colour the series' own pixels have: hide it, redraw, and look where the picture changed most."""
    series.artist.set_visible(False)
    without = pixels(figure)
    series.artist.set_visible(True)
    change = np.abs(base.astype(int) - without.astype(int)).sum(axis=2)
    if change.max() == 0 and covered(series):
        return None
    assert change.max() > 0, f"{series} draws nothing"
    strongest = base[change >= change.max() * 0.6]
    return palette.hex_of(np.median(strongest, axis=0) / 255)


def covered(series: Series) -> bool:
    """A line drawn exactly under another (full history sends its whole raw history: the two lines are one)."""
    mine = series.artist.get_xydata()
    return series.kind == "line" and any(
        other is not series.artist
        and other.get_visible()
        and np.array_equal(other.get_xydata(), mine)
        for other in series.ax.lines
    )


def check_visible_without_colour(figure, name: str):
    base = pixels(figure)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for vision in VISIONS:
        PIL.Image.fromarray(simulate_image(base, vision)).save(ARTIFACTS / f"{name}-{vision}.png")
    for ax in figure.axes:
        for series in series_of(ax):
            colour = drawn_colour(figure, series, base)
            if colour is None:
                continue
            for vision in VISIONS:
                seen = palette.simulate(colour, vision)
                ratio = palette.contrast(seen)
                assert ratio >= 3, (
                    f"{name}: {series} drawn {colour} is {seen} in {vision}: {ratio:.2f}:1 on white"
                )


def check_labels(figure, name: str):
    """Each line has its direct label beside its end; each marker and zone is named in a legend."""
    texts, legend = texts_of(figure), legend_words(figure)
    renderer = figure.canvas.get_renderer()
    for ax in figure.axes:
        for series in series_of(ax):
            if series.kind != "line":
                words = (
                    ZONE_WORDS.get(series.name, series.name)
                    if series.kind == "zone"
                    else series.name
                )
                assert words in legend, f"{name}: {series} is named in no legend ({sorted(legend)})"
                continue
            labels = [
                t for t in texts if t.get_gid() == f"label-for:{series.name}" and t.axes is ax
            ]
            assert labels, f"{name}: the line {series.name!r} has no direct label"
            words = labels[0]
            box = words.get_window_extent(renderer)
            room = 3 * words.get_fontsize() * figure.dpi / 72
            ends = series.artist.get_transform().transform(series.artist.get_xydata()[[0, -1]])
            assert min(abs((box.y0 + box.y1) / 2 - y) for _, y in ends) <= room, (
                f"{name}: the label {words.get_text()!r} is not level with an end of {series.name!r}"
            )
            for vision in VISIONS:
                ratio = palette.contrast(palette.simulate(_hex(words.get_color()), vision))
                assert ratio >= 4.5, (
                    f"{name}: label {words.get_text()!r} is {ratio:.2f}:1 in {vision}"
                )


def check_no_line_crosses_words(figure, name: str):
    renderer = figure.canvas.get_renderer()
    legends = [ax.get_legend() for ax in figure.axes if ax.get_legend()] + list(figure.legends)
    words = [t for legend in legends for t in legend.get_texts()]
    words += [t for t in texts_of(figure) if (t.get_gid() or "").startswith("label-for:")]
    lines = [line for ax in figure.axes for line in ax.lines if line.get_visible()]
    for text in words:
        box = text.get_window_extent(renderer).shrunk(0.96, 0.8)
        for line in lines:
            path = line.get_transform().transform_path(line.get_path())
            clip = line.get_clip_box() if line.get_clip_on() else None
            if clip is not None and not clip.overlaps(box):
                continue  # the line is clipped to an axes that is elsewhere
            assert not path.intersects_bbox(box, filled=False), (
                f"{name}: the line {line.get_label()!r} crosses the words {text.get_text()!r}"
            )


def check_words_apart_and_inside(figure, name: str):
    """Legend text, labels and headlines overlap none of each other, and none is cut off by the figure's edge."""
    renderer = figure.canvas.get_renderer()
    legends = [ax.get_legend() for ax in figure.axes if ax.get_legend()] + list(figure.legends)
    words = [t for legend in legends for t in legend.get_texts()]
    words += [
        t for t in texts_of(figure) if (t.get_gid() or "").startswith(("label-for:", "headline"))
    ]
    page = figure.bbox
    ticks = {id(t) for ax in figure.axes for t in ax.get_xticklabels() + ax.get_yticklabels()}
    for text in (
        t for t in texts_of(figure) if id(t) not in ticks
    ):  # matplotlib keeps unseen tick labels
        box = text.get_window_extent(renderer)
        assert (
            page.x0 - 1 <= box.x0
            and box.x1 <= page.x1 + 1
            and page.y0 - 1 <= box.y0
            and box.y1 <= page.y1 + 1
        ), f"{name}: {text.get_text()!r} runs off the picture"
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in words]
    for i, (text, box) in enumerate(boxes):
        for other, second in boxes[i + 1 :]:
            assert not box.shrunk(0.98, 0.8).overlaps(second.shrunk(0.98, 0.8)), (
                f"{name}: {text!r} and {other!r} are written over each other"
            )


# ---- pixels ----------------------------------------------------------------------------------------------


def pixels(figure) -> np.ndarray:
    figure.canvas.draw()
    return np.asarray(figure.canvas.buffer_rgba())[:, :, :3].copy()


def simulate_image(image: np.ndarray, vision: str) -> np.ndarray:
    """``palette.simulate`` for every pixel at once (the same formulas, in numpy)."""
    c = image / 255
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    if vision == "greyscale":
        grey = linear @ np.array([0.2126, 0.7152, 0.0722])
        linear = np.repeat(grey[:, :, None], 3, axis=2)
    else:
        linear = linear @ np.array(palette.DEUTERANOPIA).T
    linear = np.clip(linear, 0, 1)
    encoded = np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)
    return np.round(encoded * 255).astype(np.uint8)


def test_the_image_filter_is_the_palettes_own():
    colours = ["#0072B2", "#C05600", "#FF0000", "#00FF00", "#888888"]
    image = np.array([[palette.rgb(c) for c in colours]]) * 255
    for vision in VISIONS:
        got = [palette.hex_of(p / 255) for p in simulate_image(np.round(image), vision)[0]]
        assert got == [palette.simulate(c, vision) for c in colours]


# ---- the figures, from real runs ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs():
    task, meter, made = file_reading_task(), Meter(), {}
    for name, strategy in {
        "full history": FullHistory(),
        "sliding window": SlidingWindow(),
        "three-zone compaction": ThreeZoneCompaction(),
        "running summary": RunningSummary(),
        "clear tool results": ClearToolResults(),
    }.items():
        model = OfflineModel(window=5000, meter=meter)
        made[name] = (
            run_agent(
                task.request,
                model,
                context=strategy,
                remarks=task.remarks,
                max_laps=60,
                meter=meter,
            ),
            threshold_tokens(strategy, model),
        )
    return task, meter, made


def figure(width: float, height: float):
    made = Figure(figsize=(width, height), dpi=72)
    FigureCanvasAgg(made)
    return made


def one_run(runs):
    run, threshold = runs[2]["three-zone compaction"]
    fig = figure(11.5, 5.2)
    plot_tokens({"three-zone compaction": run.laps}, threshold=threshold, ax=fig.subplots())
    return fig


def overflow(runs):
    fig = figure(11.5, 5.2)
    plot_tokens(runs[2]["full history"][0].laps, ax=fig.subplots())
    return fig


def several(*names):
    """Like lesson 05's two sessions and 06's parent, sub-agent and lone agent."""

    def draw(runs):
        fig = figure(11.5, 5.2)
        plot_tokens({name: runs[2][name][0].laps for name in names}, window=5000, ax=fig.subplots())
        return fig

    return draw


def desk(name: str, kind: str):
    def draw(runs):
        task, meter, made = runs
        run, threshold = made[name]
        lap = next(lap for lap in reversed(run.laps) if lap.kind == kind)
        assert len(set(lap.zones)) >= 2
        fig = figure(11.5, 3.0)
        draw_desk(
            lap,
            rule=task.rule,
            request=task.request,
            ax=fig.subplots(),
            meter=meter,
            threshold=threshold,
        )
        return fig

    return draw


def dashboard(scale: float):
    def draw(runs):
        task, meter, made = runs
        run, threshold = made["three-zone compaction"]
        picture = Picture(
            threshold, task.rule, task.request, meter, label="three-zone compaction", scale=scale
        )
        picture.png(run.laps, len(run.laps))
        return picture.still(run.laps, len(run.laps))

    return draw


def cost_frontier(_runs):
    """Every family, filled and hollow, in a scatter as crowded as a real sweep."""
    points, step = [], 0
    for family in FAMILIES:
        for kept in (True, False):
            step += 1
            tokens, dollars = 0.15 + 0.13 * (step % 7), 0.3 + 0.11 * step + 0.2 * math.sin(step)
            points.append(
                Point(
                    family,
                    f"setting {step}",
                    tokens,
                    dollars,
                    kept,
                    True,
                    20,
                    "answered",
                    "staging" if kept else "production",
                    0,
                )
            )
    frontier(points)
    fig = figure(11.5, 6.4)
    plot_cost_frontier(points, goal=(0.35, 0.6), ax=fig.subplots())
    return fig


FIGURES = {
    "tokens-one-run": one_run,
    "tokens-overflow": overflow,
    "tokens-2-runs": several("sliding window", "running summary"),
    "tokens-3-runs": several("three-zone compaction", "running summary", "clear tool results"),
    "desk-compact": desk("three-zone compaction", "compact"),
    "desk-drop": desk("sliding window", "drop"),
    "desk-clear": desk("clear tool results", "clear"),
    "dashboard": dashboard(1.0),
    "dashboard-large": dashboard(1.4),
    "cost-frontier": cost_frontier,
}


@pytest.mark.parametrize("name", FIGURES)
def test_series_differ_by_more_than_colour_and_are_labelled_clear_of_lines(runs, name):
    fig = FIGURES[name](runs)
    fig.canvas.draw()
    check_looks_differ(fig)
    check_labels(fig, name)
    check_no_line_crosses_words(fig, name)
    check_words_apart_and_inside(fig, name)


@pytest.mark.integration  # draws each figure again once per series: tens of seconds in all
@pytest.mark.parametrize("name", FIGURES)
def test_every_series_is_seen_in_greyscale_and_with_deuteranopia(runs, name):
    fig = FIGURES[name](runs)
    check_visible_without_colour(fig, name)


SLIDES = [
    "desk_fills_up",
    "filling_desk",
    "sliding_window",
    "sliding_window_pinned",
    "three_zones",
    "sawtooth",
    "diverging_lines",
    "token_bill",
    "notebook_beside_desk",
]


@pytest.mark.integration  # the slides' own runs, then each figure drawn again once per series
@pytest.mark.parametrize("name", SLIDES)
def test_the_slide_figures_too(name):
    from slides import figures

    fig = figures.FIGURES[name]()
    fig.canvas.draw()
    check_looks_differ(fig)
    check_labels(fig, f"slide-{name}")
    check_no_line_crosses_words(fig, f"slide-{name}")
    check_words_apart_and_inside(fig, f"slide-{name}")
    check_visible_without_colour(fig, f"slide-{name}")
