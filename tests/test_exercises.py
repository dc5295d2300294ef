"""The exercises: solutions pass every check, stubs say "not done yet", one source, checks that never raise.

Each notebook is executed once, headless, in its own kernel (four at a time, to keep the
file fast on a small machine). Here too: the instructions say, word for word, the rules each check
tests; a check's verdict is the same with or without an API key; any answer -- a crash, a stub, a
strange value -- gets one verdict line, never a traceback. The corpora of wrong and right answers are
in ``exercise_answers.py`` and run in ``test_exercise_corpus.py``; what students receive is held to
account in ``test_exercise_student_files.py``.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
from contextlib import redirect_stdout
from pathlib import Path

import nbformat
import pytest
from exercise_answers import solution
from nbclient import NotebookClient

from exercises import checks, make_student_copies
from harness.messages import blocks_of, safe_cuts, text_of

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"

NAMES = [p.stem for p in sorted((EXERCISES / "solutions").glob("[0-9][0-9]_*.ipynb"))]
LESSONS = {
    "01": "01_the_filling_desk",
    "02": "02_sliding_window_failure",
    "03": "03_three_zone_compaction",
    "04": "04_running_summary",
    "05": "05_memory_claude_md",
}

ANSI = re.compile(r"\x1b\[[0-9;]*m")  # the verdict word's colour, as a notebook prints it


def test_all_five_exercises_exist():
    assert [n[:2] for n in NAMES] == ["01", "02", "03", "04", "05"]
    assert NAMES == [
        "01_the_desk",
        "02_sliding_window",
        "03_three_zones",
        "04_running_summary",
        "05_memory",
    ]


# ---- executing the notebooks ----------------------------------------------------------------------


def _clean_env() -> dict:
    """The environment of a student without a key (the kernels inherit it)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ANTHROPIC_") and k != "CONTEXT_DESK_MODEL"
    }
    env["PYTHONWARNINGS"] = "ignore"
    return env


@pytest.fixture(scope="module")
def executed():
    """{path: (notebook with outputs, error or None)} for every solution and student notebook."""
    paths = [EXERCISES / "solutions" / f"{n}.ipynb" for n in NAMES]
    paths += [EXERCISES / f"{n}.ipynb" for n in NAMES]
    books = {p: nbformat.read(p, as_version=4) for p in paths}

    async def run(path, book, slots):
        async with slots:
            client = NotebookClient(
                book,
                timeout=180,
                startup_timeout=180,  # make test runs on both cores: a kernel may start slowly
                kernel_name="python3",
                resources={"metadata": {"path": str(path.parent)}},
            )
            await client.async_execute(env=_clean_env())

    async def run_all():
        slots = asyncio.Semaphore(4)  # four kernels at a time: enough to keep two cores busy
        runs = (run(p, b, slots) for p, b in books.items())
        return await asyncio.gather(*runs, return_exceptions=True)

    errors = asyncio.run(run_all())
    return {p: (books[p], e) for p, e in zip(paths, errors)}


def _check_outputs(book) -> list[str]:
    """The printed text of every cell that calls a check, one string per cell."""
    found = []
    for cell in book.cells:
        if cell.cell_type == "code" and "checks.check_" in cell.source:
            text = "".join(
                o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream"
            )
            found.append(ANSI.sub("", text))
    return found


@pytest.mark.integration  # runs the notebooks in kernels
@pytest.mark.parametrize("name", NAMES)
def test_solution_runs_headless_and_every_check_passes(executed, name):
    book, error = executed[EXERCISES / "solutions" / f"{name}.ipynb"]
    assert error is None, f"{name} (solution) failed: {error}"
    outputs = _check_outputs(book)
    assert len(outputs) >= 2, "every exercise has at least two checks"
    for text in outputs:
        assert "✔ PASS:" in text, text
        assert "FAIL" not in text and "Not done" not in text, text
        assert all(len(line) <= 80 for line in text.splitlines()), text


@pytest.mark.integration  # runs the notebooks in kernels
@pytest.mark.parametrize("name", NAMES)
def test_student_copy_runs_headless_and_every_check_says_not_done(executed, name):
    book, error = executed[EXERCISES / f"{name}.ipynb"]
    assert error is None, f"{name} (student copy) failed: {error}"
    for cell in book.cells:
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", f"{name}: a traceback in the student copy"
    outputs = _check_outputs(book)
    assert outputs
    for text in outputs:
        assert text.count("○ Not done yet:") == 1 and text.lstrip().startswith("○ Not done"), text
        assert "PASS" not in text and "FAIL" not in text, text
        assert all(len(line) <= 80 for line in text.splitlines()), text


@pytest.mark.integration  # runs the notebooks in kernels
@pytest.mark.parametrize("name", NAMES)
def test_every_printed_line_fits_in_80_characters(executed, name):
    """The room reads the notebooks on a projector and on laptops: no printed line is wider than 80."""
    for folder in (EXERCISES / "solutions", EXERCISES):
        book, _ = executed[folder / f"{name}.ipynb"]
        for cell in book.cells:
            for output in cell.get("outputs", []):
                for line in ANSI.sub("", output.get("text", "")).splitlines():
                    assert len(line) <= 80, f"{folder.name}/{name}: {line!r}"


def test_every_code_line_fits_in_80_characters_and_every_check_cell_runs_alone():
    for path in sorted(EXERCISES.rglob("[0-9][0-9]_*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            wide = [line for line in cell.source.splitlines() if len(line) > 80]
            assert not wide, f"{path.name}: {wide}"
            if "checks.check_" in cell.source:
                assert cell.source.startswith("from exercises import checks\n"), cell.source


# ---- one source ---------------------------------------------------------------------------------------


def test_student_copies_are_in_sync_with_the_solutions(capsys):
    assert make_student_copies.main(["--check"]) == 0, capsys.readouterr().err


def test_a_drifted_copy_is_caught(tmp_path, monkeypatch):
    """Point the script at a copy of the exercises in which one student notebook was hand-edited."""
    (tmp_path / "solutions").mkdir()
    for name in NAMES[:2]:
        solution = (EXERCISES / "solutions" / f"{name}.ipynb").read_bytes()
        (tmp_path / "solutions" / f"{name}.ipynb").write_bytes(solution)
        (tmp_path / f"{name}.ipynb").write_bytes((EXERCISES / f"{name}.ipynb").read_bytes())
    monkeypatch.setattr(make_student_copies, "HERE", tmp_path)
    monkeypatch.setattr(make_student_copies, "SOLUTIONS", tmp_path / "solutions")
    assert make_student_copies.main(["--check"]) == 0
    drifted = tmp_path / f"{NAMES[0]}.ipynb"
    drifted.write_text(drifted.read_text().replace("Your code here", "my own answer"))
    assert make_student_copies.main(["--check"]) == 1
    assert make_student_copies.main([]) == 0 and make_student_copies.main(["--check"]) == 0


def test_stubs_keep_the_indent_and_turn_values_into_none():
    source = (
        "def f(x):\n    y = 1\n    ### BEGIN SOLUTION\n    return x + y\n    ### END SOLUTION\n\n"
        "### BEGIN SOLUTION\nA = 1\nB: int = 2  # a comment\n### END SOLUTION"
    )
    assert make_student_copies.stub_source(source) == (
        'def f(x):\n    y = 1\n    ### BEGIN SOLUTION\n    raise NotImplementedError("Your code here")\n'
        "    ### END SOLUTION\n\n"
        "### BEGIN SOLUTION\nA = None  # your answer\nB = None  # your answer\n### END SOLUTION"
    )
    with pytest.raises(ValueError, match="only assign values"):
        make_student_copies.stub_source("### BEGIN SOLUTION\nprint(1)\n### END SOLUTION")
    with pytest.raises(ValueError, match="never closed"):
        make_student_copies.stub_source("    ### BEGIN SOLUTION\n    x = 1")


def test_every_solution_block_is_stubbed_in_the_copy():
    BEGIN = make_student_copies.BEGIN
    for name in NAMES:
        solution = nbformat.read(EXERCISES / "solutions" / f"{name}.ipynb", as_version=4)
        copy = nbformat.read(EXERCISES / f"{name}.ipynb", as_version=4)
        assert len(solution.cells) == len(copy.cells)
        blocks = 0
        for theirs, ours in zip(solution.cells, copy.cells):
            blocks += theirs.source.count(BEGIN)
            assert ours.source.count(BEGIN) == theirs.source.count(BEGIN)
            body = re.findall(r"### BEGIN SOLUTION\n(.*?)\n\s*### END SOLUTION", ours.source, re.S)
            assert all(
                re.fullmatch(
                    r"\s*(raise NotImplementedError\(\"Your code here\"\)|"
                    r"(\w+ = None  # your answer\n?)+)",
                    b,
                )
                for b in body
            ), body
        assert blocks >= 2, name


def test_committed_notebooks_have_no_outputs():
    for path in sorted(EXERCISES.rglob("*.ipynb")):
        book = nbformat.read(path, as_version=4)
        for cell in book.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, (
                    f"{path}: outputs committed"
                )
            assert "execution" not in cell.metadata, path


def test_links_point_at_the_lesson_and_the_slides_from_either_folder():
    for name in NAMES:
        for folder in (EXERCISES, EXERCISES / "solutions"):
            text = "\n".join(
                c.source
                for c in nbformat.read(folder / f"{name}.ipynb", as_version=4).cells
                if c.cell_type == "markdown"
            )
            links = re.findall(r"\]\(([^)]+)\)", text)
            targets = {(folder / link).resolve() for link in links if not link.startswith("http")}
            assert ROOT / "notebooks" / f"{LESSONS[name[:2]]}.ipynb" in targets, (folder, links)
            assert ROOT / "slides" in targets, (folder, links)
            assert all(t.exists() for t in {Path(str(t).split("#")[0]) for t in targets}), (
                folder,
                links,
            )


def test_each_exercise_has_its_own_check_module_and_shares_only_common():
    """A student who opens the checks of exercise 03 reads ex03 and, at most, the shared helpers."""
    modules = sorted((EXERCISES / "checks").glob("ex[0-9][0-9]_*.py"))
    assert [m.name[2:4] for m in modules] == ["01", "02", "03", "04", "05"]
    for module in modules:
        text = module.read_text(encoding="utf-8")
        assert not re.search(r"from \.ex\d\d|import ex\d\d", text), (
            f"{module.name} imports another exercise"
        )
        assert len(text.splitlines()) < 650, f"{module.name} is too long to read in one sitting"
    for name in NAMES:
        text = "\n".join(
            c.source for c in nbformat.read(EXERCISES / f"{name}.ipynb", as_version=4).cells
        )
        assert f"checks/ex{name[:2]}_" in text, f"{name} does not point at its own check module"


def test_every_exercise_says_what_is_for_class_and_what_is_homework():
    for name in NAMES:
        intro = (
            nbformat.read(EXERCISES / "solutions" / f"{name}.ipynb", as_version=4).cells[0].source
        )
        assert "in class" in intro and "homework" in intro, name
        assert re.search(r"\d+ min", intro), name


# ---- the instructions and the checks say the same thing --------------------------------------------------

ALL_CHECKS = sorted(
    (getattr(checks, name) for name in dir(checks) if name.startswith("check_")),
    key=lambda c: c.__name__,
)
NOTEBOOK_OF = {
    "01": ["tokens_of", "overflow_prediction", "smallest_window"],
    "02": ["sliding_window", "first_lap_without", "pinned_window", "remarks_window"],
    "03": ["split_zones", "compact", "compaction_prompt", "two_rules_prompt"],
    "04": ["running_summary", "token_bill", "cheapest_settings"],
    "05": ["memory", "promote", "tight_memory", "greenhouse_memory"],
}


def rules_of(check) -> list[str]:
    """The rule lines of a check's docstring: the bullets under its first paragraph."""
    return [line.strip() for line in check.__doc__.splitlines() if line.strip().startswith("- ")]


@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda c: c.__name__)
def test_every_check_says_what_it_checks_and_its_notebook_says_the_same_words(check):
    doc = check.__doc__
    assert doc and doc.startswith("Checks "), (
        f"{check.__name__}: the docstring starts by naming what it checks"
    )
    rules = rules_of(check)
    assert len(rules) >= 2, check.__name__
    assert "\n\n" in doc.strip() and len(doc.strip().split("\n\n")[-1]) > 40, (
        "and says what it tries"
    )
    number = next(n for n, tasks in NOTEBOOK_OF.items() if check.__name__[6:] in tasks)
    name = next(n for n in NAMES if n.startswith(number))
    for folder in (EXERCISES / "solutions", EXERCISES):
        text = "\n".join(
            c.source
            for c in nbformat.read(folder / f"{name}.ipynb", as_version=4).cells
            if c.cell_type == "markdown"
        )
        missing = [rule for rule in rules if rule not in text]
        assert not missing, f"{folder.name}/{name}: the instructions do not say {missing}"


def test_every_check_belongs_to_one_notebook():
    assert sorted(c.__name__[6:] for c in ALL_CHECKS) == sorted(
        t for tasks in NOTEBOOK_OF.values() for t in tasks
    )


def test_exercise_02_settles_what_the_issue_found_unsaid():
    """May the cut fall before a user message, must the notice be exactly DROPPED_NOTICE, what pinned_window
    promises: each is one rule line, in the check and in the notebook."""
    sliding, pinned = (
        " ".join(rules_of(checks.check_sliding_window)),
        " ".join(rules_of(checks.check_pinned_window)),
    )
    assert "exactly one notice, `user(DROPPED_NOTICE)`" in sliding
    assert "before a user message that carries no tool result" in sliding
    assert (
        "If not even the request fits, return `[]`" in pinned and "return `[messages[0]]`" in pinned
    )
    assert "starts with `DROPPED_NOTICE`" in " ".join(rules_of(checks.check_remarks_window))


# ---- the same verdict with or without a key ---------------------------------------------------------------


def verdict(check, *answer) -> tuple[bool, str]:
    """(what the check returned, what it printed, with its line breaks undone: a verdict is printed in
    lines of at most 80 characters, so a phrase may run over two of them)."""
    out = io.StringIO()
    with redirect_stdout(out):
        result = check(*answer)
    printed = out.getvalue()
    assert all(len(line) <= 80 for line in printed.splitlines()), printed
    return result, " ".join(printed.split())


def _keyless_answers():
    from exercise_answers import settings, tokens_counting_words, window_keeping_the_oldest

    return [
        (checks.check_tokens_of, (solution("01_the_desk", "tokens_of"),)),
        (checks.check_tokens_of, (tokens_counting_words,)),
        (checks.check_sliding_window, (window_keeping_the_oldest,)),
        (checks.check_memory, (solution("05_memory", "MEMORY"), 80)),
        (checks.check_two_rules_prompt, (solution("03_three_zones", "TWO_RULES_PROMPT"),)),
        (checks.check_cheapest_settings, (settings((1, 0)),)),
    ]


def test_the_same_verdict_with_or_without_a_key(monkeypatch):
    """The checks always use the offline model: a key (or a model name, or a server) changes no verdict."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CONTEXT_DESK_MODEL"):
        monkeypatch.delenv(name, raising=False)
    without = [verdict(check, *answer) for check, answer in _keyless_answers()]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    monkeypatch.setenv(
        "ANTHROPIC_BASE_URL", "http://127.0.0.1:9"
    )  # nothing listens: any call would fail
    monkeypatch.setenv("CONTEXT_DESK_MODEL", "claude-not-a-model")
    with_key = [verdict(check, *answer) for check, answer in _keyless_answers()]
    assert with_key == without
    assert [ok for ok, _ in without] == [True, False, False, True, True, False]


# ---- a check never raises -------------------------------------------------------------------------------

C = checks


def crashes(*_args, **_kwargs):
    raise KeyError("content")


def unfinished(*_args, **_kwargs):
    raise NotImplementedError("Your code here")


ALL_FUNCTION_CHECKS = [
    C.check_tokens_of,
    C.check_smallest_window,
    C.check_sliding_window,
    C.check_first_lap_without,
    C.check_pinned_window,
    C.check_remarks_window,
    C.check_split_zones,
    C.check_compact,
    C.check_running_summary,
    C.check_token_bill,
    C.check_cheapest_settings,
    C.check_promote,
]


@pytest.mark.parametrize("check", ALL_FUNCTION_CHECKS, ids=lambda c: c.__name__)
def test_an_error_or_a_stub_is_a_verdict_never_a_traceback(check):
    ok, printed = verdict(check, crashes)
    assert (
        ok is False
        and printed.startswith("✘ FAIL:")
        and "KeyError: 'content'" in printed
        and "Hint:" in printed
    )
    assert "line " in printed and "raise KeyError" in printed, (
        printed
    )  # where in the student's code
    ok, printed = verdict(check, unfinished)
    assert ok is False and printed.startswith("○ Not done yet:")
    ok, printed = verdict(check, None)
    assert ok is False and printed.startswith("○ Not done yet:")


@pytest.mark.parametrize(
    "check, answer",
    [
        (C.check_overflow_prediction, (None,)),
        (C.check_compaction_prompt, (None,)),
        (C.check_two_rules_prompt, (None,)),
        (C.check_memory, (None, None)),
        (C.check_memory, ("- a line", None)),
        (C.check_tight_memory, (None,)),
        (C.check_greenhouse_memory, (None,)),
    ],
)
def test_an_unfinished_value_is_not_done(check, answer):
    ok, printed = verdict(check, *answer)
    assert ok is False and printed.startswith("○ Not done yet:")


class Touchy:
    """A value no comparison may touch: == raises, bool() raises, it has no length."""

    def __eq__(self, other):
        raise RuntimeError("compared")

    __hash__ = None

    def __bool__(self):
        raise RuntimeError("truth-tested")


def _returning(value):
    def answer(*_args, **_kwargs):
        return value

    return answer


def _exiting(*_args, **_kwargs):
    raise SystemExit(1)


def _recursing(*args, **kwargs):
    return _recursing(*args, **kwargs)


@pytest.mark.parametrize(
    "answer",
    [
        _returning(Touchy()),
        _returning(iter([])),
        _returning(float("nan")),
        _returning(10**400),
        _returning(print),
        _exiting,
        _recursing,
    ],
    ids=[
        "a value that cannot be compared",
        "a generator",
        "NaN",
        "a huge number",
        "a function",
        "exit()",
        "endless recursion",
    ],
)
@pytest.mark.parametrize("check", ALL_FUNCTION_CHECKS, ids=lambda c: c.__name__)
def test_a_strange_answer_gets_a_fail_with_a_hint_and_no_traceback(check, answer):
    ok, printed = verdict(check, answer)
    assert ok is False and printed.count("✘ FAIL:") == 1, printed
    assert "Hint:" in printed.split("✘ FAIL:")[1], printed
    assert "could not finish" not in printed and "Traceback" not in printed, printed


def test_a_wrong_prediction_is_told_what_happened_at_its_lap_never_where_the_wall_was():
    from exercise_answers import overflow_lap

    wall = overflow_lap()
    for guess in (2, wall - 3, wall + 3, wall + 9):
        ok, printed = verdict(C.check_overflow_prediction, guess, 6000)
        assert ok is False and "Hint:" in printed, printed
        assert f"lap {wall}" not in printed.replace(f"lap {guess}", ""), printed


def test_an_error_names_the_line_of_the_students_code():
    def tokens_of(messages):
        first = messages[0]["content"]
        return len(first)

    _, printed = verdict(C.check_tokens_of, tokens_of)
    assert "IndexError: list index out of range" in printed
    assert '`first = messages[0]["content"]`' in printed, printed


def test_an_error_in_the_harness_is_not_blamed_on_the_student(monkeypatch):
    """If the model itself breaks during a check, the verdict says so instead of blaming the answer."""
    from stage.offline import OfflineModel

    monkeypatch.setattr(
        OfflineModel, "reply", text_of
    )  # a harness function called wrongly: a TypeError
    ok, printed = verdict(C.check_memory, solution("05_memory", "MEMORY"), 80)
    assert ok is False and "could not finish" in printed and "not in your answer" in printed, (
        printed
    )


def test_an_injected_full_disk_is_undone_whatever_happens(tmp_path):
    import builtins

    from exercises.checks.ex05_memory import disk_full_for

    before = builtins.open
    target = tmp_path / "CLAUDE.md"
    target.write_text("- kept\n")
    with pytest.raises(OSError), disk_full_for(target):
        target.write_text("- gone\n")
    assert builtins.open is before and target.read_text() == ""  # write_text emptied it first
    (tmp_path / "other.md").write_text("fine")  # other files are untouched


def test_compare_with_tokenizer_prints_both_counts_and_survives_a_stub():
    _, printed = verdict(C.compare_with_tokenizer, lambda ms: sum(len(text_of(m)) for m in ms) // 4)
    assert "app/auth.py" in printed and "cl100k" in printed and "biggest miss" in printed
    _, printed = verdict(C.compare_with_tokenizer, unfinished)
    assert "Not done yet" in printed and "app/auth.py" in printed


# ---- the generators make the cases a careful grader tries ------------------------------------------------


def test_the_window_scenarios_hold_every_edge():
    from exercises.checks.ex02_sliding_window import NOTICE, window_scenarios

    for pinned in (False, True):
        cases = list(window_scenarios(2, pinned=pinned))
        totals = [(sum(c(m) for m in ms), b, ms, c) for ms, b, c in cases]
        assert any(t == b for t, b, _, _ in totals), "a budget the whole history fits exactly"
        assert pinned or any(b == 0 for _, b, _, _ in totals), "a budget of 0"
        head = lambda ms, c: c(ms[0]) if pinned else 0  # noqa: E731
        newest = [
            c(NOTICE) + head(ms, c) + sum(c(m) for m in ms[safe_cuts(ms)[-2] :])
            for _, _, ms, c in totals
        ]
        assert any(n > b for n, (_, b, _, _) in zip(newest, totals)), (
            "a newest turn over the budget"
        )
        assert any(n == b for n, (_, b, _, _) in zip(newest, totals)) or any(
            t > b for t, b, _, _ in totals
        ), "tight budgets"
        texts = [text_of(m) for ms, _, _ in cases for m in ms]
        assert any(len(t.encode()) > len(t) for t in texts), "non-ASCII text"
        inputs = [
            b["input"]
            for ms, _, _ in cases
            for m in ms
            for b in blocks_of(m)
            if b["type"] == "tool_use"
        ]
        assert any(len(str(i)) > 500 for i in inputs), "a big tool_use input"


@pytest.mark.parametrize("seed", [11, 12])
def test_the_solutions_pass_on_other_seeds_too(seed):
    """The checks take a seed: the solutions must pass whatever the fresh cases are, not only on the default."""
    for check, name, function in [
        (C.check_tokens_of, "01_the_desk", "tokens_of"),
        (C.check_sliding_window, "02_sliding_window", "sliding_window"),
        (C.check_split_zones, "03_three_zones", "split_zones"),
        (C.check_compact, "03_three_zones", "compact"),
        (C.check_promote, "05_memory", "promote"),
    ]:
        ok, printed = verdict(check, solution(name, function), seed)
        assert ok, printed


def test_the_readme_says_only_what_the_offline_model_does():
    """Every wording the exercises README says the model reads sends session two to staging; the others do not."""
    from exercises.checks.ex05_memory import session_two

    text = (EXERCISES / "README.md").read_text(encoding="utf-8")
    reads = text[text.index("- **A rule about the database target.**") : text.index("It ignores")]
    ignores = text[
        text.index("It ignores") : text.index("the full list is in")
    ]  # the ignored and the missed
    pointers = "- Sign-in lives in app/auth.py; database changes are SQL files in migrations/.\n"
    for part, target in ((reads, "staging"), (ignores, "production")):
        quotes = [
            " ".join(q.split()) for q in re.findall(r'"([^"]+)"', part)
        ]  # a quote may wrap a line
        assert len(quotes) >= (10 if target == "staging" else 3)
        for quote in quotes:
            run = session_two(checks.GOALS[0], pointers + f"- {quote[0].upper()}{quote[1:]}.\n")
            assert run.database_target == target, (quote, run.database_target)


def _mutating(fn):
    """The right answer, plus one bad habit: afterwards it drops the last item of the list it was given."""

    def answer(first, *rest):
        result = fn(first, *rest)
        if isinstance(first, list) and first:
            first.pop()
        return result

    return answer


@pytest.mark.parametrize(
    "check, name, function",
    [
        (C.check_tokens_of, "01_the_desk", "tokens_of"),
        (C.check_smallest_window, "01_the_desk", "smallest_window"),
        (C.check_sliding_window, "02_sliding_window", "sliding_window"),
        (C.check_first_lap_without, "02_sliding_window", "first_lap_without"),
        (C.check_pinned_window, "02_sliding_window", "pinned_window"),
        (C.check_remarks_window, "02_sliding_window", "remarks_window"),
        (C.check_split_zones, "03_three_zones", "split_zones"),
        (C.check_compact, "03_three_zones", "compact"),
        (C.check_running_summary, "04_running_summary", "running_summary"),
        (C.check_token_bill, "04_running_summary", "token_bill"),
    ],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_every_check_catches_a_changed_input(check, name, function):
    ok, printed = verdict(check, _mutating(solution(name, function)))
    assert ok is False and "changed the list it was given" in printed, printed
