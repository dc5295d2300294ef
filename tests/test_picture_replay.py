"""The dashboard's picture, replayed as the class sees it: every lap drawn over the one before must look
exactly like that lap drawn on a fresh picture.

``stage.picture.Picture`` draws the axes, legends and keys once, then moves the lap's own artists (the lines,
the markers, the margin labels, the desk's blocks, the headline) from lap to lap. A value left over from an
earlier lap shows as a label that stays where the line used to end. So, for every strategy of
``harness.strategies.STRATEGIES`` on the class task, at the normal and the projector scale, the picture
goes the way the dashboard does -- the last lap first (``show_dashboard``), then reset, then play -- and at
laps 1, the middle and the last (every lap in the integration tier) every text is compared with a fresh picture of the same lap: its words, whether it is
shown, and where it lands (its box on the canvas, to a tenth of a pixel); then every line's data, every
marker's position and the pixels themselves.
"""

import pytest

from harness.loop import run_agent
from harness.strategies import STRATEGIES
from harness.tokens import Meter
from matplotlib.text import Text
from stage.offline import OfflineModel
from stage.picture import Picture
from stage.plots import threshold_tokens
from stage.tasks import file_reading_task
from stage.widgets import LARGE

SCALES = {"normal": 1.0, "large": LARGE}


@pytest.fixture(scope="module")
def runs():
    """One offline run per strategy on the class task: {name: (laps, threshold in tokens)}."""
    task, meter, made = file_reading_task(), Meter(), {}
    for name, make in STRATEGIES.items():
        model, strategy = OfflineModel(window=5000, meter=meter), make()
        run = run_agent(
            task.request, model, context=strategy, remarks=task.remarks, max_laps=80, meter=meter
        )
        made[name] = run.laps, threshold_tokens(strategy, model)
    return task, meter, made


def sample(count: int) -> list[int]:
    """Lap 1 (drawn over the last lap, as after reset), the middle one and the last."""
    return sorted({1, count // 2, count} & set(range(1, count + 1)))


def texts(picture: Picture) -> list[tuple]:
    """(words, shown?, box to 0.1 px) of every text in the picture, in a stable order."""
    renderer = picture.canvas.get_renderer()
    found = []
    for text in picture.figure.findobj(Text):
        if not text.get_text().strip():
            continue
        box = text.get_window_extent(renderer) if text.get_visible() else None
        corners = tuple(round(float(v), 1) for v in box.extents) if box is not None else None
        found.append((text.get_gid() or "", text.get_text(), text.get_visible(), corners))
    return sorted(found, key=repr)


def data(picture: Picture) -> list[tuple]:
    """Every line's points and every marker group's positions, as drawn."""
    found = []
    for ax in picture.figure.axes:
        for line in ax.lines:
            found.append(
                (line.get_label(), line.get_visible(), line.get_xydata().round(3).tolist())
            )
        for group in ax.collections:
            offsets = group.get_offsets()
            found.append((group.get_label(), group.get_visible(), [list(p) for p in offsets]))
    return sorted(found, key=repr)


def replay(runs, name: str, scale: str, wanted) -> None:
    """Play ``name``'s run as the dashboard does and compare the laps in ``wanted`` with fresh drawings."""
    task, meter, made = runs
    laps, threshold = made[name]

    def picture():
        return Picture(threshold, task.rule, task.request, meter, label=name, scale=SCALES[scale])

    played = picture()
    played.png(laps, len(laps))  # show_dashboard: the last lap first
    played.png(laps, 0)  # reset
    checked = 0
    for shown in range(1, len(laps) + 1):  # play
        image = played.png(laps, shown)
        if shown not in wanted(len(laps)):
            continue
        fresh = picture()
        expected = fresh.png(laps, shown)
        got, want = texts(played), texts(fresh)
        assert got == want, (
            f"{name} at {scale} size, lap {shown}: texts differ from a fresh drawing\n"
            + "\n".join(f"  played {g}\n  fresh  {w}" for g, w in zip(got, want) if g != w)
        )
        assert data(played) == data(fresh), f"{name} at {scale} size, lap {shown}: lines differ"
        assert image == expected, f"{name} at {scale} size, lap {shown}: the pixels differ"
        checked += 1
    assert checked >= min(len(laps), 3), f"{name}: only {checked} laps compared"


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("name", STRATEGIES)
def test_a_replayed_lap_looks_like_a_fresh_drawing_of_it(runs, name, scale):
    replay(runs, name, scale, sample)


@pytest.mark.integration  # a fresh picture for every lap of every run: about a minute
@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("name", STRATEGIES)
def test_every_replayed_lap_looks_like_a_fresh_drawing_of_it(runs, name, scale):
    replay(runs, name, scale, lambda count: range(1, count + 1))
