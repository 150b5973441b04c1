"""Model usage reported by tools: reading it from what extensions return, and adding it up.

A tool that runs models itself (codemode's `models.*` calls, a summarising tool) reports their
usage on its result; it is stored on the tool-result message and counted in the session's totals,
apart from the conversation's own context accounting. Extensions hand it over as pi's JSON
(``{input, output, cacheRead, cacheWrite, totalTokens, cost: {..., total}}``) or as a `Usage`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from pi.ai.types import Cost, Usage

logger = logging.getLogger(__name__)


def usage_from(value: Any) -> Usage | None:
    """`value` as a `Usage`; None for nothing, and (logged) for something that is not a usage."""
    if value is None or isinstance(value, Usage):
        return value
    if isinstance(value, Mapping):
        try:
            return Usage.model_validate(dict(value))
        except ValidationError as error:
            logger.warning("ignoring a tool usage that is not a usage object: %s", error)
            return None
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return usage_from(dump(by_alias=True))
    logger.warning("ignoring a tool usage of type %s", type(value).__name__)
    return None


def _optional_sum(first: int | None, second: int | None) -> int | None:
    return None if first is None and second is None else (first or 0) + (second or 0)


def combine_usage(first: Usage, second: Usage) -> Usage:
    """The sum of two usages; the optional splits stay when either side has them, and a cost counts
    as the provider's own only when both are."""
    a, b = first.cost, second.cost
    cost = Cost(
        input=a.input + b.input,
        output=a.output + b.output,
        cache_read=a.cache_read + b.cache_read,
        cache_write=a.cache_write + b.cache_write,
        total=a.total + b.total,
        total_from_provider=a.total_from_provider is True and b.total_from_provider is True,
    )
    return Usage(
        input=first.input + second.input,
        output=first.output + second.output,
        cache_read=first.cache_read + second.cache_read,
        cache_write=first.cache_write + second.cache_write,
        reasoning=_optional_sum(first.reasoning, second.reasoning),
        cache_write_1h=_optional_sum(first.cache_write_1h, second.cache_write_1h),
        total_tokens=first.total_tokens + second.total_tokens,
        cost=cost,
    )


def total_usage(usages: Iterable[Any]) -> Usage | None:
    """The sum of every readable usage in `usages`; None when there is none."""
    total: Usage | None = None
    for value in usages:
        usage = usage_from(value)
        if usage is not None:
            total = usage if total is None else combine_usage(total, usage)
    return total


__all__ = ["combine_usage", "total_usage", "usage_from"]
