"""The show script's clock: how long each box of the morning takes to teach, from the notebooks themselves.

    python -m tools.rehearsal          # one row per box of seed 001's plan, its slack, and the total

The paces are stated once, here, and printed with the table. They are a room's paces, not a
reader's: the instructor explains while typing, and the class predicts before every reveal.

* **speaking** -- every word of student-facing prose, at ``WORDS_PER_MINUTE``; in an instructor note,
  only what it puts in quotation marks (what to say aloud), at the same pace;
* **board** -- ``BOARD_SECONDS`` for each board drawing an instructor note asks for (a ``**Board:**``
  marker), and ``QUESTION_SECONDS`` for each question it has the instructor ask the room (``Ask``);
* **code shown** -- every line of a code cell the class is shown (comments too, they are read), at
  ``CODE_LINE_SECONDS`` a line; a build cell's skeleton is shown the same way;
* **live typing** -- the characters of the finished piece that its skeleton does not hold (comments,
  docstrings and indentation left out: said, not typed), and of a cell tagged ``typed`` (what the room
  dictates, strings included), at ``TYPING_CHARS_PER_MINUTE``;
* **runs** -- each code cell's own run time in the last headless run (``tools.executed``), at least
  ``RUN_SECONDS``, plus the reading of its output by its size: ``OUTPUT_LINE_SECONDS`` a printed line and
  ``FIGURE_SECONDS`` a picture;
* **checkpoint** -- ``CHECKPOINT_SECONDS`` each: the class predicts, discusses, and the run reveals (the
  hidden model answer is what the discussion lands on, not read out on top);
* **exercises** -- each exercise task the exercise's table marks *in class*, at the time a middling
  student needs: reading the task at ``READING_WORDS_PER_MINUTE``, reading and running the cells it
  shows, typing the solution's lines at the typing pace above, and running the check. Tasks marked
  *homework* are listed, not counted.

A box holds the core of its lessons (everything but ``## Deeper`` sections); a lesson with a knot in
the registry (``notebooks/lessons.toml``) ends with its Tie the knot section, timed as the box of its
own. A box **fits** when it leaves between ``MIN_SLACK`` and ``MAX_SLACK`` minutes of slack: room for
questions and a slow laptop, and no stretch planned for nothing. The finished piece hidden in a
``piece`` reveal is for self-study and is not read out.
Left out: questions beyond the checkpoint and the notes' *Ask*, and the minutes between two boxes.
"""

from __future__ import annotations

import datetime
import re
import sys
from dataclasses import dataclass, fields

import nbformat

from tools.executed import executed, figures_of, text_of_outputs
from tools.lessons import LESSONS, SEGMENTS, Lesson, Segment, read, tags

WORDS_PER_MINUTE = 130  # speaking, to a room
TYPING_CHARS_PER_MINUTE = 35  # live typing while explaining each line
BOARD_SECONDS = 90  # one board drawing an instructor note asks for
QUESTION_SECONDS = 30  # one question an instructor note asks the room (the checkpoint aside)
CHECKPOINT_SECONDS = 150  # predict, discuss, reveal
CODE_LINE_SECONDS = 3  # a line of code the class is shown, read out
RUN_SECONDS = 5  # the least a cell's run takes: press, wait, look
OUTPUT_LINE_SECONDS = 2.5  # a printed line, read
FIGURE_SECONDS = 30  # a picture, looked at and explained
READING_WORDS_PER_MINUTE = 130  # a middling student reading an exercise task
CLASS_MINUTES = 120
MIN_SLACK, MAX_SLACK = 2, 5  # minutes a box keeps free: at least, at most


@dataclass
class Estimate:
    """Seconds of each kind of work in a box, a lesson, or a few cells."""

    speaking: float = 0
    board: float = 0
    code: float = 0
    typing: float = 0
    runs: float = 0
    checkpoint: float = 0
    exercises: float = 0

    @property
    def total(self) -> float:
        return sum(getattr(self, f.name) for f in fields(self))

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


# ---- counting words, lines and characters ------------------------------------------------------------


def words(markdown: str) -> int:
    """Words a person would say: code fences, reveals, tables' rules, links' targets and HTML tags left out."""
    text = re.sub(r"```.*?```|<details>.*?</details>", " ", markdown, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>|\]\([^)]*\)|\|[-: |]+\|", " ", text)
    return len(re.findall(r"[A-Za-z0-9][\w'’.-]*", text))


QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”")


def note_seconds(markdown: str) -> tuple[float, float]:
    """(seconds spoken, seconds at the board) of one instructor note.

    Spoken: the words it quotes, at the speaking pace. Board: BOARD_SECONDS per ``**Board:**`` and
    QUESTION_SECONDS per ``Ask``. Example: '**Board:** the desk. Ask: "who tidies it?"' -> (1.4, 120)
    """
    said = sum(words(a or b) for a, b in QUOTED.findall(markdown))
    boards = markdown.count("**Board:**")
    asks = len(re.findall(r"\bAsk\b", markdown))
    return 60 * said / WORDS_PER_MINUTE, boards * BOARD_SECONDS + asks * QUESTION_SECONDS


def code_lines(source: str) -> list[str]:
    """The lines of code that are typed: no comments, no docstrings, no blank lines, no indentation.

    A docstring is a triple-quoted string standing as a statement of its own; a triple-quoted string
    assigned or passed (a prompt, a card) is typed. Example: "x = '''a\\nb'''" -> ["x = '''a", "b'''"]
    """
    source = re.sub(r'^[ \t]*("""|\'\'\').*?\1', "", source, flags=re.DOTALL | re.MULTILINE)
    return [code for line in source.splitlines() if (code := _without_comment(line).strip())]


def typed_characters(skeleton: str, finished: str) -> int:
    """Characters typed live: the finished version's code lines the skeleton does not already hold.

    Example: skeleton "def f():\\n    raise NotImplementedError", finished "def f():\\n    return 1  # one" -> 8
    """
    given = set(code_lines(skeleton))
    return sum(len(line) for line in code_lines(finished) if line not in given)


def _without_comment(line: str) -> str:
    """The line up to a ``#`` that is not inside a string (quotes counted naively, enough for lesson code)."""
    quote = None
    for i, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:i]
    return line


def piece_code(markdown: str) -> str:
    """The finished piece inside a ``piece`` reveal: the first fenced python block."""
    found = re.search(r"```python\n(.*?)```", markdown, re.DOTALL)
    return found.group(1) if found else ""


def shown_lines(source: str) -> int:
    """Lines of a code cell the class is shown and has read to it (blank lines are not read)."""
    return sum(1 for line in source.splitlines() if line.strip())


def run_seconds(cell) -> float:
    """How long a cell took in its headless run (nbclient's timing), at least RUN_SECONDS."""
    timing = cell.get("metadata", {}).get("execution", {})
    began, ended = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (began and ended):
        return RUN_SECONDS
    took = _when(ended) - _when(began)
    return max(RUN_SECONDS, took.total_seconds())


def _when(stamp: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))


# ---- the formula -------------------------------------------------------------------------------------


def estimate_cells(cells: list, ran: dict | None = None) -> Estimate:
    """The formula, applied to cells; ``ran`` maps a cell id to the same cell after a headless run."""
    e, ran = Estimate(), ran or {}
    typing_pace = TYPING_CHARS_PER_MINUTE / 60
    for i, cell in enumerate(cells):
        cell_tags = tags(cell)
        if cell.cell_type == "markdown":
            if "instructor" in cell_tags:
                said, board = note_seconds(cell.source)
                e.speaking += said
                e.board += board
            elif "checkpoint" in cell_tags:
                e.checkpoint += CHECKPOINT_SECONDS
            elif "piece" not in cell_tags:
                e.speaking += 60 * words(cell.source) / WORDS_PER_MINUTE
            continue
        if "setup" not in cell_tags:
            e.code += CODE_LINE_SECONDS * shown_lines(cell.source)
        if "typed" in cell_tags:
            e.typing += sum(len(line) for line in code_lines(cell.source)) / typing_pace
        if "build" in cell_tags:
            reveal = next((c for c in cells[i + 1 : i + 3] if "piece" in tags(c)), None)
            if reveal is not None:
                finished = piece_code(reveal.source)
                e.typing += typed_characters(cell.source, finished) / typing_pace
        after = ran.get(cell.get("id"), cell)
        printed = text_of_outputs(after).strip()
        e.runs += run_seconds(after)
        e.runs += OUTPUT_LINE_SECONDS * (len(printed.splitlines()) if printed else 0)
        e.runs += FIGURE_SECONDS * figures_of(after)
    return e


# ---- the exercise tasks done in class ----------------------------------------------------------------

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
TASK_ROW = re.compile(
    r"^\|\s*(\d+)\s*·\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|\s*(\d+)\s*min", re.MULTILINE
)


@dataclass
class Task:
    """One task of an exercise's table: its number, name, where it is done, and its seconds in class."""

    number: int
    name: str
    where: str  # "in class", or "homework ..."
    seconds: float = 0.0

    @property
    def in_class(self) -> bool:
        """ "in class" or "in class (run and look)"; "in class if there is time" is homework."""
        where = self.where.strip()
        return where.startswith("in class") and "if there is time" not in where


def exercise_tasks(lesson: Lesson) -> list[Task]:
    """The tasks of the lesson's exercise (the registry's `exercise`), each in-class one timed.

    Read from the solution notebook: its table (``| 3 · `token_bill` | in class | 5 min |``) says which
    tasks are done in class; the task's cells (from its ``## Task N`` heading to the next heading) are
    what the student reads, runs and types.
    """
    path = lesson.entry.solution_path
    if not lesson.entry.exercise or not path.exists():
        return []
    cells = nbformat.read(path, as_version=4).cells
    intro = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    tasks = [Task(int(n), name.strip("` "), where) for n, name, where, _ in TASK_ROW.findall(intro)]
    for task in tasks:
        if task.in_class:
            task.seconds = task_seconds(task_cells(cells, task.number))
    return tasks


def task_cells(cells: list, number: int) -> list:
    """The cells of task ``number``: from its ``## Task N`` heading up to the next ``## `` heading."""
    start = next(
        (i for i, c in enumerate(cells) if re.match(rf"## Task {number}\b", c.source.strip())),
        None,
    )
    if start is None:
        return []
    end = next(
        (j for j in range(start + 1, len(cells)) if cells[j].source.startswith("## ")),
        len(cells),
    )
    return cells[start:end]


def task_seconds(cells: list) -> float:
    """A middling student on one task: read it, read and run what it shows, type the answer, run the check."""
    seconds = 0.0
    for cell in cells:
        if cell.cell_type == "markdown":
            seconds += 60 * words(cell.source) / READING_WORDS_PER_MINUTE
            continue
        seconds += RUN_SECONDS
        if BEGIN in cell.source:
            answer = cell.source.split(BEGIN, 1)[1].split(END, 1)[0]
            given = cell.source.replace(answer, "\n")
            seconds += CODE_LINE_SECONDS * shown_lines(given)
            seconds += sum(len(line) for line in code_lines(answer)) / (
                TYPING_CHARS_PER_MINUTE / 60
            )
        else:
            seconds += CODE_LINE_SECONDS * shown_lines(cell.source) + OUTPUT_LINE_SECONDS
    return seconds


# ---- boxes -------------------------------------------------------------------------------------------


def box_minutes(span: str) -> int:
    """Minutes in a span like "7:20–7:50". Example: "7:50–8:30" -> 40"""
    (h1, m1), (h2, m2) = (map(int, t.split(":")) for t in re.split(r"[–-]", span))
    return (h2 * 60 + m2) - (h1 * 60 + m1)


def ran_cells(lesson: Lesson, runs: dict) -> dict:
    book = runs.get(lesson.name)
    return {c.get("id"): c for c in book.cells} if book else {}


def segment_estimate(segment: Segment, lessons: list[Lesson], runs: dict) -> tuple[list, Estimate]:
    """(the lessons of a box with each one's estimate, the box's total) -- exercises counted once per lesson."""
    rows, total = [], Estimate()
    for lesson in lessons:
        e = estimate_cells(lesson.core_part(segment.part), ran_cells(lesson, runs))
        if segment.part != "knot":
            e.exercises = sum(t.seconds for t in exercise_tasks(lesson) if t.in_class)
        rows.append((lesson, e))
        total = total + e
    return rows, total


def segments(runs: dict | None = None) -> list[tuple[Segment, list, Estimate]]:
    """(box, [(lesson, estimate)], total) for each box of the morning."""
    lessons = [read(p) for p in LESSONS]
    runs = executed() if runs is None else runs
    found = []
    for segment in SEGMENTS:
        mine = [lesson for lesson in lessons if lesson.path.name.startswith(segment.prefixes)]
        rows, total = segment_estimate(segment, mine, runs)
        found.append((segment, rows, total))
    return found


def slack_ok(box_seconds: float, estimate_seconds: float) -> bool:
    """A box fits when its slack is at least MIN_SLACK and at most MAX_SLACK minutes.

    A box shorter than MAX_SLACK (the five-minute knot) cannot plan too little. Example: 40 min, 36:30 -> True
    """
    slack = box_seconds - estimate_seconds
    return MIN_SLACK * 60 <= slack and (slack <= MAX_SLACK * 60 or box_seconds <= MAX_SLACK * 60)


def minutes(seconds: float) -> str:
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    return f"{sign}{int(seconds // 60)}:{int(seconds % 60):02d}"


def paces() -> str:
    return "\n".join(
        [
            "paces:",
            f"  speaking {WORDS_PER_MINUTE} words/min (prose, and what a note quotes to say aloud)",
            f"  live typing {TYPING_CHARS_PER_MINUTE} chars/min (explaining each line while typing)",
            f"  {BOARD_SECONDS} s per board drawing a note asks for, {QUESTION_SECONDS} s per question "
            "it asks",
            f"  {CHECKPOINT_SECONDS} s per checkpoint (predict, discuss, reveal)",
            f"  {CODE_LINE_SECONDS} s per line of code shown; each cell's run (at least "
            f"{RUN_SECONDS} s),",
            f"  + {OUTPUT_LINE_SECONDS:g} s per printed line + {FIGURE_SECONDS} s per picture",
            f"  exercises: a student reads the task at {READING_WORDS_PER_MINUTE} words/min, types "
            "the answer at the typing pace",
            f"  a box fits with {MIN_SLACK} to {MAX_SLACK} minutes of slack",
        ]
    )


def exercise_lines() -> list[str]:
    """Which exercise tasks are done in class (timed) and which are homework, lesson by lesson."""
    lines = ["exercises (in class: timed in the box; homework: after class):"]
    for path in LESSONS:
        lesson = read(path)
        tasks = exercise_tasks(lesson)
        inside = [f"{t.number} `{t.name}` {minutes(t.seconds)}" for t in tasks if t.in_class]
        home = [f"{t.number} `{t.name}`" for t in tasks if not t.in_class]
        lines.append(
            f"  {lesson.entry.exercise:<20} in class: {', '.join(inside) or 'none'}; "
            f"homework: {', '.join(home) or 'none'}"
        )
    return lines


COLUMNS = ("speak", "board", "code", "type", "runs", "chkpt", "exer")


def report(runs: dict | None = None) -> tuple[str, bool]:
    """The printed table, and whether every box fits with its slack and the morning is at most two hours."""
    lines = [
        paces(),
        "",
        f"{'box':<10} {'lesson':<24} " + " ".join(f"{c:>6}" for c in COLUMNS) + f" {'total':>6}",
    ]
    fits, morning = True, 0.0
    for segment, rows, total in segments(runs):
        for lesson, e in rows:
            part = {"before-knot": " (to knot)", "knot": " (knot)"}.get(segment.part, "")
            lines.append(
                f"{segment.span:<10} {(lesson.name[: 24 - len(part)] + part):<24} "
                + " ".join(f"{minutes(getattr(e, f.name)):>6}" for f in fields(e))
                + f" {minutes(e.total):>6}"
            )
        box = box_minutes(segment.span) * 60
        ok = slack_ok(box, total.total)
        fits &= ok
        morning += total.total
        verdict = "fits" if ok else ("OVER" if total.total > box - MIN_SLACK * 60 else "TOO EMPTY")
        lines.append(
            f"{segment.start:<10} {'box total':<24} {'':>41} {minutes(total.total):>6} of "
            f"{minutes(box)}, slack {minutes(box - total.total)}: {verdict}"
        )
    within = morning <= CLASS_MINUTES * 60
    lines += [
        "",
        *exercise_lines(),
        "",
        f"the morning: {minutes(morning)} of {CLASS_MINUTES}:00 "
        + ("(fits)" if within else "(OVER TWO HOURS)"),
    ]
    return "\n".join(lines), fits and within


def main() -> int:
    text, fits = report()
    print(text)
    print(
        f"\nevery box fits with {MIN_SLACK} to {MAX_SLACK} minutes of slack, "
        "and the morning fits two hours"
        if fits
        else "\nat least one box is over its time, or plans too much time for nothing"
    )
    return 0 if fits else 1


if __name__ == "__main__":
    sys.exit(main())


NOTE_TIME = re.compile(r"\*(\d{1,2}):(\d\d)\.\*")


@dataclass
class Slot:
    """One stretch of a box: a cell of a lesson (``index`` into its part of the box), or the lesson's
    in-class exercise (``index`` None); when it starts, in seconds into the box, and how long it takes."""

    lesson: Lesson
    index: int | None
    start: float
    seconds: float


def timeline(segment: Segment, rows: list, runs: dict) -> list[Slot]:
    """Every cell of a box, and its in-class exercise, with its start time: one clock for the whole box.

    The lessons of a box follow each other (02 starts where 01 ends); a lesson's exercise task comes
    after the section whose heading says *In class: exercise*, or after its last cell if it has none.
    """
    slots, elapsed = [], 0.0
    for lesson, e in rows:
        ran, cells, exercise = ran_cells(lesson, runs), lesson.core_part(segment.part), e.exercises
        at_heading = next((i for i, c in enumerate(cells) if is_exercise_heading(c)), None)
        ends = section_end(cells, at_heading) if at_heading is not None else len(cells)
        for i, cell in enumerate(cells):
            if exercise and i == ends:
                slots.append(Slot(lesson, None, elapsed, exercise))
                elapsed, exercise = elapsed + exercise, 0
            seconds = (
                estimate_cells(cells[i : i + 2], ran).total
                - estimate_cells(cells[i + 1 : i + 2], ran).total
            )  # a build cell's typing is counted with its reveal, the cell after it
            slots.append(Slot(lesson, i, elapsed, seconds))
            elapsed += seconds
        if exercise:
            slots.append(Slot(lesson, None, elapsed, exercise))
            elapsed += exercise
    return slots


def section_end(cells: list, start: int) -> int:
    """The index just after the ``##`` section that starts at ``start``."""
    return next(
        (j for j in range(start + 1, len(cells)) if cells[j].source.startswith("## ")),
        len(cells),
    )


def is_exercise_heading(cell) -> bool:
    """The heading of the section where the class does its in-class exercise task."""
    title = cell.source.splitlines()[0].lower() if cell.cell_type == "markdown" else ""
    return title.startswith("## ") and "exercise" in title and "in class" in title


def note_times(runs: dict | None = None) -> list[tuple[str, str, str]]:
    """(lesson, the time an instructor note says, the time the clock puts that note at) for every note that
    opens with a time like *7:19.*: the clock is the box's start plus the estimate of the cells before it."""
    runs = executed() if runs is None else runs
    found = []
    for segment, rows, _ in segments(runs):
        for slot in timeline(segment, rows, runs):
            if slot.index is None:
                continue
            cell = slot.lesson.core_part(segment.part)[slot.index]
            said = NOTE_TIME.search(cell.source) if "instructor" in tags(cell) else None
            if said:
                at = clock(segment.start, slot.start)
                found.append((slot.lesson.name, f"{said.group(1)}:{said.group(2)}", at))
    return found


def clock(start: str, seconds: float) -> str:
    """A wall-clock time, seconds after ``start``. Example: clock("7:20", 95) -> "7:21" """
    hours, mins = map(int, start.split(":"))
    total = hours * 60 + mins + int(seconds // 60)
    return f"{total // 60}:{total % 60:02d}"
