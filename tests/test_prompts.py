"""The prompts: the compaction template always asks for the standing constraints; a focus goes first;
the fold prompt carries the summary so far; the transcript they embed labels every block."""

from harness.messages import assistant, user
from harness.prompts import (
    COMPACTION_TEMPLATE,
    NAIVE_PROMPT,
    compaction_prompt,
    fold_prompt,
    render,
)


def test_the_template_asks_for_the_standing_constraints_and_the_naive_prompt_does_not():
    assert "Standing constraints" in compaction_prompt("user: hi")
    assert "Standing constraints" not in compaction_prompt("user: hi", template=NAIVE_PROMPT)
    assert "at most 80 words" in compaction_prompt("user: hi", max_words=80)


def test_a_focus_is_asked_for_first():
    prompt = compaction_prompt("user: hi", focus="  database decisions ")
    assert "Focus on database decisions first." in prompt
    assert "Focus on" not in compaction_prompt("user: hi", template=COMPACTION_TEMPLATE)


def test_the_fold_prompt_carries_the_summary_so_far():
    assert "<summary>\n(empty)\n</summary>" in fold_prompt("", "user: hi")
    assert "Goal: fix it." in fold_prompt("Goal: fix it.", "user: hi")


def test_the_transcript_labels_each_block():
    call = {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "app/a.py"}}
    history = [
        user("Fix the bug."),
        assistant([call]),
        user([{"type": "tool_result", "tool_use_id": "t1", "content": "x = 1"}]),
    ]
    assert render(history) == (
        'user: Fix the bug.\nassistant -> read_file {"path": "app/a.py"}\ntool result:\nx = 1'
    )
