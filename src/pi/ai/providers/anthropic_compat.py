"""What an Anthropic Messages endpoint accepts, from the model's ``compat`` with pi's defaults.

Anthropic itself takes everything; gateways and other hosts that speak the same API (Copilot,
MiniMax, OpenRouter, Vercel, ...) often do not, and each flag turns off one request feature.
"""

from __future__ import annotations

from msgspec import Struct

from pi.ai.types import Model


class AnthropicCompat(Struct, frozen=True):
    supports_eager_tool_input_streaming: bool = True
    """Tools carry ``eager_input_streaming``; without it the fine-grained streaming beta is asked for."""
    supports_cache_control_on_tools: bool = True
    """The last tool definition is a cache breakpoint."""
    supports_temperature: bool = True
    force_adaptive_thinking: bool = False
    """Thinking is ``adaptive`` with an effort, whatever the model id suggests."""
    supports_long_cache_retention: bool | None = None
    """A one-hour cache TTL; None decides by the base URL (api.anthropic.com)."""


def _flag(model: Model, camel: str) -> bool | None:
    compat = model.compat
    if compat is None:
        return None
    snake = "".join(f"_{ch.lower()}" if ch.isupper() else ch for ch in camel)
    value = getattr(compat, snake, None)
    if value is None:
        value = (compat.model_extra or {}).get(camel)
    return value if isinstance(value, bool) else None


def get_anthropic_compat(model: Model) -> AnthropicCompat:
    """The flags of `model`, each falling back to its default when the model does not set it."""
    eager = _flag(model, "supportsEagerToolInputStreaming")
    on_tools = _flag(model, "supportsCacheControlOnTools")
    temperature = _flag(model, "supportsTemperature")
    adaptive = _flag(model, "forceAdaptiveThinking")
    return AnthropicCompat(
        supports_eager_tool_input_streaming=True if eager is None else eager,
        supports_cache_control_on_tools=True if on_tools is None else on_tools,
        supports_temperature=True if temperature is None else temperature,
        force_adaptive_thinking=bool(adaptive),
        supports_long_cache_retention=_flag(model, "supportsLongCacheRetention"),
    )


__all__ = ["AnthropicCompat", "get_anthropic_compat"]
