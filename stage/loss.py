"""The silent loss (lesson 03): a detail noticed in passing, dropped by a short card, and the pointer back.

The agent reads a file for today's bug and notices something else on the way (a ``Noticed:`` line in its
own notes: ``app/db.py:25 (rows_to_csv) — NOTE: ...``). It is not relevant now, so a card with little room
leaves it out, and nothing says so: the run goes on and finishes as before. If the card still names the
file, that name is a **pointer**: one read of the file brings the detail back. A detail that only the
conversation held (a decision, its reason) has no such pointer.

* ``passing_detail(run)`` -- the first thing the agent noted in passing, from its own notes in the run;
* ``the_loss(run, detail)`` -- whether the run's last card kept the detail (or it came after that card and
  is still on the desk word for word), and if not, whether the card still names the file (a pointer)
  or nothing leads back; with a pointer, it makes the read an agent would
  make (``reread``): the detail's line, read from the workspace again with the agent's own tool.

Left out: an agent that decides by itself to follow the pointer (the offline model follows pointers to
the cause and the fix only; a later need for the detail is what would send a real agent back).
"""

from __future__ import annotations

import re

from harness.laps import Run
from harness.messages import text_of
from harness.tools import WORKSPACE, Toolbox
from stage.offline.findings import numbered

NOTICED = re.compile(r"^\W*Noticed: (\S+?):(\d+)\b(.*)$", re.M)


def passing_detail(run: Run) -> str | None:
    """The first ``path:line`` the agent noted in passing in this run, or None if it noticed nothing.

    Example: a note "Noticed: app/db.py:25 (rows_to_csv) — NOTE: starts at 1 ..." -> "app/db.py:25"
    """
    for message in run.history:
        if message.get("role") != "assistant":
            continue
        found = NOTICED.search(text_of(message))
        if found:
            return f"{found.group(1)}:{found.group(2)}"
    return None


def last_card(run: Run) -> str:
    """The summary on the desk after the run's last compaction ("" when it never compacted)."""
    cards = [lap.summary for lap in run.laps if lap.kind == "compact" and lap.summary]
    return cards[-1] if cards else ""


def the_loss(run: Run, detail: str | None) -> str:
    """What became of a ``path:line`` detail in the last card: kept, dropped but read again through the
    card's pointer, or dropped with nothing leading back.

    Example: -> "dropped, without a word; the card still names app/db.py, and one read brings line 25
    back: for i in range(1, len(rows)):  # NOTE: starts at 1, ..."
    """
    card = last_card(run)
    if detail is None:
        return "the agent noticed nothing in passing."
    if not card:
        return "no card: this run never compacted."
    if detail in card:
        return "kept in the card."
    # Noticed after the last card was written: nothing to lose yet.
    if on_the_last_desk(run, detail):
        return "not summarized yet: still on the desk, word for word."
    path, number = detail.split(":")
    if not _names(card, path):
        return f"dropped, without a word, and the card never names {path}: nothing leads back."
    line = reread(path, int(number), root=run.toolbox.root)  # the run's own workspace
    if line is None:
        return f"dropped, without a word; the card names {path}, but line {number} cannot be read."
    return (
        f"dropped, without a word; the card still names {path}, and one read brings line {number} "
        f"back: {line}"
    )


def on_the_last_desk(run: Run, detail: str) -> bool:
    """Whether the detail is on the run's last desk outside any summary (a note or a read still there)."""
    last = run.laps[-1] if run.laps else None
    if last is None:
        return False
    zones = last.zones or [""] * len(last.sent)
    return any(
        detail in text_of(message) for message, zone in zip(last.sent, zones) if zone != "summary"
    )


def reread(path: str, number: int, root=WORKSPACE) -> str | None:
    """Line ``number`` of ``path``, read with the agent's own read_file tool (None when it cannot be read).

    A fresh toolbox does the read, so the run's own record of reads stays as it was.
    Example: reread("app/db.py", 25) -> "for i in range(1, len(rows)):  # NOTE: starts at 1, ..."
    """
    call = {
        "type": "tool_use",
        "id": "toolu_reread",
        "name": "read_file",
        "input": {"path": path, "offset": number, "limit": 1},
    }
    result = Toolbox(root).run(call)
    if result.get("is_error"):
        return None
    lines = numbered(str(result["content"]))  # the tool numbers its lines: keep the text
    return lines[0][1].strip() if lines else None


def _names(card: str, path: str) -> bool:
    """Whether the card names the file itself (app/db.py, not app/db.pyc or lib/app/db.py)."""
    return re.search(r"(?<![\w/.])" + re.escape(path) + r"(?![\w/])", card) is not None
