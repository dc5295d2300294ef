"""What every exercise check shares: verdicts, calling your code safely, runs, fresh histories.

A check runs your function on inputs it makes up (random, but seeded, so the verdict is the same on
every machine), prints one verdict line and returns True or False. It never raises:

* an unfinished stub prints "Not done yet";
* an error in your code becomes a FAIL that quotes the error and the line of your code it came from;
* each call gets its own deep copy of the input, and the check compares that copy with the original
  afterwards, so a function that edits what it was given is caught (the loop's raw history is such a list).

The checks always use the offline desk model, even when ANTHROPIC_API_KEY is set: a verdict must not
depend on which model answered, or on the network.

Left out: timeouts (a function that never returns hangs its cell), grades and scores.
"""

from __future__ import annotations

import copy
import random
import sys
import traceback
from pathlib import Path

from harness.loop import run_agent
from harness.messages import assistant, text_of, user
from harness.prompts import SYSTEM_PROMPT
from harness.tokens import Meter
from harness.tools import WORKSPACE
from stage.offline import DeskModel
from stage.switch import describe_model
from stage.tasks import GOAL, RULE, file_reading_task

METER = Meter("tiktoken")      # one meter for every run: its per-message cache keeps the runs fast
_RUNS: dict = {}               # runs that involve no student code, made once per kernel
CHECKS = Path(__file__).resolve().parent
HARNESS = Path(run_agent.__code__.co_filename).resolve().parent

# Other wordings of the standing rule, and the lowercase piece of each that shows it is on the desk.
RULES = [
    (RULE, "never touch production"),
    ("Do not run anything on production; use staging only.", "do not run anything on production"),
    ("Production is off-limits: apply database changes to staging only.", "production is off-limits"),
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
    print(describe_model())
    print("The checks always use the offline desk model, so every verdict is the same on every machine.")


# ---- verdicts ---------------------------------------------------------------------------------------

class Fail(Exception):
    """A wrong answer: what went wrong, and the idea that fixes it."""

    def __init__(self, what: str, hint: str):
        super().__init__(what)
        self.what, self.hint = what, hint


class NotDone(Exception):
    """An answer that is still the stub."""


def verdict(name: str, body) -> bool:
    """Run one check body; print exactly one verdict line; never raise."""
    try:
        message = body()
    except NotDone as unfinished:
        print(f"Not done yet: {unfinished}")
        return False
    except NotImplementedError:
        print(f"Not done yet: {name} (or a function it calls) still raises NotImplementedError. "
              "Replace that line with your code, then run this cell again.")
        return False
    except Fail as failed:
        print(f"FAIL: {failed.what} — Hint: {failed.hint}")
        return False
    except Exception as problem:            # an error met outside a call(): in student code, or in ours
        if where(problem):
            print(f"FAIL: {name} raised {error_line(problem)}{where(problem)} — Hint: run it by hand on the "
                  "example in its docstring and read the traceback.")
        else:
            frame = traceback.extract_tb(problem.__traceback__)[-1]
            print(f"FAIL: the check could not finish: {error_line(problem)} (in {Path(frame.filename).name}, line "
                  f"{frame.lineno}) — Hint: that error is in the harness or the checks, not in your answer; "
                  "tell the instructor.")
        return False
    print(f"PASS: {message}")
    return True


def call(what: str, fn, *args, hint: str | None = None, **kwargs):
    """Call student code; an error becomes a FAIL naming the call (NotImplementedError passes through)."""
    try:
        return fn(*args, **kwargs)
    except (NotImplementedError, Fail, NotDone):
        raise
    except Exception as problem:
        raise Fail(f"{what} raised {error_line(problem)}{where(problem)}",
                   hint or "run it by hand on that input and read the traceback.") from None


def error_line(problem: BaseException) -> str:
    """The last line of the traceback. Example: KeyError('content') -> "KeyError: 'content'" """
    return traceback.format_exception_only(type(problem), problem)[-1].strip()


def where(problem: BaseException) -> str:
    """' (line 12: `return messages[0]`)' for the deepest frame outside the checks, or ''."""
    frames = [f for f in traceback.extract_tb(problem.__traceback__) if _yours(f.filename)]
    if not frames:
        return ""
    frame = frames[-1]
    code = f": `{frame.line.strip()}`" if frame.line else ""
    return f" (line {frame.lineno} of {frame.name}{code})"


def _yours(filename: str) -> bool:
    """True for a frame of the student's code: not the checks, the harness, or an installed library."""
    path = Path(filename).resolve()
    return not (path.is_relative_to(CHECKS) or path.is_relative_to(HARNESS) or "site-packages" in path.parts
                or path.is_relative_to(Path(sys.base_prefix).resolve()))


def need_function(fn, name: str) -> None:
    if fn is None:
        raise NotDone(f"{name} is not defined yet.")
    if not callable(fn):
        raise Fail(f"{name} is a {type(fn).__name__}, not a function", f"keep the `def {name}(...)` line as it is.")


def call_on_copy(what: str, fn, original, *rest, changed_hint: str, hint: str | None = None):
    """Call ``fn(copy_of_original, *rest)``; FAIL if it changed the copy it was given. Returns the result."""
    given = copy.deepcopy(original)
    result = call(what, fn, given, *rest, hint=hint)
    change = what_changed(original, given)
    if change:
        raise Fail(f"{what} changed the list it was given ({change})", changed_hint)
    return result


def what_changed(original, given) -> str:
    """'' if ``given`` still equals ``original``; else a few words on how it differs."""
    if given == original:
        return ""
    if isinstance(original, list) and isinstance(given, list):
        if len(given) != len(original):
            return f"it held {len(original)} items, afterwards {len(given)}"
        first = next(i for i, (a, b) in enumerate(zip(original, given)) if a != b)
        return f"item {first} was edited"
    return "it was edited"


# ---- runs ---------------------------------------------------------------------------------------------

def model(window: int) -> DeskModel:
    return DeskModel(window=window, meter=METER)


def run(context, window: int, task=None, system: str = SYSTEM_PROMPT, on_lap=None, max_laps: int = 80):
    task = task or file_reading_task()
    return run_agent(task.request, model(window), context=context, remarks=task.remarks, system=system,
                     max_laps=max_laps, on_lap=on_lap)


def once(key, make):
    """A run that involves no student code is made once, then reused (the model is deterministic)."""
    if key not in _RUNS:
        _RUNS[key] = make()
    return _RUNS[key]


def on_desk(lap, text: str) -> bool:
    return any(text.lower() in text_of(m).lower() for m in lap.sent)


def how_it_stopped(run_) -> str:
    """'it overflowed: ...' / 'it used all 80 laps without finishing' -- never an empty pair of brackets."""
    if run_.stopped == "max_laps":
        return f"it used all {len(run_.laps)} laps without finishing"
    return f"it stopped with {run_.stopped}" + (f": {run_.problem}" if run_.problem else "")


# ---- fresh scenarios --------------------------------------------------------------------------------

VOCAB = ("desk window token summary request rule staging file read note lap tool result cache "
         "invoice email login billing report export migration pending schema index").split()
# Words whose characters take more than one byte each in UTF-8.
WIDE_WORDS = "café naïve Zürich façade déjà-vu smörgåsbord 東京 データ 🙂 ½ €".split()


def words(rng: random.Random, n: int, wide: float = 0.0) -> str:
    """``n`` words from the vocabulary; a fraction ``wide`` of them non-ASCII."""
    return " ".join(rng.choice(WIDE_WORDS) if rng.random() < wide else rng.choice(VOCAB) for _ in range(n))


def text_block(text: str) -> dict:
    return {"type": "text", "text": text}


def random_history(rng: random.Random, turns: int | None = None, chat: bool = True, wide: float = 0.0,
                   big_inputs: bool = False) -> list[dict]:
    """A made-up agent history: a request, then turns of (assistant with tool calls, user with results).

    Some results carry a remark from the user ("By the way: ..."); with ``chat`` a few turns are a plain
    exchange. ``wide`` mixes in non-ASCII words; ``big_inputs`` adds write_file calls whose input holds
    a whole file. Sizes vary a lot, like real file reads.
    """
    messages = [user("Please " + words(rng, rng.randint(5, 40), wide) + ".")]
    ids = iter(range(1, 10_000))
    for t in range(rng.randint(0, 14) if turns is None else turns):
        if chat and t and rng.random() < 0.1:
            messages.append(assistant([text_block("A question: " + words(rng, rng.randint(3, 20), wide))]))
            messages.append(user("Answer: " + words(rng, rng.randint(3, 20), wide)))
            continue
        calls = []
        for _ in range(rng.choice((1, 1, 1, 2))):
            if big_inputs and rng.random() < 0.4:
                body = "\n".join(words(rng, rng.randint(3, 12), wide) for _ in range(rng.randint(10, 60)))
                tool_input = {"path": f"app/{rng.choice(VOCAB)}.py", "content": body}
                name = "write_file"
            else:
                tool_input, name = {"path": f"app/{rng.choice(VOCAB)}.py"}, "read_file"
            calls.append({"type": "tool_use", "id": f"toolu_{next(ids):04d}", "name": name, "input": tool_input})
        messages.append(assistant([text_block("Note: " + words(rng, rng.randint(0, 30), wide))] + calls))
        results = []
        for call_ in calls:
            lines = [f"{i:>4}  {words(rng, rng.randint(1, 9), wide)}" for i in range(1, rng.randint(2, 60))]
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
        call_ = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": "read_file", "input": {"path": path}}
        messages.append(assistant([text_block(f"Reading {path}."), call_]))
        result = {"type": "tool_result", "tool_use_id": call_["id"],
                  "content": (WORKSPACE / path).read_text(encoding="utf-8")}
        messages.append({"role": "user", "content": [result]})
    return messages
