"""Checks for exercise 04, the running summary: ``running_summary``, ``token_bill``, ``cheapest_settings``.

``running_summary(events, fold, chunk_size, summary)``: ``chunk_size`` counts EVENTS (messages), and
``fold(summary, chunk) -> text`` is the model call. The check hands you a ``fold`` that records every
call, and asks what must hold of them: the chunks, put together, are the events, in order, each once;
every chunk but the last is ``chunk_size`` long; each fold starts from what the last one returned.
``FoldLoop`` then runs your loop inside the agent; it hands you the messages of ``chunk_turns`` whole
TURNS at a time (so ``chunk_size`` = 2 x chunk_turns).

``token_bill(laps)`` is tried on lap records the check built from totals it chose first (so it knows
the answer without adding anything up), and on real runs, against the loop's own running total and
what each strategy saves. ``cheapest_settings`` is judged by the runs it asks
for: the check passes a ``run_with`` that records them, so it sees which pairs were tried, with which
window and task, and what each run cost -- it never sweeps the grid itself.

Left out: output tokens and prompt caching in the bill (``harness.cost`` has both).
"""

from __future__ import annotations

import copy
import random

from harness.compaction import ThreeZoneCompaction
from harness.messages import turn_starts
from harness.context import Assembly, FullHistory, Strategy
from harness.laps import Lap
from harness.loop import run_agent
from harness.messages import user
from harness.prompts import SUMMARY_HEADER, fold_prompt, render
from harness.running_summary import RunningSummary
from harness.tools import REPO_ROOT, Toolbox
from stage.tasks import file_reading_task, workspace_task

from .common import (
    GOALS,
    RULES,
    Fail,
    call,
    call_on_copy,
    how_it_stopped,
    is_number,
    need_function,
    once,
    random_history,
    run,
    verdict,
)
from .common import model as offline_model

_CHANGED = (
    "walk the events chunk by chunk with slices; never pop from or clear the list you were given -- in "
    "the loop it is part of the raw history."
)


# ---- task 1: the fold loop ----------------------------------------------------------------------------


def _fold_cases(seed: int):
    rng = random.Random(seed)
    yield [], 3, "Goal: an earlier summary."  # nothing new: the summary so far comes back
    yield [], 2, ""
    events = random_history(rng, turns=3, chat=False)[1:]
    yield events, len(events), ""  # one chunk, exactly
    yield events, len(events) + 5, "Goal: before."  # a chunk bigger than the events
    yield events[:1], 1, "Goal: one event."  # the smallest: one event, one at a time
    yield events[:1], 3, ""  # one event, a bigger chunk
    yield events, 1, "Goal: before."  # one event per fold
    for _ in range(25):
        yield (
            random_history(rng, turns=rng.randint(0, 8), chat=False)[1:],
            rng.randint(1, 5),
            rng.choice(["", "Goal: an earlier summary."]),
        )


def check_running_summary(running_summary, seed: int = 6) -> bool:
    """Checks running_summary(events, fold, chunk_size, summary), the rules as the task states them:

    - Walk `events` in chunks of `chunk_size` events, in order; the last chunk may be shorter. Each event goes into exactly one fold.
    - For each chunk, `summary = fold(summary, chunk)`: each fold gets the summary the last one returned (the first gets `summary`) and only the new chunk.
    - Return the summary the last fold returned; with no events, return `summary` as it came.
    - Never change `events`.

    With a fold that records its calls, on fresh event lists and the edges (no events, one event, a
    chunk bigger than the events); then inside the agent at two windows: the run must finish with the
    fix on staging while the desk stays about the same size and the raw history grows.
    """

    def body():
        need_function(running_summary, "running_summary")
        count = 0
        for events, chunk, start in once(("fold cases", seed), lambda: list(_fold_cases(seed))):
            calls = []

            def fold(summary, new_events, calls=calls):
                calls.append(
                    (
                        summary,
                        list(new_events) if isinstance(new_events, (list, tuple)) else new_events,
                    )
                )
                return f"<summary #{len(calls)}>"

            size = f"{len(events)} events, chunk_size={chunk}"
            got = call_on_copy(
                f"running_summary(<{size}>)",
                running_summary,
                events,
                fold,
                chunk,
                start,
                changed_hint=_CHANGED,
                hint="with no events there is nothing to fold: return the summary you were given."
                if not events
                else None,
            )
            problem = _fold_problem(events, chunk, start, calls, got, size)
            if problem:
                raise problem
            count += 1
        for window, at in ((5000, None), (4500, 3)):
            run_ = run(FoldLoop(running_summary), window, file_reading_task(rule_at_lap=at))
            where = f"window {window:,}" + (f", rule said at lap {at}" if at else "")
            if run_.stopped != "answered" or len(run_.laps) < 8:
                raise Fail(
                    f"[{where}] the run did not finish ({how_it_stopped(run_)})",
                    "keep the desk small: the request, the one summary, and the newest turns.",
                )
            later = run_.laps[5:-1]  # the last lap only answers
            desk = later[-1].assembled_tokens - later[0].assembled_tokens
            raw = later[-1].raw_tokens - later[0].raw_tokens
            if desk > raw / 2:
                raise Fail(
                    f"[{where}] from lap 6 on the assembled desk grew by {desk:,} tokens while the raw history "
                    f"grew by {raw:,}",
                    "the summary grows with the history: it should stay about the same "
                    "size while the raw history grows.",
                )
            if run_.database_target != "staging":
                raise Fail(
                    f"[{where}] the fix went to {run_.database_target}",
                    "every fold must carry the summary so far, rules included.",
                )
            print(
                f"[{where}] from lap 6 on, the raw history grew by {raw:,} tokens and the desk by {desk:,}; fix on "
                f"{run_.database_target}."
            )
        return (
            f"{count} fold sequences (edges included), and 2 runs where the desk stayed flat while the raw "
            "history grew."
        )

    return verdict("running_summary", body)


def _fold_problem(events, chunk, start, calls, got, size) -> Fail | None:
    """What is wrong with the calls your loop made (and what it returned), or None."""
    if any(not isinstance(new, list) for _, new in calls):
        return Fail(
            f"[{size}] fold was given something other than a list of events",
            "hand fold a slice of the events (a list), in the order (summary, chunk).",
        )
    chunks = [new for _, new in calls]
    folded = [event for new in chunks for event in new]
    if not events and calls:
        return Fail(
            f"[{size}] fold was called with no events to fold",
            "no events, no fold: return summary as it came.",
        )
    if len(folded) > len(events) or any(
        chunks[i][:1] == chunks[i - 1][:1] for i in range(1, len(chunks))
    ):
        return Fail(
            f"[{size}] a fold was given events it had already folded",
            "fold only the NEW chunk: the older events are already inside the summary.",
        )
    if folded != events:
        if folded == events[: len(folded)]:
            return Fail(
                f"[{size}] the folds covered {len(folded)} of the {len(events)} events",
                "every event is folded once: the last chunk may be shorter than chunk_size, fold it too.",
            )
        return Fail(
            f"[{size}] the chunks, put together, are not the events in order",
            "fold the events in order, chunk_size at a time, each event exactly once.",
        )
    if any(len(new) != chunk for new in chunks[:-1]) or (
        chunks and not 0 < len(chunks[-1]) <= chunk
    ):
        sizes = sorted({len(new) for new in chunks})
        hint = (
            "one fold per chunk of chunk_size events, not one per event."
            if sizes == [1]
            else "use the chunk_size you were given: every chunk but the last holds exactly chunk_size events."
        )
        return Fail(f"[{size}] your chunks held {', '.join(map(str, sizes))} events", hint)
    for i, (summary, _) in enumerate(calls):
        wanted = start if i == 0 else f"<summary #{i}>"
        if summary != wanted:
            return Fail(
                f"[{size}] fold number {i + 1} was given {summary!r} as the summary so far",
                "pass the summary so far in: each fold merges the new chunk INTO the summary the last fold "
                "returned, and the first fold starts from the summary you were given.",
            )
    last = f"<summary #{len(calls)}>" if calls else start
    if got != last:
        if got is None:
            hint = (
                "end with `return summary`: the caller needs the summary the last fold gave back."
            )
        elif isinstance(got, str) and last in got and len(got) > len(last):
            hint = "your summary grows with the history: keep only what the last fold gave back, do not append to it."
        else:
            hint = "return the summary the last fold gave back (or the one you were given, if nothing was folded)."
        return Fail(f"[{size}] you returned {got!r:.60}, the last fold returned {last!r}", hint)
    return None


class FoldLoop(Strategy):
    """Runs ``fn(events, fold, chunk_size, summary)`` inside the loop: your fold loop as a strategy.

    Once ``chunk_turns`` turns have finished beyond the newest ``tail_turns``, their messages go to ``fn``
    with a ``fold(summary, chunk)`` that asks the model to fold ``chunk`` into ``summary``. The desk is
    the request + one summary message + the messages not folded yet.
    """

    name = "your running summary"

    def __init__(self, fn, chunk_turns: int = 2, tail_turns: int = 1, max_words: int = 180):
        self.fn, self.chunk_turns, self.tail_turns, self.max_words = (
            fn,
            chunk_turns,
            tail_turns,
            max_words,
        )
        self.start()

    def start(self):
        self.summary, self.upto = "", 1

    def assemble(self, history, *, lap=0, model, **_):
        usage = []

        def fold(summary, chunk):
            prompt = fold_prompt(str(summary or ""), render(list(chunk)), self.max_words)
            reply = model.reply("", [user(prompt)], [])
            usage.append(reply.usage)
            return reply.text.strip()

        starts = turn_starts(history, start=self.upto)
        if len(starts) >= self.tail_turns + self.chunk_turns:
            cut = starts[-self.tail_turns] if self.tail_turns else len(history)
            self.summary = call(
                f"running_summary inside the loop at lap {lap}",
                self.fn,
                history[self.upto : cut],
                fold,
                2 * self.chunk_turns,
                self.summary,
            )
            self.upto = cut
        card = (
            [user(SUMMARY_HEADER.format(lap=lap) + "\n" + str(self.summary))]
            if self.summary
            else []
        )
        messages = history[:1] + card + history[self.upto :]
        zones = ["head"] + ["summary"] * len(card) + ["tail"] * (len(history) - self.upto)
        return Assembly(
            messages,
            zones,
            "fold" if usage else "none",
            f"folded {len(usage)} chunk(s)" if usage else "",
            summary_calls=len(usage),
            summary_input=sum(u.get("input_tokens", 0) for u in usage),
            summary_output=sum(u.get("output_tokens", 0) for u in usage),
            summary=self.summary or None,
        )


# ---- task 3: the bill ---------------------------------------------------------------------------------


def split_total(rng: random.Random, total: int, parts: int) -> list[int]:
    """``total`` cut into ``parts`` positive whole numbers, in a random way. Example: (rng, 10, 3) -> [2, 5, 3]"""
    cuts = sorted(rng.sample(range(1, total), parts - 1))
    return [b - a for a, b in zip([0] + cuts, cuts + [total])]


def made_up_laps(rng: random.Random, billed: int, raw: int, n: int) -> list[Lap]:
    """``n`` lap records whose billed input adds up to ``billed`` and raw tokens to ``raw``, chosen first.

    The desk grows, some laps pay for a fold call on top of their desk (so billed input is more than the
    desk sent), every lap has output, and total_input runs on, as in a real run.
    """
    laps, so_far = [], 0
    for number, (paid, whole) in enumerate(
        zip(split_total(rng, billed, n), sorted(split_total(rng, raw, n))), 1
    ):
        fold = rng.randint(1, paid - 1) if paid > 1 and rng.random() < 0.5 else 0
        so_far += paid
        laps.append(
            Lap(
                number,
                whole,
                paid - fold,
                kind="fold" if fold else "none",
                summary_calls=int(bool(fold)),
                billed_input=paid,
                billed_output=rng.randint(20, 200),
                total_input=so_far,
            )
        )
    return laps


_BILL_RUNS = [  # (where, strategy, window, rule_at_lap)
    ("running summary, window 5,000", lambda: RunningSummary(), 5000, None),
    ("three-zone compaction, window 5,000", lambda: ThreeZoneCompaction(), 5000, 3),
    ("full history, window 20,000", lambda: FullHistory(), 20000, None),
]


def _bill(token_bill, laps, where):
    got = call_on_copy(
        f"token_bill(laps) [{where}]",
        token_bill,
        laps,
        changed_hint="only read the lap records; do not sort, pop or edit them.",
        hint="a run with no laps is a real case (the request was refused at once): it cost nothing, "
        "so return (0, 0)."
        if not laps
        else None,
    )
    if not (isinstance(got, tuple) and len(got) == 2 and all(is_number(x) for x in got)):
        raise Fail(
            f"[{where}] token_bill returned {got!r:.60}",
            "return a tuple of two numbers: (with_summary, without_summary).",
        )
    return got


def check_token_bill(token_bill, seed: int = 10) -> bool:
    """Checks token_bill(laps), the rules as the task states them:

    - Return a tuple of two numbers, `(with_summary, without_summary)`: input tokens over the whole run.
    - with_summary: what was billed -- each lap's `billed_input` (the desk sent, plus any fold or summary call that lap), over all the laps.
    - without_summary: what sending the whole raw history every lap would have cost -- each lap's `raw_tokens`, over all the laps.
    - A run with no laps cost `(0, 0)`. Output tokens are not part of it.
    - Do not change `laps`.

    On lap records it built from totals it chose first (one lap, a few, many; fold calls on some laps),
    on no laps, and on three real runs: what was billed must be the loop's own running total
    (`laps[-1].total_input`); FullHistory saves nothing, the summaries save something.
    """

    def body():
        need_function(token_bill, "token_bill")
        if _bill(token_bill, [], "no laps: a request refused before lap 1") != (0, 0):
            raise Fail(
                "token_bill([]) did not return (0, 0)",
                "a run with no laps cost nothing: return (0, 0).",
            )
        rng = random.Random(seed)
        for n in (1, 2, 5, 12, 30):
            billed, raw = rng.randint(400 * n, 3000 * n), rng.randint(600 * n, 9000 * n)
            laps = made_up_laps(rng, billed, raw, n)
            where = f"{n} made-up lap{'s' if n > 1 else ''}"
            got = _bill(token_bill, laps, where)
            if tuple(got) != (billed, raw):
                raise Fail(
                    f"[{where}] you said {tuple(got)}, the lap records add up to {(billed, raw)}",
                    _bill_hint(got, (billed, raw), laps),
                )
        for where, make, window, at in _BILL_RUNS:
            laps = list(
                once(
                    ("bill", where), lambda: run(make(), window, file_reading_task(rule_at_lap=at))
                ).laps
            )
            paid, would = _bill(token_bill, laps, where)
            if paid != laps[-1].total_input:
                raise Fail(
                    f"[{where}] you said {paid:,} were billed; the loop's own running total says "
                    f"{laps[-1].total_input:,}",
                    _bill_hint((paid, would), (laps[-1].total_input, would), laps),
                )
            if isinstance(make(), FullHistory) and would != paid:
                raise Fail(
                    f"[{where}] you said {(paid, would)}; FullHistory sends the whole raw history every lap, "
                    "so both numbers must be the same",
                    "without the summary, each lap would have sent its "
                    "whole raw history: lap.raw_tokens, over every lap -- not the last lap alone.",
                )
            if not isinstance(make(), FullHistory) and would <= paid:
                raise Fail(
                    f"[{where}] you said {(paid, would)}: the summary saved nothing?",
                    "without the summary, each lap would have sent its whole raw history: lap.raw_tokens, "
                    "over every lap.",
                )
        first = once(("bill", _BILL_RUNS[0][0]), lambda: None).laps
        paid, would = _bill(token_bill, list(first), _BILL_RUNS[0][0])
        print(
            f"Running summary at 5,000 tokens: {paid:,} input tokens billed, against {would:,} for sending the "
            f"full history every lap ({paid / would:.0%})."
        )
        return "right on no laps, 5 made-up runs (1 to 30 laps, fold calls) and 3 real runs."

    return verdict("token_bill", body)


def _bill_hint(got, want, laps) -> str:
    """Name the mistake by the numbers it gives on a made-up run (each number judged on its own)."""
    with_summary, without_summary = got
    n = len(laps)
    if tuple(got) == want[::-1]:
        return "the pair is the wrong way round: (with_summary, without_summary)."
    if (
        n > 1
        and (with_summary, without_summary)
        in (
            (want[0] - laps[0].billed_input, want[1] - laps[0].raw_tokens),
            (want[0] - laps[0].billed_input, want[1]),
            (0, want[1]),
        )
        or n == 1
        and with_summary == 0
    ):
        return "lap 1 counts too: every lap of the list, the first one included."
    if with_summary != want[0]:
        if (
            with_summary in (sum(lap.total_input for lap in laps), laps[-1].total_input * n)
            and n > 1
        ):
            return "lap.total_input is already a running total: adding it up counts the early laps again and again."
        if with_summary == sum(lap.assembled_tokens for lap in laps):
            return (
                "the summary calls are billed too: lap.billed_input counts the desk sent AND the input of any "
                "summary or fold call made that lap."
            )
        if with_summary == want[0] + sum(lap.billed_output for lap in laps):
            return "this bill is input tokens only: leave the output tokens out."
        if with_summary == want[1]:
            return "with the summary, the bill is what was really sent and billed, not the raw history."
        return "with the summary, the bill is what was really billed that lap, fold calls included, over every lap."
    if without_summary in (laps[-1].raw_tokens, laps[-1].raw_tokens * n):
        return (
            "without a strategy every lap re-sends its own whole raw history, and it grows lap by lap: the "
            "bill adds each lap's raw_tokens, not the last lap's alone."
        )
    return "without the summary, each lap would have sent its whole raw history: lap.raw_tokens, over every lap."


# ---- task 4 (homework): the cheapest settings ---------------------------------------------------------

CHUNKS, KEEPS = (1, 2, 3), (0, 1, 2)
_SWEEP_MAX_LAPS = 60
GREENHOUSE = REPO_ROOT / "workspaces" / "greenhouse"
# (where, window, workspace, goal or None for the workspace's own, rule, said at lap): requests not seen in class
_SWEEP_CASES = [
    (
        "the class codebase, another wording, the rule said at lap 3, window 2,000",
        2000,
        None,
        GOALS[1],
        RULES[1][0],
        3,
    ),
    (
        "the greenhouse codebase, the rule said at lap 3, window 2,000",
        2000,
        GREENHOUSE,
        None,
        None,
        3,
    ),
]


def run_with(chunk_turns, tail_turns, window, task, root=None):
    """One run of ``task`` with RunningSummary(chunk_turns, tail_turns) at ``window`` tokens (at most 60 laps).

    ``root`` is the codebase (the class one unless given). Example: run_with(2, 0, 5000, file_reading_task())
    """
    return run_agent(
        task.request,
        offline_model(window),
        tools=Toolbox(root) if root else None,
        remarks=task.remarks,
        context=RunningSummary(chunk_turns=chunk_turns, tail_turns=tail_turns),
        max_laps=_SWEEP_MAX_LAPS,
    )


def bill_of(run_) -> int:
    """The input tokens a run was billed, as the loop kept count of them."""
    return run_.laps[-1].total_input if run_.laps else 0


def finished_on_staging(run_) -> bool:
    return run_.stopped == "answered" and run_.database_target == "staging"


class Recorder:
    """The ``run_with`` the check hands your function: it runs what you ask and remembers every run.

    The runs themselves hold no code of yours, so each is made once per kernel; you get a copy of it.
    """

    def __init__(self, root):
        self.root, self.runs = root, []  # runs: (chunk_turns, tail_turns, window, task, run)

    def __call__(self, chunk_turns, tail_turns, window, task):
        try:
            key = (
                "sweep",
                chunk_turns,
                tail_turns,
                window,
                task.request,
                tuple(sorted(task.remarks.items())),
                str(self.root),
            )
            hash(key)
        except (AttributeError, TypeError):
            key = None
        made = lambda: run_with(chunk_turns, tail_turns, window, task, self.root)  # noqa: E731
        done = copy.deepcopy(once(key, made)) if key else made()
        self.runs.append((chunk_turns, tail_turns, window, task, done))
        return done


def _case_task(root, goal, rule, at):
    return (
        workspace_task(root, rule_at_lap=at)
        if root
        else file_reading_task(rule_at_lap=at, goal=goal, rule=rule)
    )


def check_cheapest_settings(cheapest_settings) -> bool:
    """Checks cheapest_settings(window, task, run_with), the rules as the task states them:

    - Run every pair of `checks.CHUNKS` x `checks.KEEPS` with the `run_with(chunk_turns, tail_turns, window, task)` you are given, with the window and the task you are given.
    - Keep only the runs that finished (`run.stopped == "answered"`) with the fix on staging.
    - Return the pair `(chunk_turns, tail_turns)`, a tuple, of the kept run that billed the fewest input tokens (your `token_bill`).

    On two requests you have not seen -- another wording on the class codebase at a small window, and
    the greenhouse codebase -- it watches the runs you ask for, and judges your pair by them.
    """

    def body():
        need_function(cheapest_settings, "cheapest_settings")
        for where, window, root, goal, rule, at in _SWEEP_CASES:
            task, recorder = _case_task(root, goal, rule, at), Recorder(root)
            got = call(
                f"cheapest_settings({window}, task, run_with) [{where}]",
                cheapest_settings,
                window,
                task,
                recorder,
            )
            problem = _sweep_problem(got, window, task, recorder.runs, where)
            if problem:
                raise problem
        return f"on {len(_SWEEP_CASES)} requests you had not seen, your sweep found the cheapest run that finished on staging."

    return verdict("cheapest_settings", body)


def _sweep_problem(got, window, task, runs, where) -> Fail | None:
    if not (
        isinstance(got, tuple)
        and len(got) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in got)
    ):
        return Fail(
            f"[{where}] cheapest_settings returned {got!r:.60}",
            "return a tuple of two whole numbers: (chunk_turns, tail_turns).",
        )
    others = [(w, t) for _, _, w, t, _ in runs if w != window or t is not task]
    if others:
        w, t = others[0]
        return Fail(
            f"[{where}] you ran at a window of {w!r} with "
            + ("the task given" if t is task else "another task")
            + f", not the {window:,} tokens and the task you were given",
            "use the window and the task the caller passes in: the cheapest settings depend on both.",
        )
    grid = [(c, k) for c in CHUNKS for k in KEEPS]
    ran = {(c, k): r for c, k, _, _, r in runs}
    if got not in grid:
        return Fail(
            f"[{where}] you chose {got}, outside the grid (chunk_turns in {CHUNKS}, tail_turns in {KEEPS})",
            "sweep exactly the grid the task gives, and return one of its pairs.",
        )
    missing = [pair for pair in grid if pair not in ran]
    if missing:
        return Fail(
            f"[{where}] you chose {got} without running {missing[0]}"
            + (f" and {len(missing) - 1} more pair(s)" if len(missing) > 1 else ""),
            "run every pair of the grid with the run_with you are given: the cheapest pair depends on the "
            "request and the window, so no pair can be typed in.",
        )
    chosen = ran[got]
    if not finished_on_staging(chosen):
        return Fail(
            f"[{where}] the run of {got} did not finish with the fix on staging ({how_it_stopped(chosen)}, "
            f"fix on {chosen.database_target})",
            "a cheap run that fails is not cheap: keep only the runs that answered with the fix on staging.",
        )
    kept = {pair: bill_of(r) for pair, r in ran.items() if finished_on_staging(r)}
    if kept[got] == min(kept.values()):
        return None
    cheaper = sum(bill < kept[got] for bill in kept.values())
    what = (
        f"[{where}] the run of {got} billed {kept[got]:,} input tokens; {cheaper} other pair(s) finished on staging "
        "for less"
    )
    laps = {pair: len(ran[pair].laps) for pair in kept}
    folds = {pair: sum(lap.summary_calls for lap in ran[pair].laps) for pair in kept}
    if kept[got] == max(kept.values()):
        return Fail(
            what, "that is the most expensive of them: keep the smallest bill, not the largest."
        )
    if folds[got] == min(folds.values()) < max(folds.values()):
        return Fail(
            what,
            "fewer, bigger folds are not cheaper by themselves: the turns waiting to be folded ride "
            "on every lap's desk. Compare the bills, not the number of fold calls.",
        )
    if laps[got] == min(laps.values()):
        return Fail(
            what,
            "a run that took no more laps than yours billed less: the fewest laps is not the fewest "
            "tokens, and no pair is the answer for every request. Compare what each run was billed "
            "(token_bill).",
        )
    return Fail(
        what,
        "compare token_bill(run.laps)[0] of every run that finished on staging, and keep the smallest.",
    )
