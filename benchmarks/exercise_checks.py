"""Exercise checks: how long each takes, on a right answer and on a wrong one, in a fresh process.

    .venv/bin/python -m benchmarks.exercise_checks          (instructor's copy: it reads the solutions)

Each check runs in a process of its own, so the time includes everything a student's first run of
that cell pays: the runs of the offline model the check makes once per kernel, Hypothesis warming
up. The right answer is the solution; the wrong one is the first wrong answer of the task in the
corpus (``tests/exercise_answers.py``), so its time includes finding a failing case and shrinking it.
The goal (issue 34): every check under two seconds.

Times are CPU seconds of the check (``time.process_time``), which other work on a shared machine
barely moves, with wall-clock seconds beside them. Imports are not counted: the notebook's setup
cell has made them before any check runs.
Left out: checks run with an API key (they never use it) and answers that are slow on purpose.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = 2.0  # seconds

ONE = r"""
import io, json, sys, time
from contextlib import redirect_stdout
import exercise_answers as A  # the corpus: this process runs in tests/, where it lives
from exercises import checks
A.load_solutions()
task, which = sys.argv[1], sys.argv[2]
pool = A.RIGHT if which == "right" else A.WRONG
answer = next(a for a in pool if a.task == task)
args = tuple(x.value() if isinstance(x, A.Lap) else x for x in answer.answer)
check = getattr(checks, f"check_{task}")
cpu, wall = time.process_time(), time.perf_counter()
with redirect_stdout(io.StringIO()) as out:
    ok = check(*args)
print(json.dumps({"ok": ok, "cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall,
                  "answer": answer.name}))
"""


LIST = r"""
import json
import exercise_answers as A
print(json.dumps(sorted({a.task for a in A.RIGHT})))
"""


def measure(task: str, which: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", ONE, task, which],
        cwd=ROOT / "tests",  # `python -c` puts its folder first on the import path
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    listed = subprocess.run(
        [sys.executable, "-c", LIST],
        cwd=ROOT / "tests",
        capture_output=True,
        text=True,
        check=True,
    )
    tasks = json.loads(listed.stdout.strip().splitlines()[-1])
    print(f"{'check':22} {'right: cpu':>10} {'wall':>6}   {'wrong: cpu':>10} {'wall':>6}  verdicts")
    slow = []
    for task in tasks:
        right, wrong = measure(task, "right"), measure(task, "wrong")
        verdicts = (
            ("PASS" if right["ok"] else "FAIL?") + " / " + ("FAIL" if not wrong["ok"] else "PASS?")
        )
        print(
            f"{task:22} {right['cpu']:>10.2f} {right['wall']:>6.2f}   {wrong['cpu']:>10.2f} "
            f"{wrong['wall']:>6.2f}  {verdicts}"
        )
        slow += [(task, w) for w, r in (("right", right), ("wrong", wrong)) if r["cpu"] > GOAL]
    print(
        "Every check under {:.0f} s of CPU.".format(GOAL)
        if not slow
        else "Over {:.0f} s: {}".format(GOAL, ", ".join(f"{t} ({w})" for t, w in slow))
    )
    return 1 if slow else 0


if __name__ == "__main__":
    raise SystemExit(main())
