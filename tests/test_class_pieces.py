"""The class grows the agent: each lesson's pictures and verdicts come from the piece its build cell holds.

For each lesson the test runs the setup cell, the build cell and every cell tagged ``verdict``
(``tools.executed.with_piece``): with the finished piece from the lesson's own reveal, with each of the
common wrong pieces the runbook shows (``tools.mistakes``), and with the build cell skipped. A wrong
piece must change what the verdict cells print or draw; the skipped build must still run, and say in one
line that it used the harness's own piece. In-process: each piece's mistake stops a run cleanly
(``piece_failed``) instead of raising, and what a build cell keeps in the agent file is what a later
lesson uses.
"""

import hashlib
from pathlib import Path

import nbformat
import pytest

from harness.compaction import ThreeZoneCompaction
from harness.sliding_window import SlidingWindow
from harness.loop import run_agent
from harness.running_summary import RunningSummary
from stage.offline import OfflineModel
from harness.prompts import SYSTEM_PROMPT
from stage.pieces import PIECES, agent_file, class_piece, keep, kept_sources
from stage.tasks import file_reading_task
from stage.registry import registry
from tools.build_views import finished_piece
from tools.executed import with_piece
from tools.lessons import LESSONS, tags
from tools.mistakes import mistakes_for

ROOT = Path(__file__).resolve().parent.parent


def lesson(number: str) -> Path:
    return next(p for p in LESSONS if p.name.startswith(number))


def finished(path: Path) -> str:
    book = nbformat.read(path, as_version=4)
    index = next(i for i, c in enumerate(book.cells) if "build" in tags(c))
    return finished_piece(book.cells, index)


def seen(cells: list) -> tuple[list[str], list[str]]:
    """What the verdict cells printed (less the line that names the piece) and a hash of each picture drawn."""
    text, pictures = [], []
    for cell in cells:
        for output in cell.outputs:
            assert output.output_type != "error", f"{output.get('ename')}: {output.get('evalue')}"
            if output.output_type == "stream":
                text += [
                    line
                    for line in output.text.splitlines()
                    if not line.startswith(("Using your `", "No `", "Your `"))
                ]
            elif "image/png" in output.get("data", {}):
                pictures.append(
                    hashlib.sha256(output["data"]["image/png"].encode()).hexdigest()[:12]
                )
    return text, pictures


def printed(cells: list) -> list[str]:
    return [
        line
        for c in cells
        for o in c.outputs
        if o.output_type == "stream"
        for line in o.text.splitlines()
    ]


MISTAKES = [
    (entry.number, mistake) for entry in registry() for mistake in mistakes_for(entry.piece)
]


@pytest.mark.integration  # runs each lesson's verdict cells with each wrong piece, in kernels
@pytest.mark.parametrize("number, mistake", MISTAKES, ids=[f"{n}-{m.label}" for n, m in MISTAKES])
def test_each_common_wrong_piece_changes_what_its_lesson_prints_or_draws(number, mistake):
    path = lesson(number)
    right = with_piece(path, finished(path))
    wrong = with_piece(path, mistake.source)
    assert "Using your `" in "\n".join(printed(right)), "the finished piece was not the one used"
    assert seen(right) != seen(wrong), (
        f"lesson {number}: {mistake.label!r} printed and drew the same as the right piece"
    )


@pytest.mark.integration
@pytest.mark.parametrize("number", [e.number for e in registry()])
def test_a_skipped_build_still_runs_and_says_it_used_the_harness_piece(number):
    skipped = with_piece(lesson(number), None)
    said = "\n".join(printed(skipped))
    assert "the harness's own is used" in said
    assert seen(skipped)[0], "the skipped lesson printed no verdict"


def said(cell) -> str:
    """Everything one cell printed, as one line: the lesson's wrapping undone."""
    return " ".join(" ".join(printed([cell])).split())


@pytest.mark.integration
def test_lesson_03_shows_the_tail_and_the_decision_the_way_its_prose_says():
    """With the finished split, 03's checkpoint shows no tail redoing reads and a tail of two redoing none,
    and its decision cell shows the template keeping the user's choice and "briefly" running the other fix.
    A split that ignores tail_turns (no tail ever) makes the tail-of-two line redo reads as well."""
    path = lesson("03")
    text = [said(c) for c in with_piece(path, finished(path))]
    tails = next(t for t in text if "tail of 2:" in t)
    two, zero = tails.split("tail of 2:")[1].split("tail of 0:")
    assert "It answered" in two and "files read twice: none" in two, two
    assert "It answered" in zero and "files read twice: none" not in zero, zero
    decision = next(t for t in text if "lap 2, the user" in t)
    assert "template: It ran the fix the user chose" in decision, decision
    assert "summarize briefly: It ran the fix the user had ruled out" in decision, decision
    no_tail = next(m for m in mistakes_for("three_zones") if "no tail" in m.label)
    ignored = next(t for t in map(said, with_piece(path, no_tail.source)) if "tail of 2:" in t)
    two = ignored.split("tail of 2:")[1].split("tail of 0:")[0]
    assert "files read twice: none" not in two, two


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
    assert "No `keep_newest` of yours" in out and "not written yet" in out

    def mine(history, room, count):
        return history[-1:]

    assert class_piece("keep_newest", {"keep_newest": mine}) is mine
    assert "Using your `keep_newest` (this notebook)" in capsys.readouterr().out


# ---- the agent file: what a build cell keeps, the later lessons use ------------------------------------


def test_keep_writes_the_piece_and_a_later_lesson_loads_it(capsys):
    def keep_newest(history, room, count):
        return history[-2:]  # a window of my own

    assert keep(keep_newest)
    assert "Kept your `keep_newest`" in capsys.readouterr().out
    text = agent_file().read_text(encoding="utf-8")
    assert "# ==== keep_newest (lesson 02) ====" in text and "history[-2:]" in text
    loaded = class_piece("keep_newest", {})  # a later lesson: nothing in its own notebook
    assert loaded is not keep_newest and loaded(list(range(5)), 0, len) == [3, 4]
    assert "Using your `keep_newest` (my_agent.py)" in capsys.readouterr().out


def test_keeping_again_replaces_the_block_and_leaves_the_others():
    def fold(summary, events, write):
        return write("first")

    def three_zones(history, tail_turns):
        return history[:1], history[1:-1], history[-1:]

    keep(fold, quiet=True)
    keep(three_zones, quiet=True)

    def fold(summary, events, write):  # noqa: F811 -- the room runs the build cell again
        return write("second")

    keep(fold, quiet=True)
    sources = kept_sources()
    assert list(sources) == ["three_zones", "fold"]  # in the order of the lessons
    assert "second" in sources["fold"] and "first" not in sources["fold"]


def test_a_stub_is_not_kept_and_the_file_keeps_what_it_had(capsys):
    def load_claude_md(path):
        return SYSTEM_PROMPT + "\n\n" + Path(path).read_text(encoding="utf-8")

    keep(load_claude_md, quiet=True)

    def load_claude_md(path):  # noqa: F811
        raise NotImplementedError("write the loader")

    assert not keep(load_claude_md)
    assert "not written yet: nothing kept" in capsys.readouterr().out
    assert "read_text" in kept_sources()["load_claude_md"]


def test_a_wrong_piece_is_kept_too_it_must_show_later():
    def three_zones(history, tail_turns):
        return history[0], [], []  # not even lists

    assert keep(three_zones, quiet=True)
    assert "history[0]" in kept_sources()["three_zones"]


def test_a_broken_agent_file_falls_back_to_the_harness_and_says_why(capsys):
    agent_file().write_text(
        "# ==== fold (lesson 04) ====\ndef fold(summary, events, write)\n    return ''\n"
        "# ==== end of fold ====\n",
        encoding="utf-8",
    )
    assert class_piece("fold", {}) is PIECES["fold"].reference
    assert "does not load (SyntaxError)" in capsys.readouterr().out


def test_keep_takes_only_the_class_pieces():
    def helper():
        return 1

    with pytest.raises(ValueError, match="one of the class's pieces"):
        keep(helper)
