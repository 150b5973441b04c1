"""The thinking switch and sampling parameters of a Chat Completions request.

Servers that speak Chat Completions disagree on how to ask for reasoning: OpenAI takes
``reasoning_effort``, OpenRouter a ``reasoning`` object, DeepSeek and z.ai a ``thinking`` object,
Qwen and chat-template servers ``enable_thinking`` flags. The resolved compat's `thinking_format`
picks one; the model's thinking-level map turns the pi level into the server's own value.
"""

from __future__ import annotations

from typing import Any

from pi.ai.providers.openai_compat import ResolvedCompat
from pi.ai.thinking import clamp_thinking_level
from pi.ai.types import Model


def mapped_effort(model: Model, level: str | None) -> str | None:
    """The server's value for a pi level (None: no level); ``max`` without a mapping means the
    strongest effort the model has, since no server takes ``max`` itself."""
    if level is None:
        return None
    mapping = model.thinking_level_map or {}
    if level in mapping:
        return mapping[level]
    if level == "max":
        return "xhigh" if mapping.get("xhigh") is not None else "high"
    return level


def _off_value(model: Model) -> str | None:
    """What a server is sent to turn reasoning off, when the model's map names a value for ``off``."""
    mapping = model.thinking_level_map or {}
    value = mapping.get("off")
    return value if isinstance(value, str) else None


def _off_allowed(model: Model) -> bool:
    """False when the map marks ``off`` unsupported (the model always reasons)."""
    mapping = model.thinking_level_map or {}
    return not ("off" in mapping and mapping["off"] is None)


def apply_thinking(body: dict[str, Any], model: Model, compat: ResolvedCompat, level: str | None) -> None:
    """Set the reasoning fields of `body` for pi level `level` (None: reasoning off)."""
    if not model.reasoning:
        return
    fmt = compat.thinking_format
    effort = mapped_effort(model, level) if level else None
    if level and level in compat.reasoning_effort_map:
        effort = compat.reasoning_effort_map[level]
    if fmt == "zai":
        body["thinking"] = {"type": "enabled", "clear_thinking": False} if level else {"type": "disabled"}
        if effort and compat.supports_reasoning_effort:
            body["reasoning_effort"] = effort
    elif fmt == "qwen":
        body["enable_thinking"] = bool(level)
        if effort and compat.supports_reasoning_effort:
            body["reasoning_effort"] = effort
    elif fmt == "qwen-chat-template":
        body["chat_template_kwargs"] = {"enable_thinking": bool(level), "preserve_thinking": True}
    elif fmt == "chat-template":
        kwargs = _chat_template_values(model, compat.chat_template_kwargs, level)
        if kwargs:
            body["chat_template_kwargs"] = kwargs
    elif fmt == "deepseek":
        if level:
            body["thinking"] = {"type": "enabled"}
        elif _off_allowed(model):
            body["thinking"] = {"type": "disabled"}
        if effort and compat.supports_reasoning_effort:
            body["reasoning_effort"] = effort
    elif fmt == "openrouter":
        if level:
            body["reasoning"] = {"effort": effort}
        elif _off_allowed(model):
            body["reasoning"] = {"effort": _off_value(model) or "none"}
    elif fmt == "ant-ling":
        # Ant Ling takes only the efforts the model's map names (as pi 1.6 sends them): a level the
        # map leaves out asks for nothing rather than a value the server may refuse.
        named = (model.thinking_level_map or {}).get(level) if level else None
        if level and level in compat.reasoning_effort_map:
            named = compat.reasoning_effort_map[level]
        if isinstance(named, str):
            body["reasoning"] = {"effort": named}
    elif fmt == "together":
        body["reasoning"] = {"enabled": bool(level)}
        if effort and compat.supports_reasoning_effort:
            body["reasoning_effort"] = effort
    elif fmt == "string-thinking":
        if level:
            body["thinking"] = effort
        elif _off_allowed(model):
            body["thinking"] = _off_value(model) or "none"
    elif compat.supports_reasoning_effort:
        value = effort if level else _off_value(model)
        if value:
            body["reasoning_effort"] = value


def _chat_template_values(model: Model, values: dict[str, Any], level: str | None) -> dict[str, Any]:
    """Resolve ``{"$var": "thinking.enabled"}``-style placeholders of a chat template's kwargs."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if not isinstance(value, dict):
            out[key] = value
            continue
        if not level and value.get("omitWhenOff"):
            continue
        if value.get("$var") == "thinking.enabled":
            out[key] = bool(level)
            continue
        mapping = model.thinking_level_map or {}
        mapped = mapping.get(level or "off", level) if (level or "off") in mapping else level
        if isinstance(mapped, str):
            out[key] = mapped
    return out


def sampling_params(model: Model, level: str | None, request: dict[str, Any] | None = None) -> dict[str, Any]:
    """Model `sampling_params`, then the override for the (clamped) thinking level, then the request's own."""
    effective = clamp_thinking_level(model, level or "off")
    by_level = (model.sampling_params_by_thinking_level or {}).get(effective)
    return {**(model.sampling_params or {}), **(by_level or {}), **(request or {})}


__all__ = ["apply_thinking", "mapped_effort", "sampling_params"]
