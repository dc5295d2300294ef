"""The strategy table on every workspace: the lesson phenomena beyond the class codebase (part of `make bench`).

    .venv/bin/python -m benchmarks.workspaces

For ``workspaces/ledgerly/`` and each folder of ``workspaces/``: the rule is said at lap 3 and the user corrects
a name in the fix at lap 2, on a desk about half the size of the whole task (5,000 tokens for the class
workspace), with no CLAUDE.md in the system prompt (its rule would be on every desk: the table is about the
desk alone). Columns as in ``benchmarks.compare``, plus ``fix statement``: corrected or stale.
Left out: workspaces without a ``.task.toml`` (give them to ``benchmarks.compare --request``).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.compare import compare, table
from harness.model import CLASS_WINDOW
from harness.tools import REPO_ROOT, WORKSPACE


def folders() -> list[Path]:
    return [WORKSPACE] + sorted(
        p for p in (REPO_ROOT / "workspaces").iterdir() if (p / ".task.toml").is_file()
    )


def run_all(quick: bool = False) -> dict:
    """{workspace name: rows}. Quick mode: the class workspace only."""
    chosen = folders()[:1] if quick else folders()
    return {
        folder.name: compare(
            3, CLASS_WINDOW if folder == WORKSPACE else None, folder, correct_at=2, memory=False
        )
        for folder in chosen
    }


def report(results: dict) -> str:
    parts = []
    for name, rows in results.items():
        parts.append(
            f"Workspace {name} (desk {rows[0]['window']:,} tokens; rule at lap 3, correction at lap 2):"
        )
        parts.append(
            table([{k: v for k, v in r.items() if not k.startswith("window")} for r in rows])
        )
    return "\n".join(parts)


if __name__ == "__main__":
    print(report(run_all()))
