"""The dashboard's pieces, read back from the matplotlib objects they draw (no browser, no sleeps).

The browser test (tests/test_browser_dashboard.py) checks that JupyterLab shows it moving; these
check what is drawn: the right lines, markers, blocks and words for real offline runs.
"""

import asyncio

import ipywidgets
import nbformat
import pytest
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.strategies import STRATEGIES
from harness.laps import Lap
from harness.loop import run_agent
from harness.messages import assistant, user
from harness.tokens import Meter
from stage.offline import OfflineModel
from stage.widgets import (
    ZONES,
    Dashboard,
    Picture,
    draw_desk,
    live_plot,
    plot_tokens,
    summary_text,
    threshold_tokens,
    visibility_lines,
    where_on_desk,
)


@pytest.fixture(scope="module")
def runs():
    """One offline run per strategy, on the class task: {name: (run, model)}."""
    from stage.tasks import file_reading_task

    task, meter, made = file_reading_task(), Meter(), {}
    for name, strategy in STRATEGIES.items():
        model = OfflineModel(window=5000, meter=meter)
        made[name] = (
            run_agent(task.request, model, context=strategy(), max_laps=80, meter=meter),
            model,
        )
    return made


def axes():
    return Figure().subplots()


def line(ax, label):
    return next(each for each in ax.lines if each.get_label() == label)


def markers(ax, label):
    return next(each for each in ax.collections if each.get_label() == label)


def message_blocks(ax):
    """(left, width, colour, hatch) of each message block the desk view drew, left to right.

    The desk draws one collection per zone (a hatch is one per collection), named "zone:<zone>".
    """
    found = []
    for blocks in (each for each in ax.collections if (each.get_gid() or "").startswith("zone:")):
        colour = tuple(blocks.get_facecolors()[0])
        for path in blocks.get_paths():
            left, right = path.vertices[:, 0].min(), path.vertices[:, 0].max()
            found.append((left, right - left, colour, blocks.get_hatch()))
    return sorted(found)


# ---- the token plot -------------------------------------------------------------------------------


def test_plot_tokens_draws_raw_and_assembled_lines_window_threshold_and_compactions(runs):
    run, model = runs["three-zone compaction"]
    threshold = threshold_tokens(ThreeZoneCompaction(), model)
    ax = plot_tokens({"three-zone": run.laps}, threshold=threshold, ax=axes())
    assert list(line(ax, "raw history").get_ydata()) == [lap.raw_tokens for lap in run.laps]
    assert list(line(ax, "assembled (sent)").get_ydata()) == [
        lap.assembled_tokens for lap in run.laps
    ]
    assert list(line(ax, "assembled (sent)").get_xdata()) == [lap.number for lap in run.laps]
    assert list(line(ax, "window (5,000)").get_ydata()) == [5000, 5000]
    assert threshold == int((5000 - 512) * 0.75)
    assert list(line(ax, f"threshold ({threshold:,})").get_ydata()) == [threshold, threshold]
    compactions = [lap for lap in run.laps if lap.kind == "compact"]
    assert compactions, "the class run compacts several times"
    points = markers(ax, "compacted").get_offsets().tolist()
    assert points == [[lap.number, lap.assembled_tokens] for lap in compactions]
    assert "overflow" not in [t.get_text() for t in ax.texts]


def test_a_full_history_overflow_is_a_red_x_named_overflow(runs):
    run, _ = runs["full history"]
    assert run.stopped == "overflow"
    ax = plot_tokens({"full history": run.laps}, ax=axes())
    last = run.laps[-1]
    assert markers(ax, "overflow").get_offsets().tolist() == [[last.number, last.assembled_tokens]]
    assert last.assembled_tokens > 5000
    assert "overflow" in [t.get_text() for t in ax.texts]
    assert "overflow" in [t.get_text() for t in ax.get_legend().get_texts()]


@pytest.mark.parametrize(
    "name, kind, label",
    [
        ("sliding window", "drop", "dropped oldest"),
        ("running summary", "fold", "folded"),
        ("clear tool results", "clear", "cleared results"),
    ],
)
def test_each_kind_of_event_gets_its_marker(runs, name, kind, label):
    run, _ = runs[name]
    ax = plot_tokens(run.laps, ax=axes())
    assert len(markers(ax, label).get_offsets()) == sum(lap.kind == kind for lap in run.laps) > 0


def test_several_runs_share_one_plot(runs):
    ax = plot_tokens(
        {name: runs[name][0].laps for name in ("sliding window", "running summary")}, ax=axes()
    )
    labels = [each.get_label() for each in ax.lines]
    for name in ("sliding window", "running summary"):
        assert f"raw history — {name}" in labels and f"assembled (sent) — {name}" in labels
    assert labels.count("window (5,000)") == 1


def test_a_threshold_given_as_a_fraction_is_refused_with_a_hint(runs):
    with pytest.raises(ValueError, match="threshold is in tokens"):
        plot_tokens(runs["three-zone compaction"][0].laps, threshold=0.75, ax=axes())


# ---- the desk view --------------------------------------------------------------------------------


def test_worked_example_desk_blocks():
    """Three messages counted with the chars/4 meter, each count + 4 of overhead:

    "abcdefgh" (8 chars) -> 2 + 4 = 6;  "abcdefghijklmnop" (16) -> 4 + 4 = 8;  "Never x." (8) -> 6.
    The lap sent 50 tokens in all, so system + tools take 50 - (6 + 8 + 6) = 30, drawn first in grey.
    The blocks then start at 30, 36 and 44, are 6, 8 and 6 wide, and take their zones' colours.
    """
    sent = [
        user("abcdefgh"),
        assistant([{"type": "text", "text": "abcdefghijklmnop"}]),
        user("Never x."),
    ]
    lap = Lap(
        3,
        raw_tokens=80,
        assembled_tokens=50,
        sent=sent,
        zones=["head", "summary", "tail"],
        window=100,
    )
    ax = draw_desk(lap, rule="never X.", request="something else", ax=axes(), meter=Meter("chars4"))
    looks = [
        (to_rgba(ZONES[zone].colour), ZONES[zone].hatch or None)
        for zone in ("head", "summary", "tail")
    ]
    assert message_blocks(ax) == [(30, 6, *looks[0]), (36, 8, *looks[1]), (44, 6, *looks[2])]
    assert [(grey.get_x(), grey.get_width()) for grey in ax.patches] == [(0, 30)]
    words = [t.get_text() for t in ax.texts]
    assert '✓ Rule "never X.": on the desk, in the verbatim tail' in words
    assert '✗ Request "something else": not visible' in words


@pytest.mark.parametrize("name", STRATEGIES)
def test_desk_has_one_block_per_message_sent_as_wide_as_its_tokens(runs, name):
    run, model = runs[name]
    for lap in (run.laps[0], run.laps[len(run.laps) // 2], run.laps[-1]):
        ax = draw_desk(lap, ax=axes(), meter=model.meter)
        blocks = message_blocks(ax)
        assert len(blocks) == len(lap.sent)
        assert [width for _, width, _, _ in blocks] == [model.meter.count(m) for m in lap.sent]
        looks = [(to_rgba(ZONES[zone].colour), ZONES[zone].hatch or None) for zone in lap.zones]
        assert [(colour, hatch) for _, _, colour, hatch in blocks] == looks, (
            "each block looks like its zone"
        )
        edge = [each for each in ax.lines if list(each.get_xdata()) == [lap.window, lap.window]]
        assert edge, "the window is drawn as the desk's edge"


def test_visibility_line_says_not_visible_once_a_sliding_window_dropped_the_rule(runs):
    from stage.tasks import file_reading_task

    task = file_reading_task()
    run, model = runs["sliding window"]
    first, last = run.laps[0], run.laps[-1]
    assert where_on_desk(first, task.rule) == "head"
    assert where_on_desk(last, task.rule) is None, "the window slid past the first message"
    rule_line, request_line = visibility_lines(last, task.rule, task.request)
    assert rule_line.startswith('✗ Rule "Never touch production') and rule_line.endswith(
        "not visible"
    )
    assert request_line.startswith("✗ Request") and request_line.endswith("not visible")
    ax = draw_desk(last, rule=task.rule, request=task.request, ax=axes(), meter=model.meter)
    assert rule_line in [t.get_text() for t in ax.texts]
    kept = visibility_lines(runs["three-zone compaction"][0].laps[-1], task.rule)
    assert kept == ['✓ Rule "Never touch production: run…": on the desk, in the head (request)']


def test_summary_panel_shows_the_summary_or_none_yet(runs):
    run, _ = runs["three-zone compaction"]
    assert summary_text(None) == "none yet"
    assert summary_text(run.laps[0]) == "none yet"
    compacted = next(lap for lap in run.laps if lap.kind == "compact")
    assert summary_text(compacted) == compacted.summary and compacted.summary.startswith("Goal:")


# ---- the picture -----------------------------------------------------------------------------------


def test_picture_draws_its_background_once_per_run_and_each_lap_differs(runs, monkeypatch):
    run, model = runs["three-zone compaction"]
    picture = Picture(threshold=3366, meter=model.meter, label="three-zone")
    backgrounds = []
    original = picture.canvas.draw
    monkeypatch.setattr(picture.canvas, "draw", lambda: backgrounds.append(1) or original())
    images = [picture.png(run.laps, shown) for shown in range(len(run.laps) + 1)]
    assert all(image.startswith(b"\x89PNG") for image in images)
    assert len(set(images)) == len(images), "every lap is a different picture"
    assert len(backgrounds) == 1


# ---- the dashboard ---------------------------------------------------------------------------------


def all_widgets(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from all_widgets(child)


@pytest.fixture
def dashboard():
    return Dashboard(delay=0)


def test_dashboard_builds_with_its_controls_and_no_float_slider(dashboard):
    kinds = {type(each) for each in all_widgets(dashboard.widget)}
    assert ipywidgets.FloatSlider not in kinds, "a FloatSlider with a non-zero min drifts"
    controls = dashboard.controls
    assert isinstance(controls["strategy"], ipywidgets.Dropdown)
    assert isinstance(controls["window"], ipywidgets.IntSlider) and controls["window"].value == 5000
    assert isinstance(controls["threshold"], ipywidgets.SelectionSlider)
    assert controls["threshold"].value == 0.75
    assert isinstance(controls["tail_turns"], ipywidgets.IntSlider)
    assert set(dashboard.buttons) == {"step", "play", "pause", "reset"}
    assert dashboard.run is None and dashboard.shown == 0


def test_step_advances_one_lap_and_reset_returns_to_lap_0(dashboard):
    dashboard.buttons["step"].click()
    assert dashboard.shown == 1 and dashboard.run is not None
    first = dashboard.png
    dashboard.step()
    assert dashboard.shown == 2 and dashboard.png != first
    assert "lap 2 of" in dashboard.status.value
    dashboard.buttons["reset"].click()
    assert dashboard.shown == 0 and dashboard.png.startswith(b"\x89PNG")
    assert "lap 0 of" in dashboard.status.value


def test_play_runs_to_the_end_and_shows_the_summary(dashboard):
    dashboard.buttons["play"].click()
    assert dashboard.shown == len(dashboard.laps) == len(dashboard.run.laps) > 1
    assert not dashboard.playing
    assert "stopped: answered" in dashboard.status.value
    assert "Goal:" in dashboard.summary.value, "three-zone compaction leaves a summary on the desk"


def test_changing_a_control_then_playing_reruns_from_the_start(dashboard):
    dashboard.play()
    before = dashboard.run
    dashboard.controls["strategy"].value = "full history"
    assert "settings changed" in dashboard.status.value
    dashboard.play()
    assert dashboard.run is not before
    assert dashboard.run.stopped == "overflow" and dashboard.laps[-1].kind == "overflow"
    assert dashboard.shown == len(dashboard.laps)
    dashboard.controls["window"].value = 8000
    dashboard.step()
    assert dashboard.shown == 1 and dashboard.laps[0].window == 8000


def test_pause_stops_an_animation_playing_on_an_event_loop():
    dashboard = Dashboard(delay=0.001)

    async def press_play_then_pause():
        dashboard.play()  # inside a running loop (as in a kernel): animates as a task
        assert dashboard.playing
        for _ in range(3):
            await asyncio.sleep(0)
        dashboard.pause()
        await asyncio.sleep(0.05)

    asyncio.run(press_play_then_pause())
    assert not dashboard.playing
    assert 0 < dashboard.shown < len(dashboard.laps)


def test_the_display_offers_the_widget_and_a_png_for_headless_runs(dashboard):
    dashboard.show_end()
    bundle = dashboard._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["image/png"] and bundle["text/plain"].endswith("stopped: answered")


def test_live_plot_redraws_for_each_lap_and_passes_it_on(capsys):
    from stage.tasks import file_reading_task

    seen = []
    live = live_plot(on_lap=seen.append, rule=file_reading_task().rule)
    run = run_agent(file_reading_task().request, OfflineModel(), context=FullHistory(), on_lap=live)
    assert live.laps == run.laps == seen


@pytest.mark.integration  # a notebook in a kernel
def test_show_dashboard_leaves_an_image_when_a_notebook_runs_headless(tmp_path):
    """nbclient runs no widget frontend: the dashboard's PNG fallback must land in the cell's outputs."""
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook()
    code = "from stage.widgets import show_dashboard\nshow_dashboard()"
    notebook.cells = [nbformat.v4.new_code_cell(code)]
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    outputs = notebook.cells[0].outputs
    assert [o.output_type for o in outputs] == ["display_data"]
    assert outputs[0].data["image/png"]
    assert "application/vnd.jupyter.widget-view+json" in outputs[0].data
