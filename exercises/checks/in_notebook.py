"""A check cell run too early says what to run first, instead of showing a NameError.

Every check cell starts with ``from exercises import checks``, so it works on its own, even after a
kernel restart. What it cannot have on its own is the answer: run before the answer's cell, the
name of the answer (``tokens_of``, ``MY_PROMPT``) or of a value a demo cell sets (``WINDOW``) is
not defined yet. Importing the checks teaches IPython one thing: a NameError raised by the line of
a check cell itself prints one "Not done yet" line that says which name to define, and where. Every
other NameError -- in your own cells, or inside your functions -- shows its usual traceback.

Left out: Python without IPython (a plain script raises the NameError as usual), and shells that
already have a handler of their own for NameError (it is left in place).
"""

from __future__ import annotations

import linecache

from .common import say


def guard_check_cells() -> None:
    """In IPython, answer a NameError on a check cell's own line with what to run first."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or shell.custom_exceptions not in ((), (NameError,)):
        return
    shell.set_custom_exc((NameError,), _too_early)


def _too_early(shell, etype, value, tb, tb_offset=None):
    if _is_a_check_line(tb):
        name = getattr(value, "name", None) or "a name it uses"
        say(
            None,
            f"{name} is not defined yet in this kernel: run the cell that defines it (the task's "
            "code cell above, or the demo cell before it), then this one. After a restart, run "
            "the cells above from the top.",
        )
        return []
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    return []


def _is_a_check_line(tb) -> bool:
    """Was the error raised by the top level of a cell, on a line that calls a check?"""
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None or tb.tb_frame.f_code.co_name != "<module>":
        return False
    line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
    return "checks.check_" in line or "checks.compare_with_tokenizer" in line
