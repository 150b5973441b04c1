"""When re-sending the last request keeps the provider's prompt cache alive, and whether it pays.

A provider keeps a cached prompt prefix for a while (the model's `promptCache` lifetimes, in
seconds, per retention). Shortly before that lifetime ends the same request can be sent again
with a one-token output budget: the prefix is read from the cache (cheap) and its lifetime starts
over, so the next real request does not pay to write the whole prefix again (expensive).

This module holds the arithmetic only: the lifetime of a request's cache entry, when to refresh it,
what a refresh and a miss cost, and pi's own decision. `pi.app.cache_warmer` runs the schedule.
"""

from __future__ import annotations

import math
from typing import Literal

from msgspec import Struct

from pi.ai.options import StreamOptions, resolve_cache_retention
from pi.ai.types import Model, Usage

CacheWarmingMode = Literal["off", "streaming", "idle"]
"""`cacheWarming`: never; only while a run is working (long tool calls); also after it, while idle."""
WarmingPhase = Literal["streaming", "idle"]
WarmingAction = Literal["warm", "stop"]

MODES: tuple[CacheWarmingMode, ...] = ("off", "streaming", "idle")
DEFAULT_MODE: CacheWarmingMode = "idle"

MAX_WARMING_AGE_MS = 60 * 60_000
"""Warming while a run works never goes on longer than this after the real request that started it."""
MAX_IDLE_WARMING_AGE_MS = 30 * 60_000
"""Warming while idle never goes on longer than this after the run settled: the odds of a next
request fall with time, so the horizon is shorter."""
CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS = 0.05
"""A refresh is sent only when it is expected to save at least this many dollars."""
IDLE_CONTINUATION_PROBABILITY = 0.15
"""How likely a real request comes before the refreshed entry expires while the session sits idle."""
STREAMING_CONTINUATION_PROBABILITY = 1.0
"""While a run works, its next request is certain to come."""
REFRESH_MARGIN_MS = 10_000
"""A refresh is sent at least this long before the entry expires, so that it arrives in time."""


def cache_warming_mode(value: object) -> CacheWarmingMode:
    """The `cacheWarming` setting as a mode; anything unknown counts as the default."""
    for mode in MODES:
        if value == mode:
            return mode
    return DEFAULT_MODE


def prompt_cache_ttl_ms(model: Model, options: StreamOptions | None) -> int | None:
    """How long the request's cache entry lives, in milliseconds (None: unknown, or no caching asked for).

    The retention is the request's own, else ``PI_CACHE_RETENTION``, else short; the model says how
    long each retention lasts (`promptCache.short` / `.long`, seconds).
    """
    lifetimes = model.prompt_cache
    if lifetimes is None:
        return None
    retention = resolve_cache_retention(options.cache_retention if options is not None else None)
    if retention == "none":
        return None
    seconds = lifetimes.long if retention == "long" else lifetimes.short
    if seconds is None or seconds <= 0:
        return None
    return int(seconds * 1000)


def warming_delay_ms(ttl_ms: float) -> int | None:
    """When to refresh after the last request: at 90 % of the lifetime, keeping at least ten seconds
    of margin; None when the lifetime is too short for that."""
    if ttl_ms <= REFRESH_MARGIN_MS:
        return None
    return max(1, math.floor(min(ttl_ms * 0.9, ttl_ms - REFRESH_MARGIN_MS)))


def is_replayable(model: Model, options: StreamOptions | None) -> bool:
    """Whether the request can be sent again with a one-token budget and still hit the same cache entry.

    Anthropic's budget-based thinking derives the thinking budget from the output limit, and the
    cache key depends on it: such a request cannot be replayed. Adaptive thinking and every other
    API can.
    """
    reasoning = options.reasoning if options is not None else None
    if model.api != "anthropic-messages" or reasoning in (None, "off"):
        return True
    from pi.ai.providers.anthropic_messages import supports_adaptive_thinking

    return supports_adaptive_thinking(model)


class WarmingEconomics(Struct, frozen=True):
    """What the cached prefix is worth: its size, the price of a refresh, the price of losing it."""

    prompt_tokens: int
    warm_cost: float
    """Reading the prefix from the cache plus one output token."""
    miss_cost: float
    """Writing the prefix to the cache again, less the read a hit would have cost."""

    def expected_savings(self, continuation_probability: float) -> float:
        return continuation_probability * self.miss_cost - self.warm_cost

    def action(self, continuation_probability: float) -> WarmingAction:
        """pi's own decision: warm when the refresh is expected to save enough."""
        worth = self.expected_savings(continuation_probability) >= CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS
        return "warm" if worth else "stop"


def warming_economics(model: Model, usage: Usage) -> WarmingEconomics | None:
    """The economics of the prefix a reply with `usage` was prompted with (None: no prices or no prompt).

    The prompt is everything the reply read: uncached input, cache reads and cache writes. Prices are
    the model's (the tier that priced that reply); a model without a cache-write price pays the input
    price to write.
    """
    from pi.ai.cost import price_for

    prompt_tokens = usage.input + usage.cache_read + usage.cache_write
    if prompt_tokens <= 0:
        return None
    prices = price_for(model, usage)
    write_price = prices.cache_write or prices.input
    miss_cost = prompt_tokens * (write_price - prices.cache_read) / 1_000_000
    if miss_cost <= 0:
        return None
    warm_cost = (prompt_tokens * prices.cache_read + prices.output) / 1_000_000
    return WarmingEconomics(prompt_tokens=prompt_tokens, warm_cost=warm_cost, miss_cost=miss_cost)


def continuation_probability(phase: WarmingPhase) -> float:
    return STREAMING_CONTINUATION_PROBABILITY if phase == "streaming" else IDLE_CONTINUATION_PROBABILITY


__all__ = [
    "CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS",
    "DEFAULT_MODE",
    "IDLE_CONTINUATION_PROBABILITY",
    "MAX_IDLE_WARMING_AGE_MS",
    "MAX_WARMING_AGE_MS",
    "MODES",
    "CacheWarmingMode",
    "WarmingAction",
    "WarmingEconomics",
    "WarmingPhase",
    "cache_warming_mode",
    "continuation_probability",
    "is_replayable",
    "prompt_cache_ttl_ms",
    "warming_delay_ms",
    "warming_economics",
]
