"""Anthropic (Claude Pro/Max): PKCE with a loopback callback, or copy-code for headless machines."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from pi.app.oauth.callback_server import CallbackServer
from pi.app.oauth.clock import now_ms
from pi.app.oauth.code_input import check_state, wait_for_code
from pi.app.oauth.flows.base import OAuthContext, oauth_entry
from pi.app.oauth.http import expect_ok, request, require_str
from pi.app.oauth.interaction import LoginInteraction, SelectOption
from pi.app.oauth.pkce import generate_pkce
from pi.app.oauth.providers import AnthropicOAuth

BROWSER = "browser"
COPY_CODE = "copy-code"
_MARGIN_MS = 300_000


class AnthropicFlow:
    id = "anthropic"
    name = "Anthropic (Claude Pro/Max)"
    is_subscription = True
    api_key_login = True
    methods: tuple[SelectOption, ...] = (
        SelectOption(BROWSER, "Browser login (default)"),
        SelectOption(COPY_CODE, "Copy code login (headless)"),
    )

    async def login(self, interaction: LoginInteraction, ctx: OAuthContext, method: str | None) -> dict[str, Any]:
        cfg = ctx.providers.anthropic
        pkce = generate_pkce()
        server: CallbackServer | None = None
        if method != COPY_CODE:
            server = await _start_server(cfg, pkce.verifier)
        try:
            redirect = f"http://localhost:{server.port}{cfg.callback_path}" if server else cfg.manual_redirect_uri
            params = {
                "code": "true",
                "client_id": cfg.client_id,
                "response_type": "code",
                "redirect_uri": redirect,
                "scope": cfg.scope,
                "code_challenge": pkce.challenge,
                "code_challenge_method": pkce.method,
                "state": pkce.verifier,
            }
            hint = None if server else "After signing in, copy the code shown and paste it here (code#state)."
            interaction.auth_url(f"{cfg.authorize_url}?{urlencode(params)}", hint)
            got = await wait_for_code(server, interaction, pkce.verifier)
        finally:
            if server is not None:
                await server.close()
        check_state(got.state, pkce.verifier)
        body = {
            "grant_type": "authorization_code",
            "client_id": cfg.client_id,
            "code": got.code,
            "state": got.state or pkce.verifier,
            "redirect_uri": redirect,
            "code_verifier": pkce.verifier,
        }
        interaction.progress("Exchanging the authorization code...")
        reply = await request("POST", cfg.token_url, json_body=body, timeout=cfg.timeout_seconds)
        return _entry(expect_ok(reply, "Anthropic token exchange"), ctx, None)

    async def refresh(self, credential: dict[str, Any], ctx: OAuthContext) -> dict[str, Any]:
        cfg = ctx.providers.anthropic
        body = {"grant_type": "refresh_token", "client_id": cfg.client_id, "refresh_token": credential.get("refresh")}
        reply = await request("POST", cfg.token_url, json_body=body, timeout=cfg.timeout_seconds)
        return _entry(expect_ok(reply, "Anthropic token refresh"), ctx, credential.get("refresh"))


async def _start_server(cfg: AnthropicOAuth, state: str) -> CallbackServer:
    """The fixed port when free, else any free one (the redirect names whichever is bound)."""
    try:
        return await CallbackServer("Anthropic", cfg.callback_path, state, cfg.callback_port).start()
    except OSError:
        return await CallbackServer("Anthropic", cfg.callback_path, state, 0).start()


def _entry(body: dict[str, Any], ctx: OAuthContext, old_refresh: Any) -> dict[str, Any]:
    access = require_str(body, "access_token", "Anthropic token")
    refresh = body.get("refresh_token") or old_refresh
    if not isinstance(refresh, str) or not refresh:
        refresh = require_str(body, "refresh_token", "Anthropic token")
    expires_in = body.get("expires_in")
    seconds = float(expires_in) if isinstance(expires_in, (int, float)) else 3600.0
    return oauth_entry(access, refresh, now_ms(ctx.clock) + int(seconds * 1000) - _MARGIN_MS)


__all__ = ["AnthropicFlow"]
