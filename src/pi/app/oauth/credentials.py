"""Turning what auth.json holds into what a request needs: a key, extra headers and maybe a base URL.

A stored entry owns its provider: the environment is consulted only when nothing is stored, and a
failed refresh is an error, not a silent fall back to an environment key.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext, OAuthFlow
from pi.app.oauth.refresh import fresh_credential
from pi.app.oauth.store import OAuthStore


class RequestAuth(Struct, frozen=True):
    """Credentials for one request: `api_key` as the provider's key (or bearer), extra `headers`, and a
    `base_url` when the credential decides where requests go (Copilot's proxy endpoint)."""

    api_key: str
    source: str
    headers: dict[str, str] = field(default_factory=dict)
    base_url: str | None = None
    bearer: bool = False
    """True when the key must go in `Authorization: Bearer`, never as an API-key header."""


def _env_key(provider: str) -> str | None:
    from pi.ai.env_api_keys import get_env_api_key

    return get_env_api_key(provider)


async def resolve_request_auth(
    store: OAuthStore, provider: str, flows: dict[str, OAuthFlow], ctx: OAuthContext
) -> RequestAuth | None:
    """The credential for `provider` right now, refreshing an OAuth token that is about to expire."""
    entry = store.get(provider)
    if entry is None:
        key = _env_key(provider)
        return RequestAuth(key, "env") if key else None
    if entry.get("type") == "api_key" and isinstance(entry.get("key"), str):
        from pi.app.key_values import resolve_config_value

        value = resolve_config_value(entry["key"])
        return RequestAuth(value, "auth.json") if value else None
    if entry.get("type") != "oauth":
        raise OAuthError(f'auth.json: the entry for "{provider}" is not a credential pi understands')
    flow = flows.get(provider)
    if flow is not None:
        entry = await fresh_credential(store, flow, ctx)
    return oauth_request_auth(provider, entry)


def oauth_request_auth(provider: str, entry: dict[str, Any]) -> RequestAuth:
    """Headers and base URL each provider's API wants with an OAuth credential."""
    access = str(entry.get("access") or "")
    if provider == "openai-codex":
        headers = {"chatgpt-account-id": str(entry.get("accountId") or ""), "originator": "pi"}
        return RequestAuth(access, "oauth", headers, bearer=True)
    if provider == "github-copilot":
        from pi.app.oauth.flows.github_copilot import copilot_base_url, copilot_headers
        from pi.app.oauth.providers import GitHubCopilotOAuth

        enterprise = entry.get("enterpriseUrl")
        base = copilot_base_url(access, enterprise if isinstance(enterprise, str) else None)
        return RequestAuth(access, "oauth", copilot_headers(GitHubCopilotOAuth()), base, bearer=True)
    if provider == "anthropic":
        # The Anthropic wire API recognises a subscription token (`sk-ant-oat`) itself and sends it in
        # Claude Code's shape (Bearer, beta flags, identity block, tool names); extra headers here
        # would only override its beta list.
        return RequestAuth(access, "oauth", bearer=True)
    return RequestAuth(access, "oauth", bearer=provider == "kimi-coding")


__all__ = ["RequestAuth", "oauth_request_auth", "resolve_request_auth"]
