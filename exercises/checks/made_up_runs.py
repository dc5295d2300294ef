"""Cases exercise 04's checks make up: event lists to fold, lap records whose bill was chosen before
the laps were made, and whole sweeps of runs that ended in every way a run can end.

Each is a Hypothesis strategy (shrinking towards fewer events, fewer laps, plainer endings) or a
helper that builds records the way the loop leaves them (``harness.laps.Lap`` and ``Run``), so an
answer reads them as it would read a real run's. No agent runs here: the check chose every number.

Left out: prompt caching and output tokens (the exercise's bill is input tokens only).
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import hypothesis.strategies as st

from harness.laps import Lap, Run

from .cases import SEED, STYLE, file_lines, histories, phrase, short, show_laps, show_messages
from .common import random_history

CHUNKS, KEEPS = (1, 2, 3), (0, 1, 2)  # the grid of RunningSummary(chunk_turns, tail_turns) to sweep
GRID = [(c, k) for c in CHUNKS for k in KEEPS]


# ---- task 1: event lists to fold ----------------------------------------------------------------------


def fold_edges(seed: int):
    """(events, chunk_size, summary, the fold that returns '' or 0): the edges first."""
    rng = random.Random(seed)
    yield [], 3, "Goal: an earlier summary.", 0  # nothing new: the summary so far comes back
    yield [], 2, "", 0
    events = random_history(rng, turns=3, chat=False)[1:]
    yield events, len(events), "", 0  # one chunk, exactly
    yield events, len(events) + 5, "Goal: before.", 0  # a chunk bigger than the events
    yield events[:1], 1, "Goal: one event.", 0  # the smallest: one event, one at a time
    yield events[:1], 3, "", 0  # one event, a bigger chunk
    yield events, 1, "Goal: before.", 0  # one event per fold
    for _ in range(8):
        yield (
            random_history(rng, turns=rng.randint(0, 8), chat=False)[1:],
            rng.randint(1, 5),
            rng.choice(["", "Goal: an earlier summary."]),
            0,
        )


@st.composite
def fold_cases(draw):
    """Made-up (events, chunk_size, summary, blank): any events, any chunk, any summary to start from;
    ``blank`` is the fold (counted from 1) that gives back an empty summary, 0 for none."""
    events = draw(histories())[1:]
    chunk = draw(st.integers(1, len(events) + 2))
    start = draw(
        st.one_of(st.just(""), phrase(), st.builds(file_lines, st.integers(1, 30), STYLE, SEED))
    )
    return events, chunk, start, draw(st.integers(0, 3))


def fold_reply(number: int, blank: int) -> str:
    """What the check's fold gives back on its fold ``number``: a marker, or '' on the blank one."""
    return "" if number == blank else f"<summary #{number}>"


def show_fold_case(case) -> list[str]:
    events, chunk, start, blank = case
    return show_messages(events, "events") + [
        f"chunk_size = {chunk}; summary = {short(start, 40)}",
        "fold gives back '<summary #1>', '<summary #2>', ..."
        + (f" but '' on fold {blank}" if blank else ""),
    ]


# ---- task 3: lap records whose bill was chosen first ------------------------------------------


def split_total(rng: random.Random, total: int, parts: int) -> list[int]:
    """``total`` cut into ``parts`` positive whole numbers, in a random way. Example: (rng, 10, 3) -> [2, 5, 3]"""
    cuts = sorted(rng.sample(range(1, total), parts - 1))
    return [b - a for a, b in zip([0] + cuts, cuts + [total])]


def made_up_laps(rng: random.Random, billed: int, raw: int, n: int, first: int = 1) -> list[Lap]:
    """``n`` lap records whose billed input adds up to ``billed`` and raw tokens to ``raw``, chosen first.

    The desk grows, some laps pay for a fold call on top of their desk (so billed input is more than the
    desk sent), every lap has output, and total_input runs on, as in a real run. Numbered from ``first``.
    """
    laps, so_far = [], 0
    for lap_number, (paid, whole) in enumerate(
        zip(split_total(rng, billed, n), sorted(split_total(rng, raw, n))), first
    ):
        fold = rng.randint(1, paid - 1) if paid > 1 and rng.random() < 0.5 else 0
        so_far += paid
        laps.append(
            Lap(
                lap_number,
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


@st.composite
def bill_cases(draw):
    """(laps, billed, raw): made-up lap records (none, one or many, numbered from any lap) whose totals
    were chosen before the laps were made."""
    n = draw(st.integers(0, 30))
    if not n:
        return [], 0, 0
    billed = draw(st.integers(2 * n, 3000 * n))
    raw = draw(st.integers(n, 9000 * n))
    laps = made_up_laps(random.Random(draw(SEED)), billed, raw, n, first=draw(st.integers(1, 60)))
    return laps, billed, raw


def show_bill_case(case) -> list[str]:
    return show_laps(case[0], ("billed_input", "raw_tokens", "total_input"))


# ---- task 4: made-up sweeps ---------------------------------------------------------------------------

# How a run may end (Run.stopped): the first is the only one that finished.
ENDINGS = ("answered", "max_laps", "overflow", "compaction_failed", "model_error")


def made_up_run(stopped: str, target: str | None, bill: int, laps: int, fold_every: int = 3) -> Run:
    """A Run record as the loop leaves one: ``laps`` lap records billed ``bill`` input tokens in all,
    ended as ``stopped``, its SQL (if any) run on ``target``, a fold every ``fold_every`` laps. No
    agent ran: the check chose it all."""
    per_lap = split_total(random.Random(bill), bill, laps) if laps > 1 else [bill]
    records, so_far = [], 0
    for k, paid in enumerate(per_lap, start=1):
        so_far += paid
        fold = int(k % fold_every == 0)
        records.append(
            Lap(
                k,
                paid + 40 * k,
                paid,
                kind="fold" if fold else "none",
                summary_calls=fold,
                billed_input=paid,
                total_input=so_far,
            )
        )
    tools = SimpleNamespace(sql_log=[{"target": target}] if target else [], reads=[])
    return Run(history=[], laps=records, toolbox=tools, stopped=stopped)


@st.composite
def sweep_cases(draw):
    """(window, {pair: (how it ended, fix target, bill, laps)}): a made-up sweep, one run per pair of
    the grid, ending in any state, at least one of them finished on staging."""
    table = {
        pair: (
            draw(st.sampled_from(ENDINGS)),
            draw(st.sampled_from(("staging", "production", None))),
            draw(st.integers(1_000, 90_000)),
            draw(st.integers(1, 60)),
        )
        for pair in GRID
    }
    good = draw(st.sampled_from(GRID))
    table[good] = ("answered", "staging") + table[good][2:]
    return draw(st.sampled_from((2000, 3000, 5000))), table


def show_sweep(case) -> list[str]:
    window, table = case
    lines = [f"window = {window:,}; the run of each pair of the grid:"]
    for (c, k), (stopped, target, bill, laps) in table.items():
        lines.append(
            f"  ({c}, {k}): {stopped}, fix on {target}, {laps} laps, {bill:,} input tokens billed"
        )
    return lines


class Recorder:
    """The ``run_with`` the check hands your function: it answers with the made-up run of each pair,
    and remembers every call (a pair outside the grid gets a run that failed)."""

    def __init__(self, table: dict):
        self.table, self.runs = table, []  # runs: (chunk_turns, tail_turns, window, task, run)

    def __call__(self, chunk_turns, tail_turns, window, task):
        try:
            made = self.table.get((chunk_turns, tail_turns))
        except TypeError:  # an unhashable pair
            made = None
        done = (
            made_up_run(*made, fold_every=chunk_turns + 1)
            if made
            else made_up_run("model_error", None, 1, 1)
        )
        self.runs.append((chunk_turns, tail_turns, window, task, done))
        return done
