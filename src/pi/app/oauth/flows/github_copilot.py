"""GitHub Copilot: a GitHub device-code token, exchanged for a short-lived Copilot token.

The GitHub token is the long-lived `refresh`; each refresh re-exchanges it and re-reads which
models the account may use (`availableModelIds`).
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import urlsplit

from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext, oauth_entry
from pi.app.oauth.flows.device_grant import device_grant
from pi.app.oauth.http import expect_ok, request, require_str
from pi.app.oauth.interaction import LoginInteraction, SelectOption
from pi.app.oauth.providers import GitHubCopilotOAuth

log = logging.getLogger(__name__)
ENTERPRISE_PROMPT = "GitHub Enterprise URL/domain (blank for github.com)"
_DOMAIN = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+(:\d+)?$")
_MARGIN_MS = 300_000


def enterprise_domain(value: str) -> str | None:
    """The host of an Enterprise URL or domain; None when blank (github.com)."""
    text = value.strip()
    if not text:
        return None
    host = urlsplit(text if "://" in text else f"https://{text}").netloc.lower()
    if not _DOMAIN.match(host):
        raise OAuthError("Invalid GitHub Enterprise URL/domain")
    return host


def copilot_base_url(token: str, enterprise: str | None) -> str:
    """Where requests go: the token's `proxy-ep=proxy.X` → `https://api.X`, else by account kind."""
    match = re.search(r"(?:^|;)\s*proxy-ep=([^;\s]+)", token)
    if match:
        host = match.group(1)
        return "https://" + (host.replace("proxy.", "api.", 1) if host.startswith("proxy.") else host)
    if enterprise:
        return f"https://copilot-api.{enterprise}"
    return "https://api.individual.githubcopilot.com"


def copilot_headers(cfg: GitHubCopilotOAuth) -> dict[str, str]:
    return {
        "User-Agent": cfg.user_agent,
        "Editor-Version": cfg.editor_version,
        "Editor-Plugin-Version": cfg.editor_plugin_version,
        "Copilot-Integration-Id": cfg.integration_id,
    }


class GitHubCopilotFlow:
    id = "github-copilot"
    name = "GitHub Copilot"
    is_subscription = True
    api_key_login = False
    methods: tuple[SelectOption, ...] = ()

    async def login(self, interaction: LoginInteraction, ctx: OAuthContext, method: str | None) -> dict[str, Any]:
        cfg = ctx.providers.github_copilot
        enterprise = enterprise_domain(await interaction.text(ENTERPRISE_PROMPT, allow_empty=True))
        domain = enterprise or cfg.default_domain
        base = cfg.github_base(domain)
        body = await device_grant(
            what="GitHub",
            device_url=f"{base}/login/device/code",
            token_url=f"{base}/login/oauth/access_token",
            form={"client_id": cfg.client_id, "scope": cfg.scope},
            headers={"User-Agent": cfg.user_agent},
            interaction=interaction,
            clock=ctx.clock,
            wait_first=True,
        )
        github_token = require_str(body, "access_token", "GitHub token")
        interaction.progress("Exchanging the GitHub token for a Copilot token...")
        return await _exchange(cfg, github_token, enterprise)

    async def refresh(self, credential: dict[str, Any], ctx: OAuthContext) -> dict[str, Any]:
        enterprise = credential.get("enterpriseUrl")
        return await _exchange(
            ctx.providers.github_copilot,
            str(credential.get("refresh")),
            enterprise if isinstance(enterprise, str) else None,
        )


async def _exchange(cfg: GitHubCopilotOAuth, github_token: str, enterprise: str | None) -> dict[str, Any]:
    domain = enterprise or cfg.default_domain
    headers = {**copilot_headers(cfg), "Authorization": f"Bearer {github_token}"}
    reply = await request("GET", f"{cfg.api_base(domain)}/copilot_internal/v2/token", headers=headers)
    body = expect_ok(reply, "Copilot token exchange")
    token = require_str(body, "token", "Copilot token")
    expires_at = body.get("expires_at")
    if not isinstance(expires_at, (int, float)):
        raise OAuthError('Copilot token response carries no "expires_at"')
    extra: dict[str, Any] = {}
    if enterprise:
        extra["enterpriseUrl"] = enterprise
    models = await available_model_ids(cfg, token, cfg.models_base_override or copilot_base_url(token, enterprise))
    if models is not None:
        extra["availableModelIds"] = models
    return oauth_entry(token, github_token, int(expires_at * 1000) - _MARGIN_MS, **extra)


async def available_model_ids(cfg: GitHubCopilotOAuth, token: str, base: str) -> list[str] | None:
    """Models the account can pick; `unconfigured` ones are switched on first. None when unknown."""
    headers = {**copilot_headers(cfg), "Authorization": f"Bearer {token}", "X-GitHub-Api-Version": cfg.api_version}
    try:
        reply = await request("GET", f"{base}/models", headers=headers)
    except OAuthError as exc:
        log.warning("copilot model list unavailable: %s", exc)
        return None
    data = reply.body.get("data")
    if not reply.ok or not isinstance(data, list):
        log.warning("copilot model list unavailable: HTTP %s", reply.status)
        return None
    ids: list[str] = []
    for model in data:
        if not isinstance(model, dict) or not isinstance(model.get("id"), str) or not model.get("model_picker_enabled"):
            continue
        policy = model.get("policy")
        state = policy.get("state") if isinstance(policy, dict) else None
        if state == "disabled":
            continue
        if state == "unconfigured" and not await _enable(cfg, headers, base, model["id"]):
            continue
        ids.append(model["id"])
    return ids


async def _enable(cfg: GitHubCopilotOAuth, headers: dict[str, str], base: str, model_id: str) -> bool:
    policy_headers = {**headers, "openai-intent": "chat-policy", "x-interaction-type": "chat-policy"}
    try:
        reply = await request(
            "POST", f"{base}/models/{model_id}/policy", json_body={"state": "enabled"}, headers=policy_headers
        )
    except OAuthError:
        return False
    return reply.ok


__all__ = ["GitHubCopilotFlow", "available_model_ids", "copilot_base_url", "copilot_headers", "enterprise_domain"]
