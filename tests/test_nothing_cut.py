"""Nothing that carries the lesson is cut: every picture the lessons draw, read back from matplotlib.

The pictures: the dashboard's (``stage.picture.Picture``, also ``live_plot``'s) at every lap of every
strategy on the class task, at the normal and the projector scale; and the plot functions the lessons call,
as they call them -- ``plot_tokens`` for one run and for several (05's four sessions), ``draw_desk`` at the
laps the lessons show, 04's bill race. For each:

1. no text is cut short with "…" in its first 40 characters (a shorter form drops the detail, after the
   part that says what happened; ``stage.plots.shorter_forms``);
2. every text, legend and label ends inside the picture (a cut made by the picture's edge is a cut too);
3. every series -- a line, a kind of marker -- is named, and no two by the same words.

``shorter_forms`` itself is checked on generated sentences: every form is the sentence's start, cut only
between words.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from harness.loop import run_agent
from harness.memory import PROJECT_MEMORY
from harness.model import CLASS_WINDOW
from harness.promote import promote
from harness.prompts import SYSTEM_PROMPT
from harness.running_summary import RunningSummary
from harness.strategies import STRATEGIES
from harness.tokens import Meter
from stage.offline import OfflineModel
from stage.pieces import class_piece
from stage.production import last_summary
from stage.picture import Picture
from stage.plots import draw_desk, plot_tokens, shorter_forms, threshold_tokens
from stage.tasks import GOAL, file_reading_task
from stage.widgets import LARGE

FIRST = 40  # characters that must never be cut


@pytest.fixture(scope="module")
def runs():
    """One offline run per strategy on the class task: {name: (laps, threshold in tokens)}."""
    task, meter, made = file_reading_task(), Meter(), {}
    for name, make in STRATEGIES.items():
        model, strategy = OfflineModel(window=CLASS_WINDOW, meter=meter), make()
        run = run_agent(
            task.request, model, context=strategy, remarks=task.remarks, max_laps=80, meter=meter
        )
        made[name] = run.laps, threshold_tokens(strategy, model)
    return task, meter, made


# ---- the three checks ---------------------------------------------------------------------------------


def shown_texts(figure) -> list[Text]:
    """Every text a reader sees: visible, not empty, not one of the tick labels matplotlib keeps unseen."""
    ticks = {
        id(label)
        for ax in figure.axes
        for axis in (ax.xaxis, ax.yaxis)
        for tick in axis.majorTicks + axis.minorTicks
        for label in (tick.label1, tick.label2)
    }
    return [
        t
        for t in figure.findobj(Text)
        if t.get_visible() and t.get_text().strip() and id(t) not in ticks
    ]


def check_nothing_cut(figure, texts: list[Text], name: str):
    renderer = figure.canvas.get_renderer()
    page = figure.bbox
    for text in texts:
        words = text.get_text()
        assert "…" not in words[:FIRST], f"{name}: {words!r} is cut short"
        box = text.get_window_extent(renderer)
        assert (
            page.x0 - 1 <= box.x0
            and box.x1 <= page.x1 + 1
            and page.y0 - 1 <= box.y0
            and box.y1 <= page.y1 + 1
        ), f"{name}: {words!r} runs off the picture ({box.extents.round()} in {page.extents})"
    for ax in figure.axes:
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            box = legend.get_window_extent(renderer)
            assert page.x0 - 1 <= box.x0 and box.x1 <= page.x1 + 1 and page.y0 - 1 <= box.y0, (
                f"{name}: a legend runs off the picture"
            )


def check_every_series_named_once(figure, texts: list[Text], name: str):
    """Lines by their direct label (gid "label-for:<line>"), markers by their legend entry."""
    for ax in figure.axes:
        labels = {
            t.get_gid()[len("label-for:") :]: t.get_text()
            for t in texts
            if t.axes is ax and (t.get_gid() or "").startswith("label-for:")
        }
        legend = ax.get_legend()
        entries = [t.get_text() for t in legend.get_texts()] if legend else []
        named = []
        for line in ax.lines:
            if line.get_label().startswith("_") or not line.get_visible():
                continue
            if not len(line.get_xdata()):
                continue  # nothing drawn yet (lap 0)
            assert line.get_label() in labels, f"{name}: the line {line.get_label()!r} has no label"
            named.append(labels[line.get_label()])
        for group in ax.collections:
            label = group.get_label()
            if label.startswith("_") or not group.get_visible() or not len(group.get_offsets()):
                continue
            if (group.get_gid() or "").startswith("zone:"):
                continue  # the desk's zones: its key, checked by tests/test_readable_figures.py
            assert label in entries, f"{name}: the markers {label!r} are not in the legend"
            named.append(label)
        assert len(named) == len(set(named)), f"{name}: two series share a name: {sorted(named)}"
        assert len(entries) == len(set(entries)), f"{name}: a legend names two things alike"


def check(figure, name: str, drawn: bool = False):
    if not drawn:
        figure.canvas.draw()
    texts = shown_texts(figure)
    check_nothing_cut(figure, texts, name)
    check_every_series_named_once(figure, texts, name)


def figure(width: float, height: float, **options) -> Figure:
    made = Figure(figsize=(width, height), dpi=72, **options)
    FigureCanvasAgg(made)
    return made


# ---- the dashboard, every lap --------------------------------------------------------------------------


# Everything in the picture grows with its scale, so the large size fits as the normal one does; it is
# drawn in the integration tier, to be sure.
SCALES = [
    pytest.param(1.0, id="normal"),
    pytest.param(LARGE, id="large", marks=pytest.mark.integration),
]


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("name", STRATEGIES)
def test_every_dashboard_frame_shows_its_words_whole(runs, name, scale):
    task, meter, made = runs
    laps, threshold = made[name]
    label = {"sliding window": "your sliding window"}.get(name, name)  # as lesson 02 names it
    picture = Picture(threshold, task.rule, task.request, meter, label=label, scale=scale)
    for shown in range(1, len(laps) + 1):
        picture.png(laps, shown)  # draws the lap's own artists over the background
        check(picture.figure, f"{name} at lap {shown}, scale {scale}", drawn=True)


# ---- the lessons' plots, as the lessons call them ------------------------------------------------------


@pytest.mark.parametrize("name", STRATEGIES)
def test_one_run_on_the_token_plot(runs, name):
    task, meter, made = runs
    laps, threshold = made[name]
    fig = figure(11.5, 5.2)
    plot_tokens({name: laps}, threshold=threshold, ax=fig.subplots())
    check(fig, f"plot_tokens {name}")


@pytest.mark.parametrize("name", STRATEGIES)
def test_the_desk_at_the_laps_the_lessons_show(runs, name):
    """02 draws the last lap that held the rule and the one after; 03 the first compaction; others the last."""
    task, meter, made = runs
    laps, threshold = made[name]
    events = [lap for lap in laps if lap.event]
    for lap in {
        laps[0].number: laps[0],
        laps[-1].number: laps[-1],
        **{e.number: e for e in events[:3]},
    }.values():
        fig = figure(12, 3.4)
        draw_desk(lap, task.rule, task.request, ax=fig.subplots(), meter=meter, threshold=threshold)
        check(fig, f"draw_desk {name} lap {lap.number}")


def test_several_runs_each_line_named_once(runs):
    task, meter, made = runs
    names = ["three-zone compaction", "running summary", "clear tool results"]
    fig = figure(11.5, 5.2)
    plot_tokens({name: made[name][0] for name in names}, window=CLASS_WINDOW, ax=fig.subplots())
    check(fig, "three runs")


def test_lesson_05s_sessions_each_line_named_once(tmp_path):
    """05 draws session one and session two three ways (no memory, the promoted rule, the four lines):
    eight lines, eight names, and the window."""
    meter = Meter()

    def session(request, system=SYSTEM_PROMPT, remarks=None):
        model = OfflineModel(window=CLASS_WINDOW, meter=meter)
        return run_agent(
            request, model, context=RunningSummary(), system=system, meter=meter, remarks=remarks
        )

    loader = class_piece("load_claude_md", {}, quiet=True)
    late = file_reading_task(rule_at_lap=3)
    one = session(late.request, remarks=late.remarks)
    promoted = tmp_path / "CLAUDE.md"
    assert promote(last_summary(one), promoted), "the minutes carried no rule to promote"
    two = {
        "no memory": session(GOAL),
        "promoted": session(GOAL, loader(promoted)),
        "four lines": session(GOAL, loader(PROJECT_MEMORY)),
    }
    laps = {"session one": one.laps}
    laps.update({f"two, {name}": run.laps for name, run in two.items()})
    fig = figure(11.5, 5.2)
    ax = fig.subplots()
    plot_tokens(laps, window=CLASS_WINDOW, ax=ax)
    check(fig, "05's sessions")
    labels = sorted(t.get_text() for t in ax.texts if (t.get_gid() or "").startswith("label-for:"))
    names = ["session one", "two, no memory", "two, promoted", "two, four lines"]
    assert labels == sorted([f"{n} ({k})" for n in names for k in ("raw", "sent")] + ["window"])


def test_lesson_04s_bill_race():
    from harness.clear_then_compact import ClearThenCompact
    from harness.compaction import ThreeZoneCompaction
    from stage.long_session import bill_race, plot_race

    race = bill_race(
        {
            "three-zone compaction": (ThreeZoneCompaction(), CLASS_WINDOW),
            "your running summary": (RunningSummary(), CLASS_WINDOW),
            "clear, then compact": (ClearThenCompact(), CLASS_WINDOW),
        },
        fillers=16,  # a shorter session than the lesson's: the same pictures' words
    )
    fig = figure(11, 4.2, layout="constrained")
    plot_race(race, ax=fig.subplots())
    check(fig, "04's bill race")


# ---- shorter forms --------------------------------------------------------------------------------------

word = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=9)
joint = st.sampled_from([" ", " ", " ", ", ", "; ", ": ", " (", " — "])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(word, joint), min_size=1, max_size=14), st.booleans())
def test_shorter_forms_cut_only_between_words_and_shrink(pieces, clauses):
    text = "".join(w + j for w, j in pieces).strip()
    forms = shorter_forms(text, clauses=clauses)
    assert forms[0] == text
    assert len(forms) == len(set(forms))
    for form in forms[1:]:
        start = form.removesuffix('"').removesuffix("…")
        assert text.startswith(start) and len(start) < len(text), f"{form!r} of {text!r}"
        assert not text[len(start)].isalnum(), f"{form!r} cuts a word of {text!r}"
        assert start[-1].isalnum() or start[-1] == ")", f"{form!r} ends on a dangling mark"


def test_shorter_forms_drop_the_detail_first():
    assert shorter_forms("cleared 1 more old tool results (21 in all)")[:3] == [
        "cleared 1 more old tool results (21 in all)",
        "cleared 1 more old tool results",
        "cleared 1 more old tool…",
    ]
    line = '✗ Rule not visible: "Never touch production: run database changes on staging only."'
    forms = shorter_forms(line, clauses=False, keep=line.find('"') + 1)
    assert (
        forms[1] == '✗ Rule not visible: "Never touch production: run database changes on staging…"'
    )
    assert all(form.startswith('✗ Rule not visible: "') for form in forms)
    assert all(form.endswith('"') for form in forms), "a quote keeps its closing mark"
