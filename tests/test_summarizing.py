"""The summarizing engine: a summary call too long for the window is split in halves; a failed call
leaves the summary as it was; three failures in a row stop the run."""

import pytest

from harness.context import CompactionFailed
from harness.messages import assistant
from harness.model import ContextOverflow, ModelError, Reply
from harness.summarizing import Summary, SummaryWriter, summarize


class Sized:
    """A summary writer's model that refuses prompts longer than ``most`` characters."""

    name, window = "sized", 5000

    def __init__(self, most=10_000, fail=None):
        self.most, self.fail, self.prompts = most, fail, []

    def reply(self, system, messages, tools, max_tokens=1024):
        prompt = messages[0]["content"]
        if self.fail:
            raise self.fail
        if len(prompt) > self.most:
            raise ContextOverflow(len(prompt), self.most)
        self.prompts.append(prompt)
        return Reply(
            [{"type": "text", "text": f"summary of {prompt.count('note')} notes"}],
            "end_turn",
            {"input_tokens": len(prompt) // 4, "output_tokens": 5},
        )


def notes(n):
    return [assistant([{"type": "text", "text": f"note {i} " + "x" * 80}]) for i in range(n)]


def summary_of(summary, events, write):
    return write(summary + "".join(e["content"][0]["text"] for e in events))


def test_an_overlong_summary_call_is_split_in_halves():
    model = Sized(most=600)
    write = SummaryWriter(model)
    text = summarize(summary_of, "", notes(8), write)
    assert write.calls > 1 and text.startswith("summary of")
    assert all(len(p) <= 600 for p in model.prompts)


def test_a_failed_call_leaves_the_summary_and_the_third_stops_the_run():
    summary = Summary(text="Goal: fix it.", max_failures=3)
    model = Sized(fail=ModelError("server down"))
    for _ in range(2):
        assert summary.rewrite(summary_of, notes(2), 3, model, lap=4) is None
        assert summary.text == "Goal: fix it." and summary.verbatim_from == 1
        assert "server down" in summary.problem
    with pytest.raises(CompactionFailed, match="failed 3 times in a row"):
        summary.rewrite(summary_of, notes(2), 3, model, lap=4)


def test_a_summary_replaces_the_middle_with_its_card():
    summary = Summary()
    write = summary.rewrite(summary_of, notes(3), 4, Sized(), lap=7)
    assert write.calls == 1 and summary.verbatim_from == 4 and summary.failures == 0
    assert summary.card["content"].startswith(
        "[Summary of earlier work, written by the model at lap 7]"
    )
