"""Money spent on a reply, from the catalog's prices per million tokens."""

from __future__ import annotations

from pi.ai.types import Cost, Model, Usage


def calculate_cost(model: Model, usage: Usage) -> Cost:
    """Fill `usage.cost` from `model.cost` and return it."""
    price = model.cost
    cost = usage.cost
    cost.input = price.input / 1e6 * usage.input
    cost.output = price.output / 1e6 * usage.output
    cost.cache_read = price.cache_read / 1e6 * usage.cache_read
    cost.cache_write = price.cache_write / 1e6 * usage.cache_write
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return cost


__all__ = ["calculate_cost"]
