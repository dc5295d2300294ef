"""Lesson 04's bill tells the truth: the printed winners finished on staging, and the deck says what the cells print.

The checkpoint cell runs the task to its end four ways and prints one answer line, "full history: 2.8x the tokens
(more tokens), 60% of the dollars (fewer dollars)"; the deck's expected answer ("Wait for") and the lesson's model
answer must name the same directions. The race prints every strategy's cost to finish and the cheapest; that run
must have finished on staging, and the deck's notes must name it. Then the lesson runs again with two wrong folds
written in the build cell -- one whose prompt drops the rules, one that pastes the events in -- and neither is ever
the printed winner.
"""

import os
import re
from pathlib import Path

import nbformat
import pytest

from tools.executed import executed, text_of_outputs

pytestmark = pytest.mark.integration  # executes lesson 04 (about half a minute each)

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "notebooks" / "04_running_summary.ipynb"
DECK = ROOT / "slides" / "04_running_summary.ipynb"
CHECKPOINT, RACE, BUILD = "2f7fa8bc", "e79b82f2", "dd62f1d9"
ANSWER = re.compile(r"\((more|fewer) tokens\), .*\((more|fewer) dollars\)")
WINNER = re.compile(r"^cheapest to finish: (.+?)(?:, \d+% of full history's dollars)?$", re.M)


def cell(notebook, cid):
    return next(c for c in notebook.cells if c.get("id") == cid)


def printed(notebook, cid) -> str:
    return text_of_outputs(cell(notebook, cid))


def directions(text: str) -> tuple[str, str]:
    """("more", "fewer") from any text that says "more tokens" ... "fewer dollars"."""
    tokens = re.search(r"\b(more|fewer)\s+tokens", text, re.I)
    dollars = re.search(r"\b(more|fewer)\s+dollars", text, re.I)
    assert tokens and dollars, text
    return tokens.group(1).lower(), dollars.group(1).lower()


def rows_of(table: str) -> dict[str, str]:
    """{run name: the rest of its line} from a printed finish table (names are separated by 2+ spaces)."""
    found = {}
    for line in table.splitlines()[1:]:
        name = re.split(r"\s{2,}| never finished", line, maxsplit=1)[0].strip()
        found[name] = line[len(name) :]
    return found


def dollars(rest: str) -> float | None:
    hit = re.search(r"\$(\d+\.\d+)", rest)
    return float(hit.group(1)) if hit else None


def test_the_checkpoint_answer_is_the_decks_and_the_lessons():
    lesson = executed([LESSON])["04_running_summary"]
    out = printed(lesson, CHECKPOINT)
    answer = ANSWER.search(out)
    assert answer, out
    deck = nbformat.read(DECK, as_version=4)
    wait_for = next(
        c.source for c in deck.cells if "**Wait for:**" in c.source and "tokens" in c.source
    )
    expected = wait_for.split("**Wait for:**")[1].split('"*')[0]
    assert directions(expected) == answer.groups(), (expected, answer.group(0))
    model = cell(nbformat.read(LESSON, as_version=4), "7224005b").source.split("<details>")[1]
    assert directions(model) == answer.groups()


def test_the_race_winner_finished_on_staging_and_the_deck_names_it():
    lesson = executed([LESSON])["04_running_summary"]
    out = printed(lesson, RACE)
    table = out.split("\ncheapest to finish")[0]
    rows = rows_of(table)
    winner = WINNER.search(out)
    assert winner, out
    name = winner.group(1)
    assert "never finished" not in rows[name] and "appends" not in rows[name]
    finished = {n: dollars(rest) for n, rest in rows.items() if "never finished" not in rest}
    assert finished[name] == min(finished.values())
    notes = cell(nbformat.read(DECK, as_version=4), "be04").source
    assert f"*{name}* finishes cheapest" in notes
    # the deck: folding every six turns finishes for less than full history; every two turns does not
    assert (
        "every six turns" in notes and finished["yours, every 6 turns"] < finished["full history"]
    )
    assert "two turns does not" in notes
    assert finished.get("your running summary", float("inf")) > finished["full history"]
    # and on the short task full history was the cheaper one in dollars
    short = rows_of(printed(lesson, CHECKPOINT).split("\nfull history:")[0])
    assert dollars(short["full history, huge desk"]) < dollars(short["your running summary"])


WRONG_FOLDS = {
    "drops the rules": """def fold(summary, events, write):
    return write("Fold the new events into the running summary, in at most 150 words, under these headings:\\n"
                 "- Goal: the user's request.\\n- Facts: what was found, with exact paths.\\n"
                 "- Done / pending: what is finished and what is left.\\n"
                 f"<summary>\\n{summary}\\n</summary>\\n<events>\\n{render(events)}\\n</events>")""",
    "appends the events": """def fold(summary, events, write):
    return (summary + "\\n" + render(events)).strip()""",
}


@pytest.mark.parametrize("mistake", WRONG_FOLDS)
def test_a_wrong_fold_is_never_the_printed_winner(mistake):
    from nbclient import NotebookClient

    lesson = nbformat.read(LESSON, as_version=4)
    setup = next(c for c in lesson.cells if "setup" in c.metadata.get("tags", []))
    build = cell(lesson, BUILD)
    build.source = WRONG_FOLDS[mistake]
    lesson.cells = [setup, build, cell(lesson, CHECKPOINT), cell(lesson, RACE)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    NotebookClient(
        lesson,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(LESSON.parent)}},
    ).execute(env=env)
    short, race = printed(lesson, CHECKPOINT), printed(lesson, RACE)
    for out in (short, race):
        for name, rest in rows_of(
            out.split("\ncheapest to finish")[0].split("\nfull history:")[0]
        ).items():
            if name.startswith(("your running summary", "yours, ")):
                assert "never finished" in rest or rest.endswith("appends"), name + rest
    winner = WINNER.search(race)
    assert winner and not winner.group(1).startswith(("your", "yours")), race
    if mistake == "appends the events":
        assert "appends, it does not fold" in short
    else:
        assert "your running summary never finished (its fix went to production)" in short


CONTROL_CELLS = {  # the cells issue 32 added or rewrote: the bill (04) and the controls (03, 05)
    "03_three_zone_compaction": ["dac707b4", "04701e32"],
    "04_running_summary": [CHECKPOINT, "d5fd234f", RACE],
    "05_memory_claude_md": ["c5d2eac7"],
}


def test_the_bill_and_control_cells_fit_80_columns_typed_and_printed():
    paths = [ROOT / "notebooks" / f"{name}.ipynb" for name in CONTROL_CELLS]
    books = executed(paths)
    for name, ids in CONTROL_CELLS.items():
        for cid in ids:
            shown = cell(books[name], cid)
            wide = [
                line
                for line in shown.source.splitlines() + printed(books[name], cid).splitlines()
                if len(line) > 80
            ]
            assert not wide, (name, cid, wide)
            assert 0 < len(printed(books[name], cid).splitlines()) <= 12, (name, cid)
