"""One protocol for every model the loop can talk to, and the switch between them.

Two backends implement ``Model``:

* ``harness.offline.desk_model.DeskModel`` -- the offline, rule-based stand-in (the default: no key, no network);
* ``harness.claude.ClaudeModel``   -- the real Claude, through the official ``anthropic`` SDK.

``pick_model()`` chooses: Claude when ``ANTHROPIC_API_KEY`` is set, the desk model otherwise.
``CONTEXT_DESK_MODEL`` names the Claude model; ``ANTHROPIC_BASE_URL`` points the SDK at an
Anthropic-compatible server. Nothing else changes between the two.

Left out: streaming, extended thinking, images.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Protocol

DEFAULT_CLAUDE_MODEL = "claude-haiku-5-5"   # small and cheap: right for a class; one setting only
CLASS_WINDOW = 5000                         # the desk model's toy window: full history overflows around lap 10
CLAUDE_WINDOW = 200_000


def claude_model_name() -> str:
    """The Claude model to use: ``$CONTEXT_DESK_MODEL`` or the default."""
    return os.environ.get("CONTEXT_DESK_MODEL", "").strip() or DEFAULT_CLAUDE_MODEL


@dataclass
class Reply:
    """What a model sends back: content blocks, why it stopped, and the token usage."""

    content: list[dict]
    stop_reason: str                     # "tool_use" or "end_turn"
    usage: dict = field(default_factory=lambda: {"input_tokens": 0, "output_tokens": 0})

    @property
    def text(self) -> str:
        return "\n".join(b["text"] for b in self.content if b.get("type") == "text")


class ContextOverflow(Exception):
    """The request was larger than the model's window: the first way an agent dies."""

    def __init__(self, sent: int | None, window: int | None, detail: str = ""):
        self.sent, self.window = sent, window
        size = f"{sent:,} tokens were sent to a {window:,}-token window" if sent and window else detail
        super().__init__(f"Context overflow: {size}. The desk is full; a context strategy must make room.")


class ModelError(Exception):
    """The model could not answer (bad key, rate limit, server down). The message says what to do."""


class Model(Protocol):
    """Anything the loop can call. ``window`` is the context window in tokens."""

    name: str
    window: int

    def reply(self, system: str, messages: list[dict], tools: list[dict], max_tokens: int = 1024) -> Reply:
        ...


def pick_model(window: int | None = None, **desk_options) -> Model:
    """Claude if ``ANTHROPIC_API_KEY`` is set, else the offline desk model.

    ``window`` is the lesson's desk size. The desk model is built with it; Claude keeps its real
    window unless one is given, in which case the harness enforces the smaller, classroom one.
    """
    if os.environ.get("ANTHROPIC_API_KEY", "").strip():
        from harness.claude import ClaudeModel

        return ClaudeModel(model=claude_model_name(), toy_window=window)
    from harness.offline import DeskModel

    return DeskModel(window=window or CLASS_WINDOW, **desk_options)


def describe_model(model: Model | None = None) -> str:
    """One line naming the active model and how to switch. Notebooks print it in their first cell."""
    model = model or pick_model()
    if model.name.startswith("claude"):
        where = os.environ.get("ANTHROPIC_BASE_URL") or "the Anthropic API"
        desk = f"classroom desk {model.window:,} tokens" if getattr(model, "toy_window", None) else \
            f"window {model.window:,} tokens"
        return (f"Active model: {model.name} via {where} ({desk}). "
                "Unset ANTHROPIC_API_KEY to go back to the offline desk model.")
    return (f"Active model: the offline desk model (rule-based, no network; toy window {model.window:,} tokens). "
            "To use Claude, set ANTHROPIC_API_KEY (and optionally CONTEXT_DESK_MODEL, ANTHROPIC_BASE_URL).")
