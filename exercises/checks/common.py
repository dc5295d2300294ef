"""What every exercise check shares: verdicts, calling your code safely, runs, fresh histories.

A check runs your function on inputs it makes up (random, but seeded, so the verdict is the same on
every machine), prints one verdict line and returns True or False. It never raises:

* an unfinished stub prints "○ Not done yet";
* an error in your code becomes a FAIL that quotes the error and the line of your code it came from;
* each call gets its own deep copy of the input, and the check compares that copy with the original
  afterwards, so a function that edits what it was given is caught (the loop's raw history is such a list);
  handing the caller's own list back is caught too (a later change to one would change the other);
* each call has a time limit (``PER_CALL`` seconds): an endless loop becomes a FAIL, not a hung cell;
* whatever your code returns is checked for its shape (``number``, ``messages_problem``) before the
  check uses it, so a strange value is a FAIL that says what it was.

Every verdict is printed in lines of at most 80 characters: the verdict, the smallest case your code
fails on (when there is one), and a hint.

How a check knows the right answer: never by running a copy of the solution. It judges by properties
(what must hold of any right answer), by cases it built so that it knows their outcome, and by runs of
the offline model that it makes itself. So nothing in this folder answers a task for you.

The checks always use the offline model, even when ANTHROPIC_API_KEY is set: a verdict must not
depend on which model answered, or on the network.

Left out: grades and scores; a time limit where signals cannot reach (a thread other than the main one,
Windows, or one long step inside a C library such as ``sum(range(10**12))``).
"""

from __future__ import annotations

import contextlib
import copy
import decimal
import json
import math
import numbers
import operator
import random
import re
import signal
import sys
import textwrap
import threading
import time
import traceback
from pathlib import Path

from harness.loop import run_agent
from harness.messages import assistant, user
from harness.prompts import SYSTEM_PROMPT
from harness.tokens import Meter
from harness.tools import WORKSPACE
from stage.offline import OfflineModel
from stage.palette import verdict_line
from stage.switch import describe_model
from stage.tasks import GOAL, RULE, file_reading_task

METER = Meter("tiktoken")  # one meter for every run: its per-message cache keeps the runs fast
_RUNS: dict = {}  # runs that involve no student code, made once per kernel
CHECKS = Path(__file__).resolve().parent
HARNESS = Path(run_agent.__code__.co_filename).resolve().parent

# Other wordings of the standing rule, and the lowercase piece of each that shows it is on the desk.
RULES = [
    (RULE, "never touch production"),
    ("Do not run anything on production; use staging only.", "do not run anything on production"),
    (
        "Production is off-limits: apply database changes to staging only.",
        "production is off-limits",
    ),
]

# Other ways to ask for the same work: a check must not depend on one exact sentence.
GOALS = [
    GOAL,
    "Sign-in fails for people who type their email with upper-case letters. "
    "Find the cause under app/ and migrations/, then apply the pending fix to the database.",
    "Customers with capital letters in their email address cannot log in. "
    "Locate the cause in app/ and migrations/ and apply the pending fix to the database.",
]


def hello() -> None:
    """The setup line every exercise notebook prints first."""
    show(describe_model())
    show("The checks always use the offline model, so every verdict is the same on every machine.")


def show(text: str, indent: str = "") -> None:
    """Print ``text`` in lines of at most 80 characters: each of its lines wrapped on its own, the
    continuation indented two spaces more. Example: show(card, indent="  ")"""
    for line in str(text).splitlines() or [""]:
        print(
            textwrap.fill(
                line,
                WIDTH,
                initial_indent=indent,
                subsequent_indent=indent + "  ",
                break_on_hyphens=False,
                break_long_words=True,
            )
            if line.strip()
            else ""
        )


# ---- verdicts ---------------------------------------------------------------------------------------

WIDTH = 80  # every line a check prints fits the room's screens


class Fail(Exception):
    """A wrong answer: what went wrong, and the idea that fixes it.

    ``case`` (lines) shows the input it went wrong on; the search fills it in with the smallest one.
    """

    def __init__(self, what: str, hint: str, case: list[str] | None = None, slow: bool = False):
        super().__init__(what)
        self.what, self.hint, self.case, self.slow = what, hint, case, slow


class NotDone(Exception):
    """An answer that is still the stub."""


def verdict(name: str, body) -> bool:
    """Run one check body; print exactly one verdict; never raise (Ctrl-C still stops it).

    The verdict starts with a symbol and the word (✔ PASS, ✘ FAIL, ○ Not done yet), in the palette's colour
    and bold when printed in a notebook (stage.palette.verdict_line): colour is never the only signal."""
    try:
        message = body()
    except NotDone as unfinished:
        say(None, str(unfinished))
        return False
    except NotImplementedError:
        say(
            None,
            f"{name} (or a function it calls) still raises NotImplementedError. "
            "Replace that line with your code, then run this cell again.",
        )
        return False
    except Fail as failed:
        say(False, failed.what, case=failed.case, hint=failed.hint)
        return False
    except KeyboardInterrupt:
        raise
    except BaseException as problem:  # an error met outside a call(): in student code, or in ours
        if where(problem):
            say(
                False,
                f"{name} raised {error_line(problem)}{where(problem)}",
                hint="run it by hand on the example in its docstring and read the traceback.",
            )
        else:
            frame = traceback.extract_tb(problem.__traceback__)[-1]
            say(
                False,
                f"the check could not finish: {error_line(problem)} (in {Path(frame.filename).name}, "
                f"line {frame.lineno})",
                hint="that error is in the harness or the checks, not in your answer; tell the "
                "instructor.",
            )
        return False
    say(True, message)
    return True


def say(passed: bool | None, words: str, case: list[str] | None = None, hint: str = "") -> None:
    """Print one verdict in lines of at most WIDTH characters: the verdict, the case, the hint.

    In colour only where a notebook shows it (a log or a terminal gets plain text). Example:
    ✘ FAIL: sliding_window sent 41 tokens, over the budget of 40.
      The smallest case it fails on:
        ...
      Hint: count the notice too.
    """
    colour = type(sys.stdout).__module__.startswith("ipykernel")
    prefix = verdict_line(passed, "", colour=False)  # "✘ FAIL: "
    first, *rest = textwrap.wrap(
        prefix + words, WIDTH, subsequent_indent="  ", break_on_hyphens=False
    ) or [prefix]
    lines = [verdict_line(passed, first[len(prefix) :], colour=colour)] + rest
    if case:
        lines.append("  The smallest case it fails on:")
        lines += [clip("    " + line) for line in case]
    if hint:
        lines += textwrap.wrap(
            "Hint: " + hint,
            WIDTH,
            initial_indent="  ",
            subsequent_indent="  ",
            break_on_hyphens=False,
        )
    print("\n".join(lines))


def clip(line: str, width: int = WIDTH) -> str:
    """A line cut to ``width`` characters, with '…' where it was cut."""
    return line if len(line) <= width else line[: width - 1] + "…"


# ---- calling your code --------------------------------------------------------------------------------

PER_CALL = 2.0  # seconds: one small input never needs more; an endless loop gets stopped here


class TooSlow(BaseException):
    """Raised inside code that ran past its time limit. A BaseException, so `except Exception:` in an
    answer does not swallow it."""


_deadlines: list[float] = []  # the time limits in force, innermost last
_previous_handler: list = []


def _can_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _ring(_signum, _frame):
    raise TooSlow()


def _arm() -> None:
    if _deadlines:
        left = min(_deadlines) - time.monotonic()
        # It rings again every 50 ms: a TooSlow raised where Python must ignore it (in a garbage
        # collector's callback) is not the end of the limit.
        signal.setitimer(signal.ITIMER_REAL, max(left, 0.001), 0.05)
    else:
        signal.setitimer(signal.ITIMER_REAL, 0)


@contextlib.contextmanager
def time_limit(seconds: float):
    """While active, code running longer than ``seconds`` is interrupted by TooSlow (limits nest)."""
    if not _can_alarm():
        yield
        return
    if not _deadlines:
        _previous_handler[:] = [signal.signal(signal.SIGALRM, _ring)]
    _deadlines.append(time.monotonic() + seconds)
    _arm()
    try:
        yield
    finally:
        _deadlines.pop()
        _arm()
        if not _deadlines:
            signal.signal(signal.SIGALRM, _previous_handler.pop())


def call(what: str, fn, *args, hint: str | None = None, seconds: float | None = None, **kwargs):
    """Call student code; an error, an exit or a call past the time limit becomes a FAIL naming the call.

    NotImplementedError passes through (the stub). Ctrl-C still stops the cell. ``seconds``: the time
    limit, PER_CALL unless given.
    """
    seconds = PER_CALL if seconds is None else seconds
    try:
        with time_limit(seconds):
            return fn(*args, **kwargs)
    except (NotImplementedError, Fail, NotDone, KeyboardInterrupt):
        raise
    except TooSlow:
        raise Fail(
            f"{what} was still running after {seconds:g} s",
            "an input this small takes a right answer a few milliseconds: look for a loop whose "
            "condition never changes, or one that starts again from the beginning each time.",
            slow=True,
        ) from None
    except BaseException as problem:  # SystemExit too: exit() in an answer must not end the check
        if hint is None and isinstance(problem, IndexError):
            hint = (
                "your code reaches for an item the list does not have (such as laps[-2] or "
                "messages[1]): the smallest input -- one lap, one message, no events -- is a real "
                "case too."
            )
        raise Fail(
            f"{what} raised {error_line(problem)}{where(problem)}",
            hint or "run it by hand on that input and read the traceback.",
        ) from None


RUN_SECONDS = 4.0  # one run of the agent with your code inside takes well under a second


def timed_run(what: str, make, seconds: float | None = None):
    """``make()`` -- a run of the agent with student code inside -- within ``seconds``, or a FAIL."""
    seconds = RUN_SECONDS if seconds is None else seconds
    try:
        with time_limit(seconds):
            return make()
    except TooSlow:
        raise Fail(
            f"{what} was still running after {seconds:g} s",
            "each call of your code inside the loop should take a few milliseconds: look for a loop "
            "that never ends, or work repeated on every call.",
            slow=True,
        ) from None


def error_line(problem: BaseException) -> str:
    """The last line of the traceback. Example: KeyError('content') -> "KeyError: 'content'" """
    try:
        lines = traceback.format_exception_only(type(problem), problem)
        notes = getattr(problem, "__notes__", None)
        if isinstance(notes, list) and 0 < len(notes) < len(lines):
            lines = lines[: -len(notes)]  # notes added by a library come after the error itself
        return lines[-1].strip()
    except Exception:  # an exception whose str() itself fails
        return type(problem).__name__


def where(problem: BaseException) -> str:
    """' (line 12: `return messages[0]`)' for the deepest frame outside the checks, or ''."""
    tb, frames = problem.__traceback__, []
    while tb is not None:  # only the last frames matter: endless recursion leaves a thousand
        frames = (frames + [(tb.tb_frame, tb.tb_lineno)])[-40:]
        tb = tb.tb_next
    summary = traceback.StackSummary.extract(iter(frames))
    yours = [f for f in summary if _yours(f.filename)]
    if not yours:
        return ""
    frame = yours[-1]
    code = f": `{frame.line.strip()}`" if frame.line else ""
    return f" (line {frame.lineno} of {frame.name}{code})"


def _yours(filename: str) -> bool:
    """True for a frame of the student's code: not the checks, the harness, or an installed library."""
    path = Path(filename).resolve()
    return not (
        path.is_relative_to(CHECKS)
        or path.is_relative_to(HARNESS)
        or "site-packages" in path.parts
        or path.is_relative_to(Path(sys.base_prefix).resolve())
    )


def need_function(fn, name: str) -> None:
    if fn is None:
        raise NotDone(f"{name} is not defined yet.")
    if not callable(fn):
        raise Fail(
            f"{name} is a {type(fn).__name__}, not a function",
            f"keep the `def {name}(...)` line as it is.",
        )


def call_on_copy(
    what: str,
    fn,
    original,
    *rest,
    changed_hint: str,
    hint: str | None = None,
    alias_hint: str | None = None,
):
    """Call ``fn(copy_of_original, *rest)``; FAIL if it changed the copy, or handed that very list back.

    Returns the result. ``alias_hint`` (for functions that return lists) names the fix for returning the
    caller's own list, or a zone that is the caller's own list.
    """
    given = copy.deepcopy(original)
    result = call(what, fn, given, *rest, hint=hint)
    change = what_changed(original, given)
    if change:
        raise Fail(f"{what} changed the list it was given ({change})", changed_hint)
    if (
        alias_hint
        and isinstance(given, list)
        and (
            result is given
            or (isinstance(result, (tuple, list)) and any(part is given for part in result))
        )
    ):
        raise Fail(f"{what} handed back the very list it was given, not a new one", alias_hint)
    return result


def what_changed(original, given) -> str:
    """'' if ``given`` still equals ``original``; else a few words on how it differs."""
    if safe_equal(given, original):
        return ""
    if isinstance(original, list) and isinstance(given, list):
        if len(given) != len(original):
            return f"it held {len(original)} items, afterwards {len(given)}"
        first = next(
            (i for i, (a, b) in enumerate(zip(original, given)) if not safe_equal(a, b)), 0
        )
        return f"item {first} was edited"
    return "it was edited"


def safe_equal(a, b) -> bool:
    """a == b, where a comparison that raises, or answers something other than a bool, is 'not equal'."""
    try:
        return bool(a == b) is True
    except Exception:
        return False


# ---- what your code returned -----------------------------------------------------------------------


def number(x) -> int | float | None:
    """``x`` as a plain int or float, if it is a number a student may return; else None.

    Accepts ints and floats, numpy's numbers, Decimal and Fraction; refuses True/False, text, NaN,
    infinities and absurd sizes. Example: number(numpy.int64(7)) -> 7; number("7") -> None
    """
    if x is None or isinstance(x, (bool, str, bytes)) or type(x).__name__ in ("bool_", "bool"):
        return None
    try:
        if isinstance(x, numbers.Integral):
            value = int(operator.index(x))
        elif isinstance(x, (numbers.Real, decimal.Decimal)) or getattr(x, "shape", None) == ():
            value = float(x)
            if value.is_integer() and isinstance(x, decimal.Decimal):
                value = int(x)
        else:
            return None
    except (TypeError, ValueError, OverflowError, ArithmeticError):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if abs(value) < 1e15 else None  # a count of tokens, not 10**400


def is_number(x) -> bool:
    """A real number a student may return (see ``number``)."""
    return number(x) is not None


def is_whole(x) -> bool:
    """A whole number: 7, numpy's int64(7), Decimal('7') or 7.0 -- not True, not 7.5."""
    value = number(x)
    return value is not None and float(value).is_integer()


def is_messages(out) -> bool:
    """A plain list of well-formed message dicts (see ``messages_problem``)."""
    return messages_problem(out) is None


def messages_problem(out) -> str | None:
    """What keeps ``out`` from being a list of messages the API would take, in a few words; or None.

    Example: [{"role": "user"}] -> "message 0 has no content"
    """
    if type(out) is not list:  # a subclass could answer == with anything it likes
        return f"a {type(out).__name__}, not a list" + (
            " (a list of its own kind)" if isinstance(out, list) else ""
        )
    for i, message in enumerate(out):
        problem = message_problem(message)
        if problem:
            return f"message {i} {problem}"
    return None


def not_messages(out) -> str:
    """How ``out`` falls short of a list of messages, to follow 'returned'. Example: 'a tuple, not a list'"""
    problem = messages_problem(out)
    return f"a list whose {problem}" if type(out) is list else str(problem)


def message_problem(message) -> str | None:
    """What is wrong with one message's shape, or None. Example: {"role": "bot", ...} -> "has the role 'bot'" """
    if type(message) is not dict:
        return f"is a {type(message).__name__}, not a dict"
    if message.get("role") not in ("user", "assistant"):
        return f"has the role {message.get('role')!r}, not 'user' or 'assistant'"
    if "content" not in message:
        return "has no content"
    content = message["content"]
    if isinstance(content, str):
        return None
    if not isinstance(content, list):
        return f"has content of type {type(content).__name__}, not a string or a list of blocks"
    for j, block in enumerate(content):
        problem = _block_problem(block)
        if problem:
            return f"has a block {j} that {problem}"
    return None


def _block_problem(block) -> str | None:
    if not isinstance(block, dict):
        return f"is a {type(block).__name__}, not a dict"
    kind = block.get("type")
    if kind == "text":
        return None if isinstance(block.get("text"), str) else "has no text string"
    if kind == "tool_use":
        if not all(isinstance(block.get(k), str) for k in ("id", "name")):
            return "is a tool_use without an id or a name"
        try:
            json.dumps(block.get("input"), sort_keys=True)
        except (TypeError, ValueError):
            return "is a tool_use whose input is not JSON"
        return (
            None
            if isinstance(block.get("input"), dict)
            else "is a tool_use whose input is not a dict"
        )
    if kind == "tool_result":
        if not isinstance(block.get("tool_use_id"), str):
            return "is a tool_result without a tool_use_id"
        inner = block.get("content", "")
        if isinstance(inner, str) or (
            isinstance(inner, list)
            and all(isinstance(b, dict) and isinstance(b.get("text"), str) for b in inner)
        ):
            return None
        return "is a tool_result whose content is neither text nor text blocks"
    return f"has the type {kind!r}, not text, tool_use or tool_result"


@contextlib.contextmanager
def watching(module_file: str):
    """Record whether any function defined in ``module_file`` runs while the block runs.

    Used to see an answer that only calls the harness's own version of the task: ``with watching(f) as
    seen: ...`` then ``seen`` is a non-empty list if it did.
    """
    seen: list[str] = []
    target = str(Path(module_file).resolve())
    earlier = sys.getprofile()

    def spy(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == target and not seen:
            seen.append(frame.f_code.co_name)

    sys.setprofile(spy)
    try:
        yield seen
    finally:
        sys.setprofile(earlier)


# ---- telling a copy from your own words ------------------------------------------------------------


def word_bag(text: str) -> list[str]:
    """The lowercase words of a text, in order. Example: 'Never touch `prod`!' -> ['never', 'touch', 'prod']"""
    return re.findall(r"[a-z0-9]+", text.lower())


def overlap(mine: list[str], theirs: list[str]) -> float:
    """How much two word lists share, whatever the order: 1.0 for the same words shuffled, 0.0 for none."""
    if not mine or not theirs:
        return 0.0
    left = list(theirs)
    shared = 0
    for word in mine:
        if word in left:
            left.remove(word)
            shared += 1
    return shared / max(len(mine), len(theirs))


def covered(mine: list[str], theirs: list[str]) -> float:
    """How much of ``theirs`` is in ``mine``, whatever the order and whatever else ``mine`` holds: 1.0 for
    the original with words added (padding, or two lines joined into one), 0.0 for none of it."""
    if not theirs:
        return 0.0
    left, shared = list(mine), 0
    for word in theirs:
        if word in left:
            left.remove(word)
            shared += 1
    return shared / len(theirs)


COPIED = 0.8  # a line sharing 80% of its words with a line of the original is a copy
COPIED_MIN_WORDS = 5  # shorter lines ("Staging only.") may be the same by chance


def copied_lines(text: str, original_lines: list[list[str]]) -> list[str]:
    """The lines of ``text`` that are a line of the original (given as word lists), perhaps reshuffled,
    padded with words of their own, or joined with another line."""
    found = []
    for line in text.splitlines():
        words = word_bag(line)
        if len(words) >= COPIED_MIN_WORDS and any(
            overlap(words, theirs) >= COPIED
            or (len(theirs) >= COPIED_MIN_WORDS and covered(words, theirs) >= COPIED)
            for theirs in original_lines
        ):
            found.append(line.strip())
    return found


# ---- runs ---------------------------------------------------------------------------------------------


def model(window: int) -> OfflineModel:
    return OfflineModel(window=window, meter=METER)


def run(
    context, window: int, task=None, system: str = SYSTEM_PROMPT, on_lap=None, max_laps: int = 80
):
    task = task or file_reading_task()
    return run_agent(
        task.request,
        model(window),
        context=context,
        remarks=task.remarks,
        system=system,
        max_laps=max_laps,
        on_lap=on_lap,
    )


def once(key, make):
    """A run that involves no student code is made once, then reused (the model is deterministic)."""
    if key not in _RUNS:
        _RUNS[key] = make()
    return _RUNS[key]


def how_it_stopped(run_) -> str:
    """'it overflowed: ...' / 'it used all 80 laps without finishing' -- never an empty pair of brackets."""
    if run_.stopped == "max_laps":
        return f"it used all {len(run_.laps)} laps without finishing"
    return f"it stopped with {run_.stopped}" + (f": {run_.problem}" if run_.problem else "")


def holder_of(history: list[dict], task) -> dict:
    """The message of a run's history that carries the task's rule: the request, or the remark's message.

    Found by the structure the loop gives it (a text block that IS the remark), not by searching text.
    """
    if not task.remarks:
        return history[0]
    remark = {"type": "text", "text": next(iter(task.remarks.values()))}
    return next(
        m
        for m in history
        if m["role"] == "user" and isinstance(m["content"], list) and remark in m["content"]
    )


# ---- fresh scenarios --------------------------------------------------------------------------------

VOCAB = (
    "desk window token summary request rule staging file read note lap tool result cache "
    "invoice email login billing report export migration pending schema index"
).split()
# Words whose characters take more than one byte each in UTF-8.
WIDE_WORDS = "café naïve Zürich façade déjà-vu smörgåsbord 東京 データ 🙂 ½ €".split()


def words(rng: random.Random, n: int, wide: float = 0.0) -> str:
    """``n`` words from the vocabulary; a fraction ``wide`` of them non-ASCII."""
    return " ".join(
        rng.choice(WIDE_WORDS) if rng.random() < wide else rng.choice(VOCAB) for _ in range(n)
    )


def text_block(text: str) -> dict:
    return {"type": "text", "text": text}


def random_history(
    rng: random.Random,
    turns: int | None = None,
    chat: bool = True,
    wide: float = 0.0,
    big_inputs: bool = False,
) -> list[dict]:
    """A made-up agent history: a request, then turns of (assistant with tool calls, user with results).

    Some results carry a remark from the user ("By the way: ..."); with ``chat`` a few turns are a plain
    exchange. ``wide`` mixes in non-ASCII words; ``big_inputs`` adds write_file calls whose input holds
    a whole file. Sizes vary a lot, like real file reads.
    """
    messages = [user("Please " + words(rng, rng.randint(5, 40), wide) + ".")]
    ids = iter(range(1, 10_000))
    for t in range(rng.randint(0, 14) if turns is None else turns):
        if chat and t and rng.random() < 0.1:
            messages.append(
                assistant([text_block("A question: " + words(rng, rng.randint(3, 20), wide))])
            )
            messages.append(user("Answer: " + words(rng, rng.randint(3, 20), wide)))
            continue
        calls = []
        for _ in range(rng.choice((1, 1, 1, 2))):
            if big_inputs and rng.random() < 0.4:
                body = "\n".join(
                    words(rng, rng.randint(3, 12), wide) for _ in range(rng.randint(10, 60))
                )
                tool_input = {"path": f"app/{rng.choice(VOCAB)}.py", "content": body}
                name = "write_file"
            else:
                tool_input, name = {"path": f"app/{rng.choice(VOCAB)}.py"}, "read_file"
            calls.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{next(ids):04d}",
                    "name": name,
                    "input": tool_input,
                }
            )
        messages.append(
            assistant([text_block("Note: " + words(rng, rng.randint(0, 30), wide))] + calls)
        )
        results = []
        for call_ in calls:
            lines = [
                f"{i:>4}  {words(rng, rng.randint(1, 9), wide)}"
                for i in range(1, rng.randint(2, 60))
            ]
            content = "\n".join(lines) if rng.random() < 0.8 else [text_block("\n".join(lines))]
            results.append({"type": "tool_result", "tool_use_id": call_["id"], "content": content})
        if rng.random() < 0.15:
            results.append(text_block("By the way: " + words(rng, rng.randint(3, 15), wide)))
        messages.append({"role": "user", "content": results})
    if rng.random() < 0.3:
        messages.append(assistant([text_block("Done. " + words(rng, rng.randint(3, 20), wide))]))
    return messages


def worked_history() -> list[dict]:
    """The small history the notebooks show: a request and three read_file turns (seven messages)."""
    messages = [user("Find why the export skips its first row. Never touch production.")]
    for n, path in enumerate(("app/db.py", "app/api/reports.py", "tests/test_db.py"), start=1):
        call_ = {
            "type": "tool_use",
            "id": f"toolu_{n:04d}",
            "name": "read_file",
            "input": {"path": path},
        }
        messages.append(assistant([text_block(f"Reading {path}."), call_]))
        result = {
            "type": "tool_result",
            "tool_use_id": call_["id"],
            "content": (WORKSPACE / path).read_text(encoding="utf-8"),
        }
        messages.append({"role": "user", "content": [result]})
    return messages
