"""No file a student receives holds a task's solution, or anything that passes a task's check.

The student build gives out every file that ``exercises/INSTRUCTOR_ONLY`` does not list. Two sweeps over
those files:

* by text: no line of code from a solution block (the lines between ``### BEGIN SOLUTION`` and
  ``### END SOLUTION`` of the solution notebooks, the trivial ones aside) appears in any of them;
* by behaviour: every function of the student-received modules of ``exercises/`` and ``harness/`` (the
  lesson) is handed to every check whose task it could fit by its arguments, and every string in them
  -- and every markdown file, CLAUDE.md included -- to the checks whose answer is a text: none may PASS.

Left out of the behaviour sweep: ``stage/`` (it starts servers and processes, and holds no task's piece),
and the code cells of notebooks (the text sweep reads them).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import io
import json
import os
import re

import nbformat
import pytest

from exercises import checks, instructor_only, make_student_copies
from exercises.checks.memory_rules import GREENHOUSE_FINGERPRINT, fingerprint

ROOT = instructor_only.REPO
BEGIN, END = make_student_copies.BEGIN, make_student_copies.END


def test_the_manifest_lists_the_answers_and_every_pattern_matches_a_file():
    manifest = instructor_only.patterns()
    files = instructor_only.repository_files()
    for needed in (
        "exercises/solutions/01_the_desk.ipynb",
        "tests/exercise_answers.py",
        "workspaces/greenhouse/CLAUDE.md",
    ):
        assert instructor_only.is_instructor_only(needed, manifest), needed
    for pattern in manifest:
        assert any(instructor_only.matches(f, pattern) for f in files), f"{pattern} matches no file"
    student = instructor_only.student_files()
    assert "exercises/01_the_desk.ipynb" in student and "exercises/checks/ex05_memory.py" in student
    assert not any(f.startswith(("exercises/solutions/", "tests/")) for f in student)


@pytest.mark.parametrize(
    "path, pattern, expected",
    [
        ("tests/x.py", "tests/", True),
        ("tests/sub/x.py", "tests/", True),
        ("tests.py", "tests/", False),
        ("a/b/c/d.py", "a/**/d.py", True),
        ("a/d.py", "a/**/d.py", True),
        ("a/b/d.py", "a/*/d.py", True),
        ("a/b/c/d.py", "a/*/d.py", False),
        ("x/CLAUDE.md", "**/CLAUDE.md", True),
        ("CLAUDE.md", "**/CLAUDE.md", True),
        ("exercises/solutions/01.ipynb", "/exercises/solutions/", True),
        ("a/b.md", "a/?.md", True),
    ],
)
def test_the_manifest_globs_mean_what_its_header_says(path, pattern, expected):
    assert instructor_only.matches(path, pattern) is expected


def test_the_manifest_reader_skips_comments_and_blank_lines():
    assert instructor_only.patterns("# why\n\n a/ \n#b\nc.md\n") == ["a/", "c.md"]


# ---- the text sweep ------------------------------------------------------------------------------------


def _code(line: str) -> str:
    """A line of code without its comment and with its spaces evened out."""
    return " ".join(re.sub(r"\s+#\s.*$", "", line).split())


@functools.lru_cache(maxsize=1)
def solution_blocks() -> list[tuple[str, set[str]]]:
    """(where, the lines of code that say something) for every solution block of every solution notebook."""
    found = []
    for path in sorted((ROOT / "exercises" / "solutions").glob("*.ipynb")):
        for n, cell in enumerate(nbformat.read(path, as_version=4).cells):
            for block in re.findall(
                rf"{re.escape(BEGIN)}\n(.*?)\n\s*{re.escape(END)}", cell.source, re.S
            ):
                lines = {_code(line) for line in block.splitlines()}
                found.append(
                    (
                        f"{path.name}, cell {n}",
                        {c for c in lines if len(c) >= 24 and not c.startswith("#")},
                    )
                )
    return found


def holds_a_solution(text: str) -> list[str]:
    """Which solution blocks ``text`` holds: two of a block's lines, or one line of 50 characters or more."""
    mine = {_code(line) for line in text.splitlines()}
    hits = []
    for where, lines in solution_blocks():
        shared = lines & mine
        if len(shared) >= 2 or any(len(line) >= 50 for line in shared):
            hits.append(f"{where}: {sorted(shared)[0]}")
    return hits


def _text_of(path: str) -> str | None:
    full = ROOT / path
    if (
        full.suffix in (".png", ".jpg", ".gif", ".ico", ".woff", ".woff2", ".lock")
        or full.stat().st_size > 2e6
    ):
        return None
    try:
        text = full.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None
    if full.suffix == ".ipynb":
        return "\n".join("".join(c["source"]) for c in json.loads(text)["cells"])
    return text


def test_the_text_sweep_finds_a_solution_where_there_is_one():
    blocks = solution_blocks()
    assert len(blocks) >= 15 and sum(len(lines) for _, lines in blocks) >= 40
    solutions = "\n".join(
        _text_of(f"exercises/solutions/{name}")
        for name in sorted(p.name for p in (ROOT / "exercises" / "solutions").glob("*.ipynb"))
    )
    assert len(holds_a_solution(solutions)) >= 12
    assert holds_a_solution("    return sum(len(text_of(message)) for message in messages) // 4\n")
    assert not holds_a_solution(
        "notice = user(DROPPED_NOTICE)\n"
    )  # one short line is not a solution


def test_no_file_a_student_receives_holds_a_solution():
    """Lesson notebooks included: a lesson's finished piece must not be an exercise's answer, word for word."""
    hits = [
        f"{path} holds {hit}"
        for path in instructor_only.student_files()
        for hit in holds_a_solution(_text_of(path) or "")
    ]
    assert not hits, "\n".join(hits)


# ---- the behaviour sweep --------------------------------------------------------------------------------

# (check, how many arguments the answer takes, the extra arguments the check gets after the answer)
FUNCTION_TASKS = [
    (checks.check_tokens_of, 1),
    (checks.check_smallest_window, 1),
    (checks.check_token_bill, 1),
    (checks.check_first_lap_without, 2),
    (checks.check_split_zones, 2),
    (checks.check_promote, 2),
    (checks.check_sliding_window, 3),
    (checks.check_pinned_window, 3),
    (checks.check_remarks_window, 3),
    (checks.check_compact, 3),
    (checks.check_cheapest_settings, 3),
    (checks.check_running_summary, 4),
]
TEXT_TASKS = [
    (checks.check_compaction_prompt, ()),
    (checks.check_two_rules_prompt, ()),
    (checks.check_memory, (150,)),
    (checks.check_tight_memory, ()),
    (checks.check_greenhouse_memory, ()),
]


def student_modules() -> list[str]:
    """The importable modules of exercises/ and harness/ that a student receives."""
    names = []
    for path in instructor_only.student_files():
        if path.endswith(".py") and path.startswith(("exercises/", "harness/")):
            names.append(path[:-3].replace("/", ".").removesuffix(".__init__"))
    return names


def _arity(fn) -> tuple[int, int] | None:
    try:
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        return None
    return sum(p.default is p.empty for p in params), len(params)


def candidates():
    """(where, function) for every function a student-received module defines; (where, text) for every text
    one holds at module level (what an answer could import) and for every markdown file."""
    functions, texts = [], []
    for name in student_modules():
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if inspect.isfunction(value) and value.__module__ == name:
                functions.append((f"{name}.{attribute}", value))
            elif isinstance(value, str) and "\n" in value.strip():
                texts.append((f"{name}.{attribute}", value))
    for path in instructor_only.student_files():
        if path.endswith(".md"):
            texts.append((path, (ROOT / path).read_text(encoding="utf-8")))
    return functions, texts


def _passes(check, *answer) -> bool:
    with contextlib.redirect_stdout(io.StringIO()):
        return check(*answer) is True


@pytest.mark.integration  # a few hundred check calls, some of them with runs: about half a minute
def test_nothing_a_student_receives_passes_a_check(tmp_path):
    functions, texts = candidates()
    assert len(functions) > 100 and len(texts) > 15, (len(functions), len(texts))
    here = os.getcwd()
    os.chdir(tmp_path)  # whatever a function writes lands in a throwaway folder
    try:
        passed = []
        for where, fn in functions:
            arity = _arity(fn)
            for check, wanted in FUNCTION_TASKS:
                if arity and arity[0] <= wanted <= arity[1] and _passes(check, fn):
                    passed.append(f"{where} passes {check.__name__}")
        for where, text in texts:
            for check, extra in TEXT_TASKS:
                if _passes(check, text, *extra):
                    passed.append(f"{where} passes {check.__name__}")
    finally:
        os.chdir(here)
    assert not passed, "\n".join(passed)


def test_the_harness_pieces_the_lessons_teach_are_refused_as_answers():
    """The lesson's own promote and template would pass if the checks did not refuse them by name."""
    from harness.prompts import COMPACTION_TEMPLATE
    from harness.promote import promote

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert checks.check_promote(promote) is False
        assert checks.check_compaction_prompt(COMPACTION_TEMPLATE) is False
    assert (
        "write promote yourself" in out.getvalue() and "write the prompt yourself" in out.getvalue()
    )


def test_the_greenhouse_fingerprint_is_the_greenhouse_memory():
    """The check spots a copy of an instructor-only file by its fingerprint: it must be the file's."""
    text = (ROOT / "workspaces" / "greenhouse" / "CLAUDE.md").read_text(encoding="utf-8")
    assert fingerprint(text) == GREENHOUSE_FINGERPRINT
    assert all(
        len(h) == 3 for line in GREENHOUSE_FINGERPRINT for h in line
    )  # too short to read back
