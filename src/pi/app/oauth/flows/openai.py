"""OpenAI (Sign in with ChatGPT): PKCE against a dynamically issued client; the token is the API key."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlencode

from pi.app.oauth.callback_server import CallbackServer
from pi.app.oauth.clock import now_ms
from pi.app.oauth.code_input import check_state, wait_for_code
from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext, oauth_entry
from pi.app.oauth.flows.device_id import installation_device_id
from pi.app.oauth.http import expect_ok, request, require_str
from pi.app.oauth.interaction import LoginInteraction, SelectOption
from pi.app.oauth.pkce import base64url, generate_pkce
from pi.app.oauth.providers import OpenAIOAuth

PORT_BUSY = (
    "Port 1455 is in use, probably by an unfinished login in another pi session or by the Codex CLI. "
    "Cancel that login and try again."
)
NO_CLIENT = "OpenAI OAuth registration callback did not contain an issued client ID"
_MARGIN_MS = 180_000


class OpenAIFlow:
    id = "openai"
    name = "OpenAI (ChatGPT subscription)"
    label = "Sign in with ChatGPT"
    is_subscription = True
    api_key_login = True
    methods: tuple[SelectOption, ...] = ()

    async def login(self, interaction: LoginInteraction, ctx: OAuthContext, method: str | None) -> dict[str, Any]:
        cfg = ctx.providers.openai
        host_id = installation_device_id(ctx.agent_dir)
        pkce = generate_pkce()
        state = secrets.token_hex(16)
        server = CallbackServer("OpenAI", cfg.callback_path, state, cfg.callback_port)
        try:
            await server.start()
        except OSError:
            raise OAuthError(PORT_BUSY) from None
        redirect = f"http://127.0.0.1:{server.port}{cfg.callback_path}"
        params = {
            "client_id": cfg.client_id,
            "agent_name_hint": cfg.agent_name_hint,
            "ext_agent_host_id": f"urn:uuid:{host_id}",
            "response_type": "code",
            "redirect_uri": redirect,
            "resource": cfg.resource,
            "scope": cfg.scope,
            "state": state,
            "code_challenge": pkce.challenge,
            "code_challenge_method": pkce.method,
            "nonce": base64url(secrets.token_bytes(32)),
        }
        try:
            interaction.auth_url(f"{cfg.authorize_url}?{urlencode(params)}")
            got = await wait_for_code(server, interaction, state)
        finally:
            await server.close()
        check_state(got.state, state)
        client_id = got.params.get("client_id")
        if not client_id:
            raise OAuthError(NO_CLIENT)
        form = {
            "grant_type": "authorization_code",
            "client_id": client_id,
            "code": got.code,
            "code_verifier": pkce.verifier,
            "redirect_uri": redirect,
            "resource": cfg.resource,
        }
        body = expect_ok(await request("POST", cfg.token_url, form=form), "OpenAI token exchange")
        require_str(body, "id_token", "OpenAI token")
        return _entry(cfg, body, ctx, client_id, None)

    async def refresh(self, credential: dict[str, Any], ctx: OAuthContext) -> dict[str, Any]:
        cfg = ctx.providers.openai
        client_id = str(credential.get("clientId") or "")
        form = {
            "grant_type": "refresh_token",
            "client_id": client_id,
            "refresh_token": str(credential.get("refresh")),
            "resource": cfg.resource,
        }
        body = expect_ok(await request("POST", cfg.token_url, form=form), "OpenAI token refresh")
        if not isinstance(body.get("scope"), str) and isinstance(credential.get("scopes"), list):
            body = {**body, "scope": " ".join(str(s) for s in credential["scopes"])}
        return _entry(cfg, body, ctx, client_id, credential.get("refresh"))


def _entry(
    cfg: OpenAIOAuth, body: dict[str, Any], ctx: OAuthContext, client_id: str, old_refresh: Any
) -> dict[str, Any]:
    access = require_str(body, "access_token", "OpenAI token")
    scope = body.get("scope")
    scopes = scope.split() if isinstance(scope, str) else []
    if cfg.required_scope not in scopes:
        raise OAuthError(f'OpenAI token lacks the "{cfg.required_scope}" scope')
    refresh = body.get("refresh_token") or old_refresh or ""
    expires_in = body.get("expires_in")
    seconds = float(expires_in) if isinstance(expires_in, (int, float)) else 3600.0
    expires = now_ms(ctx.clock) + int(seconds * 1000) - _MARGIN_MS
    return oauth_entry(access, str(refresh), expires, clientId=client_id, scopes=scopes)


__all__ = ["OpenAIFlow"]
