"""The strategy table: every context strategy, and presets modelled on production agents, run on
the same file-reading task -- offline, deterministic, every number from a real run.

    .venv/bin/python -m benchmarks.strategies          # the tables only (`make bench` also times things)

Two tables, one per way of giving the rule: in the request, and in passing at lap 3. Then a longer
session (the class workspace plus generated filler modules, so the task takes about 60 laps) for
the bill goals: running summary and three-zone compaction against full history at lap 60, with the
rule given at lap 3, so only a summary can carry it.

The presets copy *published default settings* of production harnesses and scale every token number
to the toy window: a 200,000-token production window becomes the 5,000-token class desk (x 1/40).
Fractions (Codex's 90 %) and message counts (LangChain's 20 messages) are kept as they are. The
summary prompt is the workbook's template in every preset, so the rows differ only in trigger,
verbatim tail and pinning. Each row's note says what was approximated.

Left out: each harness's own summary prompt and its extras (Claude Code re-attaching recent files,
Codex's 20k-token budget of user messages, pi's file-operation lists), and any real model:
the offline model decides from what it is sent, nothing else.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.compare import table
from harness.clear_then_compact import ClearThenCompact
from harness.clearing import ClearToolResults
from harness.compaction import ThreeZoneCompaction
from harness.context import FullHistory
from harness.sliding_window import SlidingWindow
from harness.cost import bill
from harness.laps import Run
from harness.loop import run_agent
from harness.messages import text_of
from harness.model import CLASS_WINDOW
from harness.prompts import NAIVE_PROMPT
from harness.running_summary import RunningSummary
from harness.tokens import Meter
from harness.tools import WORKSPACE, Toolbox
from stage.offline import OfflineModel
from stage.finish import Finish
from stage.long_session import BIG_WINDOW, LONG_TASK, long_workspace
from stage.tasks import Task, file_reading_task

WINDOW = CLASS_WINDOW
PRODUCTION_WINDOW = 200_000
SCALE = WINDOW / PRODUCTION_WINDOW  # 1/40: every production token number is multiplied by this
MAX_LAPS = 200

PROBES = [  # (question, what must be in the final sent context to answer it)
    ("where is the login bug?", "app/auth.py:40"),
    ("what does the pending migration run?", "UPDATE users SET email = lower(email);"),
    ("is there a bug in db.py?", "app/db.py:25"),
    ("what is the rule?", "never touch production"),
]


def scaled(tokens: int) -> int:
    """A production token count on the toy desk. Example: scaled(20_000) -> 500"""
    return round(tokens * SCALE)


# ---- the rows ----------------------------------------------------------------------------------


def core_strategies() -> list[tuple[str, object, str]]:
    """(name, strategy, note) for the harness's own strategies with their default settings."""
    return [
        ("full history", FullHistory(), ""),
        ("sliding window", SlidingWindow(), ""),
        ("three-zone, naive prompt", ThreeZoneCompaction(prompt=NAIVE_PROMPT), ""),
        ("three-zone, template", ThreeZoneCompaction(), ""),
        ("running summary", RunningSummary(), ""),
        ("clear tool results", ClearToolResults(), ""),
        ("clear, then compact", ClearThenCompact(), ""),
    ]


def production_presets(turn_tokens: int) -> list[tuple[str, object, str]]:
    """(name, strategy, note) for settings modelled on production harnesses, scaled to the toy window.

    ``turn_tokens`` is the task's mean tokens per turn, to turn pi's token-sized tail into turns.
    Example: production_presets(300)[0][0] -> "Claude Code style"
    """
    reserve, buffer = scaled(20_000), scaled(13_000)
    cc_trigger = WINDOW - reserve - buffer
    pi_reserve, pi_keep = scaled(16_384), scaled(20_000)
    pi_turns = max(1, round(pi_keep / turn_tokens))
    sdk_threshold = scaled(100_000)
    return [
        (
            "Claude Code style",
            ThreeZoneCompaction(
                threshold=cc_trigger / (WINDOW - reserve), output_reserve=reserve, tail_turns=2
            ),
            f"trigger at window - min(reserve, 20k) - 13k = {WINDOW} - {reserve} - {buffer} = {cc_trigger} "
            "tokens; "
            "its 9-section summary -> the template; all user messages in the summary -> request pinned; "
            "recently read files re-attached -> a 2-turn tail",
        ),
        (
            "pi style",
            ThreeZoneCompaction(
                threshold=1.0, output_reserve=pi_reserve, tail_turns=pi_turns, pin_request=False
            ),
            f"compacts above window - reserve 16,384 (-> {pi_reserve}); keeps ~20k recent tokens (-> {pi_keep}) "
            f"= {pi_turns} turn(s) at ~{turn_tokens} tokens a turn; request summarized too",
        ),
        (
            "Codex style",
            ThreeZoneCompaction(threshold=0.9, output_reserve=0, tail_turns=0, pin_request=True),
            "compacts at 90 % of the window; keeps the user's messages, no tool output -> request pinned, "
            "no verbatim tail; a remark made mid-task sits in a tool-result message here, so only the summary "
            "can carry it",
        ),
        (
            "LangChain middleware style",
            ThreeZoneCompaction(threshold=0.8, output_reserve=0, tail_turns=10, pin_request=False),
            f"keeps the last 20 messages = 10 turns (a count, so not scaled): ~{10 * turn_tokens:,} tokens "
            f"of this task, {10 * turn_tokens / WINDOW:.0%} of the desk; the trigger is the user's choice "
            "there: 80 % of the window here; request summarized too",
        ),
        (
            "SDK compaction-control style",
            ThreeZoneCompaction(
                threshold=sdk_threshold / WINDOW, output_reserve=0, tail_turns=0, pin_request=False
            ),
            f"context_token_threshold 100,000 (-> {sdk_threshold}); the whole history, request included, "
            "becomes one summary message",
        ),
    ]


def mean_turn_tokens(run: Run, meter: Meter) -> int:
    """Tokens per turn (the model's message and the tool results after it), over a run's history."""
    turns = sum(1 for m in run.history if m["role"] == "assistant")
    return round(sum(meter.count(m) for m in run.history[1:]) / max(turns, 1))


# ---- one run, one row -------------------------------------------------------------------------------


def go(
    task: Task,
    strategy,
    window: int = WINDOW,
    workspace: Path = WORKSPACE,
    meter: Meter | None = None,
    max_laps: int = MAX_LAPS,
) -> Run:
    """Run the task once with the offline model.

    Example: go(file_reading_task(), FullHistory()).stopped -> "overflow"
    """
    model = OfflineModel(window=window, meter=meter or Meter())
    return run_agent(
        task.request,
        model,
        tools=Toolbox(workspace),
        context=strategy,
        remarks=task.remarks,
        max_laps=max_laps,
    )


def final_context(run: Run) -> str:
    """Everything the model could read on its last lap, as plain text."""
    return "\n".join(text_of(m) for m in run.laps[-1].sent)


def answerable(run: Run) -> list[str]:
    """The probe questions the final context can still answer. Example: ["what is the rule?"]"""
    text = final_context(run).lower()
    return [question for question, answer in PROBES if answer.lower() in text]


def row(name: str, run: Run, note: str, meter: Meter) -> dict:
    """One table row from one run (plus, for the JSON, the assembled-token line and the missed probes)."""
    paid, answered = bill(run.laps, meter=meter), answerable(run)
    return {
        "strategy": name,
        "laps": len(run.laps),
        "stopped": run.stopped,
        "peak sent": max(lap.assembled_tokens for lap in run.laps),
        "final sent": run.laps[-1].assembled_tokens,
        "billed input": paid.input,
        "cost $": round(paid.cost, 4),
        "no-cache $": round(paid.cost_without_cache, 4),
        "summary calls": sum(lap.summary_calls for lap in run.laps),
        "rule kept": "yes" if PROBES[-1][0] in answered else "no",
        "database": run.database_target or "-",
        "facts": f"{len(answered)}/{len(PROBES)}",
        "re-reads": len(run.rereads),
        "note": note,
        "missed": [q for q, _ in PROBES if q not in answered],
        "assembled": [lap.assembled_tokens for lap in run.laps],
    }


def strategy_table(task: Task, meter: Meter) -> list[dict]:
    """Every strategy and preset on one task, in a fixed order."""
    rows, reference = [], None
    for name, strategy, note in core_strategies():
        run = go(task, strategy, meter=meter)
        reference = reference or run  # full history: the turn size for pi's tail
        rows.append(row(name, run, note, meter))
    for name, strategy, note in production_presets(mean_turn_tokens(reference, meter)):
        rows.append(row(name, go(task, strategy, meter=meter), note, meter))
    return rows


# ---- the long session for the bill goals --------------------------------------------------------------

LONG_ROWS = [  # (name, strategy factory, window)
    ("full history (big window)", FullHistory, BIG_WINDOW),
    ("three-zone, template", ThreeZoneCompaction, WINDOW),
    ("running summary", RunningSummary, WINDOW),
    ("clear tool results", ClearToolResults, WINDOW),
    ("clear, then compact", ClearThenCompact, WINDOW),
]
GOALS = [
    ("running summary", 0.25),
    ("three-zone, template", 0.40),
]  # input share of full history's, at lap 60 and to finish the task (fix on staging)


def long_session(workspace: Path, meter: Meter, at_lap: int = 60) -> dict:
    """Bill each strategy at ``at_lap`` and to the end of the task against full history on the same long
    task, and check the goals."""
    runs = [
        (name, window, go(LONG_TASK, make(), window=window, workspace=workspace, meter=meter))
        for name, make, window in LONG_ROWS
    ]
    baseline = Finish.of(runs[0][0], runs[0][2], meter)
    rows = [long_row(name, window, run, baseline, at_lap, meter) for name, window, run in runs]
    return {"at_lap": at_lap, "rows": rows, "goals": check_goals(rows, at_lap)}


def long_row(name: str, window: int, run: Run, baseline: Finish, at_lap: int, meter: Meter) -> dict:
    """One strategy's bill at ``at_lap`` (or at its last lap, if it stopped sooner), beside full history's
    over the same laps; and its bill to finish the task (the fix on staging), beside full history's --
    or why it never finished."""
    upto = min(at_lap, len(run.laps))
    at, base_at = bill(run.laps[:upto], meter=meter), bill(baseline.run.laps[:upto], meter=meter)
    done = Finish.of(name, run, meter)
    finish_share = done.paid.input / baseline.paid.input if done.finished else None
    finish_cost_share = done.paid.cost / baseline.paid.cost if done.finished else None
    return {
        "strategy": name,
        "window": window,
        "laps": len(run.laps),
        "stopped": run.stopped,
        "billed at lap": upto,
        "input": at.input,
        "share": f"{at.input / base_at.input:.0%}",
        "cost $": round(at.cost, 4),
        "$ share": f"{at.cost / base_at.cost:.0%}",
        "cache read": f"{at.read_share:.0%}",
        "finished": "yes" if done.finished else f"no: {done.why_not}",
        "to finish input": done.paid.input if done.finished else None,
        "to finish share": f"{finish_share:.0%}" if done.finished else "-",
        "to finish $": round(done.paid.cost, 4) if done.finished else None,
        "to finish $ share": f"{finish_cost_share:.0%}" if done.finished else "-",
        "rule kept": "yes" if PROBES[-1][0] in answerable(run) else "no",
        "database": run.database_target or "-",
        "share_value": at.input / base_at.input,
        "cost_share_value": at.cost / base_at.cost,
        "finish_share_value": finish_share,
        "finish_cost_share_value": finish_cost_share,
        "assembled": [lap.assembled_tokens for lap in run.laps],
    }


def check_goals(rows: list[dict], at_lap: int) -> list[dict]:
    """PASS or MISS for each bill goal -- at lap ``at_lap`` and to finish the task -- with the numbers and,
    when missed, why and by how much."""
    by_name, results = {r["strategy"]: r for r in rows}, []
    for name, limit in GOALS:
        r = by_name[name]
        why = missed_by(r, limit, at_lap)
        finish = r["finish_share_value"]
        results.append(
            {
                "goal": f"{name} bills <= {limit:.0%} of full history's input at lap {at_lap} "
                "and to finish the task, with the fix on staging",
                "share": round(r["share_value"], 4),
                "cost share": round(r["cost_share_value"], 4),
                "finish share": None if finish is None else round(finish, 4),
                "finish cost share": None
                if finish is None
                else round(r["finish_cost_share_value"], 4),
                "result": "MISS" if why else "PASS",
                "why": "; ".join(why),
            }
        )
    return results


def missed_by(r: dict, limit: float, at_lap: int) -> list[str]:
    """Every reason a long-session row misses its goal ([] = it passes)."""
    reasons = []
    if r["share_value"] > limit:
        over = r["share_value"] - limit
        reasons.append(
            f"share at lap {at_lap} {r['share_value']:.1%} is {over:.1%} over the {limit:.0%} goal"
        )
    finish = r["finish_share_value"]
    if finish is None:
        reasons.append(f"it never finished ({r['finished'].removeprefix('no: ')})")
    elif finish > limit:
        reasons.append(
            f"share to finish {finish:.1%} is {finish - limit:.1%} over the {limit:.0%} goal"
        )
    if r["rule kept"] != "yes" or r["database"] != "staging":
        reasons.append(
            f"constraint not kept (rule on the desk: {r['rule kept']}, database: {r['database']})"
        )
    if r["billed at lap"] < at_lap:
        reasons.append(f"the run stopped at lap {r['billed at lap']}, before lap {at_lap}")
    return reasons


# ---- the whole benchmark ------------------------------------------------------------------------------

TASKS = {"rule in the request": None, "rule given at lap 3": 3}


def run_all(quick: bool = False) -> dict:
    """Both strategy tables and the long session. ``quick`` shrinks the long session (for the smoke test)."""
    import tempfile

    meter = Meter("tiktoken")
    tables = {
        label: strategy_table(file_reading_task(rule_at_lap=lap), meter)
        for label, lap in TASKS.items()
    }
    fillers, at_lap = (4, 20) if quick else (43, 60)
    with tempfile.TemporaryDirectory() as folder:
        long = long_session(long_workspace(Path(folder) / "workspace", fillers), meter, at_lap)
    long["workspace"] = f"class workspace + {fillers} generated modules under app/features/"
    return {
        "window": WINDOW,
        "production_window": PRODUCTION_WINDOW,
        "scale": f"1/{round(1 / SCALE)}",
        "tables": tables,
        "long_session": long,
    }


SHOWN = [
    "strategy",
    "laps",
    "stopped",
    "peak sent",
    "final sent",
    "billed input",
    "cost $",
    "no-cache $",
    "summary calls",
    "rule kept",
    "database",
    "facts",
    "re-reads",
]
LONG_SHOWN = [
    "strategy",
    "window",
    "laps",
    "stopped",
    "billed at lap",
    "input",
    "share",
    "cost $",
    "$ share",
    "cache read",
    "finished",
    "to finish input",
    "to finish share",
    "to finish $",
    "to finish $ share",
    "rule kept",
    "database",
]


def report(results: dict) -> str:
    """The tables and goals as the terminal shows them."""
    lines = [
        f"Offline model, window {results['window']:,} tokens. Presets are scaled from a "
        f"{results['production_window']:,}-token production window by {results['scale']} "
        "(token numbers only)."
    ]
    for label, rows in results["tables"].items():
        lines += [
            "",
            f"File-reading task, {label}:",
            table([{k: r[k] for k in SHOWN} for r in rows]),
        ]
    first = next(iter(results["tables"].values()))
    lines += ["", "Notes on the presets:"] + [
        f"  {r['strategy']}: {r['note']}" for r in first if r["note"]
    ]
    lines += [
        "",
        "Facts probed in the final context: " + "; ".join(f"{q} -> {a!r}" for q, a in PROBES),
    ]
    long = results["long_session"]
    at = long["at_lap"]
    shown = [{k: r[k] for k in LONG_SHOWN} for r in long["rows"]]
    lines += [
        "",
        f"Long session ({long['workspace']}), billed at lap {at} and to finish the task (the fix on "
        "staging) (share = input tokens as a fraction of full history's; $ share = the same with "
        "caching):",
        table(shown),
        "",
    ]
    lines += [f"  {goal_line(g, at)}" for g in long["goals"]]
    return "\n".join(lines)


def goal_line(g: dict, at_lap: int) -> str:
    """One goal with both bills: at the lap, and to finish the task. Example:
    "PASS  running summary bills ...: at lap 60 19.0% of the tokens, 183% of the dollars; to finish
    17.2% of the tokens, 168% of the dollars" """
    finish = (
        "never finished"
        if g["finish share"] is None
        else f"to finish {g['finish share']:.1%} of the tokens, {g['finish cost share']:.0%} of "
        "the dollars"
    )
    return (
        f"{g['result']}  {g['goal']}: at lap {at_lap} {g['share']:.1%} of the tokens, "
        f"{g['cost share']:.0%} of the dollars; {finish}" + (f" -- {g['why']}" if g["why"] else "")
    )


def plot(results: dict, path: Path) -> Path:
    """The assembled-token line of every strategy (rule in the request), with the window as a wall."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = next(iter(results["tables"].values()))
    core = len(core_strategies())
    fig, panels = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    for panel, group, title in (
        (panels[0], rows[:core], "the harness's strategies"),
        (panels[1], rows[:1] + rows[core:], "production-style presets (scaled)"),
    ):
        for r in group:
            panel.plot(
                range(1, len(r["assembled"]) + 1), r["assembled"], label=r["strategy"], lw=1.6
            )
        panel.axhline(results["window"], color="black", ls="--", lw=1, label="window")
        panel.set(title=title, xlabel="lap")
        panel.legend(fontsize=8)
    panels[0].set_ylabel("assembled tokens sent")
    fig.suptitle("What each strategy sends, lap by lap (file-reading task, offline model)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


if __name__ == "__main__":
    print(report(run_all()))
