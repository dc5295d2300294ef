"""The class's pieces: find the piece a lesson's build cell defined, or fall back to the harness's own.

Each lesson from 02 on has the class write one piece of the agent in a build cell; everything the
lesson then draws comes from a run of that piece. ``class_piece("keep_newest", globals())`` returns it,
after one line that says which piece the runs below use:

* the build cell ran and the piece answers a tiny example -> the class's piece;
* the build cell was skipped, or still raises ``NotImplementedError`` -> the harness's reference piece,
  so the lesson still runs (and says so);
* the piece raises something else on the tiny example -> still the class's piece (a wrong piece must
  show as a wrong picture), with a warning that the runs will stop where it fails.

Left out: checking that a piece is *right*; the lesson's pictures and verdicts are that check.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from harness.compaction import three_zones
from harness.context import FullHistory
from harness.sliding_window import keep_newest
from harness.loop import run_agent
from harness.memory import load_claude_md
from harness.messages import assistant, user
from harness.running_summary import fold


@dataclass(frozen=True)
class Piece:
    """One piece the class writes: its lesson, the harness's own version, and a tiny example call."""

    lesson: str
    reference: Callable
    example: Callable[[Callable], object]  # calls the piece on a tiny input


def _tiny_history() -> list[dict]:
    call = {"type": "tool_use", "id": "t1", "name": "list_files", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "app/auth.py"}
    return [
        user("Find the bug."),
        assistant([call]),
        {"role": "user", "content": [result]},
        assistant([{"type": "text", "text": "Done."}]),
    ]


class _EchoModel:
    """A model that answers at once: enough to see a loop make one lap."""

    name, window = "echo", 10_000

    def reply(self, system, messages, tools, max_tokens=1024):
        from harness.model import Reply

        return Reply([{"type": "text", "text": "Hello."}], "end_turn")


class _NoTools:
    schemas: list = []

    def run(self, call):
        raise AssertionError("the echo model calls no tool")


def _with_memory_file(piece):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "CLAUDE.md"
        path.write_text("- Run the tests with pytest.\n", encoding="utf-8")
        return piece(path)


def bare_loop(request: str, model, tools, laps: int = 40) -> list[dict]:
    """The harness's loop as lesson 01's bare loop returns it: the history, every lap sent whole."""
    return run_agent(request, model, tools=tools, context=FullHistory(), max_laps=laps).history


PIECES = {
    "bare_loop": Piece(
        "01", bare_loop, lambda piece: piece("Say hello.", _EchoModel(), _NoTools(), 1)
    ),
    "keep_newest": Piece(
        "02", keep_newest, lambda piece: piece(_tiny_history(), 10_000, lambda m: 10)
    ),
    "three_zones": Piece("03", three_zones, lambda piece: piece(_tiny_history(), 1)),
    "fold": Piece(
        "04", fold, lambda piece: piece("Goal: find the bug.", _tiny_history()[1:3], lambda p: "ok")
    ),
    "load_claude_md": Piece("05", load_claude_md, _with_memory_file),
}
_said: dict[str, tuple] = {}


def class_piece(name: str, namespace: dict, quiet: bool = False) -> Callable:
    """The piece the class wrote under ``name`` in ``namespace`` (a notebook's ``globals()``), or the reference.

    Prints one line saying which it is (once per piece and state). Example: class_piece("fold", globals())
    """
    piece = PIECES[name]
    mine = namespace.get(name)
    chosen, line = _choose(name, piece, mine)
    state = (id(mine), line)
    if not quiet and _said.get(name) != state:
        print(line)
        _said[name] = state
    return chosen


def _choose(name: str, piece: Piece, mine) -> tuple[Callable, str]:
    reference = f"the harness's own `{name}`"
    if mine is None or mine is piece.reference:
        return (
            piece.reference,
            f"The build cell for `{name}` was not run: the runs below use {reference}.",
        )
    if not callable(mine):
        return piece.reference, (
            f"`{name}` is a {type(mine).__name__}, not a function: the runs below use {reference}."
        )
    try:
        piece.example(mine)
    except NotImplementedError:
        return piece.reference, f"Your `{name}` is not written yet: the runs below use {reference}."
    except Exception as problem:  # noqa: BLE001 -- a wrong piece is the lesson's business, not a crash
        return mine, (
            f"Using your `{name}`, but it failed on a tiny example ({type(problem).__name__}: "
            f"{problem}): the runs below will stop where it fails."
        )
    return mine, f"Using your `{name}`: every run below is drawn from it."
