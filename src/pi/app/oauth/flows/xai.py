"""xAI (SuperGrok / X Premium): device code; refresh may omit the refresh token, which is then kept."""

from __future__ import annotations

from typing import Any

from pi.app.oauth.clock import now_ms
from pi.app.oauth.flows.base import OAuthContext, oauth_entry
from pi.app.oauth.flows.device_grant import device_grant, expires_in_seconds
from pi.app.oauth.http import expect_ok, request, require_str
from pi.app.oauth.interaction import LoginInteraction, SelectOption
from pi.app.oauth.providers import XaiOAuth

_MARGIN_MS = 300_000


class XaiFlow:
    id = "xai"
    name = "xAI (Grok/X subscription)"
    label = "Sign in with SuperGrok or X Premium"
    is_subscription = True
    api_key_login = True
    methods: tuple[SelectOption, ...] = ()

    async def login(self, interaction: LoginInteraction, ctx: OAuthContext, method: str | None) -> dict[str, Any]:
        cfg = ctx.providers.xai
        form = {"client_id": cfg.client_id, "scope": cfg.scope, "referrer": cfg.referrer}
        body = await device_grant(
            what="xAI",
            device_url=cfg.device_url,
            token_url=cfg.token_url,
            form=form,
            interaction=interaction,
            clock=ctx.clock,
            https_only=True,
        )
        return _entry(cfg, body, ctx, None)

    async def refresh(self, credential: dict[str, Any], ctx: OAuthContext) -> dict[str, Any]:
        cfg = ctx.providers.xai
        form = {
            "grant_type": "refresh_token",
            "client_id": cfg.client_id,
            "refresh_token": str(credential.get("refresh")),
        }
        reply = await request("POST", cfg.token_url, form=form)
        return _entry(cfg, expect_ok(reply, "xAI token refresh"), ctx, credential.get("refresh"))


def _entry(cfg: XaiOAuth, body: dict[str, Any], ctx: OAuthContext, old_refresh: Any) -> dict[str, Any]:
    access = require_str(body, "access_token", "xAI token")
    refresh = body.get("refresh_token") or old_refresh or ""
    seconds = expires_in_seconds(body, cfg.default_expires_in)
    return oauth_entry(access, str(refresh), now_ms(ctx.clock) + int(seconds * 1000) - _MARGIN_MS)


__all__ = ["XaiFlow"]
