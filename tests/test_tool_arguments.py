"""Property test: whatever a model puts in a tool call, ``Toolbox.run`` answers with a tool_result.

A model may call a tool that does not exist, pass an input that is not an object, leave out a
required field, add one, send the wrong type, a NUL byte, or a string of megabytes. Each comes back
as an error result the model can read (``is_error`` and a sentence starting "Error:"), never an
exception; and nothing malformed reaches the records (``reads``, ``sql_log``, ``remembered``).
"""

import re
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.arguments import MAX_ARGUMENT_CHARS
from harness.tools import TOOL_SCHEMAS, Toolbox

BOX = Toolbox()  # one box: its records are checked after every call
NAMES = [schema["name"] for schema in TOOL_SCHEMAS]
FIELDS = sorted({key for schema in TOOL_SCHEMAS for key in schema["input_schema"]["properties"]})

plain_text = st.text(alphabet=string.ascii_letters + string.digits + "/._- ", max_size=40)
nasty_text = st.one_of(
    plain_text,
    st.text(max_size=40),  # any unicode, NUL included
    st.builds(lambda a, b: a + "\x00" + b, plain_text, plain_text),  # "app/auth.py\x00.txt"
    st.builds(
        lambda c, n: c * n, st.sampled_from("ax/."), st.integers(MAX_ARGUMENT_CHARS - 5, 200_000)
    ),
    st.sampled_from(
        [
            "app/auth.py",
            "app/auth.py\x00.txt",
            "../etc/passwd",
            "/etc/passwd",
            ".",
            "staging",
            "production",
            "SELECT 1;",
            "",
            "   ",
        ]
    ),
)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), nasty_text),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(plain_text, inner, max_size=3),
    max_leaves=6,
)
arguments = st.dictionaries(st.one_of(st.sampled_from(FIELDS), plain_text), json_values, max_size=4)
tool_names = st.one_of(st.sampled_from(NAMES), nasty_text, st.integers(), st.none())
calls = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("tool_use"),
            "id": st.just("t1"),
            "name": tool_names,
            "input": st.one_of(arguments, json_values),
        }
    ),
    st.dictionaries(plain_text, json_values, max_size=3),  # no name, no id, no input
    json_values,  # not even a dict
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls)
def test_every_call_gets_a_tool_result_and_bad_ones_an_error(call):
    result = BOX.run(call)
    assert result["type"] == "tool_result" and isinstance(result["content"], str)
    assert isinstance(result["tool_use_id"], str) and result["tool_use_id"]
    if result.get("is_error"):
        assert result["content"].startswith("Error: ") and len(result["content"]) < 1000
    else:
        name, args = call["name"], call.get("input") or {}
        schema = next(s["input_schema"] for s in TOOL_SCHEMAS if s["name"] == name)
        assert set(args) <= set(schema["properties"]) and set(schema.get("required", [])) <= set(
            args
        )
        assert all(
            isinstance(v, str)
            and "\x00" not in v
            and len(v) <= MAX_ARGUMENT_CHARS
            or type(v) is int
            and v >= 1
            for v in args.values()
        )
    assert all(
        isinstance(e["statement"], str)
        and e["statement"].strip()
        and e["target"] in ("staging", "production")
        for e in BOX.sql_log
    )
    assert all(
        isinstance(path, str) and (BOX.root / re.sub(r":\d+-\d+$", "", path)).is_file()
        for path in BOX.reads
    )
    assert all(isinstance(fact, str) and fact for fact in BOX.remembered)


# ---- the cases the issue names, one by one (so a failure reads plainly) -------------------------


def run(name, tool_input):
    return Toolbox().run({"type": "tool_use", "id": "t9", "name": name, "input": tool_input})


def test_a_path_with_a_nul_byte_is_an_error_result():
    for name in ("read_file", "list_files"):
        result = run(name, {"path": "app/auth.py\x00.txt"})
        assert result["is_error"] and "NUL" in result["content"] and result["tool_use_id"] == "t9"


def test_run_sql_records_only_text_statements():
    box = Toolbox()
    for statement in (["UPDATE users"], 7, None, {"sql": "x"}, "", "  "):
        result = box.run(
            {
                "type": "tool_use",
                "id": "t1",
                "name": "run_sql",
                "input": {"target": "staging", "statement": statement},
            }
        )
        assert result["is_error"], statement
    assert box.sql_log == []


def test_required_target_is_never_filled_in_silently():
    """run_sql's schema declares a default target, but the target is required: a call without one is refused."""
    box = Toolbox()
    result = box.run(
        {"type": "tool_use", "id": "t1", "name": "run_sql", "input": {"statement": "SELECT 1;"}}
    )
    assert result["is_error"] and "'target' is required" in result["content"] and box.sql_log == []


def test_each_kind_of_bad_argument_says_what_is_wrong():
    assert "no tool called 'drop_database'" in run("drop_database", {})["content"]
    assert "must be an object" in run("read_file", "app/auth.py")["content"]
    assert "'path' is required" in run("read_file", {})["content"]
    assert (
        "unknown field 'mode'" in run("read_file", {"path": "app/auth.py", "mode": "w"})["content"]
    )
    assert "must be a string, not int" in run("search", {"text": 42})["content"]
    assert "characters long" in run("remember", {"fact": "x" * (MAX_ARGUMENT_CHARS + 1)})["content"]
    assert (
        "must be one of staging, production"
        in run("run_sql", {"target": "moon", "statement": "x"})["content"]
    )


def test_a_call_that_is_not_a_tool_use_block_is_still_answered():
    for call in (None, "read_file", [], {}, {"name": "read_file"}):
        result = Toolbox().run(call)
        assert result["is_error"] and result["tool_use_id"] == "toolu_missing_id"


def test_the_loop_survives_calls_the_api_would_never_send():
    """A Model object used directly may send what the API never would: an input that is not an object, a
    tool that is not offered, a huge value. (A tool_use block with no name at all is not a block; left out.)"""
    from harness.loop import run_agent
    from harness.model import Reply

    class Sloppy:
        name, window = "sloppy", 100_000

        def __init__(self):
            self.turn = 0

        def reply(self, system, messages, tools, max_tokens=1024):
            self.turn += 1
            calls = [
                {"type": "tool_use", "id": "t1", "name": "read_file", "input": "app/auth.py"},
                {"type": "tool_use", "id": "t2", "name": "rm -rf", "input": {"path": "/"}},
                {"type": "tool_use", "id": "t3", "name": "search", "input": {"text": "x" * 50_000}},
            ]
            if self.turn > len(calls):
                return Reply([{"type": "text", "text": "Done."}], "end_turn")
            return Reply([calls[self.turn - 1]], "tool_use")

    run = run_agent("Look around.", Sloppy())
    assert run.stopped == "answered" and len(run.laps) == 4
    results = [m["content"][0] for m in run.history[2::2]]
    assert all(r["is_error"] for r in results)
    assert all(len(action) < 300 for lap in run.laps for action in lap.actions)
