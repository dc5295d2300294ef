"""The summarizing engine: one model call that turns part of the history into a summary card.

Three strategies summarize: three-zone compaction (03), the running summary (04) and
clear-then-compact (04's Deeper part). They differ in *when* they summarize and *what* they hand
over; what they share is here:

* ``Summary`` -- what a summarizing strategy remembers between laps, and ``Summary.rewrite``,
  the one model call that folds the new events into it (``SummaryWriter`` counts its cost);
* the traps: a summary call too long for the window is split in halves (``summarize``); a failed
  call is counted, and too many in a row stop the run.

What a summary says is up to ``summary_of(earlier_summary, events, write) -> text``, where
``write(prompt)`` asks the model: the compaction template and the class's ``fold`` piece both
have that shape. Left out: summarizing in the background while the agent works on.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.context import Assembly, CompactionFailed
from harness.laps import Did
from harness.messages import safe_cuts, user
from harness.model import ContextOverflow, ModelError
from harness.prompts import SUMMARY_HEADER


class SummaryWriter:
    """The model as a summary writer: ``write(prompt) -> text``, counting its calls and tokens.

    Example: write = SummaryWriter(model); write("Summarize: ...") -> "Goal: ..."; write.calls -> 1
    """

    def __init__(self, model):
        self.model = model
        self.calls = 0
        self.tokens_in = 0
        self.tokens_out = 0

    def __call__(self, prompt: str) -> str:
        # A summary call sends only the prompt: no system prompt, no tools, no history.
        reply = self.model.reply("", [user(prompt)], [], max_tokens=1024)
        self.calls += 1
        self.tokens_in += reply.usage.get("input_tokens", 0)
        self.tokens_out += reply.usage.get("output_tokens", 0)
        return reply.text.strip()


def summarize(summary_of, summary: str, events: list[dict], write, depth: int = 0) -> str:
    """The new summary: ``summary_of(summary, events, write)``.

    The trap: a middle too big for the window makes the summary call itself overflow, and a strategy
    that retries would loop forever. So an overflowing call is split: the events are folded in two
    halves (cut where tool pairs stay whole), one call each. Gives up after three levels of halving.
    """
    try:
        return summary_of(summary, events, write)
    except ContextOverflow:
        cuts = [c for c in safe_cuts(events) if 0 < c < len(events)]
        if depth >= 3 or not cuts:
            raise
        half = min(cuts, key=lambda c: abs(c - len(events) / 2))
        first = summarize(summary_of, summary, events[:half], write, depth + 1)
        return summarize(summary_of, first, events[half:], write, depth + 1)


@dataclass
class Summary:
    """What a summarizing strategy remembers between laps.

    history[:head] is pinned; history[head:verbatim_from] lives in ``text``; history[verbatim_from:]
    is sent word for word. ``card`` is the message that carries ``text`` on the desk.
    """

    text: str | None = None
    head: int = 1
    verbatim_from: int = 1
    card: dict | None = None
    failures: int = 0  # failed summary calls in a row
    max_failures: int = 3
    warned_stuck: bool = False  # "cannot compact" is said once, not every lap
    problem: str = ""  # why the last summary call failed

    def rewrite(self, summary_of, events: list[dict], up_to: int, model, lap: int):
        """Fold ``events`` (the history up to ``up_to``, as the strategy shows it) into the summary.

        Returns the ``SummaryWriter`` that counted the cost, or None if the call failed (the summary
        is then left as it was; ``problem`` says why). After ``max_failures`` failures in a row it
        raises ``CompactionFailed``: the run stops instead of spinning.
        """
        write = SummaryWriter(model)
        try:
            text = summarize(summary_of, self.text or "", events, write)
            if not text:
                raise ModelError("the summary came back empty")
        except (ModelError, ContextOverflow) as problem:
            self.failures += 1
            self.problem = str(problem)
            if self.failures >= self.max_failures:
                raise CompactionFailed(
                    f"The summary call failed {self.failures} times in a row ({problem}). Stopping "
                    "instead of looping; the raw history is intact and can be resumed."
                ) from problem
            return None
        self.failures = 0  # a summary was written: the count of failures starts over
        self.warned_stuck = False
        self.text = text
        self.verbatim_from = up_to  # the summary now covers the history up to here
        self.card = user(SUMMARY_HEADER.format(lap=lap) + "\n" + text)
        return write


def with_cost(desk: Assembly, kind: Did, event: str, write, summary) -> Assembly:
    """``desk`` marked with what happened and what its summary calls cost (a failed one counts)."""
    desk.kind, desk.event = kind, event  # what happened, as a word and in words
    desk.summary = summary
    if write is None:
        desk.summary_calls = 1  # the failed call was made, and counts as a call
    else:
        desk.summary_calls = write.calls
        desk.summary_input = write.tokens_in
        desk.summary_output = write.tokens_out
    return desk
