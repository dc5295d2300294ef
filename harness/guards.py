"""Guards around the pieces the class writes: a mistake in one stops the run cleanly, saying why.

From lesson 02 on, the class writes one piece of the agent a lesson (``keep_newest``,
``three_zones``, ``fold``...) and plugs it into a strategy. A piece written in ten minutes will
sometimes raise, or hand back something no request can carry. The strategies call every piece
through these guards:

* ``call_piece``       -- runs the piece; its own exception becomes ``PieceFailed``, saying what
  went wrong (the model's errors pass on untouched: they are not the piece's fault);
* ``checked_messages`` -- what the piece returned must be a list of messages whose tool calls are
  each answered in the very next message (the API refuses anything else).

The loop stops a run on ``PieceFailed`` with its message, instead of a traceback in the notebook.
Left out: checking that a piece is *right* -- the lesson's pictures and verdicts show that.
"""

from __future__ import annotations

from harness.context import CompactionFailed
from harness.messages import pair_problems
from harness.model import ContextOverflow, ModelError


class PieceFailed(Exception):
    """A piece the class wrote raised, or gave back what no request can carry: the run stops."""


def call_piece(piece, *args, **keywords):
    """Call a piece the class wrote: its own mistakes become ``PieceFailed``, the model's pass on.

    Example: call_piece(lambda history: history[99], [])
    -> PieceFailed("<lambda> raised IndexError: list index out of range")
    """
    try:
        return piece(*args, **keywords)
    except (ContextOverflow, ModelError, PieceFailed, CompactionFailed):
        raise  # not the piece's fault: the loop knows what to do with these
    except Exception as problem:
        raise PieceFailed(
            f"{name_of(piece)} raised {type(problem).__name__}: {problem}"
        ) from problem


def checked_messages(piece, messages, where: str) -> list[dict]:
    """``messages`` as a list, if it is one and no tool call is cut from its result.

    ``where`` says which cut is checked, for the message. Example: a piece that returns the history
    from a tool result on -> PieceFailed("keep_newest split a tool call from its result (...)")
    """
    if not isinstance(messages, (list, tuple)) or not all(
        isinstance(m, dict) and "role" in m for m in messages
    ):
        raise PieceFailed(
            f"{name_of(piece)} must return a list of messages, not {type(messages).__name__}."
        )
    problems = pair_problems(list(messages))
    if problems:
        raise PieceFailed(
            f"{name_of(piece)} split a tool call from its result ({where}: {problems[0]}); "
            "the API refuses such a request. Cut only at safe_cuts."
        )
    return list(messages)


def name_of(piece) -> str:
    """The name a piece goes by in the messages: its function's name, or "the piece"."""
    return getattr(piece, "__name__", "the piece")
