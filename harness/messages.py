"""The message array: the agent's whole memory, as plain dicts in the Anthropic shape.

A message is ``{"role": "user" | "assistant", "content": str | list[block]}``. Blocks are
``text``, ``tool_use`` (the model asks for a tool) and ``tool_result`` (the harness answers).
The system prompt is not a message: it travels beside the array, as the API wants.

Messages are treated as immutable once appended. Strategies build *new* lists that reuse
the same dicts; nobody edits a message in place (the token meter's cache relies on it).

Left out: images, documents, thinking blocks, citations. The workbook never sends them.
"""

from __future__ import annotations

import json


def user(content: str | list[dict]) -> dict:
    """A user message: plain text, or blocks (the tool results of one lap).

    Example: user("hi") -> {"role": "user", "content": "hi"}
    """
    return {"role": "user", "content": content}


def assistant(blocks: list[dict]) -> dict:
    """An assistant message built from the model's reply blocks."""
    return {"role": "assistant", "content": list(blocks)}


def blocks_of(message: dict) -> list[dict]:
    """The content of a message as a list of blocks (a plain string becomes one text block)."""
    content = message["content"]
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content


def text_of(message: dict) -> str:
    """All the text a reader would see in a message: text blocks, tool calls and tool results.

    The one way a message becomes text: the token meter counts it, the summary prompts quote it.
    Example: a tool_use of read_file on auth.py -> 'read_file {"path": "app/auth.py"}'
    """
    return "\n".join(block_text(b) for b in blocks_of(message) if b.get("type") in READABLE)


READABLE = ("text", "tool_use", "tool_result")  # other blocks (a server's summary) hold no text


def block_text(block: dict) -> str:
    """One block as text: what it says, the call it makes, or the result it carries.

    Example: {"type": "tool_use", "name": "search", "input": {"text": "email"}}
    -> 'search {"text": "email"}'
    """
    if block["type"] == "text":
        return block["text"]
    if block["type"] == "tool_use":
        return f"{block['name']} {json.dumps(block['input'], sort_keys=True)}"
    return result_text(block)


def result_text(block: dict) -> str:
    """The text inside a tool_result block (its content may be a string or text blocks)."""
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content)


def call_words(call: dict) -> str:
    """A tool call as a person reads it: its name, then its values (each cut at 200 characters).

    Tables, lap records and pointers show calls so; the model and the meter see ``block_text``.
    Example: {"name": "read_file", "input": {"path": "app/auth.py"}} -> "read_file app/auth.py"
    """
    given = call.get("input")
    values = given.values() if isinstance(given, dict) else [given or ""]
    return f"{call.get('name', '?')} {' '.join(str(v)[:200] for v in values)}".strip()


def tool_uses(message: dict) -> list[dict]:
    """The tool_use blocks of a message (empty for user messages)."""
    return [b for b in blocks_of(message) if b.get("type") == "tool_use"]


def tool_results(message: dict) -> list[dict]:
    """The tool_result blocks of a message (empty for assistant messages)."""
    return [b for b in blocks_of(message) if b.get("type") == "tool_result"]


def is_plain_user(message: dict) -> bool:
    """True for a user message that carries no tool results: a request, a remark, a summary."""
    return message["role"] == "user" and not tool_results(message)


# ---- tool-pair safety ----------------------------------------------------------------------------


def pair_problems(messages: list[dict]) -> list[str]:
    """Every way a message list breaks the API's tool-pair rule, in plain words ([] = valid).

    The rule: the list starts with a user message; each tool_use is answered by a tool_result in
    the very next message, and a tool_result answers only a tool_use of the message before it.
    Example: [user("go"), tool_result for "t1"]
    -> ["message 1 answers tool_use t1, which is not in message 0"]
    """
    problems = []
    if messages and messages[0]["role"] != "user":
        problems.append("the first message is not a user message")
    for i, message in enumerate(messages):
        asked = {b["id"] for b in tool_uses(messages[i - 1])} if i > 0 else set()
        for block in tool_results(message):
            if block["tool_use_id"] not in asked:
                problems.append(
                    f"message {i} answers tool_use {block['tool_use_id']}, "
                    f"which is not in message {i - 1}"
                )
        if i + 1 == len(messages):
            break  # the newest message may still be waiting for its results
        answered = {b["tool_use_id"] for b in tool_results(messages[i + 1])}
        for missing in sorted({b["id"] for b in tool_uses(message)} - answered):
            problems.append(
                f"message {i} asks for tool_use {missing}, but message {i + 1} does not answer it"
            )
    return problems


def safe_cuts(messages: list[dict], start: int = 0) -> list[int]:
    """Indices (from ``start`` on) where a list may be cut, every tool pair kept whole on one side.

    A cut at i keeps messages[i:] together; it is safe when messages[i] does not answer a
    tool_use from messages[i - 1]. Index 0 and len(messages) are always safe.
    Example: [user, assistant(tool_use), user(tool_result), assistant(text)] -> [0, 1, 3, 4]
    """
    cuts = [0] if start <= 0 else []
    for i in range(max(start, 1), len(messages)):
        if not tool_results(messages[i]):
            cuts.append(i)
    cuts.append(len(messages))
    return cuts


def turn_starts(history: list[dict], start: int = 1) -> list[int]:
    """Where each turn begins, from ``start`` on: an assistant message at a safe cut.

    A turn is what one lap adds: the model's reply and the tool results that answer it.
    Example: [request, a1, r1, a2, r2] -> [1, 3]
    """
    return [i for i in safe_cuts(history, start)[:-1] if history[i]["role"] == "assistant"]
