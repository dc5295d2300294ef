"""One protocol for every model the loop can talk to: ``Model``, its ``Reply``, and its two errors.

The loop only needs ``model.reply(system, messages, tools)`` and ``model.window``. Two backends
implement it, both outside the lesson, in the stage package: the offline model (``stage.offline``)
and the real Claude (``stage.claude``); ``stage.switch.pick_model()`` chooses.

``CLASS_WINDOW`` is the classroom's window: 5,000 tokens, so full history overflows within minutes.
Left out: streaming, extended thinking, images.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

CLASS_WINDOW = 5000  # tokens: full history overflows around lap 10 of the class task


@dataclass
class Reply:
    """What a model sends back: content blocks, why it stopped, and the token usage."""

    content: list[dict]
    stop_reason: str  # "tool_use" or "end_turn"
    usage: dict = field(default_factory=lambda: {"input_tokens": 0, "output_tokens": 0})

    @property
    def text(self) -> str:
        return "\n".join(b["text"] for b in self.content if b.get("type") == "text")


class ContextOverflow(Exception):
    """The request was larger than the model's window: the first way an agent dies."""

    def __init__(self, sent: int | None, window: int | None, detail: str = ""):
        self.sent = sent  # tokens sent (None when the provider did not say)
        self.window = window
        size = (
            f"{sent:,} tokens were sent to a {window:,}-token window" if sent and window else detail
        )
        super().__init__(
            f"Context overflow: {size}. The desk is full and nothing made room: "
            "use a context strategy, or give the one in use more room "
            "(a bigger window, a lower threshold, a smaller tail)."
        )


class ModelError(Exception):
    """The model could not answer (bad key, rate limit, server down); it says what to do."""


class Model(Protocol):
    """Anything the loop can call. ``window`` is the context window in tokens."""

    name: str
    window: int

    def reply(
        self, system: str, messages: list[dict], tools: list[dict], max_tokens: int = 1024
    ) -> Reply: ...
