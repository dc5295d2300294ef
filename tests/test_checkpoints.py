"""Predict, then run: each lesson asks its checkpoint question before the cell that answers it.

Checked from the cell tags (see tools/lessons.py): one ``checkpoint`` cell, then one ``reveal`` cell
(the run or the text that answers it), then one ``answer`` cell holding the hidden model answer.
The question is the same sentence in the lesson and in its slide deck.
"""

from pathlib import Path

import pytest

from tools.lessons import LESSONS, deck_question, question_in, read


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_question_comes_before_its_reveal_and_the_answer_after(path):
    lesson = read(path)
    asked, revealed, answered = (
        lesson.tagged("checkpoint"),
        lesson.tagged("reveal"),
        lesson.tagged("answer"),
    )
    assert len(asked) == len(revealed) == len(answered) == 1, (asked, revealed, answered)
    assert asked[0] < revealed[0] < answered[0], (
        f"{path.name}: ask {asked}, reveal {revealed}, answer {answered}"
    )
    assert lesson.checkpoint_question.endswith("?")
    assert "<details>" in lesson.cells[answered[0]].source, (
        "the model answer is hidden until clicked"
    )
    core = {id(c) for c in lesson.core}
    assert all(id(lesson.cells[i]) in core for i in asked + revealed + answered), (
        "the checkpoint is class time"
    )


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_deck_asks_the_same_question(path):
    lesson = read(path)
    assert deck_question(lesson) == lesson.checkpoint_question


def test_question_in_reads_the_first_bold_line():
    """The helper the two tests above rely on, on a worked example."""
    assert (
        question_in("### Checkpoint\n\n**Why keep the\ntail?**\n\nthen **more**")
        == "Why keep the tail?"
    )


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_deck_asks_before_it_shows(path):
    """On the deck too, the checkpoint comes before slides that answer it, not at the very end."""
    import nbformat

    deck = nbformat.read(path.parent.parent / "slides" / path.name, as_version=4)
    slides = [
        c.source for c in deck.cells if c.metadata.get("slideshow", {}).get("slide_type") == "slide"
    ]
    at = next(i for i, s in enumerate(slides) if s.startswith("## Checkpoint"))
    after = [s for s in slides[at + 1 :] if not s.startswith(("## In the workbook", "# "))]
    assert after, f"{path.name}: the deck's checkpoint is its last content slide"


EXERCISES = Path(__file__).resolve().parent.parent / "exercises"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_exercise_asks_the_same_question(path):
    """The exercise of each lesson (solution and student copy) opens its checkpoint with the lesson's question."""
    import nbformat

    lesson = read(path)
    number = path.name[:2]
    for folder in (EXERCISES / "solutions", EXERCISES):
        [exercise] = sorted(folder.glob(f"{number}_*.ipynb"))
        cells = [
            c.source
            for c in nbformat.read(exercise, as_version=4).cells
            if c.cell_type == "markdown"
        ]
        asked = [s for s in cells if s.startswith("**Checkpoint.**")]
        assert len(asked) == 1, f"{exercise.name}: {len(asked)} checkpoint cells"
        opening = " ".join(asked[0].removeprefix("**Checkpoint.**").split())
        assert opening.startswith(lesson.checkpoint_question), (exercise.name, opening[:120])


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_deck_shows_what_comes_before_its_checkpoint_before_asking_it(path):
    """A slide of a lesson section that comes before the checkpoint's section is shown before the
    checkpoint, never after it: what the question needs (03's card, 03's zones) is on screen first."""
    import nbformat

    lesson = read(path)
    titles = [s.title for s in lesson.sections]
    deck = nbformat.read(lesson.entry.deck_path, as_version=4)
    found, asked = [], None
    for cell in deck.cells:
        if cell.metadata.get("slideshow", {}).get("slide_type") not in ("slide", "subslide"):
            continue
        section = cell.metadata.get("lesson_section", "")
        index = next((i for i, t in enumerate(titles) if section and t.startswith(section)), None)
        if cell.source.startswith("## Checkpoint"):
            asked = index
        elif asked is not None and index is not None and index < asked:
            found.append(cell.source.splitlines()[0])
    assert asked is not None, f"{path.name}: no checkpoint slide"
    assert not found, f"{path.name}: shown only after the checkpoint: {found}"
