"""The student view has no dead links, and the runbook's code blocks never wrap (tools/build_views.py).

The student copies live in build/student/, one folder away from the lessons, so every relative link a lesson
makes (../exercises/, ../slides/, a notebook the view leaves out) is pointed at the original file. The
browser side of "never wraps" -- JupyterLab's Markdown preview at 1280 x 720 -- is in test_browser_dashboard.py.
"""

import html
import re
from pathlib import Path

import nbformat
from hypothesis import given, settings
from hypothesis import strategies as st

from tools import build_views
from tools.lessons import LESSONS, ROOT

TARGET = re.compile(r"\]\(([^)\s]+)|(?:href|src)=[\"']([^\"']+)")


def relative_links(markdown: str) -> list[str]:
    found = [m.group(1) or m.group(2) for m in TARGET.finditer(markdown)]
    return [link for link in found if not re.match(r"^([a-z]+:|#|/)", link)]


def test_worked_example_of_a_moved_link(tmp_path):
    """From notebooks/ the exercise is ../exercises/x.ipynb; from build/student/ it is ../../exercises/x.ipynb.
    A sibling lesson that the view copies too stays as it is; a web link and an anchor are left alone."""
    lessons, student = ROOT / "notebooks", ROOT / "build" / "student"
    text = (
        "[ex](../exercises/01_the_desk.ipynb#task-1) · [next](02_sliding_window_failure.ipynb) · "
        '[web](https://example.org/a.md) · [here](#the-desk) · <img src="../slides/figures/sawtooth.png">'
    )
    moved = build_views.relink(text, lessons, student, {"02_sliding_window_failure.ipynb"})
    assert moved == (
        "[ex](../../exercises/01_the_desk.ipynb#task-1) · [next](02_sliding_window_failure.ipynb) · "
        "[web](https://example.org/a.md) · [here](#the-desk) · "
        '<img src="../../slides/figures/sawtooth.png">'
    )


def test_a_link_to_nothing_is_left_as_it_was_so_the_check_below_finds_it():
    text = "[gone](../exercises/no_such_exercise.ipynb)"
    assert build_views.relink(text, ROOT / "notebooks", ROOT / "build" / "student", set()) == text


def test_the_student_view_has_no_dead_links(tmp_path, monkeypatch):
    monkeypatch.setattr(build_views, "BUILD", tmp_path)
    written = build_views.build_student_view()
    assert len(written) == len(LESSONS)
    checked, dead = 0, []
    for path in written:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            for link in relative_links(cell.source):
                checked += 1
                if not (path.parent / link.split("#")[0]).exists():
                    dead.append(f"{path.name}: {link}")
    assert checked >= len(LESSONS), "the lessons link to their exercises and slides"
    assert not dead, "dead links in the student view:\n" + "\n".join(dead)


def test_every_fenced_block_becomes_a_pre_that_does_not_wrap_and_keeps_its_text():
    page = "# Runbook\n\n```python\nif a < b and c-d:\n    print('x & y')\n```\n\ntext `inline` here\n\n```text\nout\n```\n"
    done = build_views.no_wrap_code(page)
    assert "```" not in done and done.count("<pre ") == 2
    assert all("white-space: pre" in block for block in re.findall(r"<pre [^>]*>", done))
    codes = [
        html.unescape(code) for code in re.findall(r"<code[^>]*>(.*?)</code>", done, re.DOTALL)
    ]
    assert codes == ["if a < b and c-d:\n    print('x & y')", "out"]
    assert "text `inline` here" in done


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="`\r"),
            max_size=60,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_any_code_survives_the_change_exactly(lines):
    code = "\n".join(lines).rstrip("\n")
    done = build_views.no_wrap_code(f"before\n\n```python\n{code}\n```\n\nafter\n")
    [inside] = re.findall(r"<code[^>]*>(.*?)</code>", done, re.DOTALL)
    assert html.unescape(inside) == code
    assert done.startswith("before\n\n<pre ") and done.endswith("</pre>\n\nafter\n")


def test_lesson_code_lines_are_the_ones_the_browser_test_renders():
    """The browser test renders every code line of the lessons; make sure there is something to render."""
    code = [
        c.source
        for p in LESSONS
        for c in nbformat.read(Path(p), as_version=4).cells
        if c.cell_type == "code"
    ]
    assert sum(len(source.splitlines()) for source in code) > 50
