"""One agent, carried from lesson to lesson: what a build cell keeps, every later lesson runs on.

Each lesson runs in a kernel of its own, as in class (its setup cell, its build cell, its verdict cells:
``tools.executed.lesson_cells``), in class order, all sharing one agent file (``my_agent.py``).

1. The morning with every finished piece: the baseline. Each lesson after 01 says it uses the pieces
   kept in the agent file.
2. For each of lessons 01-04: the same morning up to that lesson, a deliberately wrong piece written in
   its build cell, then the next lesson with its own finished piece. That next lesson's verdicts and
   pictures differ from the baseline's: the wrong piece was carried into it.
3. The morning with every build cell skipped and no agent file: every lesson runs to its end, and says
   in one line per piece that it used the harness's own.
"""

import hashlib
import shutil

import nbformat
import pytest

from stage.pieces import kept_sources
from stage.registry import registry
from tools.build_views import finished_piece
from tools.executed import lesson_cells
from tools.lessons import tags
from tools.mistakes import mistakes_for

pytestmark = pytest.mark.integration  # runs the five lessons in kernels, several times

ENTRIES = registry()

IGNORES_ASSEMBLE = """def bare_loop(request, model, tools, max_laps=40, *,
              assemble=send_everything, system=SYSTEM_PROMPT):
    history = [user(request)]
    for lap in range(max_laps):
        reply = model.reply(system, history, tools.schemas)  # never asks assemble
        history.append(assistant(reply.content))
        calls = tool_uses(history[-1])
        if not calls:
            break
        history.append(user([tools.run(call) for call in calls]))
    return history"""


def wrong(label: str, piece: str) -> str:
    return next(m.source for m in mistakes_for(piece) if m.label == label)


# lesson -> the wrong piece written in its build cell (the next lesson uses that piece)
WRONG = {
    "01": IGNORES_ASSEMBLE,
    "02": wrong("keeps the oldest messages that fit", "keep_newest"),
    "03": wrong("puts everything in the tail", "three_zones"),
    "04": wrong("appends the events instead of folding", "fold"),
}


def finished(entry) -> str:
    book = nbformat.read(entry.path, as_version=4)
    index = next(i for i, c in enumerate(book.cells) if "build" in tags(c))
    return finished_piece(book.cells, index)


def seen(book) -> tuple[list[str], list[str]]:
    """What the verdict cells printed (wrapping undone, the lines naming pieces left out) and a hash
    of every picture; an error in any cell fails the test."""
    text, pictures = [], []
    for cell in book.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", f"{output.get('ename')}: {output.get('evalue')}"
            if "verdict" not in tags(cell):
                continue
            if output.output_type == "stream":
                text += [
                    line
                    for line in output.text.splitlines()
                    if not line.startswith(("Using your `", "No `", "Your `", "Kept your `"))
                ]
            elif "image/png" in output.get("data", {}):
                pictures.append(hashlib.sha256(output["data"]["image/png"].encode()).hexdigest())
    return text, pictures


def printed(book) -> str:
    return "\n".join(o.text for c in book.cells for o in c.outputs if o.output_type == "stream")


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """The morning with every finished piece: {lesson: its run}, and the agent file after each lesson."""
    folder = tmp_path_factory.mktemp("morning")
    agent = folder / "my_agent.py"
    runs, after = {}, {}
    for entry in ENTRIES:
        runs[entry.number] = lesson_cells(entry.path, finished(entry), agent)
        after[entry.number] = folder / f"after-{entry.number}.py"
        shutil.copy(agent, after[entry.number])
    return runs, after


def test_the_finished_morning_keeps_every_piece_and_runs_on_them(baseline):
    runs, after = baseline
    kept = after[ENTRIES[-1].number].read_text(encoding="utf-8")
    for entry in ENTRIES:
        assert f"# ==== {entry.piece} (lesson {entry.number}) ====" in kept, entry.piece
        said = printed(runs[entry.number])
        assert f"Kept your `{entry.piece}`" in said, entry.number
        seen(runs[entry.number])  # no cell failed
    for earlier, later in (("01", "02"), ("02", "03"), ("03", "04"), ("04", "05")):
        piece = next(e.piece for e in ENTRIES if e.number == earlier)
        assert f"Using your `{piece}` (my_agent.py)" in printed(runs[later]), (earlier, later)


@pytest.mark.parametrize("number", sorted(WRONG))
def test_a_wrong_piece_kept_in_one_lesson_changes_the_next_lessons_verdicts(
    baseline, tmp_path, number
):
    runs, after = baseline
    numbers = [e.number for e in ENTRIES]
    entry, following = (ENTRIES[numbers.index(number) + k] for k in (0, 1))
    agent = tmp_path / "my_agent.py"
    if numbers.index(number):  # the pieces of the lessons before it, as the baseline kept them
        shutil.copy(after[numbers[numbers.index(number) - 1]], agent)
    lesson_cells(entry.path, WRONG[number], agent)
    assert kept_sources(agent)[entry.piece].strip() == WRONG[number].strip()  # kept as written
    carried = lesson_cells(following.path, finished(following), agent)
    assert f"Using your `{entry.piece}` (my_agent.py)" in printed(carried)
    assert seen(carried) != seen(runs[following.number]), (
        f"lesson {following.number} printed and drew the same with lesson {number}'s wrong piece"
    )


def test_a_morning_with_every_build_skipped_runs_on_the_harness_pieces(tmp_path):
    agent = tmp_path / "my_agent.py"
    for entry in ENTRIES:
        run = lesson_cells(entry.path, None, agent)
        text, _ = seen(run)
        assert text, f"lesson {entry.number} printed no verdict"
        said = printed(run)
        assert (
            f"No `{entry.piece}` of yours (lesson {entry.number}): the harness's own is used."
            in said
        )
    assert not agent.exists(), "a skipped build kept something"


def test_the_agent_file_is_a_module_of_the_class_pieces(baseline):
    """The file the morning wrote imports and holds every piece as a function (a reader can open it)."""
    _, after = baseline
    space: dict = {}
    path = after[ENTRIES[-1].number]
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), space)  # noqa: S102
    for entry in ENTRIES:
        assert callable(space.get(entry.piece)), entry.piece
