"""What messages and lists call a provider, the login flows by provider, and the no-key hint.

A provider has one display name wherever it is shown (`/login`, `/logout`, `pi auth ...`): the short
brand name of `pi.app.provider_display_names` (`Anthropic`, `OpenAI Codex`); a provider the table does
not know (an extension's) goes by its login flow's name, and failing that by its id. A flow's own name
(`Anthropic (Claude Pro/Max)`) describes the sign-in method, not the provider.
"""

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
    """The provider's short name: the brand table's entry, else its login flow's name, else the id."""
    from pi.app.provider_display_names import PROVIDER_NAMES

    name = PROVIDER_NAMES.get(provider)
    if name is not None:
        return name
    flow = oauth_flows().get(provider)
    return flow.name if flow is not None else provider


def missing_key_hint(provider: str) -> str:
    """What the no-key error suggests: the provider's login when it has one, its environment variable,
    or (with neither) a key in models.json or auth.json. The caller adds `--api-key`."""
    from pi.ai.env_api_keys import env_var_names

    names = env_var_names(provider)
    steps = [f"run /login {provider} (or `pi auth login {provider}` in a shell)"] if provider in oauth_flows() else []
    if names:
        steps.append(f"set {' or '.join(names)}")
    elif not steps:
        steps.append("add an apiKey for it in models.json or auth.json")
    return ", ".join(steps)


def api_key_providers() -> list[str]:
    """Providers of the model catalog (those take an API key)."""
    try:
        from pi.ai.models import get_providers

        return list(get_providers())
    except (ImportError, OSError, ValueError):
        return []


__all__ = ["api_key_providers", "display_name", "missing_key_hint", "oauth_flows"]
