"""The server side of the API's levers, as the local desk server (``stage/offline_server.py``) plays it.

Plain functions on a request's messages, so the desk server stays short:

* ``problems`` -- what the API would refuse in the lever fields of a request: an unknown edit, a missing
  beta header, a threshold trigger under the API's minimum of 50,000 tokens, ``clear_thinking_20251015``
  not first among the edits, ``compaction`` together with ``context_management``, a signed
  ``compaction`` block that is not first, was altered, or is not alone.
* ``apply_blocks`` -- a ``compaction`` block sent back stands in for everything before it.
* ``clear_tool_results``, ``clear_thinking`` -- the two clearing edits; ``edit`` applies a request's.
* ``summary_prompt`` -- what the stand-in's model is asked when the server compacts: the workbook's own
  template, or the caller's ``instructions`` in its place (they replace the default prompt, as in the API).
* ``trace`` -- the "thinking" the stand-in writes when a request turns thinking on: what it checked on
  the desk before deciding (goal, rules, files it can see it has read). Real thinking it is not.

Rules as the Claude Platform docs state them (September 2026 crawl): the threshold trigger is at least
50,000 input tokens; instructions replace the default summary prompt; an on-demand block must come first,
signed and unchanged, one per request; ``compaction`` and ``context_management`` never share a request.
The order rule for ``clear_thinking_20251015`` comes from the docs' examples and two public projects;
the docs pages read here do not state it in words.
Left out: ``exclude_tools``, ``clear_tool_inputs``, tool-use triggers, thinking kept valid across compaction,
and the per-model default for thinking (the stand-in keeps all earlier thinking without the edit, and
one turn's with an edit that sets no ``keep``).
"""

from __future__ import annotations

import hashlib

from harness.messages import blocks_of, user
from harness.prompts import compaction_prompt, render
from harness.tokens import Meter
from stage.offline.view import View

CLEARED = "[tool result cleared by the server's context management]"
SUMMARY_HEADER = "[Summary of the conversation so far]"
API_MIN_TRIGGER = 50_000
CONTEXT_BETA = "context-management-2025-06-27"
THRESHOLD_BETA, ON_DEMAND_BETA = "compact-2026-01-12", "compact-2026-09-04"
EDIT_BETAS = {
    "clear_tool_uses_20250919": CONTEXT_BETA,
    "clear_thinking_20251015": CONTEXT_BETA,
    "compact_20260112": THRESHOLD_BETA,
}
_SECRET = (
    b"context-desk stand-in"  # signs on-demand blocks, so an altered one is caught as the API would
)


def sign(content: str) -> str:
    """The stand-in's signature of a summary. Example: sign("Goal: ...") -> a 32-character hex string"""
    return hashlib.blake2b(content.encode(), key=_SECRET, digest_size=16).hexdigest()


def problems(
    body: dict,
    betas: list[str],
    min_trigger: int = API_MIN_TRIGGER,
    unsupported=(),
    counting: bool = False,
) -> str:
    """What the API would refuse in the request's lever fields ('' if nothing we check)."""
    edits = (body.get("context_management") or {}).get("edits") or []
    for i, one in enumerate(edits):
        kind = one.get("type") if isinstance(one, dict) else None
        where = f"context_management.edits.{i}"
        if kind not in EDIT_BETAS:
            return f"{where}.type: unknown edit {kind!r}"
        if EDIT_BETAS[kind] not in betas:
            return f"{where}: {kind} requires anthropic-beta: {EDIT_BETAS[kind]}"
        if kind in unsupported:
            return f"{where}: {kind} is not supported on this model"
        value = (one.get("trigger") or {}).get(
            "value", 150_000 if kind == "compact_20260112" else 100_000
        )
        if kind == "compact_20260112" and not counting and value < min_trigger:
            return f"{where}.trigger.value: must be at least {min_trigger}, not {value}"
        if kind == "clear_thinking_20251015" and i:
            return f"{where}: clear_thinking_20251015 must come first in context_management.edits"
        if kind == "clear_thinking_20251015" and thinking_keep(one) is None:
            return f"{where}.keep: must be 'all' or {{'type': 'thinking_turns', 'value': N}} with N > 0"
    if "compaction" in body and not counting:
        config = body["compaction"] if isinstance(body["compaction"], dict) else {}
        if ON_DEMAND_BETA not in betas:
            return f"compaction: the compaction parameter requires anthropic-beta: {ON_DEMAND_BETA}"
        if "summarize" in unsupported:
            return "compaction: compaction is not supported on this model"
        if config.get("type") != "summarize":
            return "compaction.type: must be 'summarize'"
        if "context_management" in body:
            return "compaction: cannot be combined with context_management"
        if _unanswered_tool_call(body["messages"]):
            return "the last assistant turn ends in a tool call with no result: send its tool results, then compact"
    return _block_problems(body, betas)


def _block_problems(body: dict, betas: list[str]) -> str:
    signed = [
        (i, k, b)
        for i, m in enumerate(body["messages"])
        for k, b in enumerate(blocks_of(m))
        if b.get("type") == "compaction" and b.get("signature")
    ]
    if not signed:
        return ""
    if ON_DEMAND_BETA not in betas:
        i, k, _ = signed[0]
        return (
            f"messages.{i}.content.{k}: 'compaction' is not one of the expected content block types"
        )
    if len(signed) > 1:
        return "send exactly one compaction block, the newest"
    i, k, block = signed[0]
    if (i, k) != (0, 0):
        return "compaction_block_misplaced: summarized messages remain in front of the compaction block"
    if sign(block.get("content") or "") != block["signature"]:
        return (
            "compaction_content_mismatch: the block's content was changed after the API returned it"
        )
    if any(
        e.get("type") == "compact_20260112"
        for e in (body.get("context_management") or {}).get("edits", [])
    ):
        return "threshold compaction cannot run on a request that carries a signed compaction block"
    return ""


def _unanswered_tool_call(messages: list[dict]) -> bool:
    last = next((m for m in reversed(messages) if m.get("role") == "assistant"), None)
    if last is None or messages[-1] is not last:
        return False
    return bool(blocks_of(last)) and blocks_of(last)[-1].get("type") == "tool_use"


# ---- what the model reads -----------------------------------------------------------------


def apply_blocks(messages: list[dict]) -> list[dict]:
    """A ``compaction`` block stands in for everything before it (its summary as a user turn).

    Example: [U1, A1, A(block "S", text T), U2] -> [U("[Summary ...]\\nS"), A(text T), U2]
    """
    for i in range(len(messages) - 1, -1, -1):
        blocks = blocks_of(messages[i])
        at = next((k for k, b in enumerate(blocks) if b.get("type") == "compaction"), None)
        if at is None:
            continue
        summary, rest = blocks[at].get("content"), blocks[at + 1 :]
        head = [user(f"{SUMMARY_HEADER}\n{summary}")] if summary else []
        return (
            head
            + ([{"role": messages[i]["role"], "content": rest}] if rest else [])
            + messages[i + 1 :]
        )
    return messages


def clear_tool_results(messages: list[dict], keep: int) -> tuple[list[dict], int]:
    """All but the newest ``keep`` tool results replaced by a placeholder; (new messages, how many)."""
    where = [
        (i, j)
        for i, m in enumerate(messages)
        for j, b in enumerate(blocks_of(m))
        if b.get("type") == "tool_result" and b.get("content") != CLEARED
    ]
    to_clear = where[:-keep] if keep else where
    edited = [dict(m, content=list(blocks_of(m))) for m in messages]
    for i, j in to_clear:
        edited[i]["content"][j] = {**edited[i]["content"][j], "content": CLEARED}
    return edited, len(to_clear)


def thinking_keep(edit: dict) -> int | None:
    """How many turns keep their thinking: 1 by default, a big number for 'all', None if malformed."""
    keep = edit.get("keep", {"type": "thinking_turns", "value": 1})
    if keep == "all" or keep == {"type": "all"}:
        return 10**9
    value = (
        keep.get("value")
        if isinstance(keep, dict) and keep.get("type") == "thinking_turns"
        else None
    )
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def clear_thinking(messages: list[dict], keep: int) -> tuple[list[dict], int]:
    """Thinking blocks taken out of all but the newest ``keep`` assistant turns that have some; (new, turns)."""
    thinking = [i for i, m in enumerate(messages) if m["role"] == "assistant" and _thinks(m)]
    old = set(thinking[:-keep] if keep else thinking)
    edited = [
        dict(m, content=[b for b in blocks_of(m) if not _is_thinking(b)]) if i in old else m
        for i, m in enumerate(messages)
    ]
    return edited, len(old)


def thinking_tokens(messages: list[dict], meter: Meter) -> int:
    """Tokens of the thinking blocks in ``messages`` (the harness's meter reads only text and tools)."""
    return sum(
        meter.text(b.get("thinking") or "")
        for m in messages
        for b in blocks_of(m)
        if _is_thinking(b)
    )


def edit(messages: list[dict], edits: list[dict], size) -> tuple[list[dict], list[dict]]:
    """Apply the clearing edits (not compaction): (what the model reads, the applied-edit reports).

    ``size(messages)`` counts a request; clearing tool results waits for its trigger, clearing thinking
    does not have one. Example: keep 1 thinking turn of 4 -> one report, cleared_thinking_turns 3.
    """
    applied = []
    for one in edits:
        before = size(messages)
        if one["type"] == "clear_thinking_20251015":
            messages, turns = clear_thinking(messages, thinking_keep(one))
            if turns:
                applied.append(
                    {
                        "type": one["type"],
                        "cleared_thinking_turns": turns,
                        "cleared_input_tokens": before - size(messages),
                    }
                )
        elif one["type"] == "clear_tool_uses_20250919" and before > (one.get("trigger") or {}).get(
            "value", 100_000
        ):
            messages, cleared = clear_tool_results(
                messages, (one.get("keep") or {}).get("value", 3)
            )
            if cleared:
                applied.append(
                    {
                        "type": one["type"],
                        "cleared_tool_uses": cleared,
                        "cleared_input_tokens": max(0, before - size(messages)),
                    }
                )
    return messages, applied


def summary_prompt(messages: list[dict], instructions: str | None) -> str:
    """The summary request: the workbook's template by default; ``instructions`` replace it."""
    if instructions and instructions.strip():
        return (
            f"Summarize the transcript so the task can continue.\n{instructions.strip()}\n"
            f"<transcript>\n{render(messages)}\n</transcript>"
        )
    return compaction_prompt(render(messages))


def trace(system: str, messages: list[dict], tools: list[dict]) -> str:
    """The stand-in's 'thinking': what it can see on the desk. Grows as the desk fills, like real thinking."""
    desk = View.read(system, messages, tools)
    read = sorted(p for p in desk.evidence_of_reading() if p)
    return "\n".join(
        [
            f"Checking the desk before deciding. Goal in view: {desk.goal() or 'none'}",
            f"Standing rules in view: {'; '.join(desk.rules()) or 'none'}",
            f"Files I can see I have read ({len(read)}): {', '.join(read) or 'none'}",
        ]
    )


def _thinks(message: dict) -> bool:
    return any(_is_thinking(b) for b in blocks_of(message))


def _is_thinking(block: dict) -> bool:
    return block.get("type") in ("thinking", "redacted_thinking")
