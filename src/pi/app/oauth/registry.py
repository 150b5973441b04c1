"""The login flows by provider id: the built-in ones in the order `/login` lists them, and those
extensions register (`register_provider(..., oauth=...)`), grouped by the extension that added them
so that a reload removes exactly its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi.ai.types import Model
from pi.app.oauth.flows.anthropic import AnthropicFlow
from pi.app.oauth.flows.base import OAuthFlow
from pi.app.oauth.flows.github_copilot import GitHubCopilotFlow
from pi.app.oauth.flows.kimi import KimiFlow
from pi.app.oauth.flows.meta import MetaFlow
from pi.app.oauth.flows.openai import OpenAIFlow
from pi.app.oauth.flows.openai_codex import OpenAICodexFlow
from pi.app.oauth.flows.openrouter import OpenRouterFlow
from pi.app.oauth.flows.radius import RadiusFlow
from pi.app.oauth.flows.xai import XaiFlow


def builtin_flows() -> dict[str, OAuthFlow]:
    flows: list[OAuthFlow] = [
        AnthropicFlow(),
        OpenAICodexFlow(),
        OpenAIFlow(),
        GitHubCopilotFlow(),
        OpenRouterFlow(),
        KimiFlow(),
        MetaFlow(),
        XaiFlow(),
        RadiusFlow(),
    ]
    return {flow.id: flow for flow in flows}


_registered: dict[str, tuple[OAuthFlow, str | None]] = {}
_modifiers: dict[str, Callable[[list[Model], dict[str, Any]], list[Model]]] = {}


def register_oauth_flow(
    flow: OAuthFlow,
    source_id: str | None = None,
    modify_models: Callable[[list[Model], dict[str, Any]], list[Model]] | None = None,
) -> None:
    """Offer `flow` in `/login` and use it to refresh its provider's stored credential.

    `modify_models(models, credential)` gets the provider's models and its stored entry whenever
    the model list is built, and returns the models to offer.
    """
    _registered[flow.id] = (flow, source_id)
    if modify_models is not None:
        _modifiers[flow.id] = modify_models
    else:
        _modifiers.pop(flow.id, None)


def unregister_oauth_flows(source_id: str) -> None:
    for provider in [p for p, (_, src) in _registered.items() if src == source_id]:
        del _registered[provider]
        _modifiers.pop(provider, None)


def registered_flows() -> dict[str, OAuthFlow]:
    return {provider: flow for provider, (flow, _) in _registered.items()}


def registered_modifiers() -> dict[str, Callable[[list[Model], dict[str, Any]], list[Model]]]:
    return dict(_modifiers)


__all__ = [
    "builtin_flows",
    "register_oauth_flow",
    "registered_flows",
    "registered_modifiers",
    "unregister_oauth_flows",
]
