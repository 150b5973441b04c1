"""Which code speaks which wire API.

A model names its `api`; this registry maps that name to an `ApiProvider`. Built-in providers are
registered by module path and imported only when a model of that API is first used, so importing
`pi.ai` loads no provider code (each costs start-up time).
"""

from __future__ import annotations

import importlib
from typing import Protocol

from msgspec import Struct

from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.options import StreamOptions
from pi.ai.types import Context, Model


class StreamFunction(Protocol):
    """Start a request; failures after this call returns are events, never exceptions."""

    def __call__(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream: ...


class ApiProvider(Struct, frozen=True):
    """The implementation of one wire API (`api`, e.g. ``anthropic-messages``) that models name."""

    api: str
    stream: StreamFunction
    """Raw options: provider-specific keys in `options.extra`."""
    stream_simple: StreamFunction
    """Maps the portable `options.reasoning` level to this API's own fields."""


BUILTIN_PROVIDER_MODULES: dict[str, str] = {
    "anthropic-messages": "pi.ai.providers.anthropic_messages",
    "openai-completions": "pi.ai.providers.openai_completions",
    "openai-responses": "pi.ai.providers.openai_responses",
    "google-generative-ai": "pi.ai.providers.google_generative_ai",
    "openai-codex-responses": "pi.ai.providers.openai_codex_responses",
    "pi-messages": "pi.ai.providers.pi_messages",
}
"""Each module defines a module-level ``PROVIDER: ApiProvider``."""

_registered: dict[str, tuple[ApiProvider, str | None]] = {}


def register_api_provider(provider: ApiProvider, source_id: str | None = None) -> None:
    """Add or replace the implementation of `provider.api`; `source_id` groups registrations for removal."""
    _registered[provider.api] = (provider, source_id)


def unregister_api_providers(source_id: str) -> None:
    for api in [api for api, (_, src) in _registered.items() if src == source_id]:
        del _registered[api]


def get_api_provider(api: str) -> ApiProvider | None:
    entry = _registered.get(api)
    if entry is not None:
        return entry[0]
    module_path = BUILTIN_PROVIDER_MODULES.get(api)
    if module_path is None:
        return None
    module = importlib.import_module(module_path)
    provider: ApiProvider = module.PROVIDER
    _registered[api] = (provider, None)
    return provider


def get_api_providers() -> list[str]:
    return sorted(set(BUILTIN_PROVIDER_MODULES) | set(_registered))


def require_api_provider(api: str) -> ApiProvider:
    provider = get_api_provider(api)
    if provider is None:
        known = ", ".join(get_api_providers())
        raise ValueError(f"No API provider registered for api: {api}\nKnown APIs: {known}.")
    return provider


__all__ = [
    "BUILTIN_PROVIDER_MODULES",
    "ApiProvider",
    "StreamFunction",
    "get_api_provider",
    "get_api_providers",
    "register_api_provider",
    "require_api_provider",
    "unregister_api_providers",
]
