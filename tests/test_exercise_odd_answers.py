"""No answer, however odd, makes a check raise: every one gets one verdict, a hint, and no traceback.

Each check meets answers a class of thirty writes on a bad day: functions that return None, text,
a dict, messages of the wrong shape, a list that lies about being equal, NaN or an infinite number;
that raise (any kind of error, exit(), a bare BaseException); that change what they were given; that
sleep or loop for ever. And values that are not what the task asks for: empty or blank text, numbers,
lists, bytes, a string of a hundred thousand characters, braces that cannot be filled.

The time limit of one call is made short here (monkeypatched), so the slow answers take a second,
not the class's two.
"""

from __future__ import annotations

import io
import math
import time
from contextlib import redirect_stdout
from decimal import Decimal

import pytest

from exercises import checks
from exercises.checks import common

C = checks
FUNCTION_CHECKS = [
    C.check_tokens_of,
    C.check_smallest_window,
    C.check_sliding_window,
    C.check_first_lap_without,
    C.check_pinned_window,
    C.check_remarks_window,
    C.check_split_zones,
    C.check_compact,
    C.check_running_summary,
    C.check_token_bill,
    C.check_cheapest_settings,
    C.check_promote,
]


class LyingList(list):
    """A list that says it equals anything: a check must not be fooled into a PASS, nor crash."""

    def __eq__(self, other):
        return True

    __hash__ = None


class Exploding(BaseException):
    """Not even an Exception: a check must still turn it into a FAIL."""


def returning(value):
    def answer(*_args, **_kwargs):
        return value

    answer.__name__ = f"returning {type(value).__name__}"
    return answer


def raising(problem):
    def answer(*_args, **_kwargs):
        raise problem

    answer.__name__ = f"raising {type(problem).__name__}"
    return answer


def sleeping(*_args, **_kwargs):
    time.sleep(30)


def spinning(*_args, **_kwargs):
    while True:
        pass


def emptying(first, *_rest, **_kwargs):
    """Clears what it was given (a list of messages, events or laps), then answers nothing useful."""
    if isinstance(first, list):
        first.clear()
    return first


def editing_inside(first, *_rest, **_kwargs):
    """Edits the first message (or lap) in place: the list keeps its length, its content changes."""
    if isinstance(first, list) and first:
        item = first[0]
        if isinstance(item, dict):
            item["content"] = "edited"
        elif hasattr(item, "number"):
            item.number = -1
    return first


ODD_FUNCTIONS = [
    returning(None),
    returning("42"),
    returning({"role": "user", "content": "hi"}),
    returning([{"role": "bot", "content": "hi"}]),
    returning([{"role": "user", "content": [{"type": "image"}]}]),
    returning([{"role": "user", "content": 5}]),
    returning([{"role": "user"}]),
    returning(LyingList([{"role": "user", "content": "hi"}])),
    returning(([], [], [])),
    returning(float("nan")),
    returning(math.inf),
    returning(Decimal("NaN")),
    returning((float("nan"), 1)),
    returning(10**400),
    returning(("a", "b")),
    raising(ValueError("bad value")),
    raising(TypeError("bad type")),
    raising(RecursionError("too deep")),
    raising(Exploding("boom")),
    raising(SystemExit(3)),
    emptying,
    editing_inside,
    sleeping,
    spinning,
]

ODD_VALUES = [
    "",
    "   \n  ",
    0,
    -1,
    10**400,
    float("nan"),
    [],
    {},
    b"bytes",
    "x" * 100_000,
    "{",
    "{transcript}",
    "<transcript>{transcript}</transcript> {unknown}",
    "line\n" * 50,
    "\x00\x00",
]
VALUE_CHECKS = [
    (C.check_compaction_prompt, lambda v: (v,)),
    (C.check_two_rules_prompt, lambda v: (v,)),
    (C.check_memory, lambda v: (v, 80)),
    (C.check_memory, lambda v: ("- Never touch production.", v)),
    (C.check_tight_memory, lambda v: (v,)),
    (C.check_greenhouse_memory, lambda v: (v,)),
    (C.check_overflow_prediction, lambda v: (v,)),
]


@pytest.fixture(autouse=True)
def short_limits(monkeypatch):
    monkeypatch.setattr(common, "PER_CALL", 0.3)
    monkeypatch.setattr(common, "RUN_SECONDS", 1.0)


def judged(check, *answer) -> tuple[bool, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        result = check(*answer)  # a raise here fails the test: that is the point
    return result, out.getvalue()


def assert_one_verdict(result, printed: str) -> None:
    starts = [
        line for line in printed.splitlines() if line.startswith(("✘ FAIL:", "○ Not done yet:"))
    ]
    assert result is False and len(starts) == 1, printed
    assert "✔ PASS" not in printed and "Traceback" not in printed, printed
    assert "could not finish" not in printed, printed
    assert all(len(line) <= 80 for line in printed.splitlines()), printed
    if starts[0].startswith("✘"):
        assert "Hint:" in printed.split("✘ FAIL:", 1)[1], printed


@pytest.mark.parametrize("answer", ODD_FUNCTIONS, ids=lambda a: a.__name__)
@pytest.mark.parametrize("check", FUNCTION_CHECKS, ids=lambda c: c.__name__)
def test_an_odd_function_gets_one_verdict_and_never_a_traceback(check, answer):
    started = time.monotonic()
    assert_one_verdict(*judged(check, answer))
    assert time.monotonic() - started < 5, "the time limit let an answer run on"


@pytest.mark.parametrize("value", ODD_VALUES, ids=lambda v: repr(v)[:20])
@pytest.mark.parametrize("check, args", VALUE_CHECKS, ids=lambda c: getattr(c, "__name__", ""))
def test_an_odd_value_gets_one_verdict_and_never_a_traceback(check, args, value):
    assert_one_verdict(*judged(check, *args(value)))


def test_a_list_that_says_it_equals_anything_does_not_pass():
    """A list subclass whose == is always True would pass any 'out == expected' test: the checks
    take exactly a list of dicts, so it is refused by its shape."""
    ok, printed = judged(C.check_sliding_window, returning(LyingList()))
    assert ok is False and "✘ FAIL:" in printed, printed
