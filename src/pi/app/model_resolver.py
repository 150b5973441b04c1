"""Turn what the user typed (``--model sonnet:high``, ``openai/gpt-5``) into a model and thinking level.

Matching goes from strict to loose: exact ``id`` or ``provider/id``, then a substring of the id or
name preferring undated alias ids (``claude-sonnet-4-5`` over ``claude-sonnet-4-5-20250929``), then a
``:level`` suffix. Without ``--model`` the default comes from settings, then a preferred model per
provider among those with a key, then the first model with a key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from msgspec import Struct

from pi.agent.agent import AgentThinkingLevel
from pi.ai.types import THINKING_LEVELS, Model

if TYPE_CHECKING:
    from pi.app.model_registry import ModelRegistry

_DATED = r"-\d{8}$"

DEFAULT_MODEL_PER_PROVIDER: dict[str, str] = {
    "anthropic": "claude-opus-4-6",
    "openai": "gpt-5.4",
    "google": "gemini-2.5-pro",
    "openrouter": "openai/gpt-5.1-codex",
    "xai": "grok-4-fast-non-reasoning",
    "groq": "openai/gpt-oss-120b",
    "cerebras": "zai-glm-4.6",
    "zai": "glm-4.6",
    "mistral": "devstral-medium-latest",
    "deepseek": "deepseek-chat",
}
DEFAULT_THINKING_LEVEL = "medium"


class ModelResolutionError(ValueError):
    pass


class ResolvedModel(Struct, frozen=True):
    """The model a ``--model`` pattern named, with the ``:level`` suffix if one was given.

    `warning` is set when no known model matched and the id is used as a custom model of the given provider.
    """

    model: Model
    thinking_level: str | None = None
    warning: str | None = None


def _match_pattern(pattern: str, models: Sequence[Model]) -> Model | None:
    needle = pattern.lower()
    for model in models:
        if model.id.lower() == needle or f"{model.provider}/{model.id}".lower() == needle:
            return model
    matches = [m for m in models if needle in m.id.lower() or needle in m.name.lower()]
    if not matches:
        return None
    aliases = sorted((m for m in matches if not re.search(_DATED, m.id)), key=lambda m: m.id, reverse=True)
    if aliases:
        return aliases[0]
    return sorted(matches, key=lambda m: m.id, reverse=True)[0]


def _unambiguous(
    pattern: str, candidates: list[Model], has_auth: Callable[[Model], bool] | None, api_key_given: bool
) -> list[Model]:
    """`candidates` without the other providers' copies of a bare id several providers offer.

    The one provider with credentials wins; with none, or more than one, the choice is the user's
    and the error says how to make it.
    """
    base = pattern.rpartition(":")[0] if pattern.rpartition(":")[2] in _LEVELS else pattern
    same = [m for m in candidates if m.id.lower() in (pattern.lower(), base.lower())]
    if len({m.provider for m in same}) < 2:
        return candidates
    authed = [m for m in same if has_auth(m)] if has_auth is not None and not api_key_given else []
    if len({m.provider for m in authed}) == 1:
        return [m for m in candidates if m not in same or m in authed]
    if api_key_given:
        hint = "--api-key does not choose a provider."
    elif authed:
        hint = "More than one matching provider is authenticated."
    else:
        hint = "No matching provider is authenticated."
    listed = ", ".join(f"{m.provider}/{m.id}" for m in same)
    raise ModelResolutionError(
        f'Model "{pattern}" is ambiguous across providers: {listed}. {hint} Use --provider or provider/model.'
    )


def _provider_prefix(pattern: str, providers: dict[str, str]) -> str | None:
    """The longest known provider id that `pattern` starts with, followed by ``/``, if any.

    Provider ids may themselves contain ``/``, so ``team/gw/model`` belongs to provider ``team/gw``
    when it exists, before ``team``.
    """
    cut = len(pattern)
    while (cut := pattern.rfind("/", 0, cut)) > 0:
        if pattern[:cut].lower() in providers:
            return pattern[:cut]
    return None


def resolve_cli_model(
    pattern: str,
    models: Sequence[Model],
    provider: str | None = None,
    *,
    has_auth: Callable[[Model], bool] | None = None,
    api_key_given: bool = False,
) -> ResolvedModel:
    """Resolve ``--model`` (with optional ``--provider``); raises with pi's messages when nothing fits.

    A bare id that several providers offer resolves to the one with credentials (`has_auth`), and
    is an error naming them all otherwise.
    """
    providers = {m.provider.lower(): m.provider for m in models}
    if provider is not None:
        known = providers.get(provider.lower())
        if known is None:
            raise ModelResolutionError(
                f'Unknown provider "{provider}". Use --list-models to see available providers/models.'
            )
        provider = known
    elif (prefix := _provider_prefix(pattern, providers)) is not None:
        rest = pattern[len(prefix) + 1 :]
        exact = [m for m in models if m.provider.lower() == prefix.lower() and m.id.lower() == rest.lower()]
        if exact:
            return ResolvedModel(exact[0])
        provider, pattern = providers[prefix.lower()], rest
    candidates = [m for m in models if provider is None or m.provider == provider]
    if provider is None:
        candidates = _unambiguous(pattern, candidates, has_auth, api_key_given)

    found = _match_pattern(pattern, candidates)
    level: str | None = None
    if found is None and ":" in pattern:
        base, _, suffix = pattern.rpartition(":")
        if suffix in _LEVELS:
            found = _match_pattern(base, candidates)
            if found is not None:
                level = suffix
            else:
                pattern = base
    if found is not None:
        return ResolvedModel(found, level)
    if provider is not None and candidates:
        template = next((m for m in candidates if m.id == DEFAULT_MODEL_PER_PROVIDER.get(provider)), candidates[0])
        custom = template.model_copy(update={"id": pattern, "name": pattern})
        return ResolvedModel(
            custom, level, f'Model "{pattern}" not found for provider "{provider}". Using custom model id.'
        )
    raise ModelResolutionError(f'Model "{pattern}" not found. Use --list-models to see available models.')


def resolve_registry_model(
    pattern: str, registry: ModelRegistry, provider: str | None = None, *, api_key_given: bool = False
) -> ResolvedModel:
    """`resolve_cli_model` over a registry; with `provider`, only that provider's models are built and searched.

    The result is the same as over `registry.all_models()`: with a provider, matching never looks
    at another provider's models.
    """
    if provider is not None:
        known = registry.provider_named(provider)
        if known is not None:
            return resolve_cli_model(pattern, registry.provider_models(known), known)
    return resolve_cli_model(
        pattern, registry.all_models(), provider, has_auth=registry.has_auth, api_key_given=api_key_given
    )


def resolve_model_scope(
    patterns: Sequence[str], models: Sequence[Model]
) -> tuple[list[tuple[Model, str | None]], list[str]]:
    """``--models`` / ``enabledModels``: globs (``anthropic/*``, ``*sonnet*``) or fuzzy patterns, each with an
    optional ``:level``. Returns the scoped (model, level) pairs in pattern order and warnings."""
    import fnmatch

    scoped: list[tuple[Model, str | None]] = []
    warnings: list[str] = []
    seen: set[tuple[str, str]] = set()
    for raw in patterns:
        pattern, level = raw, None
        if ":" in raw:
            base, _, suffix = raw.rpartition(":")
            if suffix in _LEVELS:
                pattern, level = base, suffix
            elif not any(m.id.lower() == raw.lower() for m in models):
                warnings.append(f'Invalid thinking level "{suffix}" in pattern "{raw}". Using default instead.')
                pattern = base
        if any(ch in pattern for ch in "*?["):
            matched = [
                m
                for m in models
                if fnmatch.fnmatchcase(f"{m.provider}/{m.id}".lower(), pattern.lower())
                or fnmatch.fnmatchcase(m.id.lower(), pattern.lower())
            ]
        else:
            same = [m for m in models if m.id.lower() == pattern.lower()]
            if len({m.provider for m in same}) > 1:
                providers = ", ".join(dict.fromkeys(m.provider for m in same))
                warnings.append(
                    f'Pattern "{raw}" matches several providers: {providers}. Use provider/id to choose one.'
                )
                matched = same
            else:
                try:
                    matched = [resolve_cli_model(pattern, models).model]
                except ModelResolutionError:
                    matched = []
        if not matched:
            warnings.append(f'No models match pattern "{raw}"')
        for model in matched:
            key = (model.provider, model.id)
            if key not in seen:
                seen.add(key)
                scoped.append((model, level))
    return scoped, warnings


def default_model(
    available: Sequence[Model], default_provider: str | None = None, default_model_id: str | None = None
) -> Model | None:
    """Settings' default if it has a key, else the preferred model of the first provider with one."""
    if default_provider and default_model_id:
        for model in available:
            if model.provider == default_provider and model.id == default_model_id:
                return model
    for provider, model_id in DEFAULT_MODEL_PER_PROVIDER.items():
        for model in available:
            if model.provider == provider and model.id == model_id:
                return model
    return available[0] if available else None


def all_thinking_levels() -> tuple[AgentThinkingLevel, ...]:
    """Every level, lowest first: "off" and then the provider levels `pi.ai.types` defines."""
    levels: tuple[AgentThinkingLevel, ...] = tuple(THINKING_LEVELS)
    return levels if "off" in levels else ("off", *levels)


_LEVELS: dict[str, AgentThinkingLevel] = {level: level for level in all_thinking_levels()}


def as_thinking_level(level: str) -> AgentThinkingLevel:
    """`level` as a thinking level; anything unknown (a typo in settings.json) means the default."""
    return _LEVELS.get(level, _LEVELS[DEFAULT_THINKING_LEVEL])


def supported_thinking_levels(model: Model) -> list[AgentThinkingLevel]:
    """Levels `model` accepts, weakest first (`pi.ai` decides; just "off" for a model that does not reason)."""
    from pi.ai.thinking import supported_thinking_levels as levels_of

    return list(levels_of(model)) or ["off"]


def clamp_thinking_level(level: str, model: Model) -> AgentThinkingLevel:
    """The supported level nearest to `level` (stronger first, then weaker); an unknown name means the default."""
    from pi.ai.thinking import clamp_thinking_level as clamp

    return clamp(model, as_thinking_level(level))


__all__ = [
    "DEFAULT_MODEL_PER_PROVIDER",
    "DEFAULT_THINKING_LEVEL",
    "ModelResolutionError",
    "ResolvedModel",
    "all_thinking_levels",
    "as_thinking_level",
    "clamp_thinking_level",
    "default_model",
    "resolve_cli_model",
    "resolve_model_scope",
    "resolve_registry_model",
    "supported_thinking_levels",
]
