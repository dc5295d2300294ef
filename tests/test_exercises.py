"""The exercises: solutions pass every check, stubs say "not done yet", wrong answers get the right hint.

Each notebook is executed once, headless, in its own kernel (all ten at the same time, to keep the
file fast on a small machine). ``CORPUS`` holds the wrong answers -- the mistakes students make and
the ones a careful grader tries (empty inputs, exact fits, mutated inputs, formats, return values,
a write that fails half way) -- as small functions or values; each must be rejected by its check with
a hint that names the mistake. ``RIGHT_ANSWERS`` are correct answers unlike the solutions, which must
pass: the checks test the behaviour asked for, not one way of writing it.
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
from nbclient import NotebookClient

from exercises import checks, make_student_copies
from harness.context import DROPPED_NOTICE
from harness.messages import blocks_of, safe_cuts, text_of, tool_results, user
from harness.prompts import COMPACTION_TEMPLATE, NAIVE_PROMPT

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"

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


@pytest.mark.integration      # runs the notebooks in kernels
@pytest.mark.parametrize("name", NAMES)
def test_solution_runs_headless_and_every_check_passes(executed, name):
    book, error = executed[EXERCISES / "solutions" / f"{name}.ipynb"]
    assert error is None, f"{name} (solution) failed: {error}"
    outputs = _check_outputs(book)
    assert len(outputs) >= 2, "every exercise has at least two checks"
    for text in outputs:
        assert "PASS:" in text, text
        assert "FAIL" not in text and "Not done" not in text, text


@pytest.mark.integration      # runs the notebooks in kernels
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
            assert all(t.exists() for t in {Path(str(t).split("#")[0]) for t in targets}), (folder, links)


def test_each_exercise_has_its_own_check_module_and_shares_only_common():
    """A student who opens the checks of exercise 03 reads ex03 and, at most, the shared helpers."""
    modules = sorted((EXERCISES / "checks").glob("ex[0-9][0-9]_*.py"))
    assert [m.name[2:4] for m in modules] == ["01", "02", "03", "04", "05"]
    for module in modules:
        text = module.read_text(encoding="utf-8")
        assert not re.search(r"from \.ex\d\d|import ex\d\d", text), f"{module.name} imports another exercise"
        assert len(text.splitlines()) < 500, f"{module.name} is too long to read in one sitting"
    for name in NAMES:
        text = "\n".join(c.source for c in nbformat.read(EXERCISES / f"{name}.ipynb", as_version=4).cells)
        assert f"checks/ex{name[:2]}_" in text, f"{name} does not point at its own check module"


def test_every_exercise_says_what_is_for_class_and_what_is_homework():
    for name in NAMES:
        intro = nbformat.read(EXERCISES / "solutions" / f"{name}.ipynb", as_version=4).cells[0].source
        assert "in class" in intro and "homework" in intro, name
        assert re.search(r"\d+ min", intro), name


# ---- verdict helpers ------------------------------------------------------------------------------------

def verdict(check, *answer) -> tuple[bool, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        result = check(*answer)
    return result, out.getvalue()


def rejected(check, *answer, hint: str):
    result, printed = verdict(check, *answer)
    assert result is False, printed
    lines = [line for line in printed.splitlines() if line.startswith("FAIL:")]
    assert len(lines) == 1, printed
    assert hint.lower() in lines[0].split("Hint:", 1)[1].lower(), lines[0]


_NAMESPACES: dict = {}


def solution(name: str, function: str):
    """A function or value from a solution notebook (its definition cells only, run in a fresh namespace)."""
    if name not in _NAMESPACES:
        namespace = {"checks": checks}
        book = nbformat.read(EXERCISES / "solutions" / f"{name}.ipynb", as_version=4)
        for cell in book.cells:
            if cell.cell_type != "code" or "checks.check_" in cell.source:
                continue
            if "def " in cell.source:
                exec(cell.source, namespace)
            elif make_student_copies.BEGIN in cell.source:
                try:                # a value answer; one worked out from a demo run is left out
                    exec(cell.source, namespace)
                except NameError:
                    pass
            else:                   # a demo cell: only its imports, which the definitions may use
                exec("\n".join(x for x in cell.source.splitlines() if x.startswith(("from ", "import "))), namespace)
        _NAMESPACES[name] = namespace
    return _NAMESPACES[name][function]


def sol_sliding(messages, budget, counter):
    return solution("02_sliding_window", "sliding_window")(messages, budget, counter)


def sol_split(messages, keep):
    return solution("03_three_zones", "split_zones")(messages, keep)


def chars(messages):
    return sum(len(text_of(m)) for m in messages)


# ---- 01: tokens_of, the prediction, smallest_window --------------------------------------------------------

def tokens_counting_words(messages):
    return sum(len(text_of(m).split()) for m in messages)


def tokens_counting_characters(messages):
    return chars(messages)


def tokens_of_text_blocks_only(messages):
    return sum(len(b.get("text", "")) for m in messages for b in blocks_of(m) if b.get("type") == "text") // 4


def tokens_without_tool_inputs(messages):
    """Counts text and results, and only the name of each tool call: a write_file's file is missed."""
    total = 0
    for m in messages:
        for b in blocks_of(m):
            total += len(b["text"]) if b["type"] == "text" else len(b["name"]) if b["type"] == "tool_use" else \
                len(text_of({"role": "user", "content": [b]}))
    return total // 4


def tokens_counting_bytes(messages):
    return sum(len(text_of(m).encode("utf-8")) for m in messages) // 4


def tokens_rounding_up_per_message(messages):
    return sum(-(-len(text_of(m)) // 4) for m in messages)


def tokens_rounding_down_per_message(messages):
    return sum(len(text_of(m)) // 4 for m in messages)


def tokens_with_overhead(messages):
    return sum(len(text_of(m)) // 4 + 4 for m in messages)


def tokens_of_the_json(messages):
    import json
    return sum(len(json.dumps(m)) for m in messages) // 4


def tokens_crashing_on_empty(messages):
    first = messages[0]                       # "there is always a request"
    return (len(text_of(first)) + chars(messages[1:])) // 4


def tokens_without_return(messages):
    chars(messages) // 4


def tokens_emptying_the_list(messages):
    total = 0
    while messages:
        total += len(text_of(messages.pop()))
    return total // 4


def tokens_counting_the_list(messages):
    return 1 + chars(messages) // 4


def window_from_the_bill(laps):
    return sum(lap.billed_input for lap in laps)


def window_from_the_first_lap(laps):
    return laps[0].assembled_tokens


def window_with_an_output_reserve(laps):
    return max(lap.assembled_tokens for lap in laps) + 1024


def window_counting_laps(laps):
    return len(laps)


def smallest_window_without_return(laps):
    max(lap.assembled_tokens for lap in laps)


def window_popping_the_last_lap(laps):
    return laps.pop().assembled_tokens


# ---- 02: the windows --------------------------------------------------------------------------------------

def window_popping_from_the_front(messages, budget, counter):
    """Drops the oldest message, one at a time: may keep a tool_result whose tool_use is gone."""
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    kept = list(messages)
    while kept and sum(counter(m) for m in [user(DROPPED_NOTICE)] + kept) > budget:
        kept.pop(0)
    return [user(DROPPED_NOTICE)] + kept if kept else []


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


def _walk(messages, room, counter, fits=lambda size, room: size <= room):
    start = len(messages)
    for cut in reversed(safe_cuts(messages)[:-1]):
        if not fits(sum(counter(m) for m in messages[cut:]), room):
            break
        start = cut
    return start


def window_not_counting_its_notice(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    start = _walk(messages, budget, counter)
    return [user(DROPPED_NOTICE)] + messages[start:] if start < len(messages) else []


def window_strict_when_all_fits(messages, budget, counter):
    if sum(counter(m) for m in messages) < budget:          # < where <= belongs
        return list(messages)
    return sol_sliding(messages, budget - 1, counter) if budget else []


def window_strict_in_the_walk(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    room = budget - counter(user(DROPPED_NOTICE))
    start = _walk(messages, room, counter, fits=lambda size, room: size < room)
    return [user(DROPPED_NOTICE)] + messages[start:] if start < len(messages) else []


def window_reading_zero_as_no_limit(messages, budget, counter):
    if not budget:
        return list(messages)
    return sol_sliding(messages, budget, counter)


def window_keeping_an_oversize_newest_turn(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    room = budget - counter(user(DROPPED_NOTICE))
    start = min(_walk(messages, room, counter), safe_cuts(messages)[-2])   # "always keep the newest turn"
    return [user(DROPPED_NOTICE)] + messages[start:]


def window_sending_a_lone_notice(messages, budget, counter):
    return sol_sliding(messages, budget, counter) or ([user(DROPPED_NOTICE)] if messages else [])


def window_crashing_on_empty(messages, budget, counter):
    request = messages[0]
    return [request] + messages[1:] if sum(counter(m) for m in messages) <= budget else \
        sol_sliding(messages, budget, counter)


def window_popping_the_callers_list(messages, budget, counter):
    while messages and sum(counter(m) for m in messages) > budget:
        messages.pop(0)
    return sol_sliding(list(messages), budget, counter)


def window_without_return(messages, budget, counter):
    sol_sliding(messages, budget, counter)


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


def lap_after_the_last_lap_with_it(laps, text):
    holding = [i for i, lap in enumerate(laps) if any(text in text_of(m).lower() for m in lap.sent)]
    if not holding or holding[-1] + 1 >= len(laps):
        return None
    return laps[holding[-1] + 1].number


def first_lap_case_sensitive(laps, text):
    seen = False
    for lap in laps:
        if any(text in text_of(m) for m in lap.sent):
            seen = True
        elif seen:
            return lap.number
    return None


def first_lap_reading_only_plain_strings(laps, text):
    seen = False
    for lap in laps:
        if any(isinstance(m["content"], str) and text in m["content"].lower() for m in lap.sent):
            seen = True
        elif seen:
            return lap.number
    return None


def first_lap_crashing_without_laps(laps, text):
    assert laps[0].number == 1
    return solution("02_sliding_window", "first_lap_without")(laps, text)


def first_lap_as_a_yes_or_no(laps, text):
    return solution("02_sliding_window", "first_lap_without")(laps, text) is not None


def first_lap_popping_the_laps(laps, text):
    seen = False
    while laps:
        lap = laps.pop(0)
        if any(text in text_of(m).lower() for m in lap.sent):
            seen = True
        elif seen:
            return lap.number
    return None


def pinned_window_that_forgets_the_head(messages, budget, counter):
    return sol_sliding(messages, budget, counter)


def pinned_window_over_budget(messages, budget, counter):
    return messages[:1] + sol_sliding(messages[1:], budget, counter)


def pinned_window_crashing_on_empty(messages, budget, counter):
    return [messages[0]] + sol_sliding(messages[1:], budget - counter(messages[0]), counter)


def pinned_window_dropping_a_lonely_head(messages, budget, counter):
    desk = messages[:1] + sol_sliding(messages[1:], budget - sum(counter(m) for m in messages[:1]), counter)
    return desk if len(desk) > 1 or len(messages) < 2 else []


def pinned_window_popping_the_head(messages, budget, counter):
    head = messages.pop(0) if messages else None
    return ([head] + sol_sliding(messages, budget - counter(head), counter)) if head else []


def remarks_window_forgetting_remarks(messages, budget, counter):
    return solution("02_sliding_window", "pinned_window")(messages, budget, counter)


def remarks_window_not_counting_the_remarks(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    rest = solution("02_sliding_window", "pinned_window")(messages, budget, counter)
    kept = [m for m in rest[1:] if m in messages]
    start = len(messages) - len(kept)
    said = [b["text"] for m in messages[1:start] if m["role"] == "user" for b in blocks_of(m) if b["type"] == "text"]
    return messages[:1] + [user(DROPPED_NOTICE + " " + " ".join(said))] + kept


def remarks_window_keeping_only_the_newest_turn(messages, budget, counter):
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    cut = safe_cuts(messages)[-2]
    said = [b["text"] for m in messages[1:cut] if m["role"] == "user" for b in blocks_of(m) if b["type"] == "text"]
    return messages[:1] + [user(DROPPED_NOTICE + " " + " ".join(said))] + messages[cut:]


def remarks_window_crashing_on_empty(messages, budget, counter):
    head = messages[0]
    return solution("02_sliding_window", "remarks_window")([head] + messages[1:], budget, counter)


# ---- 03: zones, compact, prompts ----------------------------------------------------------------------

def split_with_a_naive_tail(messages, keep):
    cut = max(1, len(messages) - keep)
    return messages[:1], messages[1:cut], messages[cut:]


def split_with_two_messages_in_the_head(messages, keep):
    cut = max(2, len(messages) - keep)
    while cut < len(messages) and tool_results(messages[cut]):
        cut -= 1
    return messages[:2], messages[2:cut], messages[cut:]


def split_moving_the_cut_forward(messages, keep):
    cut = max(1, len(messages) - keep)
    while cut < len(messages) and tool_results(messages[cut]):
        cut += 1
    return messages[:1], messages[1:cut], messages[cut:]


def split_counting_turns(messages, keep):
    return sol_split(messages, 2 * keep)              # keep_messages read as turns of two messages


def split_crashing_on_empty(messages, keep):
    request = messages[0]
    return sol_split([request] + messages[1:], keep)


def split_with_negative_slices(messages, keep):
    tail = messages[-keep:]                  # keep=0 makes the tail the whole history
    while tail and tool_results(tail[0]) and len(tail) < len(messages) - 1:
        tail = messages[-(len(tail) + 1):]
    return messages[:1], messages[1:len(messages) - len(tail)], tail


def split_popping_the_request(messages, keep):
    head = [messages.pop(0)] if messages else []
    _, middle, tail = sol_split(head + messages, keep)
    return head, middle, tail


def compact_that_summarizes_the_request(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    return [user("[Summary of earlier work]\n" + summarize(head + middle))] + tail if middle else list(messages)


def compact_as_an_assistant_message(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if not middle:
        return list(messages)
    return head + [{"role": "assistant", "content": [{"type": "text", "text": summarize(middle)}]}] + tail


def compact_that_keeps_the_middle(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if not middle:
        return list(messages)
    return head + middle + [user("[Summary of earlier work]\n" + summarize(middle))] + tail


def compact_with_the_card_after_the_tail(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if not middle:
        return list(messages)
    return head + tail + [user("[Summary of earlier work]\n" + summarize(middle))]


def compact_without_a_header(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    return head + [user(summarize(middle))] + tail if middle else list(messages)


def compact_with_the_header_on_the_same_line(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    return head + [user("[Summary of earlier work] " + summarize(middle))] + tail if middle else list(messages)


def compact_splicing_the_callers_list(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if middle:
        messages[1:1 + len(middle)] = [user("[Summary of earlier work]\n" + summarize(middle))]
    return messages


def compact_without_return(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    if middle:
        head + [user("[Summary of earlier work]\n" + summarize(middle))] + tail


def compact_summarizing_an_empty_middle(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    return head + [user("[Summary of earlier work]\n" + summarize(middle))] + tail if messages else []


NO_CONSTRAINTS_PROMPT = """Summarize the session into notes, in at most {max_words} words:
- Goal: the user's request.
- Facts: file paths and line numbers found.
- Done / pending: progress.
<transcript>
{transcript}
</transcript>"""
TINY_LIMIT_PROMPT = NO_CONSTRAINTS_PROMPT.replace("{max_words} words", "12 words").replace(
    "- Facts", "- Standing constraints: every rule, word for word.\n- Facts")
UNTAGGED_PROMPT = "Summarize this, keeping every rule the user gave:\n{transcript}"
BRACES_PROMPT = "Summarize as JSON like {\"goal\": ...}:\n<transcript>\n{transcript}\n</transcript>"


# ---- 04: the fold loop, the bill, the sweep -----------------------------------------------------------

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


def fold_emptying_the_events(events, fold, chunk_size=4, summary=""):
    while events:
        summary = fold(summary, events[:chunk_size])
        del events[:chunk_size]
    return summary


def fold_without_return(events, fold, chunk_size=4, summary=""):
    for start in range(0, len(events), chunk_size):
        summary = fold(summary, events[start:start + chunk_size])


def fold_forgetting_the_summary_when_idle(events, fold, chunk_size=4, summary=""):
    if not events:
        return ""
    return solution("04_running_summary", "running_summary")(events, fold, chunk_size, summary)


def bill_of_the_desk_only(laps):
    return sum(lap.assembled_tokens for lap in laps), sum(lap.raw_tokens for lap in laps)


def bill_of_the_last_lap(laps):
    return sum(lap.billed_input for lap in laps), laps[-1].raw_tokens


def bill_summing_running_totals(laps):
    return sum(lap.total_input for lap in laps), sum(lap.raw_tokens for lap in laps)


def bill_the_wrong_way_round(laps):
    return sum(lap.raw_tokens for lap in laps), sum(lap.billed_input for lap in laps)


def bill_crashing_without_laps(laps):
    return laps[-1].total_input, sum(lap.raw_tokens for lap in laps)


def bill_sorting_the_laps(laps):
    laps.sort(key=lambda lap: -lap.raw_tokens)          # biggest first, "to look at them"
    return sum(lap.billed_input for lap in laps), sum(lap.raw_tokens for lap in laps)


def bill_as_a_list(laps):
    return [sum(lap.billed_input for lap in laps), sum(lap.raw_tokens for lap in laps)]


def settings(pair):
    def cheapest_settings(window, task):
        return pair
    cheapest_settings.__name__ = f"always_{pair}"
    return cheapest_settings


# ---- 05: memory and promote ------------------------------------------------------------------------------

RULE_LINE = "- Never touch production: database changes go to staging only."
WHERE_LINES = ("- Login code: app/auth.py. Data fixes: SQL files in migrations/.\n"
               "- Pending migrations say `-- status: pending`.")
TOO_LONG = "\n".join([RULE_LINE, WHERE_LINES] + [f"- Module {n} does thing {n}." for n in range(4)])
FRIDAY_RULE = "- Never deploy on Fridays.\n" + WHERE_LINES
NEUTRAL_MENTION = "- The email fix has not reached production yet.\n" + WHERE_LINES


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


def _old(path):
    return path.read_text() if path.exists() else ""


def promote_the_whole_summary(summary, memory_path):
    path = Path(memory_path)
    old = _old(path)
    path.write_text(old + ("" if not old or old.endswith("\n") else "\n") + summary + "\n")
    return summary.splitlines()


def promote_without_checking(summary, memory_path):
    path = Path(memory_path)
    old = _old(path)
    with open(path, "a") as file:
        file.write(("" if not old or old.endswith("\n") else "\n") + "".join(f"{r}\n" for r in _constraints(summary)))
    return _constraints(summary)


def promote_by_overwriting(summary, memory_path):
    Path(memory_path).write_text("".join(f"{r}\n" for r in _constraints(summary)))
    return _constraints(summary)


def promote_gluing_onto_the_last_line(summary, memory_path):
    path = Path(memory_path)
    old = _old(path)
    held = {line.strip() for line in old.splitlines()}
    new = [r for r in _constraints(summary) if r not in held]
    with open(path, "a") as file:
        file.write("".join(f"{r}\n" for r in new))
    return new


def _promote_lines(summary, memory_path, pick, write="append", give_back=lambda added, rules: added):
    """A promote with one part swapped: how lines are picked, how the file is written, what is returned."""
    path = Path(memory_path)
    old = _old(path)
    held = {line.strip().lstrip("- ").strip() for line in old.splitlines()}
    rules = pick(summary)
    added = [r for r in dict.fromkeys(rules) if r[2:].strip() not in held]
    glue = "" if not old or old.endswith("\n") else "\n"
    if added and write == "append":
        with open(path, "a", encoding="utf-8") as file:
            file.write(glue + "\n".join(added) + "\n")
    elif added:
        path.write_text(old + glue + "\n".join(added) + "\n", encoding="utf-8")   # empties the file first
    return give_back(added, rules)


KEYWORDS = re.compile(r"\b(never|not|no|always|only|don't|must)\b", re.I)


def promote_by_keywords_anywhere(summary, memory_path):
    pick = lambda s: ["- " + line.strip().lstrip("- ") for line in s.splitlines()   # noqa: E731
                      if KEYWORDS.search(line) and not line.startswith("Goal")]
    return _promote_lines(summary, memory_path, pick)


def promote_by_keywords_under_the_heading(summary, memory_path):
    return _promote_lines(summary, memory_path, lambda s: [r for r in _constraints(s) if KEYWORDS.search(r)])


def promote_with_write_text(summary, memory_path):
    return _promote_lines(summary, memory_path, _constraints, write="write_text")


def promote_returning_nothing(summary, memory_path):
    _promote_lines(summary, memory_path, _constraints)


def promote_returning_every_rule(summary, memory_path):
    return _promote_lines(summary, memory_path, _constraints, give_back=lambda added, rules: rules)


def promote_returning_bare_text(summary, memory_path):
    return _promote_lines(summary, memory_path, _constraints, give_back=lambda added, rules: [a[2:] for a in added])


# ---- the corpus: each wrong answer, its check, and the hint it must get ---------------------------------------

def wrong(check, answer, hint, name=None, marks=()):
    args = answer if isinstance(answer, tuple) else (answer,)
    label = name or getattr(answer, "__name__", None) or hint
    return pytest.param(check, args, hint, id=f"{check.__name__[6:]}: {label}", marks=marks)


C = checks
CORPUS = [
    # 01
    wrong(C.check_tokens_of, tokens_counting_words, "counting words"),
    wrong(C.check_tokens_of, tokens_counting_characters, "divide it by 4"),
    wrong(C.check_tokens_of, tokens_of_text_blocks_only, "every tool_result"),
    wrong(C.check_tokens_of, tokens_without_tool_inputs, "input of every tool_use"),
    wrong(C.check_tokens_of, tokens_counting_bytes, "UTF-8 bytes"),
    wrong(C.check_tokens_of, tokens_rounding_up_per_message, "round up each message"),
    wrong(C.check_tokens_of, tokens_rounding_down_per_message, "round down each message"),
    wrong(C.check_tokens_of, tokens_with_overhead, "per-message overhead"),
    wrong(C.check_tokens_of, tokens_of_the_json, "JSON of the whole message"),
    wrong(C.check_tokens_of, tokens_crashing_on_empty, "it holds 0 tokens"),
    wrong(C.check_tokens_of, tokens_without_return, "end the function with `return`"),
    wrong(C.check_tokens_of, tokens_emptying_the_list, "only read the messages"),
    wrong(C.check_tokens_of, tokens_counting_the_list, "add nothing for the list itself"),
    wrong(C.check_overflow_prediction, (1, 6000), "growth of the last probe laps", "lap 1"),
    wrong(C.check_overflow_prediction, (60, 6000), "how many more laps fit", "lap 60"),
    wrong(C.check_overflow_prediction, ("11", 6000), "whole lap number", "the text '11'"),
    wrong(C.check_smallest_window, window_from_the_bill, "bill of the whole run"),
    wrong(C.check_smallest_window, window_from_the_first_lap, "the emptiest desk"),
    wrong(C.check_smallest_window, window_with_an_output_reserve, "add no reserve"),
    wrong(C.check_smallest_window, window_counting_laps, "number of laps"),
    wrong(C.check_smallest_window, smallest_window_without_return, "return one number of tokens"),
    wrong(C.check_smallest_window, window_popping_the_last_lap, "do not sort or edit"),
    # 02
    wrong(C.check_sliding_window, window_popping_from_the_front, "never between a call and its result"),
    wrong(C.check_sliding_window, window_without_a_notice, "start with a user message"),
    wrong(C.check_sliding_window, window_keeping_the_oldest, "NEWEST"),
    wrong(C.check_sliding_window, window_not_counting_its_notice, "the notice included"),
    wrong(C.check_sliding_window, window_strict_when_all_fits, "exactly as big as the budget fits"),
    wrong(C.check_sliding_window, window_strict_in_the_walk, "brings the desk exactly to the budget"),
    wrong(C.check_sliding_window, window_reading_zero_as_no_limit, "not 'no limit'"),
    wrong(C.check_sliding_window, window_keeping_an_oversize_newest_turn, "even the newest turn alone"),
    wrong(C.check_sliding_window, window_sending_a_lone_notice, "a notice alone is no help"),
    wrong(C.check_sliding_window, window_crashing_on_empty, "an empty history is a real input"),
    wrong(C.check_sliding_window, window_popping_the_callers_list, "never pop, insert"),
    wrong(C.check_sliding_window, window_without_return, "end the function with `return`"),
    wrong(C.check_first_lap_without, first_lap_counted_from_zero, "lap.number"),
    wrong(C.check_first_lap_without, first_lap_missing_at_all, "had not been given yet"),
    wrong(C.check_first_lap_without, first_lap_that_dropped_anything, "still on the desk"),
    wrong(C.check_first_lap_without, lap_after_the_last_lap_with_it, "at the FIRST lap without it"),
    wrong(C.check_first_lap_without, first_lap_case_sensitive, "compare in lowercase"),
    wrong(C.check_first_lap_without, first_lap_reading_only_plain_strings, "tool results and remarks included"),
    wrong(C.check_first_lap_without, first_lap_crashing_without_laps, "empty list of laps"),
    wrong(C.check_first_lap_without, first_lap_as_a_yes_or_no, "return the number of a lap"),
    wrong(C.check_first_lap_without, first_lap_popping_the_laps, "do not sort, pop or edit them"),
    wrong(C.check_pinned_window, pinned_window_that_forgets_the_head, "pin the head"),
    wrong(C.check_pinned_window, pinned_window_over_budget, "pinned head counts against the budget"),
    wrong(C.check_pinned_window, pinned_window_crashing_on_empty, "an empty history is a real input"),
    wrong(C.check_pinned_window, pinned_window_dropping_a_lonely_head, "the request is always sent"),
    wrong(C.check_pinned_window, pinned_window_popping_the_head, "never pop, insert"),
    wrong(C.check_remarks_window, remarks_window_forgetting_remarks, "word for word, into the notice"),
    wrong(C.check_remarks_window, remarks_window_not_counting_the_remarks, "grows with the remarks"),
    wrong(C.check_remarks_window, remarks_window_crashing_on_empty, "an empty history is a real input"),
    wrong(C.check_remarks_window, remarks_window_keeping_only_the_newest_turn, "try the cuts from the oldest on"),
    # 03
    wrong(C.check_split_zones, split_with_a_naive_tail, "move the boundary back one message"),
    wrong(C.check_split_zones, split_with_two_messages_in_the_head, "the request alone"),
    wrong(C.check_split_zones, split_moving_the_cut_forward, "take one message MORE"),
    wrong(C.check_split_zones, split_counting_turns, "counts messages, not turns"),
    wrong(C.check_split_zones, split_crashing_on_empty, "three empty zones"),
    wrong(C.check_split_zones, split_with_negative_slices, "nothing lost, nothing twice"),
    wrong(C.check_split_zones, split_popping_the_request, "slice the history into three new lists"),
    wrong(C.check_compact, compact_that_summarizes_the_request, "summarize only the middle"),
    wrong(C.check_compact, compact_as_an_assistant_message, "as a user message"),
    wrong(C.check_compact, compact_that_keeps_the_middle, "ONE summary message"),
    wrong(C.check_compact, compact_with_the_card_after_the_tail, "after the tail it reads as the newest"),
    wrong(C.check_compact, compact_without_a_header, "header line [Summary of earlier work]"),
    wrong(C.check_compact, compact_with_the_header_on_the_same_line, "then a newline"),
    wrong(C.check_compact, compact_splicing_the_callers_list, "return a NEW list"),
    wrong(C.check_compact, compact_without_return, "return the new list of messages"),
    wrong(C.check_compact, compact_summarizing_an_empty_middle, "nothing to summarize"),
    wrong(C.check_compaction_prompt, NAIVE_PROMPT, "standing-constraints", "the naive prompt"),
    wrong(C.check_compaction_prompt, NO_CONSTRAINTS_PROMPT, "standing-constraints", "no constraints section"),
    wrong(C.check_compaction_prompt, TINY_LIMIT_PROMPT, "word limit", "a 12-word limit"),
    wrong(C.check_compaction_prompt, UNTAGGED_PROMPT, "<transcript>", "no tags"),
    wrong(C.check_compaction_prompt, BRACES_PROMPT, "doubled", "stray braces"),
    wrong(C.check_compaction_prompt, 42, "one string", "a number"),
    wrong(C.check_two_rules_prompt, COMPACTION_TEMPLATE, "spends them on the goal first", "the lesson's template"),
    wrong(C.check_two_rules_prompt, NAIVE_PROMPT, "standing constraints first", "the naive prompt at 40 words"),
    wrong(C.check_two_rules_prompt, UNTAGGED_PROMPT, "<transcript>", "no tags"),
    # 04
    wrong(C.check_running_summary, summary_that_grows, "grows with the history"),
    wrong(C.check_running_summary, fold_everything_so_far, "only the NEW chunk"),
    wrong(C.check_running_summary, fold_forgetting_the_summary, "previous summary"),
    wrong(C.check_running_summary, fold_every_event, "one fold per chunk"),
    wrong(C.check_running_summary, fold_emptying_the_events, "never pop from or clear"),
    wrong(C.check_running_summary, fold_without_return, "end with `return summary`"),
    wrong(C.check_running_summary, fold_forgetting_the_summary_when_idle, "the one you were given"),
    wrong(C.check_token_bill, bill_of_the_desk_only, "summary calls are billed too"),
    wrong(C.check_token_bill, bill_of_the_last_lap, "SUM of lap.raw_tokens"),
    wrong(C.check_token_bill, bill_summing_running_totals, "running total"),
    wrong(C.check_token_bill, bill_the_wrong_way_round, "wrong way round"),
    wrong(C.check_token_bill, bill_crashing_without_laps, "return (0, 0)"),
    wrong(C.check_token_bill, bill_as_a_list, "a pair of numbers"),
    wrong(C.check_token_bill, bill_sorting_the_laps, "do not sort, pop or edit them"),
    wrong(C.check_cheapest_settings, settings(None), "pair of whole numbers", "None"),
    wrong(C.check_cheapest_settings, settings((9, 0)), "sweep exactly the grid", "(9, 0)"),
    # 05
    wrong(C.check_memory, (TOO_LONG, 150), "four lines", "six lines"),
    wrong(C.check_memory, (WHERE_LINES, 100), "as a rule about the database", "no rule"),
    wrong(C.check_memory, (RULE_LINE, 100), "where things live", "no pointers"),
    wrong(C.check_memory, (RULE_LINE + "\n" + WHERE_LINES, 2000), "every turn", "a budget of 2,000"),
    wrong(C.check_memory, (RULE_LINE + "\n" + WHERE_LINES, 10), "trim it", "over its own budget"),
    wrong(C.check_memory, (RULE_LINE + "\n" + WHERE_LINES, "80"), "positive whole number", "a budget in quotes"),
    wrong(C.check_memory, (FRIDAY_RULE, 100), "as a rule about the database", "a rule about Fridays"),
    wrong(C.check_memory, (NEUTRAL_MENTION, 100), "as a rule about the database", "a neutral mention"),
    wrong(C.check_tight_memory, (solution("05_memory", "MEMORY") + "- Run tests with `pytest tests/`.",),
          "which line made session two faster", "the four-line memory"),
    wrong(C.check_tight_memory, ("- Never touch production.",), "keep the pointer", "the rule alone"),
    wrong(C.check_tight_memory, ("- Email login bug: app/auth.py; fixes in migrations/.",),
          "as a rule about the database", "the pointer alone"),
    wrong(C.check_greenhouse_memory, ((ROOT / "workspaces" / "greenhouse" / "CLAUDE.md").read_text(),),
          "write the notebook yourself", "the workspace's own CLAUDE.md"),
    wrong(C.check_greenhouse_memory, (solution("05_memory", "MEMORY"),), "point at the file that decides the watering",
          "exercise 5's Ledgerly memory"),
    wrong(C.check_greenhouse_memory, ("- Watering: src/greenhouse/irrigation.py; changes in db/changes/.",),
          "as a rule about the database", "pointers without the rule"),
    wrong(C.check_greenhouse_memory, (TOO_LONG,), "four lines", "seven lines"),
    wrong(C.check_promote, promote_the_whole_summary, "only the lines under the 'Standing constraints:' heading"),
    wrong(C.check_promote, promote_without_checking, "duplicate"),
    wrong(C.check_promote, promote_by_overwriting, "never overwrite"),
    wrong(C.check_promote, promote_gluing_onto_the_last_line, "newline"),
    wrong(C.check_promote, promote_by_keywords_anywhere, "even a fact that says 'never'"),
    wrong(C.check_promote, promote_by_keywords_under_the_heading, "whatever its words"),
    wrong(C.check_promote, promote_with_write_text, "append mode"),
    wrong(C.check_promote, promote_returning_nothing, "return the list of lines you added"),
    wrong(C.check_promote, promote_returning_every_rule, "the second time, that is []"),
    wrong(C.check_promote, promote_returning_bare_text, "exactly as you wrote them"),
]


def test_the_corpus_is_big_and_covers_every_check():
    assert len(CORPUS) >= 60, len(CORPUS)
    covered = {p.values[0] for p in CORPUS}
    every = {getattr(checks, name) for name in dir(checks) if name.startswith("check_")}
    assert every <= covered, sorted(c.__name__ for c in every - covered)


@pytest.mark.parametrize("check, answer, hint", CORPUS)
def test_wrong_answer_is_rejected_with_its_hint(check, answer, hint):
    rejected(check, *answer, hint=hint)


def test_cheapest_settings_wrong_answers_follow_the_table(capsys):
    """Which pairs are wrong depends on the model's runs, so the wrong answers are read off the check's own table."""
    from exercises.checks import ex04_running_summary as ex04
    window, goal, rule, at = ex04._SWEEP_CASE
    table = ex04.once(("sweep",) + ex04._SWEEP_CASE, lambda: ex04._sweep(window, ex04.sweep_task(goal, rule, at)))
    good = {pair: bill for pair, (bill, ok) in table.items() if ok}
    best = min(good, key=good.get)
    cases = [(pair, "a cheap run that fails is not cheap") for pair, (_, ok) in table.items() if not ok][:1]
    cases += [(pair, "fewer, bigger folds") for pair in table if pair[0] > best[0]][:1]
    cases += [(pair, "every verbatim turn") for pair in table if pair[0] == best[0] and pair[1] > best[1]][:1]
    assert len(cases) >= 2, table
    for pair, hint in cases:
        rejected(C.check_cheapest_settings, settings(pair), hint=hint)
    ok, printed = verdict(C.check_cheapest_settings, settings(best))
    assert ok, printed


# ---- right answers written differently from the solutions: each must pass ---------------------------------

def tokens_as_a_float(messages):
    return sum(len(text_of(m)) for m in messages) / 4


def window_walking_forward(messages, budget, counter):
    """Drops whole turns from the front until the rest fits beside the notice."""
    if sum(counter(m) for m in messages) <= budget:
        return list(messages)
    for cut in safe_cuts(messages)[1:-1]:
        desk = [user(DROPPED_NOTICE)] + messages[cut:]
        if sum(counter(m) for m in desk) <= budget:
            return desk
    return []


def first_lap_by_index(laps, text):
    holds = [any(text in text_of(m).lower() for m in lap.sent) for lap in laps]
    for i in range(1, len(laps)):
        if holds[i - 1] and not holds[i] and any(holds[:i]):
            return laps[i].number
    return None


def split_by_walking_back(messages, keep):
    if not messages:
        return [], [], []
    tail_start = len(messages)
    for _ in range(keep):
        if tail_start > 1:
            tail_start -= 1
    while tail_start < len(messages) and tool_results(messages[tail_start]):
        tail_start -= 1
    return messages[:1], messages[1:tail_start], messages[tail_start:]


def compact_with_a_blank_line_after_the_header(messages, summarize, keep):
    head, middle, tail = sol_split(messages, keep)
    return head + [user("[Summary of earlier work]\n\n" + summarize(middle))] + tail if middle else list(messages)


def promote_through_a_temporary_file(summary, memory_path):
    import os
    import tempfile
    path = Path(memory_path)
    old = _old(path)
    held = {line.strip().lstrip("- ").strip() for line in old.splitlines()}
    added = [r for r in dict.fromkeys(_constraints(summary)) if r[2:].strip() not in held]
    if added:
        fd, temporary = tempfile.mkstemp(dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(old + ("" if not old or old.endswith("\n") else "\n") + "\n".join(added) + "\n")
        os.replace(temporary, path)
    return added


RIGHT_ANSWERS = [
    pytest.param(C.check_tokens_of, (tokens_as_a_float,), id="tokens_of: chars / 4 as a float"),
    pytest.param(C.check_sliding_window, (window_walking_forward,), id="sliding_window: walking forward"),
    pytest.param(C.check_first_lap_without, (first_lap_by_index,), id="first_lap_without: by index"),
    pytest.param(C.check_split_zones, (split_by_walking_back,), id="split_zones: walking back"),
    pytest.param(C.check_compact, (compact_with_a_blank_line_after_the_header,), id="compact: a blank line more"),
    pytest.param(C.check_promote, (promote_through_a_temporary_file,), id="promote: temp file + os.replace"),
    pytest.param(C.check_memory, ("- Do not run anything on production.\n" + WHERE_LINES, 60),
                 id="memory: another wording the model reads"),
    pytest.param(C.check_memory, ("- Database changes go to staging only.\n" + WHERE_LINES, 60),
                 id="memory: a rule without negation words"),
    pytest.param(C.check_memory, ("- Production must never be touched.\n" + WHERE_LINES, 60),
                 id="memory: the negation after the target"),
]


@pytest.mark.parametrize("check, answer", RIGHT_ANSWERS)
def test_a_right_answer_written_differently_passes(check, answer):
    ok, printed = verdict(check, *answer)
    assert ok is True and "PASS:" in printed, printed


# ---- a check never raises -------------------------------------------------------------------------------

def crashes(*_args, **_kwargs):
    raise KeyError("content")


def unfinished(*_args, **_kwargs):
    raise NotImplementedError("Your code here")


ALL_FUNCTION_CHECKS = [C.check_tokens_of, C.check_smallest_window, C.check_sliding_window, C.check_first_lap_without,
                       C.check_pinned_window, C.check_remarks_window, C.check_split_zones, C.check_compact,
                       C.check_running_summary, C.check_token_bill, C.check_cheapest_settings, C.check_promote]


@pytest.mark.parametrize("check", ALL_FUNCTION_CHECKS, ids=lambda c: c.__name__)
def test_an_error_or_a_stub_is_a_verdict_never_a_traceback(check):
    ok, printed = verdict(check, crashes)
    assert ok is False and printed.startswith("FAIL:") and "KeyError: 'content'" in printed and "Hint:" in printed
    assert "line " in printed and "raise KeyError" in printed, printed      # where in the student's code
    ok, printed = verdict(check, unfinished)
    assert ok is False and printed.startswith("Not done yet:")
    ok, printed = verdict(check, None)
    assert ok is False and printed.startswith("Not done yet:")


@pytest.mark.parametrize("check, answer", [
    (C.check_overflow_prediction, (None,)),
    (C.check_compaction_prompt, (None,)),
    (C.check_two_rules_prompt, (None,)),
    (C.check_memory, (None, None)),
    (C.check_memory, ("- a line", None)),
    (C.check_tight_memory, (None,)),
    (C.check_greenhouse_memory, (None,)),
])
def test_an_unfinished_value_is_not_done(check, answer):
    ok, printed = verdict(check, *answer)
    assert ok is False and printed.startswith("Not done yet:")


def test_an_error_names_the_line_of_the_students_code():
    def tokens_of(messages):
        first = messages[0]["content"]
        return len(first)
    _, printed = verdict(C.check_tokens_of, tokens_of)
    assert "IndexError: list index out of range" in printed
    assert "`first = messages[0][\"content\"]`" in printed, printed


def test_an_error_in_the_harness_is_not_blamed_on_the_student(monkeypatch):
    """If the model itself breaks during a check, the verdict says so instead of blaming the answer."""
    from stage.offline import DeskModel
    monkeypatch.setattr(DeskModel, "reply", text_of)          # a harness function called wrongly: a TypeError
    ok, printed = verdict(C.check_memory, solution("05_memory", "MEMORY"), 80)
    assert ok is False and "could not finish" in printed and "not in your answer" in printed, printed


def test_an_injected_full_disk_is_undone_whatever_happens(tmp_path):
    import builtins

    from exercises.checks.ex05_memory import disk_full_for
    before = builtins.open
    target = tmp_path / "CLAUDE.md"
    target.write_text("- kept\n")
    with pytest.raises(OSError), disk_full_for(target):
        target.write_text("- gone\n")
    assert builtins.open is before and target.read_text() == ""       # write_text emptied it first
    (tmp_path / "other.md").write_text("fine")                          # other files are untouched


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
        head = lambda ms, c: c(ms[0]) if pinned else 0           # noqa: E731
        newest = [c(NOTICE) + head(ms, c) + sum(c(m) for m in ms[safe_cuts(ms)[-2]:]) for _, _, ms, c in totals]
        assert any(n > b for n, (_, b, _, _) in zip(newest, totals)), "a newest turn over the budget"
        assert any(n == b for n, (_, b, _, _) in zip(newest, totals)) or any(
            t > b for t, b, _, _ in totals), "tight budgets"
        texts = [text_of(m) for ms, _, _ in cases for m in ms]
        assert any(len(t.encode()) > len(t) for t in texts), "non-ASCII text"
        inputs = [b["input"] for ms, _, _ in cases for m in ms for b in blocks_of(m) if b["type"] == "tool_use"]
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
    reads = text[text.index("- **A rule about the database target.**"):text.index("It ignores")]
    ignores = text[text.index("It ignores"):text.index("the full list is in")]     # the ignored and the missed
    pointers = "- Sign-in lives in app/auth.py; database changes are SQL files in migrations/.\n"
    for part, target in ((reads, "staging"), (ignores, "production")):
        quotes = [" ".join(q.split()) for q in re.findall(r'"([^"]+)"', part)]   # a quote may wrap a line
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


@pytest.mark.parametrize("check, name, function", [
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
], ids=lambda x: x if isinstance(x, str) else "")
def test_every_check_catches_a_changed_input(check, name, function):
    ok, printed = verdict(check, _mutating(solution(name, function)))
    assert ok is False and "changed the list it was given" in printed, printed
