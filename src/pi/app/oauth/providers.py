"""Every endpoint, client id, scope and port the subscription logins use, in one table.

Production values are the protocol's; tests point a provider at a loopback server with
`with_base(url)`, which rewrites the scheme and host of every `*_url` field (redirect URIs the
provider only echoes back are left as they are), and `msgspec.structs.replace` for anything else.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from msgspec import Struct
from msgspec.structs import replace

_T = TypeVar("_T", bound="_Rebasable")


def _rebase(url: str, base: str) -> str:
    target = urlsplit(base)
    parts = urlsplit(url)
    return urlunsplit((target.scheme, target.netloc, parts.path, parts.query, parts.fragment))


class _Rebasable(Struct, frozen=True):
    """A provider's endpoints, which tests and self-hosted gateways may point elsewhere."""

    def with_base(self: _T, base: str) -> _T:
        """A copy whose request endpoints all go to `base` (scheme://host:port), paths kept."""
        changes: dict[str, Any] = {}
        for name in self.__struct_fields__:
            value = getattr(self, name)
            if name.endswith("_url") and isinstance(value, str):
                changes[name] = _rebase(value, base)
        return replace(self, **changes)


class AnthropicOAuth(_Rebasable, frozen=True):
    client_id: str = "9d1c250a-e61b-44d9-88ed-5944d1962f5e"
    authorize_url: str = "https://claude.ai/oauth/authorize"
    token_url: str = "https://platform.claude.com/v1/oauth/token"
    manual_redirect_uri: str = "https://platform.claude.com/oauth/code/callback"
    scope: str = (
        "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload"
    )
    callback_port: int = 53692
    callback_path: str = "/callback"
    timeout_seconds: float = 30.0


class OpenAICodexOAuth(_Rebasable, frozen=True):
    client_id: str = "app_EMoamEEZ73f0CkXaXp7hrann"
    authorize_url: str = "https://auth.openai.com/oauth/authorize"
    token_url: str = "https://auth.openai.com/oauth/token"
    redirect_uri: str = "http://localhost:1455/auth/callback"
    scope: str = "openid profile email offline_access"
    callback_port: int = 1455
    callback_path: str = "/auth/callback"
    device_usercode_url: str = "https://auth.openai.com/api/accounts/deviceauth/usercode"
    device_token_url: str = "https://auth.openai.com/api/accounts/deviceauth/token"
    device_verification_uri: str = "https://auth.openai.com/codex/device"
    device_redirect_uri: str = "https://auth.openai.com/deviceauth/callback"
    device_timeout_seconds: float = 15 * 60
    jwt_claim: str = "https://api.openai.com/auth"
    originator: str = "pi"


class GitHubCopilotOAuth(_Rebasable, frozen=True):
    client_id: str = "Iv1.b507a08c87ecfe98"
    default_domain: str = "github.com"
    scope: str = "read:user"
    user_agent: str = "GitHubCopilotChat/0.35.0"
    editor_version: str = "vscode/1.107.0"
    editor_plugin_version: str = "copilot-chat/0.35.0"
    integration_id: str = "vscode-chat"
    api_version: str = "2026-06-01"
    individual_base_url: str = "https://api.individual.githubcopilot.com"
    github_base_override: str | None = None
    """Tests: serve `https://<domain>/login/...` from here instead."""
    api_base_override: str | None = None
    """Tests: serve `https://api.<domain>/copilot_internal/...` from here instead."""
    models_base_override: str | None = None
    """Tests: serve `<copilot base>/models` from here instead."""

    def github_base(self, domain: str) -> str:
        return self.github_base_override or f"https://{domain}"

    def api_base(self, domain: str) -> str:
        return self.api_base_override or f"https://api.{domain}"


class OpenRouterOAuth(_Rebasable, frozen=True):
    authorize_url: str = "https://openrouter.ai/auth"
    keys_url: str = "https://openrouter.ai/api/v1/auth/keys"
    callback_host: str = "127.0.0.1"
    callback_timeout_seconds: float = 5 * 60
    timeout_seconds: float = 30.0


class KimiOAuth(_Rebasable, frozen=True):
    client_id: str = "17e5f671-d194-4dfb-9706-5516cb48c098"
    host_url: str = "https://auth.kimi.com"
    host_env: tuple[str, ...] = ("KIMI_CODE_OAUTH_HOST", "KIMI_OAUTH_HOST")
    device_path: str = "/api/oauth/device_authorization"
    token_path: str = "/api/oauth/token"
    refresh_retry_delays: tuple[float, ...] = (1.0, 2.0, 4.0)


class MetaOAuth(_Rebasable, frozen=True):
    client_id: str = "1031625952748946"
    device_url: str = "https://auth.meta.com/oidc/device/authorization/"
    token_url: str = "https://auth.meta.com/oidc/device/token/"
    key_url: str = "https://api.meta.ai/muse-code/key"
    api_version: str = "1.0.0"
    key_lifetime_ms: int = 86_400_000


class XaiOAuth(_Rebasable, frozen=True):
    client_id: str = "b1a00492-073a-47ea-816f-4c329264a828"
    scope: str = "openid profile email offline_access grok-cli:access api:access"
    device_url: str = "https://auth.x.ai/oauth2/device/code"
    token_url: str = "https://auth.x.ai/oauth2/token"
    referrer: str = "pi"
    default_expires_in: int = 3600


class OpenAIOAuth(_Rebasable, frozen=True):
    client_id: str = "dynamic_agent_client"
    authorize_url: str = "https://auth.openai.com/api/accounts/authorize"
    token_url: str = "https://auth.openai.com/api/accounts/oauth/token"
    redirect_uri: str = "http://127.0.0.1:1455/auth/callback"
    resource: str = "https://api.openai.com/v1"
    scope: str = "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct"
    required_scope: str = "chatgpt.tokens.use.direct"
    agent_name_hint: str = "Pi"
    callback_port: int = 1455
    callback_path: str = "/auth/callback"


class RadiusOAuth(_Rebasable, frozen=True):
    client_id: str = "pi-gateway"
    scope: str = "gateway offline_access"
    gateway_url: str = "https://radius.pi.dev"
    redirect_uri: str = "http://127.0.0.1:1456/oauth/callback"
    callback_port: int = 1456
    callback_path: str = "/oauth/callback"


class ProviderTable(Struct, frozen=True):
    """All flows' constants; `OAuthContext.providers` carries one, tests pass a rebased copy."""

    anthropic: AnthropicOAuth = AnthropicOAuth()
    openai_codex: OpenAICodexOAuth = OpenAICodexOAuth()
    openai: OpenAIOAuth = OpenAIOAuth()
    github_copilot: GitHubCopilotOAuth = GitHubCopilotOAuth()
    openrouter: OpenRouterOAuth = OpenRouterOAuth()
    kimi: KimiOAuth = KimiOAuth()
    meta: MetaOAuth = MetaOAuth()
    xai: XaiOAuth = XaiOAuth()
    radius: RadiusOAuth = RadiusOAuth()


REFRESH_MARGIN_MS = 300_000
"""A token with less than this left is refreshed before a request."""
REFRESH_TIMEOUT_SECONDS = 15.0
MAX_SAFE_INTEGER = 9007199254740991
"""`expires` of a credential that never expires (JavaScript's Number.MAX_SAFE_INTEGER)."""
CALLBACK_HOST_ENV = "PI_OAUTH_CALLBACK_HOST"
ENDPOINTS_ENV = "PI_OAUTH_ENDPOINTS"
"""JSON object `{"<table field>": "http://host:port", ...}`: send those providers' OAuth calls there.

For a pi process under test (loopback stubs); unset in normal use, when every value is the protocol's."""


def table_from_env(env: Mapping[str, str]) -> ProviderTable:
    """The production table, with the providers `PI_OAUTH_ENDPOINTS` names rebased; bad values are ignored.

    ``PI_RADIUS_GATEWAY`` moves the Radius sign-in to that gateway, as it moves Radius requests.
    """
    raw = env.get(ENDPOINTS_ENV)
    table = ProviderTable()
    if (env.get("PI_RADIUS_GATEWAY") or "").strip():
        from pi.ai.providers.radius import gateway_url

        table = replace(table, radius=replace(table.radius, gateway_url=gateway_url(env)))
    if not raw:
        return table
    try:
        bases = json.loads(raw)
    except ValueError:
        return table
    if not isinstance(bases, dict):
        return table
    changes: dict[str, Any] = {}
    for name, base in bases.items():
        current = getattr(table, name, None) if isinstance(name, str) else None
        if not isinstance(current, _Rebasable) or not isinstance(base, str):
            continue
        if isinstance(current, GitHubCopilotOAuth):
            current = replace(current, github_base_override=base, api_base_override=base, models_base_override=base)
        changes[name] = current.with_base(base)
    return replace(table, **changes)


__all__ = [
    "CALLBACK_HOST_ENV",
    "ENDPOINTS_ENV",
    "MAX_SAFE_INTEGER",
    "REFRESH_MARGIN_MS",
    "REFRESH_TIMEOUT_SECONDS",
    "AnthropicOAuth",
    "GitHubCopilotOAuth",
    "KimiOAuth",
    "MetaOAuth",
    "OpenAICodexOAuth",
    "OpenAIOAuth",
    "OpenRouterOAuth",
    "ProviderTable",
    "RadiusOAuth",
    "XaiOAuth",
    "table_from_env",
]
