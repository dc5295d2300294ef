"""Lesson 03's silent loss (stage.loss): the passing detail, what a card did with it, and the read back.

Swept: every workspace's class task under a roomy and a tight card (the detail the agent noticed, and
what the sentence says about it, checked against the card itself); generated cards that keep the detail,
keep only its file, or neither; and every line of every file of the class workspace read back through
the pointer.
"""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.compaction import ThreeZoneCompaction
from harness.laps import Did, Lap, Run
from harness.loop import run_agent
from harness.messages import assistant, text_of, user
from harness.model import CLASS_WINDOW
from harness.tools import WORKSPACE, Toolbox
from stage.loss import last_card, passing_detail, reread, the_loss
from stage.offline import OfflineModel
from stage.tasks import workspace_task

ROOT = Path(__file__).resolve().parent.parent
WORKSPACES = sorted(p for p in (ROOT / "workspaces").iterdir() if (p / ".task.toml").is_file())


def run_with(folder: Path, words: int) -> Run:
    task = workspace_task(folder)
    return run_agent(
        task.request,
        OfflineModel(window=CLASS_WINDOW),
        tools=Toolbox(folder),
        context=ThreeZoneCompaction(max_words=words),
        remarks=task.remarks,
    )


@pytest.mark.parametrize("folder", WORKSPACES, ids=lambda p: p.name)
@pytest.mark.parametrize("words", [220, 110, 60])
def test_what_the_sentence_says_is_what_the_card_holds(folder, words):
    run = run_with(folder, words)
    detail = passing_detail(run)
    said, card = the_loss(run, detail), last_card(run)
    if detail is None:
        assert said == "the agent noticed nothing in passing."
        return
    path, number = detail.split(":")
    assert (folder / path).is_file() and int(number) >= 1  # a place in the workspace, not a guess
    if not card:
        assert "never compacted" in said
    elif detail in card:
        assert said == "kept in the card."
    elif said.startswith("not summarized yet"):  # on the last desk, word for word, outside the card
        assert any(detail in text_of(m) for m in run.laps[-1].sent)
    else:
        assert said.startswith("dropped, without a word")
        if "still names" in said:  # a pointer: the read brings the very line back
            line = (folder / path).read_text(encoding="utf-8").splitlines()[int(number) - 1]
            assert path in card and said.endswith(line.strip())
        else:
            assert said.endswith("nothing leads back.") and path not in card.split()


def test_the_class_task_loses_its_passing_note_under_a_tight_card():
    """The lesson's own claim: 220 words keep app/db.py:25, 110 drop it and still name app/db.py."""
    roomy, tight = run_with(WORKSPACE, 220), run_with(WORKSPACE, 110)
    assert passing_detail(roomy) == passing_detail(tight) == "app/db.py:25"
    assert the_loss(roomy, "app/db.py:25") == "kept in the card."
    said = the_loss(tight, "app/db.py:25")
    assert "still names app/db.py" in said and "NOTE: starts at 1" in said
    assert roomy.stopped == tight.stopped == "answered"  # silent: the run ends the same way


def fake_run(card: str, still_sent: str = "") -> Run:
    lap = Lap(number=5, raw_tokens=100, assembled_tokens=50, kind=Did.COMPACT, summary=card)
    if still_sent:  # the last desk: the card, then a note written after it
        lap.sent = [user(card), assistant([{"type": "text", "text": still_sent}])]
        lap.zones = ["summary", "tail"]
    return Run(history=[], laps=[lap], toolbox=Toolbox())


def test_a_detail_noticed_after_the_last_card_is_not_called_dropped():
    note = "Noticed: app/db.py:25 (rows_to_csv) — NOTE: starts at 1"
    run = fake_run("Files read: app/db.py", still_sent=note)
    assert the_loss(run, "app/db.py:25").startswith("not summarized yet")
    assert "still names" in the_loss(fake_run("Files read: app/db.py"), "app/db.py:25")


FILES = sorted(
    p.relative_to(WORKSPACE).as_posix()
    for p in WORKSPACE.rglob("*")
    if p.is_file() and p.suffix in (".py", ".sql", ".md")
)
words_ = st.text(alphabet="abcdefghij klmno,.;:-", max_size=60)


@settings(max_examples=60, deadline=None)
@given(path=st.sampled_from(FILES), data=st.data(), before=words_, after=words_)
def test_a_generated_card_is_read_as_it_is(path, data, before, after):
    lines = (WORKSPACE / path).read_text(encoding="utf-8").splitlines()
    if not lines:
        return
    number = data.draw(st.integers(1, len(lines)))
    detail = f"{path}:{number}"
    kept = fake_run(f"{before}\nNoticed: {detail} — something\n{after}")
    pointer = fake_run(f"{before}\nFiles read: {path}, other.py\n{after}")
    nothing = fake_run(f"{before}\nFiles read: other.py\n{after}")
    assert the_loss(kept, detail) == "kept in the card."
    said = the_loss(pointer, detail)
    assert said.startswith("dropped, without a word; the card still names")
    assert said.endswith(lines[number - 1].strip())
    assert "nothing leads back" in the_loss(nothing, detail)


def test_a_longer_path_is_not_a_pointer_to_a_shorter_one():
    """lib/app/db.py and app/db.pyc do not name app/db.py."""
    for card in ("Files read: lib/app/db.py", "Files read: app/db.pyc", "see xapp/db.py"):
        assert "nothing leads back" in the_loss(fake_run(card), "app/db.py:25")
    assert "still names" in the_loss(fake_run("Files read: app/db.py."), "app/db.py:25")


def test_reread_gives_the_line_and_nothing_for_what_cannot_be_read():
    for number in (1, 25, 40):
        expected = (WORKSPACE / "app/db.py").read_text(encoding="utf-8").splitlines()[number - 1]
        assert reread("app/db.py", number) == expected.strip()
    assert reread("app/no_such_file.py", 3) is None
    assert reread("app/db.py", 10_000) is None
    assert reread("../outside.py", 1) is None
