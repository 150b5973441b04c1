"""Money spent on a reply, from the catalog's prices per million tokens."""

from __future__ import annotations

from pi.ai.types import Cost, CostTier, Model, ModelCost, Usage


def price_for(model: Model, usage: Usage) -> ModelCost | CostTier:
    """The prices that apply: the highest tier whose threshold the whole input exceeds, else the base prices.

    The input counted is everything the model read (fresh, cached and cache-written tokens), and the
    tier prices the whole request, not only the tokens above its threshold.
    """
    read = usage.input + usage.cache_read + usage.cache_write
    chosen: ModelCost | CostTier = model.cost
    threshold = -1
    for tier in model.cost.tiers or ():
        if read > tier.input_tokens_above > threshold:
            chosen, threshold = tier, tier.input_tokens_above
    return chosen


def calculate_cost(model: Model, usage: Usage) -> Cost:
    """Fill `usage.cost` from the model's prices and return it (an estimate: `total_from_provider` False).

    One-hour cache writes (`cache_write_1h`, part of `cache_write`) cost twice the input price.
    """
    price = price_for(model, usage)
    cost = usage.cost
    long_write = usage.cache_write_1h or 0
    short_write = usage.cache_write - long_write
    cost.input = price.input / 1e6 * usage.input
    cost.output = price.output / 1e6 * usage.output
    cost.cache_read = price.cache_read / 1e6 * usage.cache_read
    cost.cache_write = (price.cache_write * short_write + price.input * 2 * long_write) / 1e6
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    cost.total_from_provider = False
    return cost


__all__ = ["calculate_cost", "price_for"]
