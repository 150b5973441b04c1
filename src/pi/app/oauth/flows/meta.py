"""Meta (Muse): a device-code identity token, exchanged for an API key that lasts a day."""

from __future__ import annotations

from typing import Any

from pi.app.oauth.clock import now_ms
from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext, oauth_entry
from pi.app.oauth.flows.device_grant import device_grant
from pi.app.oauth.http import expect_ok, request, require_str
from pi.app.oauth.interaction import LoginInteraction, SelectOption


class MetaFlow:
    id = "meta"
    name = "Meta (Muse subscription)"
    label = "Sign in with Meta"
    is_subscription = True
    api_key_login = True
    methods: tuple[SelectOption, ...] = ()

    async def login(self, interaction: LoginInteraction, ctx: OAuthContext, method: str | None) -> dict[str, Any]:
        cfg = ctx.providers.meta
        body = await device_grant(
            what="Meta",
            device_url=cfg.device_url,
            token_url=cfg.token_url,
            form={"client_id": cfg.client_id},
            interaction=interaction,
            clock=ctx.clock,
        )
        identity = body.get("id_token") or body.get("access_token")
        if not isinstance(identity, str) or not identity:
            raise OAuthError('Meta token response carries no "id_token"')
        return await _mint(identity, ctx)

    async def refresh(self, credential: dict[str, Any], ctx: OAuthContext) -> dict[str, Any]:
        return await _mint(str(credential.get("refresh")), ctx)


async def _mint(identity: str, ctx: OAuthContext) -> dict[str, Any]:
    cfg = ctx.providers.meta
    headers = {"Authorization": f"Bearer {identity}", "x-api-version": cfg.api_version}
    reply = await request("POST", cfg.key_url, json_body={}, headers=headers)
    if reply.status in (401, 403):
        raise OAuthError(f"Meta session expired (status {reply.status}). Run `/login meta` to sign in again.")
    key = require_str(expect_ok(reply, "Meta API key request"), "api_key", "Meta API key")
    return oauth_entry(key, identity, now_ms(ctx.clock) + cfg.key_lifetime_ms)


__all__ = ["MetaFlow"]
