"""The token bill: what each lap costs, with and without prompt caching.

Prompt caching in one paragraph. The provider can keep the front of a request -- everything up to
a *cache breakpoint* the harness marks. A later request that starts with exactly that front pays
a tenth of the input price for it (a cache **read**); whatever comes after is stored for next
time at 1.25x the input price (a cache **write**). Output is priced on its own.

How this module models the cache, from the ``Lap`` records alone (``stage.claude`` sends the
same breakpoints; ``harness.cache.breakpoints`` is the one rule both follow):

* The system prompt and the tool definitions never change during a run and carry their own
  breakpoint: written on the first request, read on every later one.
* Every request's last message is a breakpoint, and so is any message a strategy marked with
  ``cache_control`` (at most one more). Each breakpoint stores the front of the request up to it.
* A request reads the longest stored front that it starts with, exactly (breakpoints aside), if
  that front ends at one of its own breakpoints or at most 20 blocks before one -- the API's
  look-back. Everything after the read, up to the last message, is a write.
  So compaction, a sliding window, or clearing one old tool result -- anything that changes a
  message already sent -- makes everything after that message a fresh write. A strategy that marks
  the last message it will not change keeps the front before it cheap (``cache_aware.ClearThenCompact``).
* Summary calls send a fresh prompt with no breakpoint: their input is billed at the base price.
* When a lap carries the provider's own counts (Claude's ``cache_read_input_tokens`` and
  ``cache_creation_input_tokens`` in ``usage``), those are billed instead of the model.
* When ``usage`` lists ``iterations`` (server-side compaction does), every pass is billed: the top-level
  figures leave the summarizing pass out, so a bill built from them alone is too low (``laps.passes``).

Left out: the minimum cacheable length (about a thousand tokens on real models), the cache's
five-minute lifetime (offline laps take milliseconds), one-hour caching, batch discounts and
long-context prices. Token counts are the run's own: with the offline desk model they are exactly
what it billed; with Claude but no cache counts in the reply, the split of a lap into "the request"
and "the summary calls" uses our meter's count of what was sent, so it is an estimate.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from harness.cache_aware import LOOKBACK_BLOCKS, breakpoints, unmarked
from harness.laps import Lap, passes
from harness.messages import blocks_of
from harness.tokens import Meter


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens, and the cache multipliers on the input price.

    The defaults are round numbers for the lessons, not a price list: $1 / $5 per million input / output
    tokens, with the cache multipliers of the default Claude model, so every share and ratio a lesson
    prints holds for it. The real table is ``stage.claude.CLAUDE_PRICES`` (the lesson cannot import the
    stage; pass ``prices=`` to bill a real model). Example: Prices().dollars(uncached=1_000_000) -> 1.0
    """

    input: float = 1.00  # $ per million input tokens, no cache involved
    output: float = 5.00  # $ per million output tokens
    cache_write: float = 1.25  # x the input price, for tokens stored in the cache
    cache_read: float = 0.10  # x the input price, for tokens read back from it

    def dollars(self, uncached: int = 0, write: int = 0, read: int = 0, output: int = 0) -> float:
        """The price of some tokens. Example: Prices().dollars(read=1_000_000) -> 0.1"""
        weighted = uncached + write * self.cache_write + read * self.cache_read
        return (weighted * self.input + output * self.output) / 1_000_000


PRICES = Prices()


@dataclass
class LapBill:
    """One lap's input split three ways (read + write + uncached = billed input), and its price."""

    number: int
    read: int  # request tokens found in the cache (0.1x)
    write: int  # request tokens stored in the cache (1.25x)
    uncached: int  # summary-call tokens, sent fresh (1x)
    output: int
    cost: float  # $ with caching
    cost_without_cache: float

    @property
    def input(self) -> int:
        return self.read + self.write + self.uncached


@dataclass
class Bill:
    """The totals of a run (or of its first N laps)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    uncached: int = 0
    cost: float = 0.0
    cost_without_cache: float = 0.0
    laps: list[LapBill] = field(default_factory=list, repr=False)

    @property
    def read_share(self) -> float:
        """How much of the input came from the cache. Example: 600 read of 1,600 -> 0.375"""
        return self.cache_read / self.input if self.input else 0.0


# ---- the cache rule ------------------------------------------------------------------------------


def reuses(before: list[dict] | None, now: list[dict]) -> bool:
    """True when ``now`` starts with every message of ``before``, in order (breakpoints aside).

    The rule in its simplest form, for the lessons; the bill itself uses ``PromptCache``, which also
    finds a shorter stored front.
    Example: before=[A, B], now=[A, B, C, D] -> True;  before=[A, B, C], now=[A, S, C] -> False
    """
    if before is None or len(before) > len(now):
        return False
    return all(a is b or unmarked(a) == unmarked(b) for a, b in zip(before, now))


def prefix_keys(messages: list[dict]) -> list[str]:
    """One fingerprint per prefix: keys[j] stands for messages[:j + 1]. Equal content, equal key.

    Example: prefix_keys([A, B])[0] == prefix_keys([A, C])[0] != prefix_keys([A, C])[1]
    """
    keys, running = [], hashlib.blake2b(digest_size=16)
    for message in messages:
        running.update(json.dumps(unmarked(message), sort_keys=True).encode())
        running.update(b"\x00")
        keys.append(running.copy().hexdigest())
    return keys


class PromptCache:
    """The provider's cache during one run, as the bill models it (see the module docstring).

    ``send(messages, counts)`` -> (read, write): the request's tokens found in the cache, and the
    tokens stored now. Each breakpoint stores the front up to it; a later request reads the longest
    stored front that ends at one of its breakpoints or at most ``LOOKBACK_BLOCKS`` blocks before one.
    Example: send([A]) -> (0, fixed + 100); send([A, B]) -> (fixed + 100, 100)
    """

    def __init__(self, fixed: int):
        self.fixed, self.entries, self.warm = fixed, set(), False

    def send(self, messages: list[dict], counts: list[int]) -> tuple[int, int]:
        keys, front = prefix_keys(messages), []
        for n in counts:
            front.append((front[-1] if front else self.fixed) + n)
        total = front[-1] if front else self.fixed
        read = self.fixed if self.warm else 0  # the system prompt and tools: their own breakpoint
        marks = breakpoints(messages)
        for b in marks:
            looked = 0
            for j in range(b, -1, -1):  # the front up to message j, walking back
                if keys[j] in self.entries:
                    read = max(read, front[j])
                    break
                looked += len(blocks_of(messages[j]))
                if looked > LOOKBACK_BLOCKS:
                    break
        self.entries.update(keys[b] for b in marks)
        self.warm = True
        return read, total - read


def split_input(lap: Lap) -> tuple[int, int]:
    """(tokens of the lap's own request, tokens of its summary calls).

    The request is billed only if the model was called for it (an overflowing request is refused
    before it costs anything). Example: a compacting lap that billed 3,400 in, 2,900 of them sent
    -> (2900, 500).
    """
    asked = lap.model_calls > lap.summary_calls
    if not asked:
        return 0, lap.billed_input
    counted = provider_counts(lap)
    if counted:
        request = sum(counted)
        return request, max(0, lap.billed_input - request)
    if "iterations" in (
        lap.usage or {}
    ):  # the top level is the request; the other passes come on top
        request = min(lap.usage.get("input_tokens", 0), lap.billed_input)
        return request, lap.billed_input - request
    if not lap.summary_calls:
        return lap.billed_input, 0
    request = min(lap.assembled_tokens, lap.billed_input)
    return request, lap.billed_input - request


def provider_counts(lap: Lap) -> tuple[int, int, int] | None:
    """(read, write, uncached) of the lap's own request as the provider reported them, if it did.

    Claude's usage carries ``cache_read_input_tokens`` and ``cache_creation_input_tokens``; its
    ``input_tokens`` are the rest, after the last breakpoint; summed over ``iterations`` when it lists
    them. The offline model reports none.
    """
    spent = passes(lap.usage or {})
    if not any("cache_read_input_tokens" in p or "cache_creation_input_tokens" in p for p in spent):
        return None
    kinds = ("cache_read_input_tokens", "cache_creation_input_tokens", "input_tokens")
    return tuple(sum(p.get(k) or 0 for p in spent) for k in kinds)


def fixed_tokens(lap: Lap, meter: Meter) -> int:
    """Tokens of the system prompt and tool definitions: what was sent minus the messages."""
    return max(0, lap.assembled_tokens - sum(meter.count(m) for m in lap.sent))


# ---- the bill -------------------------------------------------------------------------------------


def lap_bills(
    laps: list[Lap], prices: Prices = PRICES, meter: Meter | None = None
) -> list[LapBill]:
    """Price every lap, following the cache rule in the module docstring.

    ``meter`` must count like the run's meter did (the default, tiktoken, is the harness default).
    When a lap carries the provider's own cache counts, those are used instead of the model.
    Example: lap 1 sends [A] (200 tokens with the system prompt); lap 2 sends [A, B, C] (400)
    -> lap 1 writes 200; lap 2 reads 200 and writes 200.
    """
    if not laps:
        return []
    meter = meter or Meter("tiktoken")
    first_sent = next((lap for lap in laps if lap.sent), laps[0])
    cache = PromptCache(fixed_tokens(first_sent, meter))
    bills = []
    for lap in laps:
        request, summary_in = split_input(lap)
        read = write = fresh = 0
        counted = provider_counts(lap) if request else None
        if counted:
            read, write, fresh = counted
        elif request:
            read, write = cache.send(lap.sent, [meter.count(m) for m in lap.sent])
            read = min(read, request)
            write = request - read
        uncached, out = summary_in + fresh, lap.billed_output
        bills.append(
            LapBill(
                lap.number,
                read,
                write,
                uncached,
                out,
                prices.dollars(uncached, write, read, out),
                prices.dollars(uncached=lap.billed_input, output=out),
            )
        )
    return bills


def bill(laps: list[Lap], prices: Prices = PRICES, meter: Meter | None = None) -> Bill:
    """The totals of ``laps``. ``bill(run.laps[:60])`` is the bill at lap 60.

    Example: bill(run.laps).cost -> dollars with caching; .cost_without_cache -> the same run, no cache.
    """
    total = Bill(laps=lap_bills(laps, prices, meter))
    for one in total.laps:
        total.input += one.input
        total.output += one.output
        total.cache_read += one.read
        total.cache_write += one.write
        total.uncached += one.uncached
        total.cost += one.cost
        total.cost_without_cache += one.cost_without_cache
    return total
