"""The model switch: Claude when ``ANTHROPIC_API_KEY`` is set, the offline model otherwise.

``CONTEXT_DESK_MODEL`` names the Claude model (default ``stage.claude.DEFAULT_CLAUDE_MODEL``);
``ANTHROPIC_BASE_URL`` points the SDK at an Anthropic-compatible server. Nothing else changes
between the two: both speak the lesson's ``harness.model.Model`` protocol.
"""

from __future__ import annotations

import os

from harness.model import CLASS_WINDOW, Model


def pick_model(window: int | None = None, **desk_options) -> Model:
    """Claude if ``ANTHROPIC_API_KEY`` is set, else the offline model.

    ``window`` is the lesson's desk size. The offline model is built with it; Claude keeps its real
    window unless one is given, in which case the harness enforces the smaller, classroom one.
    """
    if os.environ.get("ANTHROPIC_API_KEY", "").strip():
        from stage.claude import ClaudeModel, claude_model_name

        return ClaudeModel(model=claude_model_name(), toy_window=window)
    from stage.offline import OfflineModel

    return OfflineModel(window=window or CLASS_WINDOW, **desk_options)


def describe_model(model: Model | None = None) -> str:
    """One line naming the active model and how to switch. Notebooks print it in their first cell."""
    model = model or pick_model()
    if model.name.startswith("claude"):
        where = os.environ.get("ANTHROPIC_BASE_URL") or "the Anthropic API"
        desk = (
            f"classroom desk {model.window:,} tokens"
            if getattr(model, "toy_window", None)
            else f"window {model.window:,} tokens"
        )
        return (
            f"Active model: {model.name} via {where} ({desk}). "
            "Unset ANTHROPIC_API_KEY to go back to the offline model." + _status_note(model.name)
        )
    return (
        f"Active model: the offline model (rule-based, no network; toy window {model.window:,} tokens). "
        "To use Claude, set ANTHROPIC_API_KEY (and optionally CONTEXT_DESK_MODEL, ANTHROPIC_BASE_URL)."
    )


def _status_note(name: str) -> str:
    """' Note: ...' when the installed SDK lists ``name`` as deprecated or not at all (else '')."""
    from stage.claude import model_status

    try:
        status = model_status(name)
    except LookupError:
        return ""
    if status == "current" or name.startswith("claude-stand-in-"):
        return ""
    return f" Note: the installed anthropic SDK lists {name} as {status}; CONTEXT_DESK_MODEL picks another."
