"""The slides' pictures, drawn from real offline runs of the harness: ``python -m slides.figures``.

Each picture is a function that runs the offline model on the class task (or reads a run it
already made), then draws what the run produced with the dashboard's own drawing functions
(``plot_tokens``, ``draw_desk``). Nothing is typed in by hand: the numbers, the summaries and the
outcomes on the pictures are the runs' own, so a change to the harness shows up here on the next build.
The one diagram (the compaction cycle) is drawn with shapes, and annotated with a run's numbers.

Same input, same bytes: the offline model is deterministic and the PNGs carry no timestamp.
The pictures are sized for a projector: 17-point text at 130 dpi, about 1400 pixels wide.

Left out: animation (the decks show still pictures; the lesson notebooks animate), and any
Claude run (figures always come from the offline model, so the committed PNGs never depend on a key).
"""

from __future__ import annotations

import argparse
import textwrap
import time
from functools import lru_cache
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch, Rectangle

from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.sliding_window import SlidingWindow
from harness.laps import Run
from harness.loop import run_agent
from harness.memory import PROJECT_MEMORY, load_memory, system_prompt
from harness.messages import blocks_of, tool_uses, user
from harness.model import CLASS_WINDOW
from harness.prompts import NAIVE_PROMPT, SYSTEM_PROMPT, compaction_prompt, render
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from stage.frontier import bill_without_summary
from stage.offline import OfflineModel, summary_request
from stage.palette import FIXED, GOOD, INK, MEMORY, MUTED, WALL, ZONES
from stage.plots import end_labels, make_room_right, draw_desk, plot_tokens, threshold_tokens
from stage.tasks import GOAL, file_reading_task

OUT = Path(__file__).resolve().parent / "figures"
DPI = 130  # 17-point text (the widgets' size) comes out about 30 pixels tall
BIG, MID, SMALL = 22, 17, 14  # points: titles, labels, running text
GREY, RED, GREEN = (
    MUTED,
    WALL,
    GOOD,
)  # the one palette (stage.palette), shared with the plots and the dashboard

METER = Meter("tiktoken")  # one meter for every run: counts are cached per message


# ---- the runs behind the pictures -------------------------------------------------------------------


class SummaryCounting(OfflineModel):
    """The offline model, noting the ``usage`` of every summary call it answers (for the cycle's numbers)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.summary_usage: list[dict] = []

    def reply(self, system, messages, tools, max_tokens=1024):
        answer = super().reply(system, messages, tools, max_tokens)
        if summary_request(messages) is not None:
            self.summary_usage.append(answer.usage)
        return answer


def run(
    strategy, task=None, window: int = CLASS_WINDOW, system: str = SYSTEM_PROMPT, request=None
) -> Run:
    """One offline run of the class task. Example: run(FullHistory()).stopped -> "overflow" """
    task = task or file_reading_task()
    model = SummaryCounting(window=window, meter=METER)
    result = run_agent(
        request or task.request,
        model,
        context=strategy,
        remarks=task.remarks,
        system=system,
        max_laps=60,
        meter=METER,
    )
    result.summary_usage = model.summary_usage
    return result


@lru_cache(maxsize=None)
def runs(name: str) -> Run:
    """The named runs the pictures share, each made once per build."""
    passing = file_reading_task(rule_at_lap=3)  # the rule said once, in passing, at lap 3
    makers = {
        "full": lambda: run(FullHistory()),
        "sliding": lambda: run(SlidingWindow()),
        "pinned": lambda: run(SlidingWindow(pin_head=True)),
        "three_zone": lambda: run(ThreeZoneCompaction()),
        "running": lambda: run(RunningSummary()),
        "roomy_summary": lambda: run(ThreeZoneCompaction(max_words=220)),
        "tight_summary": lambda: run(ThreeZoneCompaction(max_words=80)),
        "template_passing": lambda: run(ThreeZoneCompaction(), task=passing),
        "vague_passing": lambda: run(ThreeZoneCompaction(prompt=NAIVE_PROMPT), task=passing),
    }
    return makers[name]()


def lap(of: Run, number: int):
    return next(record for record in of.laps if record.number == number)


def first_lap(of: Run, kind: str):
    return next(record for record in of.laps if record.kind == kind)


def sql_lap(of: Run):
    """The lap at which the agent ran its SQL (the action the rule is about), or None."""
    return next((r for r in of.laps if any(a.startswith("run_sql") for a in r.actions)), None)


# ---- 7:00 -- the filling desk ---------------------------------------------------------------------------


def desk_fills_up() -> Figure:
    """Three laps of a full-history run, as desks: the papers pile up towards the edge."""
    full = runs("full")
    shown = [lap(full, n) for n in (2, 5, len(full.laps) - 1)]
    figure = new_figure(11, 6.6)
    axes = figure.subplots(
        len(shown), 1, gridspec_kw=dict(hspace=0.25, left=0.03, right=0.98, top=0.86, bottom=0.16)
    )
    for ax, record in zip(axes, shown):
        draw_desk(record, ax=ax, meter=METER)
        ax.get_legend().remove()
    key_for(figure, [FIXED, ZONES["head"], ZONES["tail"]])
    figure.suptitle(
        "Every lap puts more paper on the desk. Nobody clears any.",
        x=0.03,
        ha="left",
        fontsize=BIG,
        fontweight="bold",
    )
    return figure


def filling_desk() -> Figure:
    """Full history: raw tokens climb lap by lap to the window, and the next request overflows."""
    full = runs("full")
    figure = new_figure(11, 5.8)
    ax = figure.subplots()
    plot_tokens({"full history": full.laps}, ax=ax)
    ax.set_title(
        "Full history: the desk grows until the request no longer fits",
        loc="left",
        fontsize=BIG - 2,
        fontweight="bold",
    )
    return fit_layout(figure, ax)


def sliding_window() -> Figure:
    """A sliding window's desk just before and just after it first drops the oldest messages."""
    sliding, task = runs("sliding"), file_reading_task()
    drop = first_lap(sliding, "drop")
    before = lap(sliding, drop.number - 1)
    figure = new_figure(11, 7.6)
    axes = figure.subplots(
        2, 1, gridspec_kw=dict(hspace=0.75, left=0.03, right=0.98, top=0.86, bottom=0.2)
    )
    for ax, record in zip(axes, (before, drop)):
        draw_desk(record, rule=task.rule, request=task.request, ax=ax, meter=METER)
        ax.get_legend().remove()
    figure.suptitle(
        "Sliding window: the oldest papers fall off first",
        x=0.03,
        ha="left",
        fontsize=BIG,
        fontweight="bold",
    )
    figure.text(0.03, 0.085, outcome_line(sliding), fontsize=MID, color=RED, fontweight="bold")
    key_for(figure, [FIXED, ZONES["head"], ZONES["tail"], ZONES["notice"]])
    return figure


def sliding_window_pinned() -> Figure:
    """The fix the sliding-window lesson ends on: pin the request, and the rule stays on the desk."""
    pinned, task = runs("pinned"), file_reading_task()
    record = sql_lap(pinned) or pinned.laps[-1]
    figure = new_figure(11, 4.6)
    ax = figure.add_axes([0.03, 0.36, 0.95, 0.36])
    draw_desk(record, rule=task.rule, request=task.request, ax=ax, meter=METER)
    ax.get_legend().remove()
    figure.suptitle(
        "Pin the request at the front: the rule rides along",
        x=0.03,
        ha="left",
        fontsize=BIG,
        fontweight="bold",
    )
    figure.text(0.03, 0.14, outcome_line(pinned), fontsize=MID, color=GREEN, fontweight="bold")
    key_for(figure, [FIXED, ZONES["head"], ZONES["tail"], ZONES["notice"]])
    return figure


def outcome_line(of: Run) -> str:
    """Example: 'Lap 23: the fix runs on PRODUCTION. Read twice: app/auth.py.'"""
    done = sql_lap(of)
    where = (
        f"Lap {done.number}: the fix runs on {of.database_target.upper()}."
        if done
        else "No SQL was run."
    )
    again = f"  Read twice: {', '.join(dict.fromkeys(of.rereads))}." if of.rereads else ""
    return where + again


# ---- 7:20 -- three-zone compaction --------------------------------------------------------------------


def compaction_by_hand() -> Figure:
    """The board example from a real run: six messages, and the card the model writes from them."""
    full = runs("full")
    six = full.history[1:7]  # after the request: three laps of work
    model = OfflineModel(window=CLASS_WINDOW, meter=METER)
    reply = model.reply("", [user(compaction_prompt(render(six), max_words=60))], [])
    card = reply.text.strip()
    sizes = [METER.count(message) for message in six]

    figure = new_figure(12, 6.4)
    ax = figure.add_axes([0.01, 0.0, 0.98, 0.86])
    ax.set_xlim(0, 12)
    ax.set_ylim(0, 6.4)
    ax.axis("off")
    widest = max(sizes)
    for row, (message, size, label) in enumerate(zip(six, sizes, message_labels(six))):
        y = 5.55 - row * 1.0
        colour = ZONES["tail"].colour if message["role"] == "user" else ZONES["head"].colour
        ax.text(0.1, y + 0.06, f"{label} · {size:,} tokens", fontsize=SMALL, va="bottom", color=INK)
        ax.add_patch(Rectangle((0.1, y - 0.42), 4.4 * size / widest, 0.42, color=colour, alpha=0.9))
    ax.add_patch(
        FancyArrowPatch(
            (5.0, 3.1),
            (6.0, 3.1),
            arrowstyle="simple,head_width=18,head_length=18",
            color=GREY,
            mutation_scale=1.6,
        )
    )
    ax.text(5.5, 3.5, "the model\nwrites it", ha="center", fontsize=SMALL, color=GREY)
    lines = wrap(card, 44)
    height = 0.36 * (lines.count("\n") + 1) + 1.2
    top = 5.9
    ax.add_patch(
        FancyBboxPatch(
            (6.3, top - height),
            5.5,
            height,
            boxstyle="round,pad=0.12",
            facecolor="#E8F6F0",
            edgecolor=ZONES["summary"].colour,
            lw=3,
        )
    )
    ax.text(
        6.5,
        top - 0.2,
        f"the card · {reply.usage['output_tokens']:,} tokens",
        fontsize=MID,
        fontweight="bold",
        color=ZONES["summary"].colour,
        va="top",
    )
    ax.text(6.5, top - 0.85, lines, fontsize=SMALL, va="top", color=INK, linespacing=1.3)
    figure.suptitle(
        f"Six messages, {sum(sizes):,} tokens → one card, {reply.usage['output_tokens']:,} tokens",
        x=0.02,
        ha="left",
        fontsize=BIG,
        fontweight="bold",
    )
    return figure


def message_labels(messages: list[dict]) -> list[str]:
    """What each message is, in a few words. Example: ['agent asks: list_files', 'result: the file list', ...]"""
    labels, calls = [], {}
    for message in messages:
        uses = tool_uses(message)
        if uses:
            calls.update({use["id"]: use for use in uses})
            labels.append(
                "agent asks: " + " ".join([uses[0]["name"], *map(str, uses[0]["input"].values())])
            )
            continue
        answered = [
            calls.get(b.get("tool_use_id"))
            for b in blocks_of(message)
            if b.get("type") == "tool_result"
        ]
        use = answered[0] if answered and answered[0] else None
        if use and use["name"] == "read_file":
            labels.append(f"tool result: the text of {use['input']['path']}")
        elif use:
            labels.append(f"tool result: {use['name']} output")
        else:
            labels.append(f"{message['role']} message")
    return labels


def three_zones() -> Figure:
    """A real message array right after a compaction: pinned head, summarized middle, verbatim tail.

    The desk is zoomed to the messages sent (the window's edge is far to the right), so the zones are wide enough to label.
    """
    three_zone, task = runs("three_zone"), file_reading_task()
    compactions = [r for r in three_zone.laps if r.kind == "compact"]
    record = compactions[min(2, len(compactions) - 1)]  # a later one: the summary has grown
    limit = threshold_tokens(ThreeZoneCompaction(), OfflineModel(window=CLASS_WINDOW, meter=METER))
    figure = new_figure(11, 5.4)
    ax = figure.add_axes([0.03, 0.30, 0.95, 0.40])
    draw_desk(record, rule=task.rule, request=task.request, ax=ax, meter=METER, threshold=limit)
    ax.get_legend().remove()
    room = record.assembled_tokens * 1.02
    ax.set_xlim(0, room)
    for text in list(ax.texts):
        if text.get_gid() == "label-for:edge: window":  # the window's label, off to the right now
            text.remove()
        elif text.get_gid() == "headline":  # the headline: moved clear of the labels
            figure.text(0.03, 0.8, text.get_text(), fontsize=MID - 1, fontweight="bold", color=INK)
            text.remove()
    # Brackets over the blocks: where each zone starts and ends, from the sizes of the messages sent.
    sizes = [METER.count(message) for message in record.sent]
    spans, left = {}, record.assembled_tokens - sum(sizes)  # the system prompt and tools come first
    for size, zone in zip(sizes, record.zones):
        spans[zone] = (spans.get(zone, (left,))[0], left + size)
        left += size
    brackets = [
        ((0, spans["head"][1]), "pinned head", "system + request", ZONES["head"].colour),
        (spans["summary"], "summarized\nmiddle", "", ZONES["summary"].colour),
        (spans["tail"], "verbatim tail", "the newest turns, word for word", ZONES["tail"].colour),
    ]
    for (x0, x1), name, what, colour in brackets:
        ax.plot(
            [x0 + 6, x0 + 6, x1 - 6, x1 - 6],
            [0.55, 0.7, 0.7, 0.55],
            color=colour,
            lw=3,
            clip_on=False,
        )
        ax.text(
            (x0 + x1) / 2,
            0.8,
            name + (f"\n{what}" if what else ""),
            ha="center",
            va="bottom",
            fontsize=SMALL,
            color=colour,
            fontweight="bold",
            clip_on=False,
            linespacing=1.1,
        )
    figure.suptitle(
        "Three zones on a real desk, just after compacting",
        x=0.03,
        ha="left",
        fontsize=BIG,
        fontweight="bold",
    )
    figure.text(
        0.03,
        0.05,
        f"Raw history at lap {record.number}: {record.raw_tokens:,} tokens.   "
        f"Sent: {record.assembled_tokens:,}.   Window: {record.window:,}.",
        fontsize=MID,
        color=INK,
    )
    key_for(figure, [FIXED, ZONES["head"], ZONES["summary"], ZONES["tail"]], y=0.12)
    return figure


def sawtooth() -> Figure:
    """Three-zone compaction over a whole session: climb to the threshold, drop, climb again."""
    three_zone = runs("three_zone")
    model = OfflineModel(window=CLASS_WINDOW, meter=METER)
    figure = new_figure(11, 5.8)
    ax = figure.subplots()
    plot_tokens(
        {"three-zone compaction": three_zone.laps},
        threshold=threshold_tokens(ThreeZoneCompaction(), model),
        ax=ax,
    )
    ax.set_title(
        "The sawtooth: grow to the threshold, compact, grow again",
        loc="left",
        fontsize=BIG - 2,
        fontweight="bold",
    )
    return fit_layout(figure, ax)


def compaction_cycle() -> Figure:
    """The loop a compacting harness runs, as a diagram, with the numbers of a real run beside it."""
    three_zone = runs("three_zone")
    model = OfflineModel(window=CLASS_WINDOW, meter=METER)
    strategy = ThreeZoneCompaction()
    limit, usable = threshold_tokens(strategy, model), model.window - strategy.output_reserve
    events = compaction_events(three_zone)
    first = events[0]

    figure = new_figure(13, 6.6)
    ax = figure.add_axes([0.01, 0.0, 0.66, 0.86])
    ax.set_xlim(-0.2, 10.4)
    ax.set_ylim(0, 6.6)
    ax.axis("off")
    # A rectangle of boxes, read clockwise from the top left: grow, check, summarize, rebuild, continue.
    steps = {
        "grow": ((1.3, 4.4), "each lap appends\nreply + tool results", ZONES["tail"].colour),
        "check": (
            (5.0, 4.4),
            f"over {limit:,} tokens?\n({strategy.threshold:.0%} of {usable:,} usable)",
            RED,
        ),
        "summarize": (
            (8.7, 4.4),
            f"one extra model call\n{first['summary_in']:,} in, {first['summary_out']:,} out",
            ZONES["summary"].colour,
        ),
        "rebuild": (
            (8.7, 1.2),
            f"head + summary + tail\nlap {first['lap']}: {first['before']:,} → {first['after']:,}",
            ZONES["head"].colour,
        ),
        "continue": ((1.3, 1.2), "the next lap runs\non the new desk", GREY),
    }
    half_w, half_h = 1.42, 0.8
    for name, ((x, y), words, colour) in steps.items():
        ax.add_patch(
            FancyBboxPatch(
                (x - half_w, y - half_h),
                2 * half_w,
                2 * half_h,
                boxstyle="round,pad=0.05",
                facecolor="white",
                edgecolor=colour,
                lw=3,
            )
        )
        ax.text(
            x,
            y + 0.32,
            name,
            ha="center",
            va="center",
            fontsize=MID + 2,
            fontweight="bold",
            color=colour,
        )
        ax.text(
            x,
            y - 0.3,
            words,
            ha="center",
            va="center",
            fontsize=SMALL - 1,
            color=INK,
            linespacing=1.25,
        )

    def arrow(start, end, **style):
        ax.add_patch(
            FancyArrowPatch(
                start,
                end,
                arrowstyle="-|>",
                mutation_scale=26,
                lw=3,
                color=GREY,
                shrinkA=0,
                shrinkB=0,
                **style,
            )
        )

    (gx, gy), (cx, cy), (sx, sy) = steps["grow"][0], steps["check"][0], steps["summarize"][0]
    (rx, ry), (nx, ny) = steps["rebuild"][0], steps["continue"][0]
    arrow((gx + half_w + 0.08, gy), (cx - half_w - 0.12, cy))
    arrow((cx + half_w + 0.08, cy), (sx - half_w - 0.12, sy))
    arrow((sx, sy - half_h - 0.08), (rx, ry + half_h + 0.12))
    arrow((rx - half_w - 0.08, ry), (nx + half_w + 0.12, ny))
    arrow((nx, ny + half_h + 0.08), (gx, gy - half_h - 0.12))
    arrow(
        (cx - 0.3, cy + half_h + 0.08),
        (gx + 0.3, gy + half_h + 0.12),
        connectionstyle="arc3,rad=0.45",
        ls="--",
    )
    ax.text(
        (gx + cx) / 2,
        6.45,
        "under the threshold: keep going",
        ha="center",
        va="top",
        fontsize=SMALL,
        color=GREY,
        style="italic",
    )
    ax.text(
        (cx + sx) / 2,
        cy + 0.15,
        "over",
        ha="center",
        va="bottom",
        fontsize=SMALL,
        color=GREY,
        style="italic",
    )

    side = figure.add_axes([0.70, 0.05, 0.29, 0.83])
    side.axis("off")
    rows = [f"lap {e['lap']:>2}   {e['before']:>6,} → {e['after']:>5,}" for e in events]
    side.text(0, 1, "This run's compactions", fontsize=MID, fontweight="bold", va="top", color=INK)
    side.text(0, 0.9, "tokens on the desk,\nbefore → after", fontsize=SMALL, va="top", color=GREY)
    side.text(
        0,
        0.72,
        "\n".join(rows),
        fontsize=MID,
        va="top",
        family="monospace",
        color=INK,
        linespacing=1.5,
    )
    side.text(
        0,
        0.02,
        f"{len(events)} summary calls in {len(three_zone.laps)} laps;\n"
        f"the task ends with SQL on {three_zone.database_target}.",
        fontsize=SMALL,
        color=INK,
    )
    figure.suptitle("The compaction cycle", x=0.02, ha="left", fontsize=BIG, fontweight="bold")
    return figure


def compaction_events(of: Run) -> list[dict]:
    """Each compaction of a run: its lap, the desk before and after, and the summary call's tokens.

    "Before" is the desk the threshold saw: the previous lap's desk plus the messages added since,
    which the raw history's growth measures exactly (the loop only appends). The summary call's
    tokens are the model's own ``usage``, as ``SummaryCounting`` recorded them.
    """
    events, calls = [], iter(getattr(of, "summary_usage", []))
    for previous, record in zip(of.laps, of.laps[1:]):
        if record.kind != "compact":
            continue
        spent_in = spent_out = 0
        for _ in range(record.summary_calls):
            usage = next(calls)
            spent_in, spent_out = (
                spent_in + usage["input_tokens"],
                spent_out + usage["output_tokens"],
            )
        events.append(
            {
                "lap": record.number,
                "after": record.assembled_tokens,
                "before": previous.assembled_tokens + (record.raw_tokens - previous.raw_tokens),
                "summary_in": spent_in,
                "summary_out": spent_out,
            }
        )
    return events


def lost_detail() -> Figure:
    """The same compaction under two word limits: the roomy summary keeps a passing detail, the tight one drops it."""
    roomy, tight = runs("roomy_summary"), runs("tight_summary")
    detail = "app/db.py:25"
    roomy_lap = next(r for r in roomy.laps if r.kind == "compact" and detail in r.summary)
    tight_lap = (
        lap(tight, roomy_lap.number)
        if lap(tight, roomy_lap.number).kind == "compact"
        else next(r for r in tight.laps if r.kind == "compact" and r.number >= roomy_lap.number)
    )
    figure = new_figure(13, 7.6)
    panels = figure.subplots(
        1, 2, gridspec_kw=dict(wspace=0.06, left=0.015, right=0.985, top=0.86, bottom=0.02)
    )
    summary_panel(
        panels[0],
        f"limit 220 words · lap {roomy_lap.number}",
        roomy_lap.summary,
        detail,
        f"{detail} is in the summary ✓",
        True,
    )
    summary_panel(
        panels[1],
        f"limit 80 words · lap {tight_lap.number}",
        tight_lap.summary,
        detail,
        f"{detail} is gone. No error, no warning ✗",
        False,
    )
    figure.suptitle(
        "The lost passing detail: same run, two word limits",
        x=0.015,
        ha="left",
        fontsize=BIG,
        fontweight="bold",
    )
    return figure


def template_vs_vague() -> Figure:
    """A rule said once in passing: the vague prompt's summary drops it, the template's carries it."""
    vague, template = runs("vague_passing"), runs("template_passing")
    rule = "never touch production"
    vague_lap, template_lap = first_lap(vague, "compact"), first_lap(template, "compact")
    figure = new_figure(13, 5.4)
    panels = figure.subplots(
        1, 2, gridspec_kw=dict(wspace=0.06, left=0.015, right=0.985, top=0.85, bottom=0.02)
    )
    summary_panel(
        panels[0],
        f'"Summarize briefly" · lap {vague_lap.number}',
        vague_lap.summary,
        rule,
        f"The rule is gone → the fix runs on {vague.database_target}",
        vague.database_target == "staging",
    )
    summary_panel(
        panels[1],
        f"The structured template · lap {template_lap.number}",
        template_lap.summary,
        rule,
        f"The rule is carried → the fix runs on {template.database_target}",
        template.database_target == "staging",
    )
    figure.suptitle(
        "A rule said once, at lap 3: which summary still carries it?",
        x=0.015,
        ha="left",
        fontsize=BIG,
        fontweight="bold",
    )
    return figure


def summary_panel(ax, title: str, summary: str, highlight: str, verdict: str, good: bool):
    """One summary as a card: its real text (long path lists shortened), ``highlight`` in bold, a verdict."""
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    colour = GREEN if good else RED
    ax.add_patch(
        FancyBboxPatch(
            (0.01, 0.01),
            0.98,
            0.97,
            boxstyle="round,pad=0.005",
            facecolor="#FAFAFA",
            edgecolor=colour,
            lw=3,
            transform=ax.transAxes,
        )
    )
    tall = ax.get_position().height * ax.figure.get_figheight()
    ax.text(0.04, 1 - 0.16 / tall, title, fontsize=MID, fontweight="bold", va="top", color=INK)
    ax.text(
        0.04, 1 - 0.47 / tall, f"{len(summary.split())} words", fontsize=SMALL, va="top", color=GREY
    )
    rows = [
        (piece, highlight.lower() in line.lower())
        for line in summary.splitlines()
        for piece in textwrap.wrap(shorten_list(line), 54, subsequent_indent="   ") or [""]
    ]
    line = 1.3 * (SMALL - 1) / 72 / tall  # one line of text, in axes units
    top = 1 - 0.82 / tall  # below the title and word count
    y, step = (
        top,
        min(line, (top - 0.1) / max(len(rows), 1)),
    )  # a long summary packs its lines closer
    for piece, marked in rows:
        ax.text(
            0.04,
            y,
            piece,
            fontsize=SMALL - 1,
            va="top",
            color=colour if marked else INK,
            fontweight="bold" if marked else "normal",
        )
        y -= step
    ax.text(0.04, 0.04, verdict, fontsize=MID - 1, fontweight="bold", color=colour)


def shorten_list(line: str, keep: int = 2) -> str:
    """A long comma list of paths, cut for the slide, saying how many there were.

    Example: 'Files read: a.py, b.py, c.py, d.py' -> 'Files read: a.py, b.py, … (4 files)'
    """
    head, _, rest = line.partition(": ")
    items = [item.strip() for item in rest.split(",")]
    if len(items) <= keep + 1 or not all("/" in item or "." in item for item in items):
        return line
    return (
        f"{head}: {', '.join(items[:keep])}, …\u00a0({len(items)}\u00a0files)"  # kept on one line
    )


# ---- 7:50 -- the running summary -------------------------------------------------------------------------


def diverging_lines() -> Figure:
    """Running summary: the raw history keeps climbing, what is sent stays low and flat."""
    running = runs("running")
    last = running.laps[-1]
    figure = new_figure(11, 5.8)
    ax = figure.subplots()
    plot_tokens({"running summary": running.laps}, ax=ax)
    highest = max(r.assembled_tokens for r in running.laps)
    ax.set_title(
        f"History: {last.raw_tokens:,} tokens and climbing. Sent: never over {highest:,}",
        loc="left",
        fontsize=BIG - 2,
        fontweight="bold",
    )
    return fit_layout(figure, ax)


def token_bill() -> Figure:
    """Input tokens billed so far, lap by lap: full history (a window big enough never to overflow) vs running summary."""
    comparison = bill_without_summary(
        file_reading_task(), RunningSummary(), window=CLASS_WINDOW, meter=METER
    )
    full, summary = comparison.full_run.laps, comparison.strategy_run.laps
    figure = new_figure(11, 5.8)
    ax = figure.subplots()
    ends = []
    for laps, label, name, colour, style in (
        (full, "full history, every lap", "full history", RED, (0, (5, 2.5))),
        (summary, "running summary (summary calls included)", "running\nsummary", GREEN, "-"),
    ):
        ax.plot(
            [r.number for r in laps],
            [r.total_input for r in laps],
            ls=style,
            lw=4,
            color=colour,
            label=label,
        )
        ends.append(
            (laps[-1].total_input, f"{name}\n{laps[-1].total_input:,}", colour, label, False)
        )
    ax.set_xlabel("lap", fontsize=MID)
    ax.set_ylabel("input tokens billed so far", fontsize=MID)
    ax.tick_params(labelsize=SMALL)
    ax.yaxis.set_major_formatter(lambda y, _: f"{y:,.0f}")
    ax.set_xlim(0, max(full[-1].number, summary[-1].number) + 1)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.set_title(
        f"The bill: the summary run pays {comparison.input_share:.0%} of full history's input",
        loc="left",
        fontsize=BIG - 2,
        fontweight="bold",
    )
    end_labels(ax, ends)  # the names at the lines' ends, in the margin: no legend to cross
    return fit_layout(figure, ax)


# ---- 8:30 -- memory ---------------------------------------------------------------------------------------


def notebook_beside_desk() -> Figure:
    """Session two's first desk with CLAUDE.md already on it, the notebook's lines and cost, and what it changed.

    Both sessions get a request with no rule in it and the same compacting harness; only memory differs.
    """
    memory = load_memory(user=None, project=PROJECT_MEMORY, local=None, meter=METER)
    with_memory = run(ThreeZoneCompaction(), system=system_prompt(memory), request=GOAL)
    without = run(ThreeZoneCompaction(), request=GOAL)
    record = with_memory.laps[0]
    cost = memory.tokens_per_lap

    figure = new_figure(13, 6.8)
    figure.suptitle(
        "The notebook beside the desk", x=0.025, ha="left", fontsize=BIG, fontweight="bold"
    )
    figure.text(
        0.025,
        0.83,
        f"Session two, lap 1: {record.assembled_tokens:,} of {record.window:,} tokens sent",
        fontsize=MID,
        fontweight="bold",
        color=INK,
    )
    desk = figure.add_axes([0.025, 0.55, 0.5, 0.22])
    draw_desk(record, ax=desk, meter=METER)
    desk.get_legend().remove()
    for text in list(desk.texts):  # the headline and the window's label: said above instead
        text.remove()
    desk.set_xlim(0, record.assembled_tokens * 1.03)
    fixed = record.assembled_tokens - sum(METER.count(m) for m in record.sent)
    desk.add_patch(
        Rectangle(
            (fixed - cost, -0.5),
            cost,
            1.0,
            facecolor=MEMORY.colour,
            hatch=MEMORY.hatch,
            edgecolor="white",
            lw=1.5,
        )
    )
    desk.text(
        fixed - cost / 2,
        0.55,
        f"CLAUDE.md\n{cost} tokens",
        ha="center",
        va="bottom",
        fontsize=SMALL,
        fontweight="bold",
        color=MEMORY.colour,
        linespacing=1.1,
    )
    desk.text(
        fixed / 2 - cost / 2,
        0.0,
        "system\n+ tools",
        ha="center",
        va="center",
        fontsize=SMALL - 1,
        color=INK,
        bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.9, "pad": 2},
    )
    desk.text(
        fixed + (record.assembled_tokens - fixed) / 2,
        -0.55,
        "request",
        ha="center",
        va="top",
        fontsize=SMALL - 1,
        color=ZONES["head"].colour,
        fontweight="bold",
    )

    key_for(figure, [FIXED, MEMORY, ZONES["head"]], y=0.42)
    table = figure.add_axes([0.025, 0.03, 0.5, 0.36])
    table.axis("off")
    table.text(
        0,
        0.98,
        "Same request, no rule in it:",
        fontsize=MID,
        fontweight="bold",
        va="top",
        color=INK,
    )
    for row, (label, of, colour) in enumerate(
        (("no CLAUDE.md", without, RED), ("with CLAUDE.md", with_memory, GREEN))
    ):
        y = 0.66 - 0.38 * row
        table.text(0, y, label, fontsize=MID, fontweight="bold", color=colour, va="top")
        table.text(
            0.38,
            y,
            f"{len(of.files_read)} files read · {len(of.laps)} laps\n"
            f"the fix runs on {of.database_target}",
            fontsize=MID,
            color=INK,
            va="top",
            linespacing=1.3,
        )

    book = figure.add_axes([0.56, 0.03, 0.43, 0.82])
    book.axis("off")
    book.set_xlim(0, 1)
    book.set_ylim(0, 1)
    book.add_patch(
        FancyBboxPatch(
            (0.02, 0.02),
            0.96,
            0.95,
            boxstyle="round,pad=0.01",
            facecolor="#EEF7FD",
            edgecolor=MEMORY.colour,
            lw=4,
        )
    )
    [file] = memory.files
    book.text(
        0.06,
        0.93,
        f"the notebook: {file.path.name}",
        fontsize=MID + 1,
        fontweight="bold",
        va="top",
        color=INK,
    )
    book.text(
        0.06,
        0.86,
        f"{len(file.text.strip().splitlines())} lines · {cost} tokens on every lap",
        fontsize=SMALL,
        va="top",
        color=GREY,
    )
    y = 0.78
    for line in file.text.strip().splitlines():
        wrapped = textwrap.wrap(line, 43, subsequent_indent="  ")
        book.text(
            0.06,
            y,
            "\n".join(wrapped),
            fontsize=SMALL - 1,
            va="top",
            color=INK,
            family="monospace",
            linespacing=1.3,
        )
        y -= 0.048 * len(wrapped) + 0.03
    laps = len(with_memory.laps)
    book.text(
        0.06,
        0.05,
        f"paid on every lap: {cost} × {laps} laps = {cost * laps:,} tokens\n"
        "still there when the desk is wiped",
        fontsize=SMALL,
        color=INK,
        fontweight="bold",
        va="bottom",
        linespacing=1.3,
    )
    return figure


# ---- drawing helpers ----------------------------------------------------------------------------------------


def key_for(figure: Figure, shown: list, y: float = 0.0) -> None:
    """A key along the bottom of the figure, colour and hatch, for the zones this picture actually shows."""
    handles = [
        Patch(facecolor=zone.colour, hatch=zone.hatch, edgecolor="white", label=zone.words)
        for zone in shown
    ]
    figure.legend(
        handles=handles,
        loc="lower left",
        bbox_to_anchor=(0.02, y),
        ncol=len(handles),
        fontsize=SMALL,
        frameon=False,
        handlelength=1.2,
        columnspacing=1.4,
    )


def fit_layout(figure: Figure, ax) -> Figure:
    """Tight margins, then narrow the plot until the labels at its lines' ends fit inside the picture."""
    figure.tight_layout()
    make_room_right(ax)
    return figure


def new_figure(width: float, height: float) -> Figure:
    figure = Figure(figsize=(width, height), dpi=DPI, facecolor="white")
    FigureCanvasAgg(figure)
    return figure


def wrap(text: str, width: int) -> str:
    """Wrap each line of a summary on its own, keeping list items indented."""
    out = []
    for line in text.splitlines():
        out += textwrap.wrap(shorten_list(line), width, subsequent_indent="   ") or [""]
    return "\n".join(out)


FIGURES = {  # file name (without .png) -> the function that draws it, in class order
    "desk_fills_up": desk_fills_up,
    "filling_desk": filling_desk,
    "sliding_window": sliding_window,
    "sliding_window_pinned": sliding_window_pinned,
    "compaction_by_hand": compaction_by_hand,
    "three_zones": three_zones,
    "sawtooth": sawtooth,
    "compaction_cycle": compaction_cycle,
    "lost_detail": lost_detail,
    "template_vs_vague": template_vs_vague,
    "diverging_lines": diverging_lines,
    "token_bill": token_bill,
    "notebook_beside_desk": notebook_beside_desk,
}


def save(figure: Figure, path: Path) -> None:
    """A PNG with no timestamp or version in it, so the same picture gives the same bytes."""
    figure.savefig(path, dpi=DPI, facecolor="white", metadata={"Software": None})


def build_figures(
    out: Path = OUT, names: list[str] | None = None, verbose: bool = True
) -> list[Path]:
    """Draw every figure (or the ``names`` given) into ``out``. Returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names or list(FIGURES):
        if name not in FIGURES:
            raise ValueError(f"No figure called {name!r}: choose from {', '.join(FIGURES)}.")
        started = time.perf_counter()
        path = out / f"{name}.png"
        save(FIGURES[name](), path)
        written.append(path)
        if verbose:
            print(
                f"wrote {path.relative_to(out.parent.parent) if out == OUT else path}"
                f"  ({time.perf_counter() - started:.1f} s)"
            )
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Regenerate the slides' figures from offline harness runs."
    )
    parser.add_argument(
        "names", nargs="*", help=f"figures to draw (default: all): {', '.join(FIGURES)}"
    )
    parser.add_argument(
        "--out", type=Path, default=OUT, help="folder for the PNGs (default: slides/figures)"
    )
    args = parser.parse_args(argv)
    build_figures(args.out, args.names or None)


if __name__ == "__main__":
    main()
