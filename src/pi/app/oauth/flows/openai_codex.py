"""OpenAI Codex (ChatGPT Plus/Pro): PKCE with a callback on port 1455, or a device code."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlencode

from pi.app.oauth.callback_server import CallbackServer
from pi.app.oauth.clock import now_ms
from pi.app.oauth.code_input import check_state, wait_for_code
from pi.app.oauth.device_flow import Approved, Pending, PollOutcome, SlowDown, poll_device, start_interval
from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext, oauth_entry
from pi.app.oauth.flows.jwt import jwt_payload
from pi.app.oauth.http import expect_ok, request, require_str
from pi.app.oauth.interaction import DeviceCode, LoginInteraction, SelectOption
from pi.app.oauth.pkce import generate_pkce
from pi.app.oauth.providers import OpenAICodexOAuth

BROWSER = "browser"
DEVICE = "device"
DEVICE_DISABLED = (
    "OpenAI Codex device code login is not enabled for this server. Use browser login or verify the server URL."
)


def account_id(access_token: str, claim: str = "https://api.openai.com/auth") -> str:
    """The ChatGPT account id inside the access token; requests to the Codex backend must name it."""
    payload = jwt_payload(access_token) or {}
    auth = payload.get(claim)
    value = auth.get("chatgpt_account_id") if isinstance(auth, dict) else None
    if not isinstance(value, str) or not value:
        raise OAuthError("Failed to extract accountId from token")
    return value


class OpenAICodexFlow:
    id = "openai-codex"
    name = "OpenAI (ChatGPT Plus/Pro)"
    is_subscription = True
    api_key_login = False
    methods: tuple[SelectOption, ...] = (
        SelectOption(BROWSER, "Browser login (default)"),
        SelectOption(DEVICE, "Device code login (headless)"),
    )

    async def login(self, interaction: LoginInteraction, ctx: OAuthContext, method: str | None) -> dict[str, Any]:
        cfg = ctx.providers.openai_codex
        if method == DEVICE:
            code, verifier = await _device_code(cfg, interaction, ctx)
            return await _exchange(cfg, ctx, code, verifier, cfg.device_redirect_uri)
        pkce = generate_pkce()
        state = secrets.token_hex(16)
        params = {
            "response_type": "code",
            "client_id": cfg.client_id,
            "redirect_uri": cfg.redirect_uri,
            "scope": cfg.scope,
            "code_challenge": pkce.challenge,
            "code_challenge_method": pkce.method,
            "state": state,
            "id_token_add_organizations": "true",
            "codex_cli_simplified_flow": "true",
            "originator": cfg.originator,
        }
        server: CallbackServer | None = CallbackServer("OpenAI", cfg.callback_path, state, cfg.callback_port)
        try:
            assert server is not None
            await server.start()
        except OSError:
            server = None  # port 1455 busy: the user pastes the redirect URL instead
        try:
            interaction.auth_url(f"{cfg.authorize_url}?{urlencode(params)}")
            got = await wait_for_code(server, interaction, state)
        finally:
            if server is not None:
                await server.close()
        check_state(got.state, state)
        return await _exchange(cfg, ctx, got.code, pkce.verifier, cfg.redirect_uri)

    async def refresh(self, credential: dict[str, Any], ctx: OAuthContext) -> dict[str, Any]:
        cfg = ctx.providers.openai_codex
        form = {
            "grant_type": "refresh_token",
            "refresh_token": str(credential.get("refresh")),
            "client_id": cfg.client_id,
        }
        reply = await request("POST", cfg.token_url, form=form)
        return _entry(cfg, expect_ok(reply, "OpenAI token refresh"), ctx, credential.get("refresh"))


async def _exchange(
    cfg: OpenAICodexOAuth, ctx: OAuthContext, code: str, verifier: str, redirect_uri: str
) -> dict[str, Any]:
    form = {
        "grant_type": "authorization_code",
        "client_id": cfg.client_id,
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": redirect_uri,
    }
    reply = await request("POST", cfg.token_url, form=form)
    return _entry(cfg, expect_ok(reply, "OpenAI token exchange"), ctx, None)


def _entry(cfg: OpenAICodexOAuth, body: dict[str, Any], ctx: OAuthContext, old_refresh: Any) -> dict[str, Any]:
    access = require_str(body, "access_token", "OpenAI token")
    refresh = body.get("refresh_token") or old_refresh
    if not isinstance(refresh, str) or not refresh:
        refresh = require_str(body, "refresh_token", "OpenAI token")
    expires_in = body.get("expires_in")
    seconds = float(expires_in) if isinstance(expires_in, (int, float)) else 3600.0
    expires = now_ms(ctx.clock) + int(seconds * 1000)
    return oauth_entry(access, refresh, expires, accountId=account_id(access, cfg.jwt_claim))


async def _device_code(cfg: OpenAICodexOAuth, interaction: LoginInteraction, ctx: OAuthContext) -> tuple[str, str]:
    reply = await request("POST", cfg.device_usercode_url, json_body={"client_id": cfg.client_id})
    if reply.status == 404:
        raise OAuthError(DEVICE_DISABLED)
    body = expect_ok(reply, "OpenAI device code request")
    device_auth_id = require_str(body, "device_auth_id", "OpenAI device code")
    user_code = require_str(body, "user_code", "OpenAI device code")
    interval = start_interval(body.get("interval"))
    interaction.device_code(DeviceCode(user_code, cfg.device_verification_uri, interval, cfg.device_timeout_seconds))

    async def poll() -> PollOutcome:
        r = await request(
            "POST", cfg.device_token_url, json_body={"device_auth_id": device_auth_id, "user_code": user_code}
        )
        error = r.body.get("error")
        code = error.get("code") if isinstance(error, dict) else error
        if r.status in (403, 404) or code == "deviceauth_authorization_pending":
            return Pending()
        if code == "slow_down":
            return SlowDown()
        if r.ok and r.body.get("authorization_code"):
            return Approved(r.body)
        raise OAuthError(f"OpenAI device authorization failed ({r.error_text()})")

    done = await poll_device(poll, interval=interval, expires_in=cfg.device_timeout_seconds, clock=ctx.clock)
    return require_str(done, "authorization_code", "OpenAI device token"), require_str(
        done, "code_verifier", "OpenAI device token"
    )


__all__ = ["OpenAICodexFlow", "account_id"]
