"""Kimi Code: device code; refresh retries transient failures (429, 5xx, network) with backoff."""

from __future__ import annotations

from typing import Any

from pi.app.oauth.clock import now_ms
from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext, oauth_entry
from pi.app.oauth.flows.device_grant import device_grant, expires_in_seconds
from pi.app.oauth.http import Reply, request, require_str
from pi.app.oauth.interaction import LoginInteraction, SelectOption
from pi.app.oauth.providers import KimiOAuth


def kimi_host(cfg: KimiOAuth, ctx: OAuthContext) -> str:
    for name in cfg.host_env:
        value = ctx.getenv(name)
        if value:
            return value.rstrip("/")
    return cfg.host_url.rstrip("/")


class KimiFlow:
    id = "kimi-coding"
    name = "Kimi Code (subscription)"
    label = "Sign in with Kimi Code"
    is_subscription = True
    api_key_login = True
    methods: tuple[SelectOption, ...] = ()

    async def login(self, interaction: LoginInteraction, ctx: OAuthContext, method: str | None) -> dict[str, Any]:
        cfg = ctx.providers.kimi
        host = kimi_host(cfg, ctx)
        body = await device_grant(
            what="Kimi Code",
            device_url=host + cfg.device_path,
            token_url=host + cfg.token_path,
            form={"client_id": cfg.client_id},
            interaction=interaction,
            clock=ctx.clock,
        )
        return _entry(body, ctx, None)

    async def refresh(self, credential: dict[str, Any], ctx: OAuthContext) -> dict[str, Any]:
        cfg = ctx.providers.kimi
        url = kimi_host(cfg, ctx) + cfg.token_path
        form = {
            "grant_type": "refresh_token",
            "client_id": cfg.client_id,
            "refresh_token": str(credential.get("refresh")),
        }
        reply: Reply | None = None
        for delay in (0.0, *cfg.refresh_retry_delays):
            if delay:
                await ctx.clock.sleep(delay)
            try:
                reply = await request("POST", url, form=form)
            except OAuthError:
                reply = None
                continue
            if reply.status == 429 or reply.status >= 500:
                continue
            break
        if reply is None:
            raise OAuthError("Kimi Code token refresh failed: the server cannot be reached")
        if reply.status in (401, 403) or reply.body.get("error") == "invalid_grant":
            raise OAuthError(
                f"Kimi Code token refresh unauthorized (status {reply.status}). Run /login kimi-coding again."
            )
        if not reply.ok:
            raise OAuthError(f"Kimi Code token refresh failed ({reply.error_text()})")
        return _entry(reply.body, ctx, credential.get("refresh"))


def _entry(body: dict[str, Any], ctx: OAuthContext, old_refresh: Any) -> dict[str, Any]:
    access = require_str(body, "access_token", "Kimi Code token")
    refresh = body.get("refresh_token") or old_refresh or ""
    return oauth_entry(access, str(refresh), now_ms(ctx.clock) + int(expires_in_seconds(body, 3600) * 1000))


__all__ = ["KimiFlow", "kimi_host"]
