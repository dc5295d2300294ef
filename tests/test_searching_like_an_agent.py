"""The offline model looks for a cause the way an agent does (issue 35), each rule on a small case built for it.

A quoted error text is searched for before anything is read file by file; a file the request names is read
first; code that raises or compares outranks a docstring or a class statement that repeats the request's
words; a BUG comment is a defect when the request asks for defects; it never applies a fix with no cause in
view or recorded; it does not repeat a cycle of calls; and nothing in ``stage/offline`` names a library or a
workspace it is tried on.
"""

import re
from pathlib import Path

import pytest
from real_libraries import LIBRARIES, WORDED

from harness.loop import run_agent
from harness.messages import assistant, user
from harness.tools import TOOL_SCHEMAS, Toolbox
from stage.offline import View, OfflineModel
from stage.offline.findings import facts_in_file
from stage.offline.progress import cycle

RULE = "Never touch production: run database changes on staging only."
OFFLINE = Path(__file__).resolve().parent.parent / "stage" / "offline"


def numbered(lines: list[str], first: int = 1) -> str:
    """Text as read_file shows it. Example: ['x = 1'] -> '   1  x = 1'"""
    return "\n".join(f"{n:>4}  {line}" for n, line in enumerate(lines, start=first))


def calls(run) -> list[str]:
    return [a for lap in run.laps for a in lap.actions]


def service(root: Path) -> Path:
    """A small service: a package whose opening docstring repeats the symptom's words, a parser whose error
    sits in a raise three modules in, a pending fix; no marker anywhere."""
    (root / "svc").mkdir()
    (root / "db").mkdir()
    (root / "svc" / "__init__.py").write_text(
        '"""Invoice totals: parse amounts and reject bad ones."""\n'
    )
    (root / "svc" / "errors.py").write_text(
        'class AmountError(ValueError):\n    """Raised when an amount cannot be parsed."""\n'
    )
    (root / "svc" / "format.py").write_text("def show(amount):\n    return f'{amount:.2f}'\n" * 3)
    (root / "svc" / "parser.py").write_text(
        "from svc.errors import AmountError\n\n\n"
        "def parse_amount(text):\n"
        '    """Parse an amount such as 12.50; a bad amount raises AmountError."""\n'
        "    if ',' in text:\n"
        "        raise AmountError(f'amount {text!r} has a comma, use a dot')\n"
        "    return float(text)\n\n\n"
        "def parse_rows(rows):\n"
        "    # BUG: the header row is parsed as an amount too\n"
        "    return [parse_amount(r) for r in rows]\n"
    )
    (root / "db" / "004_fix_amounts.sql").write_text(
        "-- status: pending\nUPDATE invoices SET amount = replace(amount, ',', '.');\n"
    )
    return root


def test_a_quoted_error_is_searched_for_before_any_file_is_read(tmp_path):
    request = (
        "Importing invoices fails with 'has a comma, use a dot'. Find the cause in svc/ and db/, then "
        f"apply the pending fix to the database. {RULE}"
    )
    run = run_agent(request, OfflineModel(window=60_000), tools=Toolbox(service(tmp_path)))
    assert calls(run)[:2] == ["list_files", "search has a comma, use a dot"]
    assert calls(run)[2].startswith("read_file svc/parser.py")
    assert "Cause: svc/parser.py:7 (parse_amount) — raise AmountError(" in run.final
    assert run.toolbox.sql_log[-1]["target"] == "staging"


def test_a_file_the_request_names_is_read_first(tmp_path):
    request = (
        "Amounts are rejected somewhere in parser.py. Find the cause and apply the pending fix."
    )
    run = run_agent(request, OfflineModel(window=60_000), tools=Toolbox(service(tmp_path)))
    assert calls(run)[:2] == ["list_files", "read_file svc/parser.py"]


def test_code_that_raises_outranks_prose_that_repeats_the_request():
    """The package docstring and the class statement share the request's words; the raise is the cause."""
    goal = "A bad amount is rejected with AmountError when it cannot be parsed."
    prose = facts_in_file(
        "svc/errors.py",
        numbered(
            ["class AmountError(ValueError):", '    """Raised when an amount cannot be parsed."""']
        ),
        goal,
        leads=True,
    )
    assert [kind for kind, _ in prose] in ([], ["Lead"])  # never the cause
    code = facts_in_file(
        "svc/parser.py",
        numbered(
            [
                "def parse_amount(text):",
                '    """Parse an amount; a bad amount that cannot be parsed raises AmountError."""',
                "    if ',' in text:",
                "        raise AmountError(f'amount {text!r} cannot be parsed')",
            ]
        ),
        goal,
        leads=True,
    )
    assert code[0] == (
        "Cause",
        "svc/parser.py:4 (parse_amount) — raise AmountError(f'amount {text!r} cannot be parsed')",
    )


def test_a_bug_comment_is_a_defect_when_the_request_asks_for_defects(tmp_path):
    """The issue's case: asked for every defect, it named a package's one-line docstring."""
    run = run_agent(
        "Report every defect in parser.py.",
        OfflineModel(window=60_000),
        tools=Toolbox(service(tmp_path)),
    )
    assert run.stopped == "answered" and run.toolbox.sql_log == []
    answer = run.final.split("Done. The cause: ")[1]
    assert answer.startswith("svc/parser.py:12 (parse_rows) — BUG: the header row is parsed")
    assert "__init__" not in run.final


def test_a_statement_is_weighed_whole_when_its_message_is_on_the_next_lines():
    lines = [
        "def register(self, plugin, name):",
        "    if name in self.names:",
        "        raise ValueError(",
        '            "Plugin name already registered: "',
        '            f"{name}"',
        "        )",
    ]
    facts = facts_in_file(
        "p/m.py", numbered(lines), "It fails with 'Plugin name already registered'."
    )
    assert facts == (
        (
            "Cause",
            'p/m.py:3 (register) — raise ValueError( "Plugin name already registered: {name}" )',
        ),
    )


def test_no_fix_is_applied_without_a_cause(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.py").write_text("def main():\n    return 0\n")
    (tmp_path / "fixes").mkdir()
    (tmp_path / "fixes" / "001.sql").write_text("-- pending\nUPDATE t SET a = 1;\n")
    request = f"Weekly reports come out empty. Find the cause in app/ and fixes/, then apply the pending fix to the database. {RULE}"
    run = run_agent(request, OfflineModel(window=60_000), tools=Toolbox(tmp_path))
    assert run.stopped == "answered" and run.toolbox.sql_log == []
    assert "no cause: I do not apply a fix I cannot explain" in run.final


def test_with_the_cause_off_the_desk_it_reads_it_again_before_applying(tmp_path):
    """Its to-do line says where the cause was; the fix is in view: it re-reads around that line first."""
    box = Toolbox(service(tmp_path))
    request = (
        "Importing invoices fails with 'has a comma, use a dot'. Find the cause in svc/ and db/, then "
        f"apply the pending fix to the database. {RULE}"
    )

    def exchange(name, **args):
        use = {
            "type": "tool_use",
            "id": f"t_{name}_{sorted(args.items())}",
            "name": name,
            "input": args,
        }
        note = "Task: x\nDone: found the cause in svc/parser.py:7. Pending: find the fix."
        return [
            assistant([{"type": "text", "text": note}, use]),
            {"role": "user", "content": [box.run(use)]},
        ]

    messages = (
        [user(request)]
        + exchange("list_files")
        + exchange("read_file", path="db/004_fix_amounts.sql")
    )
    reply = OfflineModel(window=60_000).reply("", messages, TOOL_SCHEMAS)
    [call] = [b for b in reply.content if b.get("type") == "tool_use"]
    assert call["name"] == "read_file" and call["input"]["path"] == "svc/parser.py"
    assert call["input"]["offset"] <= 7 < call["input"]["offset"] + call["input"]["limit"]


def test_it_does_not_repeat_a_cycle_of_calls_it_can_see():
    """Each listing was cleared, so listing again is all it can think of: the third time, it stops and says why."""
    cleared = "[cleared: the result of list_files; call it again if needed]"
    messages = [user(f"Users cannot log in. Find the cause in app/, then apply the fix. {RULE}")]
    for n in range(2):
        use = {"type": "tool_use", "id": f"t{n}", "name": "list_files", "input": {}}
        messages += [
            assistant([{"type": "text", "text": "Task: x"}, use]),
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": cleared}],
            },
        ]
    reply = OfflineModel(window=60_000).reply("", messages, TOOL_SCHEMAS)
    assert reply.stop_reason == "end_turn" and "I stopped a cycle" in reply.text


@pytest.mark.parametrize(
    "calls, found",
    [
        (["a", "b", "c", "b", "c"], (2, 2)),
        (["a", "b", "a"], None),
        (
            ["x"] + [f"c{i}" for i in range(20)] * 3,
            (20, 3),
        ),  # twenty laps, three times: not "the last ten"
        (["a", "a", "a", "a"], (1, 4)),
    ],
)
def test_a_cycle_of_any_length_is_found(calls, found):
    assert cycle(calls) == found


def test_the_offline_model_names_no_library_and_no_workspace():
    """It must not know what it is tried on: no package the tests copy, no workspace, appears in its code."""
    names = set(LIBRARIES) | set(WORDED) | {"ledgerly", "greenhouse", "workspaces/library"}
    for path in sorted(OFFLINE.glob("*")):
        if path.suffix not in (".py", ".md"):
            continue
        text = path.read_text(encoding="utf-8").lower()
        found = [n for n in names if re.search(rf"(?<![\w-]){re.escape(n.lower())}", text)]
        assert not found, f"{path.name} names {found}"


def test_a_quoted_message_that_says_must_not_is_no_rule():
    """The user's symptom quotes the error; its 'must not' is the library's, not an order to the agent."""
    request = (
        "Sign-up fails with 'Label must not start or end with a hyphen'. Find the cause in lib/, then "
        "apply the pending fix to the database. Never touch production."
    )
    desk = View.read("", [user(request)], TOOL_SCHEMAS)
    assert desk.goal().startswith("Sign-up fails with 'Label must not start")
    assert desk.rules() == ["Never touch production."]


def test_a_quote_with_a_value_in_its_middle_is_found_by_its_halves(tmp_path):
    """The user quotes the message with the value in it; the code holds '%s' there. Nothing holds the whole
    quote, so it searches each half, and the second finds the raise."""
    (tmp_path / "units").mkdir()
    (tmp_path / "units" / "convert.py").write_text(
        "def to_metres(value, unit):\n"
        "    if unit not in FACTORS:\n"
        "        raise ValueError('cannot convert %s into metres for this report' % unit)\n"
        "    return value * FACTORS[unit]\n"
    )
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "1.sql").write_text("-- pending\nUPDATE legs SET unit = 'm';\n")
    request = (
        "The route report fails with 'cannot convert furlong into metres for this report'. Find the "
        f"cause in units/ and db/, then apply the pending fix to the database. {RULE}"
    )
    run = run_agent(request, OfflineModel(window=60_000), tools=Toolbox(tmp_path))
    searches = [c for c in calls(run) if c.startswith("search ")]
    assert searches[:3] == [
        "search cannot convert furlong into metres for this report",
        "search cannot convert furlong into",
        "search metres for this report",
    ]
    assert "Cause: units/convert.py:3 (to_metres) — raise ValueError(" in run.final
    assert run.toolbox.sql_log[-1]["target"] == "staging"
