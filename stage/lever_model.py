"""Claude with one of the API's levers switched on: the request shapes, and what comes back.

``LeverModel`` is ``ClaudeModel`` speaking the beta Messages API with a lever's beta header and extra
request fields (``context_management``, ``thinking``). It keeps what the server returns that must go
back unchanged (``compaction`` and ``thinking`` blocks), records what the server says it cleared, and
handles the one reply the loop would misread: a threshold compaction that **paused** (``stop_reason``
``"compaction"``, the block alone). Then it puts the newest ``tail_turns`` exchanges back after the
block, word for word, and asks again -- so the loop sees one ordinary reply that starts with the block.
On every later request it puts that tail back after the same block, because the server drops all
that comes before a block.

Two more calls: ``compact`` (on-demand compaction: a request with ``compaction={"type": "summarize"}``
that returns the block alone) and ``count_with_levers`` (``count_tokens`` with the edits applied: the
count after them and before).

The shapes follow the installed SDK's types (``anthropic.types.beta``: ``BetaCompact20260112EditParam``,
``BetaCompactionConfigParam``, ``BetaClearThinking20251015EditParam``, ``BetaMessageTokensCount``) and the
Claude Platform docs as crawled in September 2026 (pages "Compaction on demand", "Compaction in the
background", "Compaction at a token threshold", "Context editing").
Left out: streaming, the keep-recent-turns variant of on-demand compaction, thinking kept valid
across a compaction, and mid-conversation system messages.
"""

from __future__ import annotations

import anthropic

from harness.messages import assistant, blocks_of
from harness.model import Reply
from stage.claude import ClaudeModel, reply_from, usage_of, with_billed

KEPT_BLOCKS = ("compaction", "thinking", "redacted_thinking")  # sent back exactly as they came


class LeverModel(ClaudeModel):
    """``ClaudeModel`` that sends its lever's beta header and request fields on every call.

    ``applied`` lists what the server says it cleared (one entry per edit it applied); ``paused``
    counts the threshold compactions that paused; ``compactions`` the blocks received, in order;
    ``calls`` the usage of every request sent, compaction requests included.
    """

    def __init__(self, lever, **claude_options):
        super().__init__(**claude_options)
        self.lever = lever
        self.applied: list[dict] = []
        self.paused = 0
        self.compactions: list[dict] = []
        self.calls: list[dict] = []
        self.tails: dict[
            str, list[dict]
        ] = {}  # a paused block's content -> the turns put back after it

    # ---- the agent's turn ----------------------------------------------------------------------

    def reply(
        self, system: str, messages: list[dict], tools: list[dict], max_tokens: int = 1024
    ) -> Reply:
        sent = self._request(system, self.with_tails(messages), tools)
        response = self._create(sent, max_tokens, context=True)
        reply = reply_from(response, keep_also=KEPT_BLOCKS)
        if response.stop_reason == "compaction" and reply.content:  # paused after compacting
            block = reply.content[0]
            self.paused += 1
            self.tails[block.get("content") or ""] = tail = recent_turns(
                messages, self.lever.tail_turns
            )
            again = self._request(
                system, self.with_tails(messages) + [assistant([block])] + tail, tools
            )
            rest = reply_from(self._create(again, max_tokens, context=True), keep_also=KEPT_BLOCKS)
            reply = Reply(
                [block] + rest.content, rest.stop_reason, add_usage(reply.usage, rest.usage)
            )
        self.compactions += [b for b in reply.content if b.get("type") == "compaction"]
        return reply

    def with_tails(self, messages: list[dict]) -> list[dict]:
        """``messages`` with each paused block's tail put back right after the block (a new list).

        Example: [..., A(block, text)] with tail [A(tool_use), U(result)]
        -> [..., A(block), A(tool_use), U(result), A(text)]
        """
        if not self.tails:
            return messages
        out = []
        for message in messages:
            blocks = blocks_of(message)
            first = blocks[0] if blocks else {}
            tail = (
                self.tails.get(first.get("content") or "")
                if first.get("type") == "compaction"
                else None
            )
            if tail is None:
                out.append(message)
                continue
            out += [assistant([first])] + tail + ([assistant(blocks[1:])] if blocks[1:] else [])
        return out

    # ---- on-demand compaction and counting -----------------------------------------------------

    def compact(
        self,
        system: str,
        messages: list[dict],
        tools: list[dict],
        instructions: str | None = None,
        max_tokens: int = 4096,
    ) -> Reply:
        """Ask for a summary of ``messages`` now: a ``Reply`` holding the ``compaction`` block alone when
        ``stop_reason`` is ``"compaction"``, and nothing otherwise (the docs: no summary, carry on).
        The call is billed: its ``usage`` lists it under ``iterations``."""
        sent = self._request(system, messages, tools)
        config = {"type": "summarize", **({"instructions": instructions} if instructions else {})}
        reply = reply_from(
            self._create(sent, max_tokens, context=False, compaction=config), keep_also=KEPT_BLOCKS
        )
        if reply.stop_reason != "compaction":
            return Reply([], reply.stop_reason, reply.usage)
        return reply

    def count_with_levers(
        self, system: str, messages: list[dict], tools: list[dict]
    ) -> tuple[int, int]:
        """(input tokens after the lever's edits, before them), as the provider counts them.

        ``count_tokens`` applies clearing edits and compaction blocks already in ``messages``; it never
        compacts anew. Example: 14 tool results, clearing past 2,000 keeping 3 -> (2_950, 6_400)
        """
        extras = self._extras(context=True)
        try:
            counted = self.client.beta.messages.count_tokens(
                betas=self.lever.betas,
                **extras,
                **self._request(system, self.with_tails(messages), tools),
            )
        except anthropic.APIError as err:
            raise self._explain(err) from err
        before = (
            counted.context_management.original_input_tokens if counted.context_management else None
        )
        return counted.input_tokens, before if before is not None else counted.input_tokens

    # ---- helpers ----------------------------------------------------------------------------

    def _extras(self, context: bool) -> dict:
        """The lever's request fields: ``context_management`` (if ``context``) and e.g. ``thinking``."""
        extras = dict(self.lever.extras)
        if context and self.lever.edits:
            extras["context_management"] = {"edits": self.lever.edits}
        return extras

    def _create(self, sent: dict, max_tokens: int, context: bool, **more):
        try:
            response = self.client.beta.messages.create(
                max_tokens=max_tokens,
                betas=self.lever.betas,
                **self._extras(context),
                **more,
                **sent,
            )
        except anthropic.APIError as err:
            raise self._explain(err) from err
        if response.context_management and response.context_management.applied_edits:
            self.applied += [edit.to_dict() for edit in response.context_management.applied_edits]
        self.calls.append(usage_of(response.usage))
        return response


def recent_turns(messages: list[dict], turns: int) -> list[dict]:
    """The newest ``turns`` exchanges, each an assistant message and what follows it (tool results).

    They start at an assistant message, so no tool result is ever parted from its call.
    Example: [U0, A1, U1, A2, U2], turns=1 -> [A2, U2]; turns=0 -> []
    """
    starts = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
    if turns <= 0 or not starts:
        return []
    return list(messages[starts[-min(turns, len(starts))] :])


def add_usage(first: dict, second: dict) -> dict:
    """Two replies' usage as one: the counts added, the iterations joined. Example: 10 + 5 in -> 15 in"""
    total = {
        k: (first.get(k) or 0) + (second.get(k) or 0)
        for k in {*first, *second}
        if k not in ("iterations", "billed")
    }
    passes = (first.get("iterations") or [dict(first, type="message")]) + (
        second.get("iterations") or [dict(second, type="message")]
    )
    return with_billed(
        {
            **total,
            "iterations": [
                {k: v for k, v in p.items() if k not in ("iterations", "billed")} for p in passes
            ],
        }
    )
