"""Checks for exercise 04, the running summary: ``running_summary``, ``token_bill``, ``cheapest_settings``.

``running_summary(events, fold, chunk_size, summary)``: ``chunk_size`` counts EVENTS (messages), and
``fold(summary, chunk) -> text`` is the model call. ``FoldLoop`` runs your loop inside the agent; it
hands you the messages of ``chunk_turns`` whole TURNS at a time (so ``chunk_size`` = 2 x chunk_turns).
``token_bill(laps)`` reads lap records: ``billed_input`` (this lap's input, fold calls included) and
``raw_tokens`` (what sending the whole raw history would have cost this lap).

Left out: output tokens and prompt caching in the bill (``harness.cost`` has both).
"""

from __future__ import annotations

import numbers
import random

from harness.compaction import ThreeZoneCompaction, turn_starts
from harness.context import Assembly, FullHistory, Strategy
from harness.messages import user
from harness.prompts import SUMMARY_HEADER, fold_prompt, render
from harness.running_summary import RunningSummary
from stage.tasks import file_reading_task

from .common import (GOALS, RULES, Fail, call, call_on_copy, how_it_stopped, need_function, once, random_history,
                     run, verdict)

_CHANGED = ("walk the events with slices (events[start:start + chunk_size]); never pop from or clear the list "
            "you were given -- in the loop it is part of the raw history.")


def _fold_cases(seed: int):
    rng = random.Random(seed)
    yield [], 3, "Goal: an earlier summary."        # nothing new: the summary so far comes back
    yield [], 2, ""
    events = random_history(rng, turns=3, chat=False)[1:]
    yield events, len(events), ""                  # one chunk, exactly
    yield events, len(events) + 5, "Goal: before." # a chunk bigger than the events
    for _ in range(25):
        yield random_history(rng, turns=rng.randint(0, 8), chat=False)[1:], rng.randint(1, 5), \
            rng.choice(["", "Goal: an earlier summary."])


def check_running_summary(running_summary, seed: int = 6) -> bool:
    """One living summary: a fold per chunk, each given the previous summary and only the new events."""

    def body():
        need_function(running_summary, "running_summary")
        count = 0
        for events, chunk, start in _fold_cases(seed):
            calls = []

            def fold(summary, new_events, calls=calls):
                calls.append((summary, list(new_events)))
                return f"<summary #{len(calls)}>"

            size = f"{len(events)} events, chunk_size={chunk}"
            got = call_on_copy(f"running_summary(<{size}>)", running_summary, events, fold, chunk, start,
                               changed_hint=_CHANGED,
                               hint="with no events there is nothing to fold: return the summary you were given."
                               if not events else None)
            problem = _fold_problem(events, chunk, start, calls, got, size)
            if problem:
                raise problem
            count += 1
        for window, at in ((5000, None), (4500, 3)):
            run_ = run(FoldLoop(running_summary), window, file_reading_task(rule_at_lap=at))
            later = [lap.assembled_tokens for lap in run_.laps[5:-1]]   # the last lap only answers
            where = f"window {window:,}" + (f", rule said at lap {at}" if at else "")
            if run_.stopped != "answered" or not later:
                raise Fail(f"[{where}] the run did not finish ({how_it_stopped(run_)})",
                           "keep the desk small: the request, the one summary, and the newest turn.")
            if max(later) - min(later) > 1200 or run_.laps[-1].raw_tokens < 2.5 * max(later):
                raise Fail(f"[{where}] the assembled desk went from {min(later):,} to {max(later):,} tokens",
                           "the summary grows with the history: it should stay about the same size while the raw "
                           "history grows.")
            if run_.database_target != "staging":
                raise Fail(f"[{where}] the fix went to {run_.database_target}",
                           "every fold must carry the summary so far, rules included.")
            print(f"[{where}] the raw history ended at {run_.laps[-1].raw_tokens:,} tokens; the desk stayed between "
                  f"{min(later):,} and {max(later):,} after lap 5; fix on {run_.database_target}.")
        return (f"{count} fold sequences (edges included), and 2 runs where the desk stayed flat while the raw "
                "history grew.")

    return verdict("running_summary", body)


def _fold_problem(events, chunk, start, calls, got, size) -> Fail | None:
    chunks = [events[i:i + chunk] for i in range(0, len(events), chunk)]
    outputs = [start] + [f"<summary #{i}>" for i in range(1, len(chunks) + 1)]
    if any(len(new) > chunk for _, new in calls[1:]) or (len(calls) > 1 and calls[1][1][:1] == events[:1]):
        return Fail(f"[{size}] a fold was given events it had already folded",
                    "fold only the NEW chunk: the older events are already inside the summary.")
    if len(calls) != len(chunks):
        return Fail(f"[{size}] fold was called {len(calls)} times, {len(chunks)} expected",
                    "one fold per chunk of chunk_size events (the last chunk may be shorter), not one per event; "
                    "no fold when there are no events.")
    for i, (summary, new) in enumerate(calls):
        if new != chunks[i]:
            return Fail(f"[{size}] fold number {i + 1} got the wrong events",
                        f"fold the events in order, chunk_size at a time: events[{i * chunk}:{(i + 1) * chunk}].")
        if summary != outputs[i]:
            return Fail(f"[{size}] fold number {i + 1} was given {summary!r} as the summary so far",
                        "pass the previous summary in: each fold merges the new events INTO the summary the last "
                        "fold returned (the first fold starts from `summary`).")
    if got != outputs[-1]:
        grown = isinstance(got, str) and outputs[-1] in got and len(got) > len(outputs[-1])
        if got is None:
            hint = "end with `return summary`: the caller needs the summary the last fold gave back."
        elif grown:
            hint = "your summary grows with the history: keep only what the last fold gave back, do not append to it."
        else:
            hint = "return the summary the last fold gave back (or the one you were given, if nothing was folded)."
        return Fail(f"[{size}] you returned {got!r}, the last fold returned {outputs[-1]!r}", hint)
    return None


class FoldLoop(Strategy):
    """Runs ``fn(events, fold, chunk_size, summary)`` inside the loop: your fold loop as a strategy.

    Once ``chunk_turns`` turns have finished beyond the newest ``tail_turns``, their messages go to ``fn``
    with a ``fold(summary, chunk)`` that asks the model to fold ``chunk`` into ``summary``. The desk is
    the request + one summary message + the messages not folded yet.
    """

    name = "your running summary"

    def __init__(self, fn, chunk_turns: int = 2, tail_turns: int = 1, max_words: int = 180):
        self.fn, self.chunk_turns, self.tail_turns, self.max_words = fn, chunk_turns, tail_turns, max_words
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
            self.summary = call(f"running_summary inside the loop at lap {lap}", self.fn, history[self.upto:cut],
                                fold, 2 * self.chunk_turns, self.summary)
            self.upto = cut
        card = [user(SUMMARY_HEADER.format(lap=lap) + "\n" + str(self.summary))] if self.summary else []
        messages = history[:1] + card + history[self.upto:]
        zones = ["head"] + ["summary"] * len(card) + ["tail"] * (len(history) - self.upto)
        return Assembly(messages, zones, "fold" if usage else "none",
                        f"folded {len(usage)} chunk(s)" if usage else "", summary_calls=len(usage),
                        summary_input=sum(u.get("input_tokens", 0) for u in usage),
                        summary_output=sum(u.get("output_tokens", 0) for u in usage),
                        summary=self.summary or None)


# ---- task 3: the bill ---------------------------------------------------------------------------------

_BILL_RUNS = [  # (where, strategy, window, rule_at_lap)
    ("running summary, window 5,000", lambda: RunningSummary(), 5000, None),
    ("three-zone compaction, window 5,000", lambda: ThreeZoneCompaction(), 5000, 3),
    ("running summary in chunks of 3, window 4,000", lambda: RunningSummary(chunk_turns=3), 4000, None),
    ("full history, window 20,000", lambda: FullHistory(), 20000, None),
]


def check_token_bill(token_bill) -> bool:
    """(with, without) = (sum of billed input, sum of the raw history per lap), on four runs and on no laps."""

    def body():
        need_function(token_bill, "token_bill")
        for where, make, window, at in _BILL_RUNS:
            run_ = once(("bill", where), lambda: run(make(), window, file_reading_task(rule_at_lap=at)))
            laps = list(run_.laps)
            want = (sum(lap.billed_input for lap in laps), sum(lap.raw_tokens for lap in laps))
            got = call_on_copy(f"token_bill(laps) [{where}]", token_bill, laps,
                               changed_hint="only read the lap records; do not sort, pop or edit them.")
            if not (isinstance(got, tuple) and len(got) == 2 and all(isinstance(x, numbers.Real) for x in got)):
                raise Fail(f"[{where}] token_bill returned {got!r}",
                           "return a pair of numbers: (with_summary, without_summary).")
            if tuple(got) != want:
                raise Fail(f"[{where}] you said {got}, the lap records say {want}", _bill_hint(got, want, laps))
        got = call_on_copy("token_bill([]) [a request refused before lap 1: no laps]", token_bill, [],
                           changed_hint="only read the lap records.",
                           hint="a run with no laps is a real case (the request was refused at once): it cost "
                                "nothing, so return (0, 0).")
        if got != (0, 0):
            raise Fail(f"token_bill([]) returned {got!r}", "a run with no laps cost nothing: return (0, 0).")
        first = once(("bill", _BILL_RUNS[0][0]), lambda: None).laps
        paid, would = sum(lap.billed_input for lap in first), sum(lap.raw_tokens for lap in first)
        print(f"Running summary at 5,000 tokens: {paid:,} input tokens billed, against {would:,} for sending the "
              f"full history every lap ({paid / would:.0%}).")
        return "right on 4 fresh runs and on a run with no laps."

    return verdict("token_bill", body)


def _bill_hint(got, want, laps) -> str:
    with_summary, without_summary = got
    running_totals = sum(lap.total_input for lap in laps)
    if tuple(got) == want[::-1]:
        return "the pair is the wrong way round: (with_summary, without_summary)."
    if running_totals in (with_summary, without_summary) or laps[-1].total_input == without_summary:
        return "lap.total_input is already a running total: add up the per-lap lap.billed_input instead."
    if with_summary == sum(lap.assembled_tokens for lap in laps):
        return ("the summary calls are billed too: lap.billed_input counts the desk sent AND the input of any "
                "summary or fold call made that lap.")
    if without_summary == laps[-1].raw_tokens:
        return ("without a strategy every lap re-sends the whole raw history, so the bill is the SUM of "
                "lap.raw_tokens over all laps, not the last one.")
    if with_summary != want[0]:
        return "with the summary, the bill is what was really billed: the sum of lap.billed_input."
    return "without the summary, each lap would have sent its whole raw history: sum lap.raw_tokens."


# ---- task 4 (homework): the cheapest settings ---------------------------------------------------------

CHUNKS, KEEPS = (1, 2, 3), (0, 1, 2)
_SWEEP_MAX_LAPS = 60
_SWEEP_CASE = (4500, GOALS[1], RULES[1][0], 2)       # window, request wording, rule, said at lap


def sweep_task(goal: str, rule: str, at: int | None):
    return file_reading_task(rule_at_lap=at, goal=goal, rule=rule)


def _sweep(window, task):
    """{(chunk_turns, tail_turns): (bill, finished on staging)} over the grid, made by the check itself."""
    table = {}
    for chunk in CHUNKS:
        for keep in KEEPS:
            r = run(RunningSummary(chunk_turns=chunk, tail_turns=keep), window, task, max_laps=_SWEEP_MAX_LAPS)
            table[(chunk, keep)] = (sum(lap.billed_input for lap in r.laps),
                                    r.stopped == "answered" and r.database_target == "staging")
    return table


def check_cheapest_settings(cheapest_settings) -> bool:
    """Your sweep on a request it has not seen: the cheapest (chunk_turns, tail_turns) that finishes on staging."""

    def body():
        need_function(cheapest_settings, "cheapest_settings")
        window, goal, rule, at = _SWEEP_CASE
        task = sweep_task(goal, rule, at)
        got = call(f"cheapest_settings({window}, <another wording, the rule said at lap {at}>)", cheapest_settings,
                   window, task)
        table = once(("sweep",) + _SWEEP_CASE, lambda: _sweep(window, task))
        good = {k: bill for k, (bill, ok) in table.items() if ok}
        best = min(good, key=good.get)
        if not (isinstance(got, (tuple, list)) and len(got) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) for x in got)):
            raise Fail(f"cheapest_settings returned {got!r}",
                       "return a pair of whole numbers: (chunk_turns, tail_turns).")
        got = tuple(got)
        print("chunk_turns tail_turns  input billed  finished on staging")
        for (chunk, keep), (bill, ok) in table.items():
            print(f"{chunk:>11} {keep:>10} {bill:>13,}  {'yes' if ok else 'NO'}")
        if got == best:
            return f"{got} is the cheapest that finishes on staging: {good[best]:,} input tokens."
        raise Fail(f"you chose {got}, the cheapest that finishes on staging is {best} "
                   f"({good[best]:,} against {table[got][0]:,} tokens)" if got in table else
                   f"you chose {got}, outside the grid (chunk_turns in {CHUNKS}, tail_turns in {KEEPS})",
                   _settings_hint(got, best, table))

    return verdict("cheapest_settings", body)


def _settings_hint(got, best, table) -> str:
    if got not in table:
        return "sweep exactly the grid the task gives, and return one of its pairs."
    bill, ok = table[got]
    if not ok:
        return ("that run never finished with the fix on staging (it went round in circles or lost the rule): "
                "a cheap run that fails is not cheap. Keep only runs that answered with the fix on staging.")
    if got[0] > best[0]:
        return ("fewer, bigger folds are not cheaper: the turns waiting to be folded ride on every lap's desk. "
                "Compare the bills, not the number of fold calls.")
    if got[1] > best[1]:
        return "every verbatim turn you keep is paid for again on every lap: compare the bills with fewer kept turns."
    return "compare token_bill(run.laps)[0] of every run in the grid, and keep the smallest that finished on staging."
