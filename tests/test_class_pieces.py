"""The class grows the agent: each lesson's pictures and verdicts come from the piece its build cell holds.

For lessons 02–05 the test runs the setup cell, the build cell and every cell tagged ``verdict`` three
ways: with the finished piece from the lesson's own reveal, with a deliberately wrong piece, and with the
build cell skipped. The wrong piece must change what the verdict cells print or draw; the skipped build
must still run, and say in one line that it used the harness's own piece. Then, in-process, each piece's
mistake stops a run cleanly (``piece_failed``) instead of raising.
"""

import functools
import hashlib
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from harness.compaction import ThreeZoneCompaction
from harness.sliding_window import SlidingWindow
from harness.loop import run_agent
from harness.running_summary import RunningSummary
from stage.offline import OfflineModel
from stage.pieces import class_piece
from stage.tasks import file_reading_task
from tools.build_views import finished_piece
from tools.lessons import LESSONS, tags

ROOT = Path(__file__).resolve().parent.parent

WRONG = {  # lesson -> a piece with the right interface and a plausible mistake
    "02": '''def keep_newest(history, room, count):
    """Wrong: keeps the OLDEST messages that fit."""
    kept = []
    for message in history:
        if sum(count(m) for m in kept) + count(message) > room:
            break
        kept.append(message)
    return kept''',
    "03": '''def three_zones(history, tail_turns):
    """Wrong: puts everything after the request in the tail, so nothing is ever summarized."""
    return history[:1], [], history[1:]''',
    "04": '''def fold(summary, events, write):
    """Wrong: appends the events to the minutes instead of folding them."""
    return (summary + "\\n" + render(events)).strip()''',
    "05": '''def load_claude_md(path):
    """Wrong: never reads the file."""
    return SYSTEM_PROMPT''',
}


def lesson(number: str) -> Path:
    return next(p for p in LESSONS if p.name.startswith(number))


@functools.lru_cache(maxsize=None)
def run_variant(path: Path, build_source: str | None) -> list[dict]:
    """Setup, the build cell (or none), and the verdict cells, run headless; the verdict cells' outputs."""
    book = nbformat.read(path, as_version=4)
    cells = []
    for index, cell in enumerate(book.cells):
        if "setup" in tags(cell) or "verdict" in tags(cell):
            cells.append(nbformat.v4.new_code_cell(cell.source, metadata={"tags": tags(cell)}))
        elif "build" in tags(cell) and build_source is not None:
            cells.append(nbformat.v4.new_code_cell(build_source, metadata={"tags": ["build"]}))
    notebook = nbformat.v4.new_notebook(cells=cells)
    NotebookClient(
        notebook,
        timeout=180,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    return [c for c in notebook.cells if "verdict" in tags(c)]


def seen(cells: list) -> tuple[list[str], list[str]]:
    """What the verdict cells printed (less the line that names the piece) and a hash of each picture drawn."""
    text, pictures = [], []
    for cell in cells:
        for output in cell.outputs:
            if output.output_type == "stream":
                text += [
                    line
                    for line in output.text.splitlines()
                    if "`" not in line
                    or "the runs below" not in line
                    and "every run below" not in line
                ]
            elif "image/png" in output.get("data", {}):
                pictures.append(
                    hashlib.sha256(output["data"]["image/png"].encode()).hexdigest()[:12]
                )
            assert output.output_type != "error", f"{output.get('ename')}: {output.get('evalue')}"
    return text, pictures


@pytest.mark.integration  # runs each lesson's verdict cells three ways in kernels
@pytest.mark.parametrize("number", ["02", "03", "04", "05"])
def test_a_wrong_piece_changes_the_lessons_verdict_and_a_skipped_build_still_runs(number):
    path = lesson(number)
    book = nbformat.read(path, as_version=4)
    index = next(i for i, c in enumerate(book.cells) if "build" in tags(c))
    right = run_variant(path, finished_piece(book.cells, index))
    wrong = run_variant(path, WRONG[number])
    skipped = run_variant(path, None)
    said = "\n".join(o.text for c in right for o in c.outputs if o.output_type == "stream")
    assert "Using your `" in said, "the finished piece was not the one used"
    assert seen(right) != seen(wrong), (
        f"lesson {number}: a wrong piece printed and drew the same as the right one"
    )
    fallback = "\n".join(o.text for c in skipped for o in c.outputs if o.output_type == "stream")
    assert "was not run: the runs below use the harness's own" in fallback
    assert seen(skipped)[0], "the skipped lesson printed no verdict"


def printed(cells: list) -> list[str]:
    return [
        line
        for c in cells
        for o in c.outputs
        if o.output_type == "stream"
        for line in o.text.splitlines()
    ]


@pytest.mark.integration
def test_lesson_03_shows_the_tail_and_the_decision_the_way_its_prose_says():
    """With the finished split, 03's checkpoint shows no tail redoing reads and a tail of two redoing none,
    and its decision cell shows the template keeping the user's choice and "briefly" running the other fix.
    A split that ignores tail_turns (no tail ever) makes the tail-of-two line redo reads as well."""
    path = lesson("03")
    book = nbformat.read(path, as_version=4)
    index = next(i for i, c in enumerate(book.cells) if "build" in tags(c))
    lines = printed(run_variant(path, finished_piece(book.cells, index)))
    tail = {int(line.split()[2].rstrip(":")): line for line in lines if line.startswith("tail of ")}
    assert set(tail) == {0, 2}, lines
    assert "It answered" in tail[2] and "files read twice: none" in tail[2], tail[2]
    assert "It answered" in tail[0] and "files read twice: none" not in tail[0], tail[0]
    assert any("template: It ran the fix the user chose" in line for line in lines), lines
    assert any(
        "summarize briefly: It ran the fix the user had ruled out" in line for line in lines
    ), lines
    no_tail = '''def three_zones(history, tail_turns):
    """Wrong: ignores tail_turns, so the newest turns are always summarized."""
    return history[:1], history[1:], []'''
    ignored = [line for line in printed(run_variant(path, no_tail)) if line.startswith("tail of 2")]
    assert ignored and "files read twice: none" not in ignored[0], ignored


# ---- in-process: a piece's own mistake is a clean stop -------------------------------------------------


def crash(*args):
    raise KeyError("oops")


@pytest.mark.parametrize(
    "make",
    [
        lambda: SlidingWindow(keep=crash),
        lambda: ThreeZoneCompaction(split=crash),
        lambda: RunningSummary(fold=crash),
    ],
    ids=["window", "split", "fold"],
)
def test_a_piece_that_raises_stops_the_run_cleanly_and_says_which(make):
    task = file_reading_task()
    run = run_agent(
        task.request, OfflineModel(window=3000), context=make(), remarks=task.remarks, max_laps=40
    )
    assert run.stopped == "piece_failed" and "crash raised KeyError" in run.problem
    assert run.laps[-1].kind == "piece_failed"


def test_a_split_that_cuts_a_tool_pair_is_refused_with_the_reason():
    def split_inside_a_pair(history, tail_turns):
        return (
            history[:1],
            history[1:2],
            history[2:],
        )  # history[2] is a tool result: its call is in [1]

    run = run_agent(
        file_reading_task().request,
        OfflineModel(window=3000),
        context=ThreeZoneCompaction(split=split_inside_a_pair, tail_turns=1),
        max_laps=40,
    )
    assert run.stopped == "piece_failed" and "split a tool call from its result" in run.problem


def test_class_piece_says_which_piece_the_runs_use(capsys):
    def keep_newest(history, room, count):
        raise NotImplementedError

    assert class_piece("keep_newest", {}) is class_piece(
        "keep_newest", {"keep_newest": keep_newest}
    )
    out = capsys.readouterr().out
    assert "was not run" in out and "not written yet" in out

    def mine(history, room, count):
        return history[-1:]

    assert class_piece("keep_newest", {"keep_newest": mine}) is mine
    assert "Using your `keep_newest`" in capsys.readouterr().out
