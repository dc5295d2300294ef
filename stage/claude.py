"""The real Claude behind the ``Model`` protocol, through the official ``anthropic`` SDK.

``ClaudeModel.reply`` sends the system prompt, the message array and the tool schemas, and
turns the answer into plain dict blocks. ``ClaudeModel.count_tokens`` asks the provider for its
own count: when Claude is the model, that number is the authority, and our estimates are
checked against it.

Every failure leaves as one of two exceptions with a message that says what to do:
``ContextOverflow`` (the prompt did not fit the window) or ``ModelError`` (bad key, busy
service, unreachable server, ...). The API key never appears in either.

The SDK does the retrying (429, 529 and connection errors, ``max_retries`` times, honouring
``retry-after``); we only explain what is left when it gives up.

``toy_window`` shrinks the window for a lesson: Claude's real window is far larger than the
classroom desk, so the harness enforces the small one itself, with its own token estimate.

Prompt caching: every agent lap carries the breakpoints the bill in ``harness.cost`` assumes (see
``_request``), and the reply's cache counts (``cache_read_input_tokens``, ``cache_creation_input_tokens``)
reach the lap record, where the bill prefers them to its own model of the cache.

The model list and the prices live here, in one place: ``DEFAULT_CLAUDE_MODEL`` and ``CLAUDE_PRICES``
(see ``CLAUDE_PRICES`` for where each figure comes from). ``model_status`` asks the installed SDK whether a
model is current; a test fails when the default is deprecated or has left the SDK's list.

Left out: streaming, extended thinking, images and documents, one-hour caching, and Haiku 5.5's
long-prompt price (a request over 100,000 input tokens costs five times as much; no lesson sends one).
Blocks other than ``text`` and ``tool_use`` in a reply (such as thinking) are dropped, unless a caller
asks to keep them (``reply_from(..., keep_also=...)``, as the API levers do).
"""

from __future__ import annotations

import os
import re

import anthropic

from harness.cache import EPHEMERAL, breakpoints, is_marked, mark, unmarked
from harness.cost import Prices
from harness.messages import blocks_of
from harness.model import ContextOverflow, ModelError, Reply

DEFAULT_CLAUDE_MODEL = (
    "claude-haiku-5-5"  # small and cheap: right for a class; the one place it is set
)
CLAUDE_WINDOW = 200_000

# $ per million tokens, for prompts up to 100,000 tokens; cache reads and 5-minute writes as multipliers of
# the input price. Checked in October 2026 against copies of platform.claude.com/docs/en/about-claude/pricing
# quoted in several public projects (the page itself could not be read from here); they agree on every
# figure below. Haiku 5.5 above 100,000 input tokens: $0.50 / $2.50 (not modelled, see the docstring).
CLAUDE_PRICES = {
    "claude-haiku-5-5": Prices(input=0.10, output=0.50),  # read $0.01, write $0.125
    "claude-sonnet-5-5": Prices(input=2.00, output=10.00),  # read $0.20, write $2.50
    "claude-opus-5-5": Prices(input=4.00, output=20.00, cache_read=0.05),  # read $0.20, write $5
    "claude-haiku-4-5": Prices(input=1.00, output=5.00),  # read $0.10, write $1.25
}


def prices_for(model: str | None = None) -> Prices | None:
    """The price of ``model`` (default: the active one), or None for a model this table does not list.

    Example: prices_for("claude-haiku-5-5").dollars(uncached=1_000_000) -> 0.1
    """
    return CLAUDE_PRICES.get(model or claude_model_name())


def model_status(model: str) -> str:
    """What the installed SDK says of ``model``: "current", "deprecated (end of life ...)", or "not listed".

    The SDK keeps a table of deprecated models and a list of current names; a retired model leaves the
    list. Raises ``LookupError`` if the SDK moved either (so a check built on it cannot pass by accident).
    Example: model_status(DEFAULT_CLAUDE_MODEL) -> "current"
    """
    import typing

    try:
        from anthropic._data import DEPRECATED_MODELS
        from anthropic.types.model_param import ModelParam
    except ImportError as moved:
        raise LookupError(
            f"The installed anthropic SDK no longer has its model tables where expected: {moved}"
        )
    if model in DEPRECATED_MODELS:
        return f"deprecated (end of life {DEPRECATED_MODELS[model]})"
    listed = {name for part in typing.get_args(ModelParam) for name in typing.get_args(part)}
    return "current" if model in listed else "not listed"


def claude_model_name() -> str:
    """The Claude model to use: ``$CONTEXT_DESK_MODEL`` or the default."""
    return os.environ.get("CONTEXT_DESK_MODEL", "").strip() or DEFAULT_CLAUDE_MODEL


OFFLINE_HINT = "or unset ANTHROPIC_API_KEY to use the offline model"


def merge_same_roles(messages: list[dict]) -> list[dict]:
    """A new list where runs of same-role messages become one message (the API wants turns to alternate).

    String contents become text blocks when merged; the input list and its messages are not changed.
    Example: [user("fix it"), user("Summary: ...")]
             -> [{"role": "user", "content": [text "fix it", text "Summary: ..."]}]
    """
    merged: list[dict] = []
    for message in messages:
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1] = {
                "role": message["role"],
                "content": blocks_of(merged[-1]) + blocks_of(message),
            }
        else:
            merged.append(message)
    return merged


class ClaudeModel:
    """Claude as a ``Model``: ``name`` is the model id, ``window`` its context window in tokens.

    The key and server come from the arguments, else from ``ANTHROPIC_API_KEY`` and
    ``ANTHROPIC_BASE_URL``. ``client`` lets a caller hand in a ready ``anthropic.Anthropic``.
    """

    def __init__(
        self,
        model: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 2,
        timeout: float = 60.0,
        client=None,
        toy_window: int | None = None,
    ):
        self.name = model or claude_model_name()
        self.window = toy_window or CLAUDE_WINDOW
        self.toy_window = (
            toy_window  # a classroom wall, enforced here with our own count (see reply)
        )
        if client is None:
            key = (api_key or os.environ.get("ANTHROPIC_API_KEY", "")).strip()
            if not key:
                raise ModelError(
                    "No API key for Claude. To use Claude, set ANTHROPIC_API_KEY "
                    "(export ANTHROPIC_API_KEY=...). To stay offline, leave it unset and "
                    "call pick_model(), which then gives you the offline model."
                )
            # Passing the key explicitly also stops the SDK from reading profiles in ~/.config/anthropic.
            client = anthropic.Anthropic(
                api_key=key,
                base_url=base_url,
                max_retries=max_retries,
                # a server that never answers the knock fails in seconds, not minutes
                timeout=anthropic.Timeout(timeout, connect=min(timeout, 5.0)),
            )
        self.client = client

    def __repr__(self) -> str:
        return f"ClaudeModel(name={self.name!r}, base_url={str(self.client.base_url)!r})"

    def reply(
        self, system: str, messages: list[dict], tools: list[dict], max_tokens: int = 1024
    ) -> Reply:
        """One model turn: send the request, return its blocks, stop reason and token usage.

        With a ``toy_window`` the request is refused *before* it is sent when our tiktoken estimate
        is over it -- so a lesson's small desk behaves the same with Claude as with the offline model.
        """
        if self.toy_window:
            from harness.tokens import Meter

            sent = getattr(self, "meter", None) or Meter()
            self.meter = sent
            size = sent.total(messages, system=system, tools=tools)
            if size > self.toy_window:
                raise ContextOverflow(size, self.toy_window)
        try:
            request = self._request(system, messages, tools)
            response = self.client.messages.create(max_tokens=max_tokens, **request)
        except anthropic.APIError as err:
            raise self._explain(err) from err
        return reply_from(response)

    def count_tokens(self, system: str, messages: list[dict], tools: list[dict]) -> int:
        """The provider's own count of the input tokens this request would use. The authority."""
        try:
            return self.client.messages.count_tokens(
                **self._request(system, messages, tools)
            ).input_tokens
        except anthropic.APIError as err:
            raise self._explain(err) from err

    # ---- helpers ----------------------------------------------------------------------

    def _request(self, system: str, messages: list[dict], tools: list[dict]) -> dict:
        """The arguments both calls share, with the cache breakpoints the bill assumes (``harness.cost``).

        An agent lap (it has a system prompt or tools) marks the last tool definition, the system
        prompt and the last message, and keeps the newest breakpoint a strategy put on an earlier
        message: four, the API's limit. A bare one-off prompt -- how the harness asks for a
        summary -- is sent with none, since no later request starts with it. An empty system prompt
        or tool list is left out, not sent empty.
        Example: _request("sys", [user("hi")], TOOLS)["system"]
                 -> [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]
        """
        lap = bool(system or tools)
        sent = {
            "model": self.name,
            "messages": merge_same_roles(with_breakpoints(messages, lap)),
            "system": anthropic.omit,
            "tools": anthropic.omit,
        }
        if system:
            sent["system"] = [{"type": "text", "text": system, "cache_control": dict(EPHEMERAL)}]
        if tools:
            sent["tools"] = [*tools[:-1], {**tools[-1], "cache_control": dict(EPHEMERAL)}]
        return sent

    def _explain(self, err: anthropic.APIError) -> Exception:
        """Turn an SDK error into ContextOverflow or a ModelError that says what to do."""
        where = str(self.client.base_url)
        if isinstance(err, anthropic.APIConnectionError):  # includes timeouts
            why = "timed out" if isinstance(err, anthropic.APITimeoutError) else "connection failed"
            return ModelError(
                f"The server at {where} could not be reached ({why}). "
                f"Check your network and ANTHROPIC_BASE_URL, {OFFLINE_HINT}."
            )
        if not isinstance(err, anthropic.APIStatusError):
            return ModelError(self._hide_key(f"The Claude SDK failed: {err}"))
        said = self._hide_key(err.api_message or str(err))
        status = err.status_code
        if status == 400 and "prompt is too long" in said.lower():
            numbers = re.search(r"([\d,]+)\s*tokens\s*>\s*([\d,]+)", said)
            if numbers:
                sent, window = (int(n.replace(",", "")) for n in numbers.groups())
                return ContextOverflow(sent, window)
            return ContextOverflow(None, None, detail=said)
        if status == 401:
            return ModelError(
                f"The API key was refused (401: {said}). Check ANTHROPIC_API_KEY, {OFFLINE_HINT}."
            )
        if status == 404:
            return ModelError(
                f"Not found (404: {said}). Is {self.name!r} a current model? "
                "Set CONTEXT_DESK_MODEL to one."
            )
        if status == 429 or status >= 500:
            return ModelError(
                f"Claude is busy (HTTP {status}: {said}), even after the SDK's retries. "
                f"Wait a minute and try again, {OFFLINE_HINT}."
            )
        return ModelError(f"Claude refused the request (HTTP {status}): {said}")

    def _hide_key(self, text: str) -> str:
        """The text with the API key blanked out, in case a server ever echoes it back."""
        key = getattr(self.client, "api_key", None)
        return text.replace(key, "[API key]") if key else text


def with_breakpoints(messages: list[dict], lap: bool = True) -> list[dict]:
    """The messages with exactly the breakpoints ``cache.breakpoints`` names (none if not ``lap``).

    Marks a strategy left on older messages are taken off; messages that need no change are passed as
    they are. Example: [A, B(marked), C] -> [A, B(marked), C(marked)]; with lap=False -> [A, B, C]
    """
    wanted = set(breakpoints(messages)) if lap else set()
    sent = []
    for i, message in enumerate(messages):
        bare = unmarked(message) if is_marked(message) else message
        sent.append(mark(bare) if i in wanted else bare)
    return sent


def reply_from(response, keep_also: tuple[str, ...] = ()) -> Reply:
    """An SDK response as a ``Reply`` of plain dict blocks: text and tool_use, plus any ``keep_also`` types
    kept exactly as they came (e.g. the server's ``compaction`` block or a ``thinking`` block with its
    signature, which must be sent back unchanged)."""
    content = []
    for block in response.content:
        if block.type == "text":
            content.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            content.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": dict(block.input)}
            )
        elif block.type in keep_also:
            content.append(block.to_dict())
    return Reply(content=content, stop_reason=response.stop_reason, usage=usage_of(response.usage))


USAGE_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


def usage_of(usage) -> dict:
    """The SDK's usage object as a plain dict; cache counts only when the server sent them, and the
    ``iterations`` (one entry per sampling pass, with its ``type``) when it listed them, summed under ``billed``.
    Example: -> {"input_tokens": 900, "output_tokens": 40, "iterations": [{"type": "compaction", ...}, ...]}"""
    counts = {
        name: getattr(usage, name)
        for name in USAGE_COUNTS
        if getattr(usage, name, None) is not None
    }
    if getattr(usage, "iterations", None):
        counts["iterations"] = [
            {
                "type": getattr(one, "type", "message"),
                **{n: getattr(one, n) for n in USAGE_COUNTS if getattr(one, n, None) is not None},
            }
            for one in usage.iterations
        ]
    return with_billed(counts)


def passes(usage: dict) -> list[dict]:
    """The sampling passes one reply was billed for: ``usage["iterations"]`` when it lists them, else
    the usage itself. With server-side compaction the summarizing pass is one of them, and the
    top-level figures leave it out. Example: {"input_tokens": 900, "iterations": [compaction 5000
    in, message 900 in]} -> the two iterations."""
    return usage.get("iterations") or [usage]


def with_billed(usage: dict) -> dict:
    """``usage`` with ``billed``: each count summed over every pass, when it lists ``iterations``
    (the harness bills those: ``harness.laps.billed_counts``). Example: iterations of 5,000 + 900
    in -> billed {"input_tokens": 5900, ...}"""
    if not usage.get("iterations"):
        return usage
    kinds = [k for k in USAGE_COUNTS if any(k in p for p in usage["iterations"])]
    return {**usage, "billed": {k: sum(p.get(k) or 0 for p in usage["iterations"]) for k in kinds}}
