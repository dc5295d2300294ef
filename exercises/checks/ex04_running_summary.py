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

import random


from harness.compaction import ThreeZoneCompaction
from harness.messages import turn_starts
from harness.context import Assembly, FullHistory, Strategy
from harness.loop import run_agent
from harness.messages import user
from harness.prompts import SUMMARY_HEADER, fold_prompt, render
from harness.running_summary import RunningSummary
from harness.tools import REPO_ROOT, Toolbox
from stage.tasks import file_reading_task

from .common import (
    GOALS,
    RULES,
    Fail,
    call,
    call_on_copy,
    how_it_stopped,
    is_number,
    is_whole,
    need_function,
    number,
    once,
    run,
    safe_equal,
    show,
    timed_run,
    verdict,
)
from .common import model as offline_model
from .made_up_runs import (
    CHUNKS,
    ENDINGS,
    GRID,
    KEEPS,
    Recorder,
    bill_cases,
    fold_cases,
    fold_edges,
    fold_reply,
    made_up_laps,
    show_bill_case,
    show_fold_case,
    show_sweep,
    sweep_cases,
)
from .search import hunt

_CHANGED = (
    "walk the events chunk by chunk with slices; never pop from or clear the list you were given -- in "
    "the loop it is part of the raw history."
)


# ---- task 1: the fold loop ----------------------------------------------------------------------------


def check_running_summary(running_summary, seed: int = 6) -> bool:
    """Checks running_summary(events, fold, chunk_size, summary), the rules as the task states them:

    - Walk `events` in chunks of `chunk_size` events, in order; the last chunk may be shorter. Each event goes into exactly one fold.
    - For each chunk, `summary = fold(summary, chunk)`: each fold gets the summary the last one returned (the first gets `summary`) and only the new chunk.
    - Return the summary the last fold returned; with no events, return `summary` as it came.
    - Never change `events`.

    With a fold that records its calls, on the edges (no events, one event, a chunk bigger than the
    events) and 100 made-up event lists (any chunk size, a summary of any length to start from, a fold
    that gives back an empty summary); then inside the agent at two windows: the run must finish with
    the fix on staging while the desk stays about the same size and the raw history grows.
    """

    def body():
        need_function(running_summary, "running_summary")

        def folds_each_event_once(case):
            events, chunk, start, blank = case
            calls = []

            def fold(summary, chunk):  # the parameters' names are the ones the task gives
                calls.append((summary, list(chunk) if isinstance(chunk, (list, tuple)) else chunk))
                return fold_reply(len(calls), blank)

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
            problem = _fold_problem(events, chunk, start, calls, got, size, blank)
            if problem:
                raise problem

        edges = once(("fold cases", seed), lambda: list(fold_edges(seed)))
        count = hunt(fold_cases(), folds_each_event_once, show_fold_case, seed=seed, explicit=edges)
        for window, at in ((5000, None), (4500, 3)):
            run_ = timed_run(
                f"a run with running_summary inside, window {window:,}",
                lambda: run(FoldLoop(running_summary), window, file_reading_task(rule_at_lap=at)),
            )
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
            show(
                f"[{where}] from lap 6 on, the raw history grew by {raw:,} tokens and the desk by {desk:,}; fix on "
                f"{run_.database_target}."
            )
        return (
            f"{count} fold sequences (edges included), and 2 runs where the desk stayed flat while the raw "
            "history grew."
        )

    return verdict("running_summary", body)


def _fold_problem(events, chunk, start, calls, got, size, blank=0) -> Fail | None:
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
        wanted = start if i == 0 else fold_reply(i, blank)
        if summary != wanted:
            return Fail(
                f"[{size}] fold number {i + 1} was given {summary!r} as the summary so far",
                "pass the summary so far in: each fold merges the new chunk INTO the summary the last fold "
                "returned, and the first fold starts from the summary you were given.",
            )
    last = fold_reply(len(calls), blank) if calls else start
    if got != last:
        if got is None:
            hint = (
                "end with `return summary`: the caller needs the summary the last fold gave back."
            )
        elif isinstance(got, str) and last and last in got and len(got) > len(last):
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
    return tuple(number(x) for x in got)  # numpy's or Decimal's numbers, as plain ones


def check_token_bill(token_bill, seed: int = 10) -> bool:
    """Checks token_bill(laps), the rules as the task states them:

    - Return a tuple of two numbers, `(with_summary, without_summary)`: input tokens over the whole run.
    - with_summary: what was billed -- each lap's `billed_input` (the desk sent, plus any fold or summary call that lap), over all the laps.
    - without_summary: what sending the whole raw history every lap would have cost -- each lap's `raw_tokens`, over all the laps.
    - A run with no laps cost `(0, 0)`. Output tokens are not part of it.
    - Do not change `laps`.

    On lap records it built from totals it chose first (one lap, a few, many, numbered from any lap;
    fold calls on some laps), on no laps, on 100 made-up runs, and on three real runs: what was billed
    must be the loop's own running total (`laps[-1].total_input`); FullHistory saves nothing, the
    summaries save something.
    """

    def body():
        need_function(token_bill, "token_bill")
        if _bill(token_bill, [], "no laps: a request refused before lap 1") != (0, 0):
            raise Fail(
                "token_bill([]) did not return (0, 0)",
                "a run with no laps cost nothing: return (0, 0).",
            )

        def adds_up(case):
            laps, billed, raw = case
            where = f"{len(laps)} made-up lap{'' if len(laps) == 1 else 's'}"
            got = _bill(token_bill, laps, where)
            if tuple(got) != (billed, raw):
                raise Fail(
                    f"[{where}] you said {tuple(got)}, the lap records add up to another pair",
                    _bill_hint(got, (billed, raw), laps),
                )

        rng = random.Random(seed)
        edges = [
            (
                lambda laps: (
                    laps,
                    sum(x.billed_input for x in laps),
                    sum(x.raw_tokens for x in laps),
                )
            )(made_up_laps(rng, rng.randint(400 * n, 3000 * n), rng.randint(600 * n, 9000 * n), n))
            for n in (1, 2, 5, 12, 30)
        ]
        tried = hunt(bill_cases(), adds_up, show_bill_case, seed=seed, explicit=edges)
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
        show(
            f"Running summary at 5,000 tokens: {paid:,} input tokens billed, against {would:,} for sending the "
            f"full history every lap ({paid / would:.0%})."
        )
        return (
            f"right on no laps, {tried} made-up runs (1 to 30 laps, numbered from any lap, fold "
            "calls) and 3 real runs."
        )

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

_SWEEP_MAX_LAPS = 60
GREENHOUSE = REPO_ROOT / "workspaces" / "greenhouse"


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


def check_cheapest_settings(cheapest_settings, seed: int = 14) -> bool:
    """Checks cheapest_settings(window, task, run_with), the rules as the task states them:

    - Run every pair of `checks.CHUNKS` x `checks.KEEPS` with the `run_with(chunk_turns, tail_turns, window, task)` you are given, with the window and the task you are given.
    - Keep only the runs that finished (`run.stopped == "answered"`) with the fix on staging.
    - Return the pair `(chunk_turns, tail_turns)`, a tuple, of the kept run that billed the fewest input tokens (your `token_bill`).

    On 100 made-up sweeps: the run of each pair ends in any state (answered, out of laps, an overflow,
    a failed summary, a model error), with its fix on staging, on production or nowhere, after any
    number of laps and any bill. The check watches the runs you ask for, and judges your pair by them.
    """

    def body():
        need_function(cheapest_settings, "cheapest_settings")
        task = file_reading_task(rule_at_lap=3, goal=GOALS[1], rule=RULES[1][0])

        def the_cheapest_that_finished(case):
            window, table = case
            recorder = Recorder(table)
            got = call(
                f"cheapest_settings({window}, task, run_with)",
                cheapest_settings,
                window,
                task,
                recorder,
            )
            problem = _sweep_problem(got, window, task, recorder.runs)
            if problem:
                raise problem

        try:
            tried = hunt(sweep_cases(), the_cheapest_that_finished, show_sweep, seed=seed)
        except Fail as failed:
            if failed.hint == _COMPARE:  # a pair that finished, but not the cheapest: which rule?
                failed.hint = _diagnosis(
                    lambda table: call(
                        "cheapest_settings", cheapest_settings, 3000, task, Recorder(table)
                    )
                )
            raise
        return (
            f"on {tried} made-up sweeps (runs ending in every state, fixes anywhere, any bill), "
            "your pair was the cheapest run that finished on staging."
        )

    return verdict("cheapest_settings", body)


def _sweep_problem(got, window, task, runs) -> Fail | None:
    if not (isinstance(got, tuple) and len(got) == 2 and all(is_whole(x) for x in got)):
        return Fail(
            f"cheapest_settings returned {got!r:.60}",
            "return a tuple of two whole numbers: (chunk_turns, tail_turns).",
        )
    got = tuple(int(number(x)) for x in got)
    others = [
        (w, t) for _, _, w, t, _ in runs if not safe_equal(w, window) or not safe_equal(t, task)
    ]
    if others:
        w, t = others[0]
        return Fail(
            f"you ran at a window of {w!r:.20} with "
            + ("the task given" if safe_equal(t, task) else "another task")
            + f", not the {window:,} tokens and the task you were given",
            "use the window and the task the caller passes in: the cheapest settings depend on both.",
        )
    ran = {(c, k): r for c, k, _, _, r in runs}
    if got not in GRID:
        return Fail(
            f"you chose {got}, outside the grid (chunk_turns in {CHUNKS}, tail_turns in {KEEPS})",
            "sweep exactly the grid the task gives, and return one of its pairs.",
        )
    missing = [pair for pair in GRID if pair not in ran]
    if missing:
        return Fail(
            f"you chose {got} without running {missing[0]}"
            + (f" and {len(missing) - 1} more pair(s)" if len(missing) > 1 else ""),
            "run every pair of the grid with the run_with you are given: the cheapest pair depends on the "
            "request and the window, so no pair can be typed in.",
        )
    chosen = ran[got]
    if not finished_on_staging(chosen):
        return Fail(
            f"the run of {got} did not finish with the fix on staging ({how_it_stopped(chosen)}, "
            f"fix on {chosen.database_target})",
            "a cheap run that fails is not cheap: keep only the runs that answered with the fix on staging.",
        )
    kept = {pair: bill_of(r) for pair, r in ran.items() if finished_on_staging(r)}
    if kept[got] == min(kept.values()):
        return None
    cheaper = sum(bill < kept[got] for bill in kept.values())
    what = (
        f"the run of {got} billed {kept[got]:,} input tokens; {cheaper} other pair(s) finished on staging "
        "for less"
    )
    return Fail(what, _COMPARE)


_COMPARE = (
    "compare the bills (your token_bill) of every run that finished on staging, and keep the "
    "smallest."
)

# Ways to pick a pair that are not the rule, and the idea each one misses. Each takes the table of a
# made-up sweep ({pair: (how it ended, fix target, bill, laps)}) and gives the pair it would pick.
_VALID = lambda row: row[0] == "answered" and row[1] == "staging"  # noqa: E731


def _folds(pair, row) -> int:
    """The fold calls of a made-up run: one every chunk_turns + 1 laps (as Recorder makes them)."""
    return row[3] // (pair[0] + 1)


_WRONG_PICKS = [
    (
        lambda t: max((p for p in t if _VALID(t[p])), key=lambda p: t[p][2]),
        "that is the most expensive of them: keep the smallest bill, not the largest.",
    ),
    (
        lambda t: min((p for p in t if _VALID(t[p])), key=lambda p: (_folds(p, t[p]), t[p][2])),
        "fewer, bigger folds are not cheaper by themselves: the turns waiting to be folded ride "
        "on every lap's desk. Compare the bills, not the number of fold calls.",
    ),
    (
        lambda t: min((p for p in t if _VALID(t[p])), key=lambda p: t[p][3]),
        "a run that took no more laps than yours billed less: the fewest laps is not the fewest "
        "tokens, and no pair is the answer for every request. Compare what each run was billed "
        "(token_bill).",
    ),
    (
        lambda t: min(t, key=lambda p: t[p][3]),
        "a cheap run that fails is not cheap: keep only the runs that answered with the fix on "
        "staging; and the fewest laps is not the fewest tokens: compare what each run was billed.",
    ),
]


def _telling_tables(count: int = 6) -> list[dict]:
    """Made-up sweeps on which the right pick and every wrong way of picking land on different pairs."""
    tables, rng = [], random.Random(0)
    while len(tables) < count:
        bills = rng.sample(range(1_000, 90_000, 7), len(GRID))
        table = {
            pair: (
                "answered" if rng.random() < 0.6 else rng.choice(ENDINGS[1:]),
                "staging" if rng.random() < 0.7 else rng.choice(("production", None)),
                bill,
                rng.randint(1, 60),
            )
            for pair, bill in zip(GRID, bills)
        }
        valid = [p for p in table if _VALID(table[p])]
        if len(valid) < 3:
            continue
        picks = [min(valid, key=lambda p: table[p][2])] + [pick(table) for pick, _ in _WRONG_PICKS]
        if len(set(picks)) == len(picks):
            tables.append(table)
    return tables


def _diagnosis(pick_of) -> str:
    """The idea behind a pick that finished on staging but was not the cheapest, from the answer's
    picks on a few sweeps made so that each wrong way of picking lands on its own pair."""
    picks = []
    for table in _telling_tables():
        try:
            got = pick_of(table)
        except Fail:
            continue
        picks.append((table, got))
    if len(picks) > 2 and len({repr(got) for _, got in picks}) == 1:
        return "your pair is the same whatever the runs, so no pair can be typed in: " + _COMPARE
    for pick, hint in _WRONG_PICKS:
        if picks and all(safe_equal(got, pick(table)) for table, got in picks):
            return hint
    return _COMPARE
