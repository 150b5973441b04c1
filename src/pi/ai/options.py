"""Options of one request, and the helpers every provider uses to read them.

`StreamOptions` holds what all wire APIs understand; provider-specific settings (Anthropic's
``thinking_enabled``, OpenAI's ``reasoning_effort``, ``tool_choice``, ...) travel in `extra` under
snake_case names documented in each provider module. `stream_simple` adds one portable `reasoning`
level that each provider maps to its own wire fields.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, TypeAlias

from msgspec import Struct, field
from msgspec.structs import replace

from pi.ai.abort import AbortSignal
from pi.ai.types import CacheRetention, Context, Model, ReasoningLevel, ThinkingLevel

OnPayload: TypeAlias = Callable[[dict[str, Any], Model], "dict[str, Any] | Awaitable[dict[str, Any] | None] | None"]
"""Sees the request body before it is sent; a returned dict replaces it wholesale."""


class ThinkingBudgets(Struct):
    """Token budgets per level for APIs that take a budget rather than an effort."""

    minimal: int | None = None
    low: int | None = None
    medium: int | None = None
    high: int | None = None


DEFAULT_THINKING_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}

BudgetLevel: TypeAlias = Literal["minimal", "low", "medium", "high"]
"""The levels that have a token budget (`ThinkingBudgets`); stronger levels use the high one."""


class StreamOptions(Struct):
    """The options of one model request, read by every provider; a field left None takes the provider's default."""

    temperature: float | None = None
    max_tokens: int | None = None
    signal: AbortSignal | None = None
    api_key: str | None = None
    cache_retention: CacheRetention | None = None
    session_id: str | None = None
    on_payload: OnPayload | None = None
    headers: dict[str, str] | None = None
    max_retry_delay_ms: int = 60_000
    """Longest server-requested retry delay that is honoured; 0 means no cap."""
    max_retries: int = 2
    """Retries of transient HTTP failures (429, 5xx, dropped connections) before giving up."""
    metadata: dict[str, Any] | None = None
    timeout_s: float | None = None
    """Timeout for connecting and between received bytes; None keeps the defaults (30 s connect, 600 s read),
    0 waits for data without a limit."""
    reasoning: ThinkingLevel | None = None
    """Only read by `stream_simple`: the portable reasoning level; ``"off"`` and None mean no reasoning."""
    thinking_budgets: ThinkingBudgets | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """Provider-specific options, by snake_case name."""


_FIELDS = frozenset(StreamOptions.__struct_fields__)


def make_options(options: StreamOptions | None = None, **kwargs: Any) -> StreamOptions:
    """Merge keyword options into a StreamOptions; unknown keywords go to `extra`."""
    base = options if options is not None else StreamOptions()
    known = {k: v for k, v in kwargs.items() if k in _FIELDS and k != "extra"}
    unknown = {k: v for k, v in kwargs.items() if k not in _FIELDS}
    extra = {**base.extra, **kwargs.get("extra", {}), **unknown}
    return replace(base, **known, extra=extra)


def resolve_cache_retention(value: CacheRetention | None) -> CacheRetention:
    """Explicit option, else ``PI_CACHE_RETENTION=long``, else ``"short"``."""
    if value is not None:
        return value
    return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else "short"


def reasoning_level(level: ThinkingLevel | None) -> ReasoningLevel | None:
    """The level that turns reasoning on, or None for ``"off"`` and no level at all."""
    return None if level is None or level == "off" else level


def clamp_reasoning(level: ThinkingLevel | None) -> BudgetLevel | None:
    """A level among minimal..high: xhigh and max exist only on a few models, elsewhere they mean high."""
    on = reasoning_level(level)
    if on == "xhigh" or on == "max":
        return "high"
    return on


def supports_xhigh(model: Model) -> bool:
    """Whether `model` has a level above high: its thinking-level map names ``xhigh`` or ``max``."""
    mapping = model.thinking_level_map or {}
    return bool(model.reasoning) and any(mapping.get(level) is not None for level in ("xhigh", "max"))


def strongest_effort(model: Model) -> Literal["xhigh", "high"]:
    """The highest effort `model` accepts: xhigh where it has one, else high."""
    return "xhigh" if supports_xhigh(model) else "high"


def effort_level(model: Model, level: ThinkingLevel | None) -> str | None:
    """The provider's value for `level` on `model`, after clamping to the levels the model has.

    None means no reasoning: no level, or ``off`` on a model that has it (a model that always
    reasons turns ``off`` into its lightest level). A model whose thinking-level map names a level
    sends the mapped value (``"max"``, ``"none"``, ...).
    """
    from pi.ai.thinking import clamp_thinking_level, provider_thinking_value

    if level is None:
        return None
    clamped = clamp_thinking_level(model, level)
    if clamped == "off":
        return None
    return provider_thinking_value(model, clamped)


def simple_max_tokens(model: Model, options: StreamOptions, context: Context | None = None) -> int:
    """Output budget of `stream_simple`: the requested or the model's maximum, fitted to the window.

    With `context`, the budget leaves the estimated input plus a margin free (see
    `pi.ai.estimate.fit_max_tokens_to_context`).
    """
    requested = options.max_tokens or model.max_tokens
    if context is None:
        return requested
    from pi.ai.estimate import fit_max_tokens_to_context

    return fit_max_tokens_to_context(model, context, requested)


def adjust_max_tokens_for_thinking(
    base_max_tokens: int,
    model_max_tokens: int,
    level: ReasoningLevel,
    budgets: ThinkingBudgets | None = None,
) -> tuple[int, int]:
    """(max_tokens, thinking_budget) for budget-based APIs: room for the answer plus the thinking.

    xhigh and max take the high budget, the largest there is.
    """
    key = clamp_reasoning(level) or "high"
    custom = getattr(budgets, key, None) if budgets is not None else None
    budget = custom if custom is not None else DEFAULT_THINKING_BUDGETS[key]
    max_tokens = min(base_max_tokens + budget, model_max_tokens)
    if max_tokens <= budget:
        budget = max(0, max_tokens - 1024)
    return max_tokens, budget


async def apply_on_payload(body: dict[str, Any], model: Model, options: StreamOptions) -> dict[str, Any]:
    """The body after the caller's `on_payload` hook: a returned dict replaces it, None keeps it."""
    if options.on_payload is None:
        return body
    result = options.on_payload(body, model)
    if inspect.isawaitable(result):
        result = await result
    return result if isinstance(result, dict) else body


def merge_headers(*layers: Mapping[str, str] | None) -> dict[str, str]:
    """Later layers win: provider defaults, then model.headers, then dynamic, then options.headers.

    Header names are case-insensitive on the wire, so a later ``user-agent`` replaces an earlier
    ``User-Agent`` instead of both being sent; the later layer's spelling is kept.
    """
    out: dict[str, str] = {}
    for layer in layers:
        for name, value in (layer or {}).items():
            for existing in [key for key in out if key.lower() == name.lower()]:
                del out[existing]
            out[name] = value
    return out


ToolChoice: TypeAlias = Literal["auto", "any", "none", "required"] | dict[str, Any]

__all__ = [
    "DEFAULT_THINKING_BUDGETS",
    "BudgetLevel",
    "OnPayload",
    "StreamOptions",
    "ThinkingBudgets",
    "ToolChoice",
    "adjust_max_tokens_for_thinking",
    "apply_on_payload",
    "clamp_reasoning",
    "effort_level",
    "make_options",
    "merge_headers",
    "reasoning_level",
    "resolve_cache_retention",
    "simple_max_tokens",
    "strongest_effort",
    "supports_xhigh",
]
