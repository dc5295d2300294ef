"""Prompt caching: the one rule of where breakpoints go and what a request reads from the cache.

The provider can keep the front of a request -- everything up to a *cache breakpoint*. A later
request that starts with exactly that front pays a tenth of the input price for it (a cache
**read**); what comes after is stored for next time at 1.25x the input price (a cache **write**).
So anything that changes a message already sent -- a compaction, a sliding window, clearing one
old tool result -- makes everything after that message a fresh write.

The rule, followed by the Claude backend (``stage.claude`` sends these breakpoints), by the bill
(``harness.cost``) and by ``ClearThenCompact`` (which marks the last message it will not change):

* The system prompt and the tools carry a breakpoint of their own: they never change in a run.
* Every request's last message is a breakpoint, and so is the newest message a strategy marked
  with ``cache_control`` (``mark``): ``MESSAGE_BREAKPOINTS`` in all.
* A request reads the longest stored front that it starts with exactly (breakpoints aside), if
  that front ends at one of its breakpoints or at most ``LOOKBACK_BLOCKS`` blocks before one.

Left out: the minimum cacheable length (about a thousand tokens on real models), the cache's
lifetime (five minutes; offline laps take milliseconds), one-hour caching.
"""

from __future__ import annotations

import hashlib
import json

from harness.messages import blocks_of

EPHEMERAL = {"type": "ephemeral"}
MESSAGE_BREAKPOINTS = 2  # of the API's 4: tools, system, one a strategy marks, the last message
LOOKBACK_BLOCKS = 20  # how far back from a breakpoint the API looks for an older cached front


def is_marked(message: dict) -> bool:
    """True when a block of the message carries ``cache_control`` (a breakpoint a strategy set)."""
    content = message.get("content")
    return isinstance(content, list) and any("cache_control" in block for block in content)


def mark(message: dict) -> dict:
    """A copy of ``message`` whose last block carries a cache breakpoint (the original stays as is).

    Example: mark(user("hi")) -> {"role": "user", "content": [{"type": "text", "text": "hi",
    "cache_control": {"type": "ephemeral"}}]}
    """
    blocks = [dict(block) for block in blocks_of(message)]
    blocks[-1]["cache_control"] = dict(EPHEMERAL)
    return {"role": message["role"], "content": blocks}


def unmarked(message: dict) -> dict:
    """The message as the cache sees it: its blocks, without breakpoints (they are not content).

    A plain-string content and the same text as one text block are the same to the API.
    Example: unmarked(mark(user("hi"))) == unmarked(user("hi")) -> True
    """
    bare = [
        {k: v for k, v in block.items() if k != "cache_control"} for block in blocks_of(message)
    ]
    return {"role": message["role"], "content": bare}


def breakpoints(messages: list[dict]) -> list[int]:
    """Indices of the messages that end with a cache breakpoint: the last message always, and the
    newest messages a strategy marked -- ``MESSAGE_BREAKPOINTS`` in all (older marks are ignored).

    Example: [A, B(marked), C, D] -> [1, 3]
    """
    if not messages:
        return []
    last = len(messages) - 1
    marked = [i for i, m in enumerate(messages[:-1]) if is_marked(m)]
    return marked[-(MESSAGE_BREAKPOINTS - 1) :] + [last]


# ---- the cache during one run --------------------------------------------------------------------


def prefix_keys(messages: list[dict]) -> list[str]:
    """One fingerprint per prefix: keys[j] stands for messages[:j + 1]. Equal content, equal key.

    Example: prefix_keys([A, B])[0] == prefix_keys([A, C])[0] != prefix_keys([A, C])[1]
    """
    keys = []
    running = hashlib.blake2b(digest_size=16)  # a fingerprint of every message so far
    for message in messages:
        running.update(json.dumps(unmarked(message), sort_keys=True).encode())
        running.update(b"\x00")
        keys.append(running.copy().hexdigest())
    return keys


class PromptCache:
    """The provider's cache during one run, as the rule above describes it.

    ``send(messages, counts)`` -> (read, write): the request's tokens found in the cache, and the
    tokens stored now. ``fixed``: the tokens of the system prompt and tools.
    Example: send([A]) -> (0, fixed + 100); send([A, B]) -> (fixed + 100, 100);
    then send([A, S, C]) -> (fixed + 100, ...): the front after A was rewritten, so only A is read.
    """

    def __init__(self, fixed: int):
        self.fixed = fixed
        self.entries = set()  # the prefix key of every front stored so far
        self.warm = False  # True once the system prompt and tools are stored

    def send(self, messages: list[dict], counts: list[int]) -> tuple[int, int]:
        keys = prefix_keys(messages)
        front = []  # front[j]: the tokens of the request up to message j
        for n in counts:
            front.append((front[-1] if front else self.fixed) + n)
        total = front[-1] if front else self.fixed
        read = self.fixed if self.warm else 0  # the system prompt and tools: their own breakpoint
        marks = breakpoints(messages)
        for b in marks:
            # walk back from the breakpoint to the longest front stored before; the API looks
            # only LOOKBACK_BLOCKS blocks back
            looked = 0
            for j in range(b, -1, -1):
                if keys[j] in self.entries:
                    read = max(read, front[j])
                    break
                looked += len(blocks_of(messages[j]))
                if looked > LOOKBACK_BLOCKS:
                    break
        self.entries.update(keys[b] for b in marks)  # each breakpoint stores its front
        self.warm = True
        return read, total - read
