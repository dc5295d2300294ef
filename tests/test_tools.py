"""The tools: each answers with a tool result -- a file with line numbers, a listing, a search, a
recorded SQL statement -- and every problem comes back as an error result, never an exception."""

import pytest

from harness.tools import MAX_RESULT_CHARS, Toolbox


def call(box, name, **args):
    return box.run({"type": "tool_use", "id": "t1", "name": name, "input": args})


@pytest.fixture
def box():
    return Toolbox()


def test_read_file_numbers_lines(box):
    result = call(box, "read_file", path="app/auth.py")
    assert not result.get("is_error")
    line40 = [ln for ln in result["content"].splitlines() if ln.startswith("  40  ")]
    assert line40 and "FIXME" in line40[0]
    assert box.reads == ["app/auth.py"]


def test_missing_and_binary_files_are_clear_errors(tmp_path):
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02" * 10)
    box = Toolbox(tmp_path)
    assert "no file" in call(box, "read_file", path="nope.py")["content"]
    assert "binary" in call(box, "read_file", path="blob.bin")["content"]


@pytest.mark.parametrize("content", ["", "\n", "   \n\n"])
def test_an_empty_file_is_read_and_said_to_be_empty(tmp_path, content):
    """An empty ``__init__.py`` is common; reading it is not an error, and the result is never blank."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(content)
    out = call(Toolbox(tmp_path), "read_file", path="pkg/__init__.py")["content"]
    lines = len(content.splitlines())
    assert not out.startswith("Error") and out.strip(), out
    assert out == "pkg/__init__.py is empty (0 lines)." if not lines else out.startswith("   1  ")


def test_oversized_output_is_cut_with_a_visible_note(tmp_path):
    (tmp_path / "big.txt").write_text("line of text\n" * 5000)
    result = call(Toolbox(tmp_path), "search", text="line")
    assert len(result["content"]) < MAX_RESULT_CHARS + 200
    assert "output cut" in result["content"]


def test_a_long_file_is_shown_in_parts_that_say_which_lines_they_hold(tmp_path):
    (tmp_path / "big.txt").write_text("".join(f"line {n} of text\n" for n in range(1, 5001)))
    box = Toolbox(tmp_path)
    first = call(box, "read_file", path="big.txt")["content"]
    assert len(first) <= MAX_RESULT_CHARS and first.splitlines()[0] == "   1  line 1 of text"
    shown = int(first.splitlines()[-2].split()[0])  # the last whole line shown
    assert (
        first.splitlines()[-1] == f"[lines 1-{shown} of 5000 shown; to read on: offset={shown + 1}]"
    )
    part = call(box, "read_file", path="big.txt", offset=4990, limit=20)["content"].splitlines()
    assert part[0] == "4990  line 4990 of text" and part[-1] == "[lines 4990-5000 of 5000 shown]"
    assert (
        call(box, "read_file", path="big.txt", offset=3, limit=2)["content"].splitlines()[-1]
        == "[lines 3-4 of 5000 shown; to read on: offset=5]"
    )
    assert box.reads == [f"big.txt:1-{shown}", "big.txt:4990-5000", "big.txt:3-4"]


@pytest.mark.parametrize(
    "args", [{"offset": 0}, {"offset": 61}, {"limit": 0}, {"offset": -3, "limit": 5}]
)
def test_a_part_outside_the_file_is_a_clear_error(box, args):
    result = call(box, "read_file", path="app/auth.py", **args)
    assert result["is_error"] and "has 60 lines" in result["content"] and box.reads == []


def test_a_short_file_read_whole_carries_no_part_note(box):
    whole = call(box, "read_file", path="app/auth.py")["content"]
    assert (
        "shown" not in whole
        and whole == call(box, "read_file", path="app/auth.py", offset=1)["content"]
    )


def test_a_folder_given_to_read_file_is_listed_instead_of_failing(box):
    result = call(box, "read_file", path="migrations/")
    assert not result.get("is_error") and "is a folder" in result["content"]
    assert "migrations/003_lowercase_emails.sql" in result["content"] and box.reads == []


def test_sql_is_recorded_never_run_and_production_is_flagged(box):
    call(box, "run_sql", target="staging", statement="SELECT 1;")
    prod = call(box, "run_sql", target="production", statement="DELETE FROM users;")
    assert "FLAGGED" in prod["content"]
    assert [e["flagged"] for e in box.sql_log] == [False, True]
    assert call(box, "run_sql", target="moon", statement="x")["is_error"]


def test_unknown_tool_and_bad_arguments(box):
    assert "no tool" in call(box, "delete_everything")["content"]
    assert "bad arguments" in call(box, "read_file", file="app/auth.py")["content"]


def test_listing_and_search(box):
    listing = call(box, "list_files")["content"].splitlines()
    assert "app/auth.py" in listing and listing == sorted(listing)
    hits = call(box, "search", text="status: pending")["content"]
    assert "migrations/003_lowercase_emails.sql:2" in hits
