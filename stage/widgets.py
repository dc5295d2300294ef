"""The live desk dashboard: watch the desk fill, lap by lap (ipywidgets over the pictures of ``stage.plots``).

* ``Dashboard``     -- controls (strategy, window, threshold, tail turns) and step / play / pause / reset;
                       ``show_dashboard()`` displays one already showing the last lap of a default run.
* ``live_plot``     -- an ``on_lap`` callback for a cell that calls ``run_agent`` itself.
* ``plot_tokens``, ``draw_desk``, ``summary_text`` -- the pieces, from ``stage.plots``, usable alone.

Everything here only *reads* the loop's ``Lap`` records; nothing reaches back into the loop.

Every redraw is a plain PNG. The dashboard sets it as the output of an ``ipywidgets.Output`` (assigning
``outputs`` directly: pictures displayed from inside the play animation did not reach the widget in a real
browser), which moves live in JupyterLab, and also offers it as the fallback of its own display, so a
notebook executed headless (nbclient) keeps the picture as an ordinary image output.

Left out: zoom and hover (ipympl looks nicer live but leaves no image headless); pausing a Claude run
half-way (offline runs are computed first, in a fraction of a second, then replayed; a Claude run is drawn
lap by lap as it arrives); several strategies in one dashboard (``plot_tokens`` takes several runs for that).
"""

from __future__ import annotations

import asyncio
import base64
import time
from html import escape
from typing import Callable

import ipywidgets as widgets
from IPython.display import Image, display

from harness.context import Strategy
from harness.laps import Lap
from harness.loop import run_agent
from harness.model import CLASS_WINDOW
from harness.strategies import STRATEGIES, StrategySettings
from harness.tokens import Meter
from stage.offline import OfflineModel
from stage.palette import EVENTS, FIXED, WALL, ZONES  # noqa: F401
from stage.picture import HEIGHT, WIDTH, Picture
from stage.plots import (  # noqa: F401
    FONT,
    draw_desk,
    headline,
    plot_tokens,
    summary_text,
    threshold_tokens,
    visibility_lines,
    where_on_desk,
)
from stage.switch import pick_model
from stage.tasks import Task, file_reading_task

SUMMARY_HTML = (
    "<div style='font-size:16px; line-height:1.35'><b>Summary on the desk</b>"
    "<div style='font-size:15px; white-space:pre-wrap; overflow-wrap:anywhere'>{}</div></div>"
)
LARGE = 1.4  # the presentation size: text, lines and markers 40 % bigger (840 x 672 pixels)

# Sizes for a projector: 15-pixel controls; the status is one line that never wraps (so nothing below it
# moves), cut with "…" when long (the whole line shows on hover). A saved lesson reopened without a kernel
# shows the widgets' saved state: one line says so, instead of a broken-chain icon on every control.
STYLE = """<style>
.context-desk-dashboard { --jp-widgets-font-size: 15px; --jp-widgets-inline-height: 30px;
                          --jp-widgets-inline-label-width: 84px; }
.context-desk-dashboard .widget-button { font-size: 15px; }
.context-desk-status > div, .context-desk-status div.widget-html-content {
    white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.context-desk-dashboard .jupyter-widgets-disconnected::before { display: none; }
.context-desk-dashboard.jupyter-widgets-disconnected::before {
    content: "✗ A still picture of the last run: run this cell again to bring the dashboard back.";
    font: bold 15px var(--jp-ui-font-family); color: WALL; padding: 2px 0 6px 0; }
</style>""".replace("WALL", WALL)


# ---- 4. the dashboard -------------------------------------------------------------------------------

StrategyMaker = Callable[[StrategySettings], Strategy]  # the desk's settings -> a fresh strategy


def default_strategies() -> dict[str, StrategyMaker]:
    """Every strategy of ``harness.strategies.STRATEGIES``, each built from the controls' settings."""
    return {name: cls.from_settings for name, cls in STRATEGIES.items()}


class Dashboard:
    """The live desk: pick a strategy, a window, a threshold and a tail; step, play, pause, reset.

    Offline, a run is computed first (a fraction of a second) and play replays it with ``delay`` seconds
    between laps; with Claude, laps are drawn as they arrive. After a control changes, play or step starts
    again from lap 0. ``strategies`` maps names to strategies, or to ``StrategySettings -> strategy``.
    Its size fits a 1280 x 720 projector with JupyterLab's file browser open; ``large=True`` (or the
    "large" toggle) draws it 40 % bigger for a bigger screen.
    Example: desk = Dashboard(); desk.step(); desk.shown -> 1
    """

    def __init__(
        self,
        task: Task | None = None,
        model_factory: Callable[[int], object] | None = None,
        strategies: dict | None = None,
        window: int = CLASS_WINDOW,
        delay: float = 0.3,
        max_laps: int = 80,
        strategy: str | None = None,
        large: bool = False,
    ):
        self.task = task or file_reading_task()
        self.meter = Meter()
        self.model_factory = model_factory or (
            lambda window: pick_model(window=window, meter=self.meter)
        )
        self.strategies = strategies or default_strategies()
        self.delay, self.max_laps = delay, max_laps
        self.run, self.laps, self.shown, self.playing = None, [], 0, False
        self.png, self._ran_with, self._stream, self._player = b"", None, False, None
        self.picture = Picture(
            rule=self.task.rule,
            request=self.task.request,
            meter=self.meter,
            scale=LARGE if large else 1.0,
        )
        self._build(window, strategy, large)

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
            return  # a second click must not start a second player
        if self._ensure_run() and self._stream:
            return  # a Claude run was drawn lap by lap as it arrived
        if self.shown >= len(self.laps):
            self.shown = 0
        self.playing = True
        loop = _running_loop()
        if loop and self.delay > 0:
            self._player = loop.create_task(
                self._animate()
            )  # waits between laps: a pause click gets in
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
        self.out.outputs = (
            _image_output(self.png, self.status_text()),
        )  # replaces the last one at once
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
            " · playing" if self.playing else ""
        )

    # -- the run --
    def settings(self) -> StrategySettings:
        c = self.controls
        return StrategySettings(
            c["strategy"].value, c["window"].value, c["threshold"].value, c["tail_turns"].value
        )

    def _ensure_run(self) -> bool:
        """Run the agent for the current settings, unless that run is already here. True if it ran."""
        settings = self.settings()
        if self.run is not None and settings == self._ran_with:
            return False
        self._stop()
        self.laps, self.shown, self._ran_with = [], 0, settings
        model = self.model_factory(settings.window)
        made = self.strategies[settings.strategy]
        strategy = made if isinstance(made, Strategy) else made(settings)
        self.picture.threshold, self.picture.label = (
            threshold_tokens(strategy, model),
            settings.strategy,
        )
        self._stream = not isinstance(
            model, OfflineModel
        )  # Claude is slow: draw each lap as it comes
        self.run = run_agent(
            self.task.request,
            model,
            context=strategy,
            remarks=self.task.remarks,
            max_laps=self.max_laps,
            meter=self.meter,
            on_lap=self._arrived,
        )
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
            self._player.cancel()  # it is waiting between laps; it never stops mid-drawing
            self._player = None

    # -- the widgets --
    def _build(self, window: int, strategy: str | None, large: bool):
        """Two rows of controls with the buttons at their right end, one status line, the picture and summary.

        Every part has a fixed size, so the buttons never move while a run plays.
        """
        names, style, wide = (
            list(self.strategies),
            {"description_width": "84px"},
            widgets.Layout(width="300px"),
        )
        first = strategy or (
            "three-zone compaction" if "three-zone compaction" in names else names[0]
        )
        self.controls = {
            "strategy": widgets.Dropdown(
                options=names, value=first, description="strategy", style=style, layout=wide
            ),
            "window": widgets.IntSlider(
                value=window,
                min=1000,
                max=max(20_000, window),
                step=250,
                description="window",
                style=style,
                layout=wide,
            ),
            "threshold": widgets.SelectionSlider(
                options=[(f"{p}%", p / 100) for p in range(50, 100, 5)],
                value=0.75,
                description="threshold",
                style=style,
                layout=wide,
            ),
            "tail_turns": widgets.IntSlider(
                value=2, min=0, max=6, description="tail turns", style=style, layout=wide
            ),
        }
        for control in self.controls.values():
            control.observe(self._changed, "value")
        self.buttons = {
            name: widgets.Button(description=name, icon=icon, layout=widgets.Layout(width="88px"))
            for name, icon in [
                ("step", "step-forward"),
                ("play", "play"),
                ("pause", "pause"),
                ("reset", "undo"),
            ]
        }
        for name, button in self.buttons.items():
            button.on_click(getattr(self, name))
        self.large = widgets.ToggleButton(
            value=large,
            description="large",
            icon="search-plus",
            tooltip="bigger text and lines, for a bigger screen",
            layout=widgets.Layout(width="88px", flex="0 0 auto"),
        )
        self.large.observe(self._resized, "value")
        self.status = widgets.HTML(
            layout=widgets.Layout(flex="1 1 0%", min_width="0", height="30px", overflow="hidden")
        )
        self.status.add_class("context-desk-status")
        self.out = widgets.Output()
        self.summary = widgets.HTML(
            layout=widgets.Layout(
                flex="1 1 220px", min_width="220px", overflow="auto", padding="0 0 0 10px"
            )
        )
        self._size_panels()
        c, b = self.controls, self.buttons
        rows = [
            widgets.HBox([c["strategy"], c["window"], b["step"], b["play"]]),
            widgets.HBox([c["threshold"], c["tail_turns"], b["pause"], b["reset"]]),
            widgets.HBox([self.large, self.status], layout=widgets.Layout(width="100%")),
            widgets.HBox([self.out, self.summary], layout=widgets.Layout(flex_flow="row wrap")),
        ]
        self.widget = widgets.VBox(
            [widgets.HTML(STYLE, layout=widgets.Layout(height="0px")), *rows],
            layout=widgets.Layout(max_width="100%"),
        )
        self.widget.add_class(
            "context-desk-dashboard"
        )  # the browser test finds the parts by these names
        self.out.add_class("context-desk-picture")
        self.summary.add_class("context-desk-summary")
        self._say_status()

    def _size_panels(self):
        """The picture's box and the summary beside it: exactly the picture's size, whatever the lap."""
        width, height = round(WIDTH * self.picture.scale), round(HEIGHT * self.picture.scale)
        self.out.layout = widgets.Layout(
            width=f"{width}px", height=f"{height}px", flex="0 0 auto", overflow="hidden"
        )
        self.summary.layout.height = f"{height}px"

    def _resized(self, change):
        self.picture.scale = LARGE if change["new"] else 1.0
        self._size_panels()
        if self.png:
            self.redraw()

    def _changed(self, _change):
        self._stop()
        self._say_status()

    def _say_status(self):
        stale = self._ran_with is not None and self.settings() != self._ran_with
        note = " · settings changed: press play to run again from lap 0" if stale else ""
        words = escape(self.status_text() + note)
        self.status.value = (
            f"<div style='font-size:16px; line-height:30px' title='{words}'>{words}</div>"
        )


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

    def __init__(
        self,
        on_lap: Callable[[Lap], None] | None = None,
        threshold: int | None = None,
        rule: str | None = None,
        request: str | None = None,
        meter: Meter | None = None,
        label: str = "",
        large: bool = False,
    ):
        self.on_lap, self.laps, self.handle = on_lap, [], None
        self.picture = Picture(
            threshold, rule, request, meter, label, scale=LARGE if large else 1.0
        )

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


def _image_output(png: bytes, words: str) -> dict:
    """A display_data output holding a PNG, as an ``Output`` widget stores it."""
    return {
        "output_type": "display_data",
        "metadata": {},
        "data": {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": words},
    }


def _running_loop():
    """The kernel's event loop, if this runs inside one (a Jupyter kernel does; a plain script does not)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
