"""What each lesson costs one student with a key: the token bill of a real run of every lesson notebook.

    .venv/bin/python class/lesson_cost.py            # the table class/README.md quotes ("With a key")

Each lesson notebook is executed headless (nbclient) with one cell put in front of it: it wraps
`stage.switch.pick_model`, so every model a lesson asks for -- the ones that become Claude when
ANTHROPIC_API_KEY is set -- adds the `usage` of each reply to a counter, and a last cell prints the
counter. Models a cell builds itself (`OfflineModel(...)` written out, as the exercise checks do) stay
offline even with a key, so they are not counted. The dollars use the price of the model a key would
use (stage/claude.py: CLAUDE_PRICES for CONTEXT_DESK_MODEL, default DEFAULT_CLAUDE_MODEL), without the
prompt-cache discount: an upper bound. A model the table does not list is priced at the lessons' round
numbers (harness/cost.py PRICES), and the table says so.

Without a key (how this runs by default, and in the test) the tokens are the offline model's own
billed counts: it counts what it is sent with the same tokenizer and bills it like the API, so it is a
fair stand-in for the size of the bill, not the real model's word count. Run it with a key set to
bill the real model instead (every lesson's runs then go to Claude, and cost what they print).

Left out: a student re-running cells (multiply), the exercises (offline by design: free), and
count_tokens calls (free on the API).
"""

import json
import sys
import time
from pathlib import Path

import nbclient
import nbformat

from harness.cost import PRICES, Prices
from stage.claude import claude_model_name, prices_for
from stage.registry import registry

REPO = Path(__file__).resolve().parent.parent

# The lessons of the registry (notebooks/lessons.toml), in class order, and 06 for going further.
LESSONS = [entry.name for entry in registry()] + ["06_going_further"]
MARK = "LESSON-COST "

COUNTER_CELL = """
import stage.switch as _model
_tally = {"calls": 0, "input_tokens": 0, "output_tokens": 0}
_pick = _model.pick_model

def _counted_pick_model(*args, **kwargs):
    model = _pick(*args, **kwargs)
    reply = model.reply
    def counted(*a, **k):
        answer = reply(*a, **k)
        _tally["calls"] += 1
        _tally["input_tokens"] += answer.usage.get("input_tokens", 0)
        _tally["output_tokens"] += answer.usage.get("output_tokens", 0)
        return answer
    model.reply = counted
    return model

_model.pick_model = _counted_pick_model
"""
REPORT_CELL = f'import json\nprint("{MARK}" + json.dumps(_tally))'


def lesson_bill(name: str, timeout: int = 300) -> dict:
    """Run one lesson with the counter in front; its calls, tokens, dollars and seconds."""
    path = REPO / "notebooks" / f"{name}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(COUNTER_CELL))
    notebook.cells.append(nbformat.v4.new_code_cell(REPORT_CELL))
    started = time.perf_counter()
    nbclient.NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    seconds = time.perf_counter() - started
    printed = "".join(output.get("text", "") for output in notebook.cells[-1].outputs)
    tally = json.loads(printed.split(MARK, 1)[1])
    tally["dollars"] = price()[0].dollars(
        uncached=tally["input_tokens"], output=tally["output_tokens"]
    )
    tally["seconds"] = seconds
    return tally


def price() -> tuple[Prices, str]:
    """The price of the model a key would use, and where it comes from (one place: stage/claude.py)."""
    model = claude_model_name()
    listed = prices_for(model)
    if listed:
        return listed, f"stage/claude.py CLAUDE_PRICES, for {model}"
    return (
        PRICES,
        f"the lessons' round numbers, harness/cost.py PRICES: {model} is not in CLAUDE_PRICES",
    )


def table(bills: dict[str, dict], class_size: int = 30) -> str:
    import os

    who = (
        f"Claude ({claude_model_name()})"
        if os.environ.get("ANTHROPIC_API_KEY")
        else "the offline model, as a stand-in for the bill"
    )
    prices, source = price()
    lines = [
        f"Tokens billed by one student's run of each lesson, counted from {who}; priced at "
        f"${prices.input:.2f} / ${prices.output:.2f} per million input / output tokens "
        f"({source}), no cache discount.",
        "",
        f"| lesson | model calls | input tokens | output tokens | $ per student | $ for {class_size} |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, tally in bills.items():
        lines.append(
            f"| {name} | {tally['calls']:,} | {tally['input_tokens']:,} | {tally['output_tokens']:,} | "
            f"{tally['dollars']:.3f} | {tally['dollars'] * class_size:.2f} |"
        )
    total = {
        key: sum(t[key] for t in bills.values())
        for key in ("calls", "input_tokens", "output_tokens", "dollars")
    }
    lines.append(
        f"| all lessons | {total['calls']:,} | {total['input_tokens']:,} | {total['output_tokens']:,} | "
        f"{total['dollars']:.3f} | {total['dollars'] * class_size:.2f} |"
    )
    return "\n".join(lines)


def main() -> int:
    names = [n for n in LESSONS if not sys.argv[1:] or any(n.startswith(a) for a in sys.argv[1:])]
    bills = {name: lesson_bill(name) for name in names}
    print(table(bills))
    return 0


if __name__ == "__main__":
    sys.exit(main())
