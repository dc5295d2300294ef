"""Going on with a saved session: the loop starts from a transcript instead of from a request.

``resume_agent(load_transcript("run.jsonl"), model, transcript="run.jsonl")`` is ``run_agent`` whose
first lap starts from the saved history: the saved messages are taken in (counted, and not written to
the same transcript file twice), then the loop goes on as if it had never stopped. The lesson's loop
needs none of this, so it lives here, on the stage.

Left out: fixing a history cut in the middle of a lap (drop a last assistant message whose tool calls
have no results before resuming, or the API refuses the request).
"""

from __future__ import annotations

from harness.laps import Run
from harness.loop import bare_loop, run_agent, send_everything
from harness.prompts import SYSTEM_PROMPT


def resume_agent(saved: list[dict], model, **settings) -> Run:
    """``run_agent`` going on from ``saved`` (a message list, e.g. ``load_transcript(path)``).

    ``settings`` are run_agent's (``context=``, ``transcript=``, ``max_laps=``...). Its laps count from 1.
    Example: resume_agent(saved, OfflineModel(window=20000)).stopped -> "answered"
    """
    if not saved or saved[0].get("role") != "user":
        raise ValueError("A saved session starts with the user's request: nothing to resume from.")

    def from_saved(
        request, model, tools, max_laps=40, *, assemble=send_everything, system=SYSTEM_PROMPT
    ):
        started = False

        def assemble_saved(history):
            nonlocal started
            if not started:  # the first lap: the saved history replaces the fresh request
                history[:] = saved
                started = True
            return assemble(history)

        return bare_loop(request, model, tools, max_laps, assemble=assemble_saved, system=system)

    return run_agent(saved[0]["content"], model, loop=from_saved, **settings)
