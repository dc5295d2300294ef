"""The class's agent: the piece each lesson's build cell writes, kept in one file the later lessons use.

Lesson by lesson the class writes one piece of one agent (``notebooks/lessons.toml`` says which): 01 the
loop, 02 the window, 03 the split, 04 the fold, 05 the memory loader. A build cell ends with
``keep(piece)``, which writes the piece into the class's **agent file**, ``my_agent.py`` beside the
lessons (or the file the environment variable ``CONTEXT_DESK_AGENT`` names), replacing its earlier
version there. The later lessons take their pieces from that file, so the agent survives a kernel
restart, a skipped lesson and the night: a wrong piece kept at 7:20 shows at 8:40.

``class_piece("fold", globals())`` returns the piece the runs below use, after one line saying which:

* defined in this notebook (its build cell ran) -> that one;
* else kept in the agent file -> that one;
* else (skipped, never kept) -> the harness's own reference piece, so the lesson still runs;
* still a stub (raises ``NotImplementedError`` on a tiny example) -> the harness's own, too;
* raises anything else on the tiny example -> still the class's (a wrong piece must show as a wrong
  picture), with a warning that the runs will stop where it fails.

Left out: checking that a piece is *right*; the lessons' pictures and verdicts are that check.
"""

from __future__ import annotations

import inspect
import os
import re
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from harness.compaction import three_zones
from harness.loop import bare_loop
from harness.memory import load_claude_md
from harness.messages import assistant, user
from harness.running_summary import fold
from harness.sliding_window import keep_newest
from stage.palette import wrap_printed
from stage.registry import lesson_of_piece

AGENT_FILE_VARIABLE = "CONTEXT_DESK_AGENT"


@dataclass(frozen=True)
class Piece:
    """One piece the class writes: the harness's own version, and a tiny example call."""

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


PIECES = {
    "bare_loop": Piece(bare_loop, lambda piece: piece("Say hello.", _EchoModel(), _NoTools(), 1)),
    "keep_newest": Piece(keep_newest, lambda piece: piece(_tiny_history(), 10_000, lambda m: 10)),
    "three_zones": Piece(three_zones, lambda piece: piece(_tiny_history(), 1)),
    "fold": Piece(
        fold, lambda piece: piece("Goal: find the bug.", _tiny_history()[1:3], lambda p: "ok")
    ),
    "load_claude_md": Piece(load_claude_md, _with_memory_file),
}


# ---- the agent file ------------------------------------------------------------------------------------

HEADER = '''"""The class's agent: the pieces written in the lessons' build cells, one block each.

Written by keep() in stage/pieces.py: running a build cell again replaces its block. Edit a block and
the next lesson uses your edit; delete it (or this file) and the lessons use the harness's own piece.
"""

from pathlib import Path

from harness.loop import send_everything
from harness.memory import MEMORY_HEADER
from harness.messages import assistant, safe_cuts, tool_uses, turn_starts, user
from harness.prompts import SYSTEM_PROMPT, render
'''
BLOCK = re.compile(
    r"^# ==== (\w+) \(lesson (\d+)\) ====\n(.*?)^# ==== end of \1 ====\n", re.M | re.S
)


def agent_file() -> Path:
    """Where the class's agent is kept: $CONTEXT_DESK_AGENT, or my_agent.py beside the running lesson."""
    return Path(os.environ.get(AGENT_FILE_VARIABLE) or Path.cwd() / "my_agent.py")


def kept_sources(path: Path | None = None) -> dict[str, str]:
    """{piece name: its source} of every block in the agent file (none if there is no file)."""
    path = path or agent_file()
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    return {name: source for name, _, source in BLOCK.findall(text)}


def keep(piece: Callable, quiet: bool = False) -> bool:
    """Write ``piece`` into the class's agent file, in place of its earlier version. Returns whether it did.

    A stub (still raising NotImplementedError) is not kept: the file keeps what it had.
    Example: keep(keep_newest) -> the block "keep_newest (lesson 02)" of my_agent.py holds its source
    """
    name = getattr(piece, "__name__", "")
    if name not in PIECES:
        raise ValueError(
            f"keep() takes one of the class's pieces ({', '.join(PIECES)}), not {name!r}."
        )
    try:
        source = textwrap.dedent(inspect.getsource(piece))
    except (OSError, TypeError):
        _say(quiet, f"Could not read the source of `{name}`: not kept.")
        return False
    try:
        PIECES[name].example(piece)
    except NotImplementedError:
        _say(quiet, f"`{name}` is not written yet: nothing kept.")
        return False
    except Exception:  # noqa: BLE001 -- a wrong piece is kept too: it must show in the later lessons
        pass
    path = agent_file()
    sources = kept_sources(path)
    sources[name] = source.rstrip() + "\n"
    order = [n for n in PIECES if n in sources]
    blocks = [
        f"# ==== {n} (lesson {lesson_of_piece(n) or '??'}) ====\n{sources[n]}# ==== end of {n} ====\n"
        for n in order
    ]
    path.write_text(HEADER + "\n\n" + "\n\n".join(blocks), encoding="utf-8")
    _say(quiet, f"Kept your `{name}` in {path.name}: the lessons after this one use it.")
    return True


def _load_kept(name: str) -> Callable | None:
    """The piece ``name`` from the agent file, run in a namespace of the file's imports; None if absent."""
    source = kept_sources().get(name)
    if source is None:
        return None
    space: dict = {}
    exec(compile(HEADER + "\n" + source, str(agent_file()), "exec"), space)  # noqa: S102
    found = space.get(name)
    return found if callable(found) else None


# ---- which piece the runs use --------------------------------------------------------------------------

_said: dict[str, tuple] = {}


def class_piece(name: str, namespace: dict | None = None, quiet: bool = False) -> Callable:
    """The class's ``name``: from ``namespace`` (a notebook's ``globals()``), else the agent file, else
    the harness's own. Prints one line saying which (once per piece and state).

    Example: class_piece("fold", globals()) -> your fold, after "Using your `fold` (this notebook)."
    """
    piece = PIECES[name]
    chosen, line, key = _choose(name, piece, (namespace or {}).get(name))
    if not quiet and _said.get(name) != (key, line):
        print(wrap_printed(line))
        _said[name] = (key, line)
    return chosen


def _choose(name: str, piece: Piece, mine) -> tuple[Callable, str, object]:
    lesson = lesson_of_piece(name)
    where = "this notebook"
    if mine is None or mine is piece.reference:
        try:
            mine, where = _load_kept(name), agent_file().name
        except Exception as problem:  # noqa: BLE001 -- a broken file falls back, and says why
            return (
                piece.reference,
                (
                    f"`{name}` in {agent_file().name} does not load ({type(problem).__name__}): "
                    "the harness's own is used."
                ),
                None,
            )
        if mine is None:
            return (
                piece.reference,
                (f"No `{name}` of yours (lesson {lesson}): the harness's own is used."),
                None,
            )
    if not callable(mine):
        return (
            piece.reference,
            (f"`{name}` is a {type(mine).__name__}, not a function: the harness's own is used."),
            None,
        )
    try:
        piece.example(mine)
    except NotImplementedError:
        return (
            piece.reference,
            f"Your `{name}` is not written yet: the harness's own is used.",
            None,
        )
    except Exception as problem:  # noqa: BLE001 -- a wrong piece is the lesson's business, not a crash
        return (
            mine,
            (
                f"Using your `{name}` ({where}); on a tiny example it raised "
                f"{type(problem).__name__}: the runs stop where it fails."
            ),
            _identity(mine),
        )
    return mine, f"Using your `{name}` ({where}).", _identity(mine)


def _identity(piece: Callable) -> object:
    """What tells two versions of a piece apart: its code (a re-run cell or a re-loaded file is new)."""
    code = getattr(piece, "__code__", None)
    return (code.co_code, code.co_consts, code.co_names) if code is not None else id(piece)


def _say(quiet: bool, line: str) -> None:
    if not quiet:
        print(line)
