"""Radius gateway: browser sign-in (authorize endpoint discovered from the gateway) or device code."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlencode

from pi.app.oauth.callback_server import CallbackServer
from pi.app.oauth.clock import now_ms
from pi.app.oauth.code_input import check_state, wait_for_code
from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext, oauth_entry
from pi.app.oauth.flows.device_grant import device_grant, expires_in_seconds
from pi.app.oauth.http import expect_ok, request, require_str
from pi.app.oauth.interaction import LoginInteraction, SelectOption
from pi.app.oauth.pkce import generate_pkce
from pi.app.oauth.providers import RadiusOAuth

BROWSER = "browser"
DEVICE = "device"
_MARGIN_MS = 60_000


class RadiusFlow:
    id = "radius"
    name = "Radius"
    is_subscription = False
    api_key_login = False
    methods: tuple[SelectOption, ...] = (
        SelectOption(BROWSER, "Sign in with browser (recommended)"),
        SelectOption(DEVICE, "Sign in with device code (when signing in from another device)"),
    )

    async def login(self, interaction: LoginInteraction, ctx: OAuthContext, method: str | None) -> dict[str, Any]:
        cfg = ctx.providers.radius
        gateway = cfg.gateway_url.rstrip("/")
        if method == DEVICE:
            body = await device_grant(
                what="Radius",
                device_url=f"{gateway}/v1/oauth/device",
                token_url=f"{gateway}/v1/oauth/token",
                form={"client_id": cfg.client_id, "scope": cfg.scope},
                interaction=interaction,
                clock=ctx.clock,
            )
            return _entry(body, ctx, None)
        discovery = expect_ok(await request("GET", f"{gateway}/v1/oauth"), "Radius sign-in discovery")
        endpoint = require_str(discovery, "authorizationEndpoint", "Radius sign-in discovery")
        pkce, state = generate_pkce(), str(uuid.uuid4())
        try:
            server = await CallbackServer("Radius", cfg.callback_path, state, cfg.callback_port).start()
        except OSError:
            raise OAuthError(
                f"Port {cfg.callback_port} is in use; finish or cancel the other sign-in and try again"
            ) from None
        redirect = f"http://127.0.0.1:{server.port}{cfg.callback_path}"
        params = {
            "response_type": "code",
            "client_id": cfg.client_id,
            "redirect_uri": redirect,
            "scope": cfg.scope,
            "code_challenge": pkce.challenge,
            "code_challenge_method": pkce.method,
            "handoff": "url",
            "state": state,
        }
        try:
            interaction.auth_url(f"{endpoint}?{urlencode(params)}")
            got = await wait_for_code(server, interaction, state)
        finally:
            await server.close()
        check_state(got.state, state)
        form = {
            "grant_type": "authorization_code",
            "client_id": cfg.client_id,
            "code": got.code,
            "code_verifier": pkce.verifier,
            "redirect_uri": redirect,
        }
        body = expect_ok(await request("POST", f"{gateway}/v1/oauth/token", form=form), "Radius token exchange")
        return _entry(body, ctx, None)

    async def refresh(self, credential: dict[str, Any], ctx: OAuthContext) -> dict[str, Any]:
        cfg: RadiusOAuth = ctx.providers.radius
        form = {
            "grant_type": "refresh_token",
            "client_id": cfg.client_id,
            "refresh_token": str(credential.get("refresh")),
        }
        url = f"{cfg.gateway_url.rstrip('/')}/v1/oauth/token"
        body = expect_ok(await request("POST", url, form=form), "Radius token refresh")
        return _entry(body, ctx, credential.get("refresh"))


def _entry(body: dict[str, Any], ctx: OAuthContext, old_refresh: Any) -> dict[str, Any]:
    access = require_str(body, "access_token", "Radius token")
    refresh = body.get("refresh_token") or old_refresh or ""
    expires = now_ms(ctx.clock) + int(expires_in_seconds(body, 3600) * 1000) - _MARGIN_MS
    scope = body.get("scope")
    return oauth_entry(access, str(refresh), expires, scope=scope if isinstance(scope, str) else "")


__all__ = ["RadiusFlow"]
