"""The show script's clock keeps every box of the morning in its time, and the runbook teaches from the run.

The unit tests check the formula on worked examples and the slide map; the integration tests run the
lessons (``tools.executed``) and read the clock and the runbook pages built from that run.
"""

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tools import build_views, rehearsal
from tools.lessons import LESSONS, SEGMENTS, read, tags
from tools.mistakes import mistakes_for

ROOT = Path(__file__).resolve().parent.parent
md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell


def test_the_paces_are_a_rooms_and_printed():
    """Speaking 130 words a minute, live typing 35 characters a minute, 90 s a board drawing, 2:30 a
    checkpoint: the issue's paces, and the table states them."""
    assert rehearsal.WORDS_PER_MINUTE == 130 and rehearsal.TYPING_CHARS_PER_MINUTE <= 35
    assert rehearsal.BOARD_SECONDS == 90 and rehearsal.CHECKPOINT_SECONDS == 150
    assert (rehearsal.MIN_SLACK, rehearsal.MAX_SLACK, rehearsal.CLASS_MINUTES) == (2, 5, 120)
    printed = rehearsal.paces()
    for said in ("130 words/min", "35 chars/min", "90 s per board drawing", "150 s per checkpoint"):
        assert said in printed, said


def test_the_formula_on_a_worked_example():
    """A note asking for one board drawing and one question (90 + 30 s), quoting three words to say
    (3/130 min); 130 spoken words (60 s); a build cell of 3 shown lines (9 s) whose finished piece adds
    'return 1' (8 characters at 35 a minute: 13.7 s) and its reveal (not read out); a checkpoint (150 s);
    a code cell of 2 lines (6 s) that ran 12.5 s and printed 4 lines (10 s) and one picture (30 s); the
    build cell's run, untimed (5 s)."""
    note = md(
        '> **Instructor note** — **Board:** draw a desk. Ask: "who tidies it?"',
        metadata={"tags": ["instructor"]},
    )
    prose = md(" ".join(["word"] * 130))
    build = code(
        'def f():\n    """Goal: one."""\n    raise NotImplementedError',
        metadata={"tags": ["build"]},
    )
    reveal = md(
        "<details><summary>One way</summary>\n\n```python\ndef f():\n    return 1  # one\n```\n</details>",
        metadata={"tags": ["piece"]},
    )
    ask = md("### Checkpoint\n\n**Why?**", metadata={"tags": ["checkpoint"]})
    shown = code("run = go()\nprint(run)", metadata={"id": "c1"})
    ran = nbformat.v4.new_code_cell(shown.source)
    ran.metadata["execution"] = {
        "iopub.execute_input": "2026-01-01T07:00:00.000000Z",
        "shell.execute_reply": "2026-01-01T07:00:12.500000Z",
    }
    ran.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="a\nb\nc\nd\n"),
        nbformat.v4.new_output(
            "display_data", data={"image/png": "iVBOR", "text/plain": "<Figure>"}
        ),
    ]
    e = rehearsal.estimate_cells([note, prose, build, reveal, ask, shown], {shown.get("id"): ran})
    assert e.board == 90 + 30 and e.checkpoint == 150
    assert e.speaking == pytest.approx(60 + 60 * 3 / 130)
    assert e.typing == pytest.approx(8 / (35 / 60))
    assert e.code == 3 * 3 + 2 * 3
    assert e.runs == pytest.approx(5 + 12.5 + 4 * 2.5 + 30)


def test_typed_characters_leave_out_what_the_skeleton_holds_comments_and_docstrings():
    skeleton = 'def f(x):\n    """Goal: double it."""\n    raise NotImplementedError("write it")'
    finished = 'def f(x):\n    """Goal: double it."""\n    return 2 * x   # twice'
    assert rehearsal.typed_characters(skeleton, finished) == len("return 2 * x")


def test_a_prompt_string_is_typed_but_a_docstring_is_not():
    source = 'def f():\n    """The doc."""\n    return 1\nPROMPT = """two\nlines"""'
    assert rehearsal.code_lines(source) == ["def f():", "return 1", 'PROMPT = """two', 'lines"""']


def test_an_exercise_task_takes_a_middling_students_time():
    """Reading 130 words of task (at 130 a minute: 60 s), the answer cell's three given lines (9 s), its
    answer 'return 1' typed (13.7 s) and its run (5 s); the check's line (3 s), run (5 s), verdict (2.5 s)."""
    cells = [
        md("## Task 1 · `f`\n\n" + " ".join(["rule"] * 127)),  # "Task 1 f" and 127 more
        code("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION"),
        code("check(f)"),
    ]
    assert rehearsal.task_seconds(cells) == pytest.approx(60 + 9 + 8 / (35 / 60) + 5 + 3 + 5 + 2.5)


def test_which_exercise_tasks_are_in_class_comes_from_each_exercise_table():
    """A row "in class" is timed; "homework" and "in class if there is time" are not."""
    for path in LESSONS:
        tasks = rehearsal.exercise_tasks(read(path))
        assert [t.number for t in tasks] == [1, 2, 3, 4], path.name
        for task in tasks:
            assert (task.seconds > 60) == task.in_class, (path.name, task)


def test_a_box_fits_only_with_two_to_five_minutes_of_slack():
    assert rehearsal.slack_ok(40 * 60, 36 * 60) and rehearsal.slack_ok(40 * 60, 35 * 60)
    assert not rehearsal.slack_ok(40 * 60, 38 * 60 + 1)  # less than two minutes left
    assert not rehearsal.slack_ok(40 * 60, 34 * 60)  # six minutes planned for nothing
    assert rehearsal.slack_ok(5 * 60, 60) and not rehearsal.slack_ok(5 * 60, 4 * 60)  # the knot


def test_the_boxes_are_seed_001s_plan():
    assert [s.start for s in SEGMENTS] == ["7:00", "7:20", "7:50", "8:30", "8:55"]
    assert sum(rehearsal.box_minutes(s.span) for s in SEGMENTS) == rehearsal.CLASS_MINUTES
    knot = [s for s in SEGMENTS if s.part == "knot"]
    assert len(knot) == 1 and knot[0].span == "8:55–9:00"


def in_class_words(numbers: list[int]) -> str:
    """How a deck's last note names the tasks done in class. Example: [1, 2, 3] -> "tasks 1 to 3" """
    if len(numbers) == 1:
        return f"task {numbers[0]}"
    return f"tasks {numbers[0]} to {numbers[-1]}"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_each_decks_last_note_says_what_the_exercise_table_puts_in_class(path):
    """The closing note sends the room to the exercise only when its table has tasks in class, and names
    them; a lesson whose exercise is all after class says so (deck 02 once said "a few minutes")."""
    lesson = read(path)
    deck = nbformat.read(lesson.entry.deck_path, as_version=4)
    last = deck.cells[-1].source
    number = lesson.entry.number
    in_class = [t.number for t in rehearsal.exercise_tasks(lesson) if t.in_class]
    assert "a few minutes" not in last
    if in_class:
        assert f"exercise {number}, {in_class_words(in_class)}, in class" in last, last
    else:
        assert f"Exercise {number} is for after class" in last, last
        assert "in class" not in last and "fill the" not in last.lower(), last


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_slide_maps_to_a_section_of_its_lesson(path):
    lesson = read(path)
    titles = [s.title for s in lesson.sections]
    deck = nbformat.read(lesson.entry.deck_path, as_version=4)
    slides = [
        c
        for c in deck.cells
        if c.metadata.get("slideshow", {}).get("slide_type") in ("slide", "subslide")
    ]
    for slide in slides:
        section = slide.metadata.get("lesson_section")
        assert section is not None, (
            f"{path.name}: slide {slide.source[:40]!r} has no lesson_section"
        )
        assert section == "" or any(t.startswith(section) for t in titles), (
            f"{path.name}: no section {section!r}"
        )


@pytest.mark.integration  # executes the five lessons (tools.executed)
def test_the_command_prints_its_paces_and_every_box_fitting_with_its_slack():
    """`make rehearsal`: typing at 35 characters a minute at most, every box of seed 001's plan with two
    to five minutes of slack, the morning at most two hours; the command fails otherwise."""
    done = subprocess.run(
        [sys.executable, "-m", "tools.rehearsal"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "live typing 35 chars/min" in done.stdout and "130 words/min" in done.stdout
    for segment in SEGMENTS:
        line = next(
            x
            for x in done.stdout.splitlines()
            if x.startswith(f"{segment.start} ") and "box total" in x
        )
        assert line.endswith(": fits"), line
        slack = line.split("slack ")[1].split(":")[:2]
        minutes = int(slack[0]) + int(slack[1]) / 60
        assert minutes >= rehearsal.MIN_SLACK, line
        assert minutes <= rehearsal.MAX_SLACK or segment.part == "knot", line
    assert "of 120:00 (fits)" in done.stdout
    assert "in class:" in done.stdout and "homework:" in done.stdout


def minute_rows(page: str) -> list[tuple[str, str, str]]:
    """(clock, lesson, part) of each row of a page's minute-by-minute table."""
    table = page.split("## Minute by minute", 1)[1].split("\n## ", 1)[0]
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| ")]
    return [(r[0].strip("| "), r[1], r[2]) for r in rows[2:]]


def as_minutes(clock: str) -> int:
    hours, minutes = map(int, clock.split(":"))
    return hours * 60 + minutes


@pytest.mark.integration  # executes the five lessons and the wrong pieces (tools.executed)
def test_the_runbook_teaches_from_the_last_run(tmp_path, monkeypatch):
    monkeypatch.setattr(build_views, "BUILD", tmp_path)
    pages = build_views.build_runbook()
    boxes = sorted((tmp_path / "runbook").glob("0*.md"))
    assert len(boxes) == len(SEGMENTS)
    text = {p.name: p.read_text(encoding="utf-8") for p in boxes}
    for name, page in text.items():
        for part in (
            "## Minute by minute",
            "#### Slides ↔ cells",
            "#### Cell by cell",
            "When any cell fails",
        ):
            assert part in page, f"{name}: no {part!r}"
        rows = minute_rows(page)
        times = [as_minutes(clock) for clock, _, _ in rows]
        assert times == sorted(times), f"{name}: the clock goes back: {rows}"
        for clock, _, part in rows:
            if "exercise task" in part:  # the task starts when the class gets to it
                assert as_minutes(clock) > times[0], (name, clock)
    first = text["0700_01-02.md"]
    start_02 = next(clock for clock, lesson, _ in minute_rows(first) if lesson.startswith("02"))
    assert as_minutes(start_02) > as_minutes("7:05"), "02's cells start where 01's end"
    for path in LESSONS:
        lesson = read(path)
        page = next(p for n, p in text.items() if lesson.name[:2] in n.split("_")[1])
        assert lesson.checkpoint_question in page and "What the class has just seen" in page
        assert "#### If the class runs late" in page and "saves" in page
        assert 'data-lang="text"' in page and "figures/" in page, (
            f"{lesson.name}: no expected output or picture"
        )
        assert "the build: the room writes it" in page
        own = page.split(f"## {lesson.name}", 1)[1]
        cuts = own.split("#### If the class runs late", 1)[1].split("####", 1)[0]
        for section in lesson.sections:
            guarded = any(t in tags(c) for c in section.cells for t in build_views.PROTECTED)
            if guarded:
                assert f"*{section.title}*" not in cuts, (lesson.name, section.title)
        wrong = mistakes_for(lesson.entry.piece)
        assert len(wrong) >= 2 and "#### When the room's piece is wrong" in own, lesson.name
        for mistake in wrong:
            assert mistake.label in own and mistake.say in own, (lesson.name, mistake.label)
    index = (tmp_path / "runbook" / "index.md").read_text(encoding="utf-8")
    assert "words/min" in index and "live typing" in index
    assert "## Setting up the room" in index and "typing along" in index
    copies = [p for p in pages if p.parent.name == "instructor"]
    assert len(copies) == len(LESSONS)
    for copy in copies:
        builds = [c for c in nbformat.read(copy, as_version=4).cells if "build" in tags(c)]
        assert builds and all("NotImplementedError" not in c.source for c in builds), copy.name


def test_the_student_view_has_every_lesson_and_no_instructor_notes(tmp_path, monkeypatch):
    monkeypatch.setattr(build_views, "BUILD", tmp_path)
    written = build_views.build_student_view()
    assert [p.name for p in written] == [p.name for p in LESSONS]
    for path in written:
        notebook = nbformat.read(path, as_version=4)
        original = nbformat.read(ROOT / "notebooks" / path.name, as_version=4)
        assert not any("instructor" in tags(c) for c in notebook.cells)
        assert not any("Instructor note" in c.source for c in notebook.cells), (
            f"{path.name} keeps a note"
        )
        kept = [
            c.source
            if c.cell_type == "code"
            # links are pointed from build/student/ (no dead links)
            else build_views.relink(
                c.source, ROOT / "notebooks", path.parent, {p.name for p in LESSONS}
            )
            for c in original.cells
            if "instructor" not in tags(c)
        ]
        assert [c.source for c in notebook.cells] == kept, (
            f"{path.name}: student cells differ from the lesson's"
        )


def test_make_targets_exist():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "\nrunbook:" in makefile and "\nstudent-view:" in makefile and "\nrehearsal:" in makefile


@pytest.mark.integration  # executes the five lessons (tools.executed)
def test_the_clock_times_in_the_notes_agree_with_the_clock():
    """A note that opens with a time (*7:19.*) sits where the rehearsal clock says that minute falls, give or
    take two minutes; the notes hold no other clock times (the runbook has the minute marks)."""
    found = rehearsal.note_times()
    assert len(found) >= 5
    for lesson, said, at in found:
        (sh, sm), (ah, am) = (map(int, t.split(":")) for t in (said, at))
        assert abs((sh * 60 + sm) - (ah * 60 + am)) <= 2, (
            f"{lesson}: a note says {said}, the clock says {at}"
        )
