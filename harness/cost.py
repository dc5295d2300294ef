"""The token bill: what each lap costs, with and without prompt caching.

Prompt caching in one paragraph. The provider can keep the front of a request -- everything up to
a *cache breakpoint* the harness marks. A later request that starts with exactly that front pays
a tenth of the input price for it (a cache **read**); whatever comes after is stored for next
time at 1.25x the input price (a cache **write**). Output is priced on its own.

How this module models the cache, from the ``Lap`` records alone:

* The system prompt and the tool definitions never change during a run and carry their own
  breakpoint: written on the first request, read on every later one.
* The harness marks the last message of every request as a breakpoint, so the messages one lap
  sent are in the cache for the next lap.
* A lap reads the cache only if the previous request's messages come back, whole and in order,
  as the front of this one (the same dicts, or equal ones). Then everything the previous request
  sent is a read and only the new messages are a write. Otherwise every message is written again.
  So compaction, a sliding window, or clearing one old tool result -- anything that changes a
  message already sent -- shows up as a fresh write of the desk: the cache discount is thrown away.
* Summary calls send a fresh prompt with no breakpoint: their input is billed at the base price.

Left out: the minimum cacheable length (about a thousand tokens on real models), the cache's
five-minute lifetime (offline laps take milliseconds), one-hour caching, the API's look-back for an
older breakpoint (a harness that pinned the request could get a small read after compaction),
batch discounts and long-context prices. Token counts are the run's own: with the offline desk
model they are exactly what it billed; with Claude the split of a lap into "the request" and "the
summary calls" uses our meter's count of what was sent, so it is an estimate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harness.loop import Lap, Run, run_agent
from harness.tokens import Meter


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens, and the cache multipliers on the input price.

    The defaults are illustrative: roughly a small, cheap model's list price when this was written
    ($1 per million input tokens, $5 per million output tokens). Check the provider's pricing page
    before quoting a real bill. Example: Prices().dollars(uncached=1_000_000) -> 1.0
    """

    input: float = 1.00          # $ per million input tokens, no cache involved
    output: float = 5.00         # $ per million output tokens
    cache_write: float = 1.25    # x the input price, for tokens stored in the cache
    cache_read: float = 0.10     # x the input price, for tokens read back from it

    def dollars(self, uncached: int = 0, write: int = 0, read: int = 0, output: int = 0) -> float:
        """The price of some tokens. Example: Prices().dollars(read=1_000_000) -> 0.1"""
        weighted = uncached + write * self.cache_write + read * self.cache_read
        return (weighted * self.input + output * self.output) / 1_000_000


PRICES = Prices()


@dataclass
class LapBill:
    """One lap's input split three ways (read + write + uncached = billed input), and its price."""

    number: int
    read: int           # request tokens found in the cache (0.1x)
    write: int          # request tokens stored in the cache (1.25x)
    uncached: int       # summary-call tokens, sent fresh (1x)
    output: int
    cost: float         # $ with caching
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
    """True when ``now`` starts with every message of ``before``, in order -- a cache hit.

    Example: before=[A, B], now=[A, B, C, D] -> True;  before=[A, B, C], now=[A, S, C] -> False
    """
    if before is None or len(before) > len(now):
        return False
    return all(a is b or a == b for a, b in zip(before, now))


def cache_hit(before: list[dict] | None, before_tokens: int, now: list[dict], fixed: int) -> int:
    """Tokens of the request ``now`` found in the cache, after the request ``before``.

    The whole previous request if it is ``now``'s front; otherwise only the system prompt and
    tools (``fixed``); nothing before the first request. Example: [A] (200) then [A, B] -> 200
    """
    if before is None:
        return 0
    return before_tokens if reuses(before, now) else fixed


def split_input(lap: Lap) -> tuple[int, int]:
    """(tokens of the lap's own request, tokens of its summary calls).

    The request is billed only if the model was called for it (an overflowing request is refused
    before it costs anything). Example: a compacting lap that billed 3,400 in, 2,900 of them sent
    -> (2900, 500).
    """
    asked = lap.model_calls > lap.summary_calls
    if not asked:
        return 0, lap.billed_input
    if not lap.summary_calls:
        return lap.billed_input, 0
    request = min(lap.assembled_tokens, lap.billed_input)
    return request, lap.billed_input - request


def fixed_tokens(lap: Lap, meter: Meter) -> int:
    """Tokens of the system prompt and tool definitions: what was sent minus the messages."""
    return max(0, lap.assembled_tokens - sum(meter.count(m) for m in lap.sent))


# ---- the bill -------------------------------------------------------------------------------------

def lap_bills(laps: list[Lap], prices: Prices = PRICES, meter: Meter | None = None) -> list[LapBill]:
    """Price every lap, following the cache rule in the module docstring.

    ``meter`` must count like the run's meter did (the default, tiktoken, is the harness default).
    Example: lap 1 sends [A] (200 tokens with the system prompt); lap 2 sends [A, B, C] (400)
    -> lap 1 writes 200; lap 2 reads 200 and writes 200.
    """
    if not laps:
        return []
    first_sent = next((lap for lap in laps if lap.sent), laps[0])
    fixed = fixed_tokens(first_sent, meter or Meter("tiktoken"))
    bills, cached, cached_tokens = [], None, 0      # cached: the messages of the last request sent
    for lap in laps:
        request, summary_in = split_input(lap)
        read = 0
        if request:
            read = min(request, cache_hit(cached, cached_tokens, lap.sent, fixed))
            cached, cached_tokens = lap.sent, request
        write, out = request - read, lap.billed_output
        bills.append(LapBill(lap.number, read, write, summary_in, out,
                             prices.dollars(summary_in, write, read, out),
                             prices.dollars(uncached=lap.billed_input, output=out)))
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


# ---- "what would our bill be without the summary?" -------------------------------------------------

@dataclass
class BillComparison:
    """A strategy's run and a full-history run of the same task, with their bills."""

    strategy: Bill
    full_history: Bill
    strategy_run: Run = field(repr=False)
    full_run: Run = field(repr=False)

    @property
    def input_share(self) -> float:
        """The strategy's input tokens as a fraction of full history's. Example: 0.18 -> 18 %."""
        return self.strategy.input / self.full_history.input

    @property
    def cost_share(self) -> float:
        """The same, in dollars with caching on both sides."""
        return self.strategy.cost / self.full_history.cost


def bill_without_summary(task, strategy, window: int = 5000, big_window: int = 1_000_000,
                         workspace: str | Path | None = None, max_laps: int = 200,
                         prices: Prices = PRICES, meter: Meter | None = None) -> BillComparison:
    """Run ``task`` twice with the offline desk model -- with ``strategy`` at ``window``, and with
    full history at a ``big_window`` that never overflows -- and bill both.

    The honest "without the summary" is not the same laps minus the summary calls: without
    management the desk keeps growing, so every lap re-sends more. Only a second run shows that.
    Example: bill_without_summary(file_reading_task(), RunningSummary()).input_share -> about 0.5
    """
    from harness.context import FullHistory          # here, so importing cost stays light
    from harness.offline import DeskModel
    from harness.tools import WORKSPACE, Toolbox

    meter = meter or Meter("tiktoken")
    runs = []
    for context, size in ((strategy, window), (FullHistory(), big_window)):
        model, tools = DeskModel(window=size, meter=meter), Toolbox(workspace or WORKSPACE)
        runs.append(run_agent(task.request, model, tools=tools, context=context, remarks=task.remarks,
                              max_laps=max_laps))
    return BillComparison(bill(runs[0].laps, prices, meter), bill(runs[1].laps, prices, meter), *runs)
