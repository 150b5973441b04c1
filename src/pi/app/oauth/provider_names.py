"""Display names of providers for messages: a login flow's name, else the provider id."""

from __future__ import annotations

from functools import cache

from pi.app.oauth.flows.base import OAuthFlow


@cache
def _flows() -> dict[str, OAuthFlow]:
    from pi.app.oauth.registry import builtin_flows

    return builtin_flows()


def oauth_flows() -> dict[str, OAuthFlow]:
    """The built-in flows, then those extensions registered (an extension may replace a built-in one)."""
    from pi.app.oauth.registry import registered_flows

    return {**_flows(), **registered_flows()}


def display_name(provider: str) -> str:
    flow = oauth_flows().get(provider)
    return flow.name if flow is not None else provider


def api_key_providers() -> list[str]:
    """Providers of the model catalog (those take an API key)."""
    try:
        from pi.ai.models import get_providers

        return list(get_providers())
    except (ImportError, OSError, ValueError):
        return []


__all__ = ["api_key_providers", "display_name", "oauth_flows"]
