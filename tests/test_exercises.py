"""The exercises: solutions pass every check, stubs say "not done yet", typical wrong answers get a hint.

Each notebook is executed once, headless, in its own kernel (all ten at the same time, to keep the
file fast on a small machine). The wrong answers below are the mistakes students really make, kept
as small functions; each must be rejected by its check with a hint that names the idea it missed.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import sys
from contextlib import redirect_stdout
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from harness.context import DROPPED_NOTICE
from harness.messages import safe_cuts, text_of, tool_results, user
from harness.prompts import NAIVE_PROMPT

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"
sys.path.insert(0, str(EXERCISES))

import checks  # noqa: E402
import make_student_copies  # noqa: E402

NAMES = [p.stem for p in sorted((EXERCISES / "solutions").glob("[0-9][0-9]_*.ipynb"))]
LESSONS = {"01": "01_the_filling_desk", "02": "02_sliding_window_failure", "03": "03_three_zone_compaction",
           "04": "04_running_summary", "05": "05_memory_claude_md"}


def test_all_five_exercises_exist():
    assert [n[:2] for n in NAMES] == ["01", "02", "03", "04", "05"]
    assert NAMES == ["01_the_desk", "02_sliding_window", "03_three_zones", "04_running_summary", "05_memory"]


# ---- executing the notebooks ----------------------------------------------------------------------

def _clean_env() -> dict:
    """The environment of a student without a key (the kernels inherit it)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ANTHROPIC_") and k != "CONTEXT_DESK_MODEL"}
    env["PYTHONWARNINGS"] = "ignore"
    return env


@pytest.fixture(scope="module")
def executed():
    """{path: (notebook with outputs, error or None)} for every solution and student notebook."""
    paths = [EXERCISES / "solutions" / f"{n}.ipynb" for n in NAMES]
    paths += [EXERCISES / f"{n}.ipynb" for n in NAMES]
    books = {p: nbformat.read(p, as_version=4) for p in paths}

    async def run(path, book):
        client = NotebookClient(book, timeout=60, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}})
        await client.async_execute(env=_clean_env())

    async def run_all():
        return await asyncio.gather(*(run(p, b) for p, b in books.items()), return_exceptions=True)

    errors = asyncio.run(run_all())
    return {p: (books[p], e) for p, e in zip(paths, errors)}


def _check_outputs(book) -> list[str]:
    """The printed text of every cell that calls a check, one string per cell."""
    found = []
    for cell in book.cells:
        if cell.cell_type == "code" and "checks.check_" in cell.source:
            found.append("".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream"))
    return found


@pytest.mark.parametrize("name", NAMES)
def test_solution_runs_headless_and_every_check_passes(executed, name):
    book, error = executed[EXERCISES / "solutions" / f"{name}.ipynb"]
    assert error is None, f"{name} (solution) failed: {error}"
    outputs = _check_outputs(book)
    assert len(outputs) >= 2, "every exercise has at least two checks"
    for text in outputs:
        assert "PASS:" in text, text
        assert "FAIL" not in text and "Not done" not in text, text


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
        assert text.strip().splitlines()[-1].startswith("Not done yet:"), text
        assert "PASS" not in text and "FAIL" not in text, text


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
    source = ("def f(x):\n    y = 1\n    ### BEGIN SOLUTION\n    return x + y\n    ### END SOLUTION\n\n"
              "### BEGIN SOLUTION\nA = 1\nB: int = 2  # a comment\n### END SOLUTION")
    assert make_student_copies.stub_source(source) == (
        "def f(x):\n    y = 1\n    ### BEGIN SOLUTION\n    raise NotImplementedError(\"Your code here\")\n"
        "    ### END SOLUTION\n\n"
        "### BEGIN SOLUTION\nA = None  # your answer\nB = None  # your answer\n### END SOLUTION")
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
            assert all(re.fullmatch(r"\s*(raise NotImplementedError\(\"Your code here\"\)|"
                                    r"(\w+ = None  # your answer\n?)+)", b) for b in body), body
        assert blocks >= 2, name


def test_committed_notebooks_have_no_outputs():
    for path in sorted(EXERCISES.rglob("*.ipynb")):
        book = nbformat.read(path, as_version=4)
        for cell in book.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{path}: outputs committed"
            assert "execution" not in cell.metadata, path


def test_links_point_at_the_lesson_and_the_slides_from_either_folder():
    for name in NAMES:
        for folder in (EXERCISES, EXERCISES / "solutions"):
            text = "\n".join(c.source for c in nbformat.read(folder / f"{name}.ipynb", as_version=4).cells
                             if c.cell_type == "markdown")
            links = re.findall(r"\]\(([^)]+)\)", text)
            targets = {(folder / link).resolve() for link in links if not link.startswith("http")}
            assert ROOT / "notebooks" / f"{LESSONS[name[:2]]}.ipynb" in targets, (folder, links)
            assert ROOT / "slides" in targets, (folder, links)


# ---- typical wrong answers, each rejected with a relevant hint ----------------------------------------

def verdict(check, *answer) -> tuple[bool, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        result = check(*answer)
    return result, out.getvalue()


def rejected(check, *answer, hint: str):
    result, printed = verdict(check, *answer)
    assert result is False, printed
    line = next(line for line in printed.splitlines() if line.startswith("FAIL:"))
    assert hint.lower() in line.split("Hint:", 1)[1].lower(), line


# 01 --------------------------------------------------------------------------------------------------

def tokens_counting_words(messages):
    return sum(len(text_of(m).split()) for m in messages)


def tokens_counting_characters(messages):
    return sum(len(text_of(m)) for m in messages)


def tokens_of_text_blocks_only(messages):
    blocks = [b for m in messages for b in
              ([{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"])]
    return sum(len(b.get("text", "")) for b in blocks if b.get("type") == "text") // 4


@pytest.mark.parametrize("wrong, hint", [
    (tokens_counting_words, "counting words"),
    (tokens_counting_characters, "divide it by 4"),
    (tokens_of_text_blocks_only, "every tool_result"),
])
def test_tokens_of_wrong_answers(wrong, hint):
    rejected(checks.check_tokens_of, wrong, hint=hint)


@pytest.mark.parametrize("guess, hint", [(5, "growth of the last probe laps"), (20, "how many more laps fit"),
                                         ("11", "whole lap number")])
def test_overflow_prediction_wrong_answers(guess, hint):
    rejected(checks.check_overflow_prediction, guess, 6000, hint=hint)


# 02 --------------------------------------------------------------------------------------------------

def window_popping_from_the_front(messages, budget, counter):
    """Drops the oldest message, one at a time: may keep a tool_result whose tool_use is gone."""
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    notice = user(DROPPED_NOTICE)
    kept = list(messages)
    while kept and sum(counter(m) for m in [notice] + kept) > budget:
        kept.pop(0)
    return [notice] + kept


def window_without_a_notice(messages, budget, counter):
    start = len(messages)
    for cut in reversed(safe_cuts(messages)[:-1]):
        if sum(counter(m) for m in messages[cut:]) > budget:
            break
        start = cut
    return messages[start:]


def window_keeping_the_oldest(messages, budget, counter):
    fits = [c for c in safe_cuts(messages) if sum(counter(m) for m in messages[:c]) <= budget]
    return messages[:max(fits)]           # whole turns, from the front: the request stays, the newest go


def window_not_counting_its_notice(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    start = len(messages)
    for cut in reversed(safe_cuts(messages)[:-1]):
        if sum(counter(m) for m in messages[cut:]) > budget:
            break
        start = cut
    return [user(DROPPED_NOTICE)] + messages[start:]


@pytest.mark.parametrize("wrong, hint", [
    (window_popping_from_the_front, "never between a call and its result"),
    (window_without_a_notice, "start with a user message"),
    (window_keeping_the_oldest, "NEWEST"),
    (window_not_counting_its_notice, "the notice"),
])
def test_sliding_window_wrong_answers(wrong, hint):
    rejected(checks.check_sliding_window, wrong, hint=hint)


def _solution(name: str, function: str):
    """A function from a solution notebook, run in a fresh namespace (to build wrong answers on top of)."""
    book = nbformat.read(EXERCISES / "solutions" / f"{name}.ipynb", as_version=4)
    namespace = {"checks": checks}
    for cell in book.cells:
        if cell.cell_type == "code" and f"def {function}(" in cell.source:
            exec(cell.source, namespace)
    return namespace[function]


def pinned_window_that_forgets_the_head(messages, budget, counter):
    return _solution("02_sliding_window", "sliding_window")(messages, budget, counter)


def pinned_window_over_budget(messages, budget, counter):
    return messages[:1] + _solution("02_sliding_window", "sliding_window")(messages[1:], budget, counter)


def first_lap_counted_from_zero(laps, text):
    seen = False
    for i, lap in enumerate(laps):
        if any(text in text_of(m).lower() for m in lap.sent):
            seen = True
        elif seen:
            return i
    return None


def first_lap_missing_at_all(laps, text):
    return next((lap.number for lap in laps if not any(text in text_of(m).lower() for m in lap.sent)), None)


def first_lap_that_dropped_anything(laps, text):
    return next((lap.number for lap in laps if lap.kind == "drop"), None)


@pytest.mark.parametrize("check, wrong, hint", [
    (checks.check_pinned_window, pinned_window_that_forgets_the_head, "pin the head"),
    (checks.check_pinned_window, pinned_window_over_budget, "pinned head"),
    (checks.check_first_lap_without, first_lap_counted_from_zero, "lap.number"),
    (checks.check_first_lap_without, first_lap_missing_at_all, "had not been given yet"),
    (checks.check_first_lap_without, first_lap_that_dropped_anything, "still on the desk"),
])
def test_window_and_lap_wrong_answers(check, wrong, hint):
    rejected(check, wrong, hint=hint)


# 03 --------------------------------------------------------------------------------------------------

def split_with_a_naive_tail(messages, keep_recent):
    cut = max(1, len(messages) - keep_recent)
    return messages[:1], messages[1:cut], messages[cut:]


def split_with_two_messages_in_the_head(messages, keep_recent):
    cut = max(2, len(messages) - keep_recent)
    while cut < len(messages) and tool_results(messages[cut]):
        cut -= 1
    return messages[:2], messages[2:cut], messages[cut:]


def split_moving_the_cut_forward(messages, keep_recent):
    cut = max(1, len(messages) - keep_recent)
    while cut < len(messages) and tool_results(messages[cut]):
        cut += 1
    return messages[:1], messages[1:cut], messages[cut:]


def compact_that_summarizes_the_request(messages, summarize, keep_recent):
    head, middle, tail = checks._reference_split(messages, keep_recent)
    return [user("[Summary]\n" + summarize(head + middle))] + tail if middle else list(messages)


def compact_as_an_assistant_message(messages, summarize, keep_recent):
    head, middle, tail = checks._reference_split(messages, keep_recent)
    if not middle:
        return list(messages)
    return head + [{"role": "assistant", "content": [{"type": "text", "text": summarize(middle)}]}] + tail


def compact_that_keeps_the_middle(messages, summarize, keep_recent):
    head, middle, tail = checks._reference_split(messages, keep_recent)
    if not middle:
        return list(messages)
    return head + middle + [user("[Summary]\n" + summarize(middle))] + tail


NO_CONSTRAINTS_PROMPT = """Summarize the session into notes, in at most {max_words} words:
- Goal: the user's request.
- Facts: file paths and line numbers found.
- Done / pending: progress.
<transcript>
{transcript}
</transcript>"""
TIGHT_PROMPT = NO_CONSTRAINTS_PROMPT.replace("{max_words} words", "12 words").replace(
    "- Facts", "- Standing constraints: every rule, word for word.\n- Facts")
UNTAGGED_PROMPT = "Summarize this, keeping every rule the user gave:\n{transcript}"
BRACES_PROMPT = "Summarize as JSON like {\"goal\": ...}:\n<transcript>\n{transcript}\n</transcript>"


@pytest.mark.parametrize("check, wrong, hint", [
    (checks.check_split_zones, split_with_a_naive_tail, "move the boundary back one message"),
    (checks.check_split_zones, split_with_two_messages_in_the_head, "the request alone"),
    (checks.check_split_zones, split_moving_the_cut_forward, "or one more"),
    (checks.check_compact, compact_that_summarizes_the_request, "summarize only the middle"),
    (checks.check_compact, compact_as_an_assistant_message, "user message"),
    (checks.check_compact, compact_that_keeps_the_middle, "ONE summary message"),
    pytest.param(checks.check_compaction_prompt, NAIVE_PROMPT, "standing-constraints", id="naive prompt"),
    pytest.param(checks.check_compaction_prompt, NO_CONSTRAINTS_PROMPT, "standing-constraints",
                 id="prompt without a constraints section"),
    pytest.param(checks.check_compaction_prompt, TIGHT_PROMPT, "word limit", id="prompt with a tiny limit"),
    pytest.param(checks.check_compaction_prompt, UNTAGGED_PROMPT, "<transcript>", id="prompt without tags"),
    pytest.param(checks.check_compaction_prompt, BRACES_PROMPT, "doubled", id="prompt with stray braces"),
])
def test_three_zone_wrong_answers(check, wrong, hint):
    rejected(check, wrong, hint=hint)


# 04 --------------------------------------------------------------------------------------------------

def summary_that_grows(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events), chunk_size):
        summary = (summary + "\n" + fold(summary, events[start:start + chunk_size])).strip()
    return summary


def fold_everything_so_far(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events), chunk_size):
        summary = fold(summary, events[:start + chunk_size])
    return summary


def fold_forgetting_the_summary(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events), chunk_size):
        summary = fold("", events[start:start + chunk_size])
    return summary


def fold_every_event(events, fold, chunk_size=4, summary=""):
    for event in events:
        summary = fold(summary, [event])
    return summary


def bill_of_the_desk_only(laps):
    return sum(lap.assembled_tokens for lap in laps), sum(lap.raw_tokens for lap in laps)


def bill_of_the_last_lap(laps):
    return sum(lap.billed_input for lap in laps), laps[-1].raw_tokens


def bill_summing_running_totals(laps):
    return sum(lap.total_input for lap in laps), sum(lap.raw_tokens for lap in laps)


def bill_the_wrong_way_round(laps):
    return sum(lap.raw_tokens for lap in laps), sum(lap.billed_input for lap in laps)


@pytest.mark.parametrize("check, wrong, hint", [
    (checks.check_running_summary, summary_that_grows, "grows with the history"),
    (checks.check_running_summary, fold_everything_so_far, "only the NEW chunk"),
    (checks.check_running_summary, fold_forgetting_the_summary, "previous summary"),
    (checks.check_running_summary, fold_every_event, "one fold per chunk"),
    (checks.check_token_bill, bill_of_the_desk_only, "summary calls are billed too"),
    (checks.check_token_bill, bill_of_the_last_lap, "SUM of lap.raw_tokens"),
    (checks.check_token_bill, bill_summing_running_totals, "running total"),
    (checks.check_token_bill, bill_the_wrong_way_round, "wrong way round"),
])
def test_running_summary_wrong_answers(check, wrong, hint):
    rejected(check, wrong, hint=hint)


# 05 --------------------------------------------------------------------------------------------------

RULE_LINE = "- Never touch production: database changes go to staging only."
WHERE_LINES = ("- Login code: app/auth.py. Data fixes: SQL files in migrations/.\n"
               "- Pending migrations say `-- status: pending`.")


TOO_LONG = "\n".join([RULE_LINE, WHERE_LINES] + [f"- Module {n} does thing {n}." for n in range(4)])


@pytest.mark.parametrize("memory, budget, hint", [
    (TOO_LONG, 150, "four lines"),
    (WHERE_LINES, 100, "standing rule must be in memory"),
    (RULE_LINE, 100, "where things live"),
    (RULE_LINE + "\n" + WHERE_LINES, 2000, "every turn"),
    (RULE_LINE + "\n" + WHERE_LINES, 10, "trim it"),
])
def test_memory_wrong_answers(memory, budget, hint):
    rejected(checks.check_memory, memory, budget, hint=hint)


def _constraints(summary):
    lines, inside = [], False
    for line in summary.splitlines():
        if line.strip().lower().startswith("standing constraints"):
            inside = True
        elif inside and line.startswith("- "):
            lines.append(line)
        else:
            inside = False
    return lines


def promote_the_whole_summary(summary, memory_path):
    path = Path(memory_path)
    old = path.read_text() if path.exists() else ""
    path.write_text(old + ("" if not old or old.endswith("\n") else "\n") + summary + "\n")


def promote_without_checking(summary, memory_path):
    path = Path(memory_path)
    old = path.read_text() if path.exists() else ""
    glue = "" if not old or old.endswith("\n") else "\n"
    path.write_text(old + glue + "".join(f"{r}\n" for r in _constraints(summary)))


def promote_by_overwriting(summary, memory_path):
    Path(memory_path).write_text("".join(f"{r}\n" for r in _constraints(summary)))


def promote_gluing_onto_the_last_line(summary, memory_path):
    path = Path(memory_path)
    old = path.read_text() if path.exists() else ""
    held = {line.strip() for line in old.splitlines()}
    path.write_text(old + "".join(f"{r}\n" for r in _constraints(summary) if r not in held))


@pytest.mark.parametrize("wrong, hint", [
    (promote_the_whole_summary, "only the standing-constraints lines"),
    (promote_without_checking, "duplicate"),
    (promote_by_overwriting, "never overwrite"),
    (promote_gluing_onto_the_last_line, "newline"),
])
def test_promote_wrong_answers(wrong, hint):
    rejected(checks.check_promote, wrong, hint=hint)


# ---- a check never raises ------------------------------------------------------------------------------

def crashes(*_args, **_kwargs):
    raise KeyError("content")


def unfinished(*_args, **_kwargs):
    raise NotImplementedError("Your code here")


ALL_FUNCTION_CHECKS = [checks.check_tokens_of, checks.check_sliding_window, checks.check_first_lap_without,
                       checks.check_pinned_window, checks.check_split_zones, checks.check_compact,
                       checks.check_running_summary, checks.check_token_bill, checks.check_promote]


@pytest.mark.parametrize("check", ALL_FUNCTION_CHECKS, ids=lambda c: c.__name__)
def test_an_error_or_a_stub_is_a_verdict_never_a_traceback(check):
    ok, printed = verdict(check, crashes)
    assert ok is False and printed.startswith("FAIL:") and "KeyError" in printed and "Hint:" in printed
    ok, printed = verdict(check, unfinished)
    assert ok is False and printed.startswith("Not done yet:")
    ok, printed = verdict(check, None)
    assert ok is False and printed.startswith("Not done yet:")


@pytest.mark.parametrize("check, answer", [
    (checks.check_overflow_prediction, (None,)),
    (checks.check_compaction_prompt, (None,)),
    (checks.check_memory, (None, None)),
    (checks.check_memory, ("- a line", None)),
])
def test_an_unfinished_value_is_not_done(check, answer):
    ok, printed = verdict(check, *answer)
    assert ok is False and printed.startswith("Not done yet:")


def test_compare_with_tokenizer_prints_both_counts_and_survives_a_stub():
    _, printed = verdict(checks.compare_with_tokenizer, lambda ms: sum(len(text_of(m)) for m in ms) // 4)
    assert "app/auth.py" in printed and "cl100k" in printed and "biggest miss" in printed
    _, printed = verdict(checks.compare_with_tokenizer, unfinished)
    assert "Not done yet" in printed and "app/auth.py" in printed
