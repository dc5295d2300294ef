"""The running summary: meeting minutes, folded every few turns into one living summary.

The request stays pinned, the newest ``tail_turns`` turns stay verbatim, and everything older
lives in one summary that the fold prompt keeps under ``max_words``: the desk stays about flat
however long the task runs. It is three-zone compaction (``harness.compaction``) fired by turn
count instead of size.

**The piece** of lesson 04 is the fold, ``fold(summary, events, write) -> new summary``:
``write(prompt)`` asks the model for text; ``RunningSummary(fold=...)`` takes the class's own.
Left out: folding in the background, and a summary that grows sections as the task changes.
"""

from __future__ import annotations

from functools import partial

from harness.compaction import ThreeZoneCompaction
from harness.guards import PieceFailed, call_piece, name_of
from harness.laps import Did
from harness.messages import turn_starts
from harness.prompts import FOLD_PROMPT, fold_prompt, render


def fold(
    summary: str, events: list[dict], write, max_words: int = 180, template: str = FOLD_PROMPT
) -> str:
    """The piece of lesson 04: the summary so far, with the newest events folded in. One model call.

    Example: fold("Goal: fix sign-in. Read: app/auth.py.", [a5, r5], write)
    -> "Goal: ... Read: app/auth.py, app/db.py."
    """
    return write(fold_prompt(summary, render(events), max_words, template=template))


_reference_fold = fold  # RunningSummary's argument ``fold`` has the same name


class RunningSummary(ThreeZoneCompaction):
    """Meeting minutes: every ``chunk_turns`` turns, one fold call writes them into the summary.

    ``fold`` writes it (``fold`` above, or the class's own); ``split`` draws the zones, as in
    ``ThreeZoneCompaction``.
    """

    name = "running summary"

    def __init__(
        self,
        chunk_turns: int = 2,
        tail_turns: int = 1,
        max_words: int = 180,
        prompt: str = FOLD_PROMPT,
        max_failures: int = 3,
        fold=None,
        split=None,
    ):
        if chunk_turns < 1 or tail_turns < 0:
            raise ValueError("chunk_turns must be at least 1 and tail_turns at least 0.")
        super().__init__(
            threshold=1.0,
            tail_turns=tail_turns,
            prompt=prompt,
            max_words=max_words,
            max_failures=max_failures,
            split=split,
        )
        self.chunk_turns = chunk_turns
        self.fold = fold or partial(_reference_fold, max_words=max_words, template=prompt)

    def assemble(self, history, *, lap=0, model, **_):
        # fired by count, not size: a fold every chunk_turns turns keeps the desk about flat
        starts = turn_starts(history, start=max(self.summary.verbatim_from, 1))
        if len(starts) < self.tail_turns + self.chunk_turns:  # not a whole chunk yet
            return self.current(history)
        return self.compact(history, lap=lap, model=model)

    def compact(self, history, *, lap=0, model, **_):
        """Fold everything older than the newest ``tail_turns`` turns into the summary, now.

        ``assemble`` calls this when a chunk is complete; the loop calls it when the API says the
        request is too long. Either way it is a *fold*, never the compaction template (whose fields
        the fold prompt does not have). Nothing to fold -> "stuck", once.
        """
        cut = self.tail_from(history)  # the split piece (lesson 03's) says where the tail starts
        if cut <= self.summary.verbatim_from:
            return self.stuck(
                history, "cannot fold: the pinned head and the newest turns alone are too big"
            )

        def summary_of(summary, events, write):  # the class's fold, guarded
            text = call_piece(self.fold, summary, events, write)
            if not isinstance(text, str):
                raise PieceFailed(
                    f"{name_of(self.fold)} must return the new summary as text, "
                    f"not {type(text).__name__}."
                )
            return text.strip()

        return self.summarize(history, cut, summary_of, lap, model, Did.FOLD, "folded")
