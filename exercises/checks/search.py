"""Trying a property on many made-up cases, and keeping the smallest case it fails on.

A check states what must hold of any right answer -- a property -- as a function ``prop(case)`` that
raises ``Fail`` when your answer breaks it on that case. ``hunt`` hands it first the cases the check
wrote by hand (the edges: nothing, one item, exact fits), then cases Hypothesis makes up from a
strategy; when one fails, Hypothesis shrinks it (fewer messages, shorter text, smaller numbers) while
it still fails, and the smallest failing case is what the FAIL shows.

Every run is seeded (``seed``), so a class sees the same verdict on every laptop and on every rerun:
what keeps a check short is the number of made-up cases, not the clock. The clock is only a safety
net, for an answer that is itself very slow (or sleeps): past a budget of processor seconds -- which a
busy machine barely moves -- or of wall-clock seconds, no new case is tried, and shrinking a failure
stops after a few seconds more. An answer of ordinary speed never meets either limit, so it meets the
same cases, and gets the same verdict and the same smallest case, everywhere.

Left out: Hypothesis's example database, and the numbers and words it gathers from the modules loaded
beside it (its "local constants"): with them, the cases would depend on what else a student has
imported, and Hypothesis would keep a cache of them in a .hypothesis folder next to the notebook.
Nothing is written there. Also left out: its health checks (they judge test suites, not answers).
"""

from __future__ import annotations

import contextlib
import time
import warnings
from random import Random

from hypothesis import HealthCheck, Phase, Verbosity, find, settings
from hypothesis.errors import NoSuchExample
from hypothesis.internal.conjecture import providers as _providers
from hypothesis.internal.constants_ast import Constants

from .common import Fail, NotDone

# Made-up cases per check, unless a check says otherwise; the processor seconds it may spend on
# them, and the wall-clock seconds (an answer that sleeps uses no processor time).
EXAMPLES = 100
SECONDS = 6.0
WALL_SECONDS = 10.0
SHRINK_SECONDS = 3.0  # once a case fails, shrinking it may take this much more, no longer


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,  # the time limits are ours: per call (common.call) and per hunt (below)
        database=None,  # no .hypothesis folder beside the student's notebook
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
        print_blob=False,
    )


@contextlib.contextmanager
def _only_its_own_constants():
    """While a check searches, Hypothesis mixes in no constants from the modules loaded around it.

    (A private corner of Hypothesis, pinned in requirements.lock; if it moves, this does nothing.)
    """
    real = getattr(_providers, "_get_local_constants", None)
    cache = getattr(getattr(_providers, "CONSTANTS_CACHE", None), "cache", None)
    if real is None or cache is None:
        yield
        return
    _providers._get_local_constants = Constants
    cache.clear()  # what was gathered before, with the modules' constants
    try:
        yield
    finally:
        _providers._get_local_constants = real
        cache.clear()


def hunt(
    strategy, prop, show, *, seed: int, explicit=(), examples=EXAMPLES, seconds=SECONDS
) -> int:
    """Run ``prop`` on the ``explicit`` cases, then on made-up ones; raise the first failure (of the
    made-up ones, the smallest). The explicit cases are the edges written by hand, each made to
    catch one mistake and name it: they go first.

    ``show(case)`` gives the lines that describe a case (the FAIL prints them). Returns how many
    cases were tried when none failed. A stub (NotImplementedError, NotDone) stops everything at once,
    and so does a call that ran past its time limit (shrinking would only wait for it again).
    """
    tried = 0
    for case in explicit:
        _try(prop, case, show)
        tried += 1
    failures: list[tuple[object, Fail]] = []
    stop: list[BaseException] = []
    ends, wall_ends = time.process_time() + seconds, time.monotonic() + WALL_SECONDS

    def fails(case) -> bool:
        nonlocal tried, ends
        if stop:
            return True  # let Hypothesis finish quickly; the stub is reported below
        if time.process_time() > ends or time.monotonic() > wall_ends:
            return False  # out of time: no new case is tried
        tried += 1
        try:
            prop(case)
        except Fail as failed:
            if failed.slow:  # a call past its time limit: no smaller case makes it quicker
                failed.case = show(case)
                stop.append(failed)
            elif not failures:
                ends = min(ends, time.process_time() + SHRINK_SECONDS)
            failures.append((case, failed))
            return True
        except (NotImplementedError, NotDone) as unfinished:
            stop.append(unfinished)
            return True
        return False

    with warnings.catch_warnings(), _only_its_own_constants():
        warnings.simplefilter("ignore")
        try:
            find(strategy, fails, settings=_settings(examples), random=Random(seed))
        except NoSuchExample:
            pass  # no case failed: the usual ending for a right answer
        except (Fail, NotDone, NotImplementedError, KeyboardInterrupt):
            raise
        except Exception as problem:
            # Hypothesis ends with an error of its own when an answer fails once and not the next
            # time (randomness, state kept between calls); the failure recorded below still stands.
            if not failures and not stop:
                raise problem from None
    if stop:
        raise stop[0]
    if failures:
        # Once a case fails, Hypothesis only tries smaller ones: the last failure is the smallest.
        case, failed = failures[-1]
        failed.case = show(case)
        raise failed
    return tried


def _try(prop, case, show) -> None:
    try:
        prop(case)
    except Fail as failed:
        if failed.case is None:
            failed.case = show(case)
        raise
