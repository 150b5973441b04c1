"""Which thinking levels a model has, and the nearest one it has to a level asked for.

A model's `thinking_level_map` says what each pi level is called on the wire; a level mapped to
None is one the model lacks, and the two strongest levels (``xhigh``, ``max``) exist only where the
map names them, since most models top out at ``high``. A model without reasoning has only ``off``.
"""

from __future__ import annotations

from pi.ai.types import THINKING_LEVELS, Model, ThinkingLevel

_EXPLICIT_ONLY = frozenset({"xhigh", "max"})


def supported_thinking_levels(model: Model) -> list[ThinkingLevel]:
    """The levels `model` accepts, weakest first (``["off"]`` for a model without reasoning)."""
    if not model.reasoning:
        return ["off"]
    mapping = model.thinking_level_map or {}
    levels: list[ThinkingLevel] = []
    for level in THINKING_LEVELS:
        if level in mapping:
            if mapping[level] is None:
                continue
        elif level in _EXPLICIT_ONLY:
            continue
        levels.append(level)
    return levels


def clamp_thinking_level(model: Model, level: str) -> ThinkingLevel:
    """`level` if `model` has it, else the nearest stronger level it has, else the nearest weaker one.

    Stronger first, so asking for ``off`` on a model that always reasons gets its lightest level
    rather than an error. An unknown level gets the model's weakest.
    """
    available = supported_thinking_levels(model)
    for candidate in available:
        if candidate == level:
            return candidate
    if level not in THINKING_LEVELS:
        return available[0] if available else "off"
    index = THINKING_LEVELS.index(level)
    for candidate in THINKING_LEVELS[index + 1 :]:
        if candidate in available:
            return candidate
    for candidate in reversed(THINKING_LEVELS[:index]):
        if candidate in available:
            return candidate
    return available[0] if available else "off"


def provider_thinking_value(model: Model, level: ThinkingLevel) -> str | None:
    """What `level` is called in `model`'s requests: its mapped value, else the level's own name.

    None when the model lacks the level (mapped to None). Callers clamp first.
    """
    mapping = model.thinking_level_map
    if mapping is not None and level in mapping:
        return mapping[level]
    return level


__all__ = ["clamp_thinking_level", "provider_thinking_value", "supported_thinking_levels"]
