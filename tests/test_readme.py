"""The README a newcomer reads in five minutes, and the READMEs beside it agree with the Makefile.

- README.md stays under 1,500 words; the details live in the folders' READMEs, which it links.
- Every `make X` that any README names is a target of the Makefile, and every file README.md links exists.
- The words a newcomer meets first are defined where they first appear (in the opening paragraphs), and the
  jargon the README used to throw at them before any definition stays out of it.
- The benchmark table says what machine and what load its figures were taken under.
"""

import re
from pathlib import Path

import pytest

from benchmarks import figures

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
READMES = sorted(
    p
    for p in [README, *ROOT.glob("*/README.md"), *ROOT.glob("stage/*/README.md")]
    if "node_modules" not in p.parts
)
MOST_WORDS = 1500


def makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", text, re.MULTILINE))
    for phony in re.findall(r"^\.PHONY:(.*)$", text, re.MULTILINE):
        targets |= set(phony.split())
    return targets


def make_commands(text: str) -> set[str]:
    """Every `make X` in inline code, and every line of a code block that starts with make."""
    named = set(re.findall(r"`make ([a-z][\w-]*)", text))
    for block in re.findall(r"```[^\n]*\n(.*?)```", text, re.DOTALL):
        named |= set(re.findall(r"^\s*make ([a-z][\w-]*)", block, re.MULTILINE))
    return named


def test_the_readme_is_read_in_five_minutes():
    words = len(README.read_text(encoding="utf-8").split())
    assert words <= MOST_WORDS, f"README.md has {words} words: move details to the folders' READMEs"


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_make_command_a_readme_names_exists(readme):
    named = make_commands(readme.read_text(encoding="utf-8"))
    missing = sorted(named - makefile_targets())
    assert not missing, (
        f"{readme.relative_to(ROOT)} names make targets the Makefile lacks: {missing}"
    )


def test_the_readme_names_the_two_commands_and_the_check():
    assert {"lab", "test", "check"} <= make_commands(README.read_text(encoding="utf-8"))


def test_every_file_the_readme_links_exists():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)\)", text)
    assert links, "the README links the folders' READMEs"
    missing = [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert not missing, f"README.md links files that do not exist: {missing}"
    for folder in ("stage", "stage/offline", "benchmarks", "class", "slides", "exercises"):
        assert f"({folder}/README.md)" in text, f"README.md does not link {folder}/README.md"


def test_the_first_words_are_defined_before_the_commands():
    text = README.read_text(encoding="utf-8")
    opening = text.split("```", 1)[0]  # the paragraphs before the first command
    for term in ("harness", "raw history", "lap", "desk", "compaction", "memory"):
        assert re.search(rf"\b{term}\b", opening, re.IGNORECASE), (
            f"{term!r} is not introduced first"
        )
    for jargon in ("pinned head", "levers", "betas", "cl100k", "the matrix", "issue 1", "fold"):
        assert not re.search(rf"\b{jargon}\b", text, re.IGNORECASE), (
            f"README.md uses {jargon!r}: say it in plain words, or leave it to a folder's README"
        )


def test_the_benchmark_table_states_its_machine_and_load():
    results = {
        "written": "2026-12-01",
        "machine": {"cores": 2, "cpu": "x86-64"},
        "speed": {"sessions": [{"seconds": 11.0, "wall s": 24.4}, {"seconds": 2.0, "wall s": 4.6}]},
    }
    said = figures.conditions(results)
    assert "cores 2, cpu x86-64" in said and "45% of a core" in said and "busy" in said
    idle = figures.conditions({"speed": {"sessions": [{"seconds": 5.0, "wall s": 5.2}]}})
    assert "did not record" in idle and "96% of a core" in idle and "agree" in idle
    assert "load not measured" in figures.conditions({})
    table = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    block = table.split("<!-- figures:goals -->", 1)[1].split("<!-- /figures:goals -->", 1)[0]
    assert "Taken on" in block and ("of a core" in block or "load not measured" in block)
    assert "figures:" not in README.read_text(encoding="utf-8"), "the figures live in benchmarks/"
