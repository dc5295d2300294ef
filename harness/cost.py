"""The token bill: what each lap costs, with and without prompt caching.

Priced from the ``Lap`` records alone, by the cache rule of ``harness.cache`` (the Claude backend
sends the same breakpoints):

* Each lap's own request reads from the cache what an earlier request stored (0.1x the input
  price), and writes the rest (1.25x).
* Summary calls send a fresh prompt with no breakpoint: their input is billed at the base price.
* When a lap carries the provider's own counts (Claude's ``cache_read_input_tokens`` and
  ``cache_creation_input_tokens`` in ``usage``), those are billed instead of the model.
* When a reply cost more than its top-level figures show (``usage["billed"]``: server-side
  compaction adds a summarizing pass), the extra is billed like a summary call.

Left out: batch discounts and long-context prices. Token counts are the run's own; only with
Claude but no cache counts in a reply is the split of a lap into its request and its summary
calls an estimate (our meter's count of what was sent).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.cache import PromptCache
from harness.laps import CACHE_COUNTS, Lap, billed_counts
from harness.tokens import Meter


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens, and the cache multipliers on the input price.

    Round numbers for the lessons, not a price list: $1 / $5 per million input / output tokens,
    with the default Claude model's cache multipliers, so every share and ratio a lesson prints
    holds for it. The real table is ``stage.claude.CLAUDE_PRICES``: pass ``prices=`` to bill a real
    model. Example: Prices().dollars(uncached=1_000_000) -> 1.0
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


# ---- one lap's input, split ----------------------------------------------------------------------


def split_input(lap: Lap) -> tuple[int, int]:
    """(tokens of the lap's own request, tokens of its summary calls).

    The request is billed only if the model was called for it (an overflowing request is refused
    before it costs anything). Example: a compacting lap that billed 3,400 in, 2,900 of them sent
    -> (2900, 500).
    """
    if lap.model_calls <= lap.summary_calls:  # no request went out: a refused one costs nothing
        return 0, lap.billed_input
    counted = provider_counts(lap)
    if counted:  # the provider said what the request held
        request = sum(counted)
        return request, max(0, lap.billed_input - request)
    if "billed" in (lap.usage or {}):  # the top level is the request; the rest comes on top
        request = min(lap.usage.get("input_tokens", 0), lap.billed_input)
        return request, lap.billed_input - request
    if not lap.summary_calls:  # nothing else was billed: it is all the request
        return lap.billed_input, 0
    # else our meter's count of what was sent stands for the request: an estimate
    request = min(lap.assembled_tokens, lap.billed_input)
    return request, lap.billed_input - request


def provider_counts(lap: Lap) -> tuple[int, int, int] | None:
    """(read, write, uncached) of the lap's own request as the provider reported them, if it did.

    Claude's usage carries ``cache_read_input_tokens`` and ``cache_creation_input_tokens``; its
    ``input_tokens`` are the rest, after the last breakpoint. The offline model reports none.
    """
    counts = billed_counts(lap.usage or {})
    if not any(k in counts for k in CACHE_COUNTS):
        return None
    return tuple(counts.get(k) or 0 for k in (*CACHE_COUNTS, "input_tokens"))


def fixed_tokens(lap: Lap, meter: Meter) -> int:
    """Tokens of the system prompt and tool definitions: what was sent minus the messages."""
    return max(0, lap.assembled_tokens - sum(meter.count(m) for m in lap.sent))


# ---- the bill ------------------------------------------------------------------------------------


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
    # the system prompt and tools are the same every lap: measured once, from the first request
    first_sent = next((lap for lap in laps if lap.sent), laps[0])
    cache = PromptCache(fixed_tokens(first_sent, meter))
    bills = []
    for lap in laps:
        request, summary_in = split_input(lap)
        read = write = fresh = 0
        counted = provider_counts(lap) if request else None
        if counted:  # the provider said what it read and wrote: that is the bill
            read, write, fresh = counted
        elif request:  # else the cache rule decides, from what the lap sent
            read, write = cache.send(lap.sent, [meter.count(m) for m in lap.sent])
            read = min(read, request)  # never more than the request the lap was billed for
            write = request - read
        uncached = summary_in + fresh
        out = lap.billed_output
        cost = prices.dollars(uncached, write, read, out)
        cost_without_cache = prices.dollars(uncached=lap.billed_input, output=out)
        bills.append(LapBill(lap.number, read, write, uncached, out, cost, cost_without_cache))
    return bills


def bill(laps: list[Lap], prices: Prices = PRICES, meter: Meter | None = None) -> Bill:
    """The totals of ``laps``. ``bill(run.laps[:60])`` is the bill at lap 60.

    Example: bill(run.laps).cost -> dollars with caching; .cost_without_cache -> without it
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
