"""OpenRouter: PKCE sign-in that mints a permanent API key (stored as a never-expiring OAuth entry)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any
from urllib.parse import urlencode

from pi.app.oauth.callback_server import CallbackServer
from pi.app.oauth.code_input import wait_for_code
from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext, oauth_entry
from pi.app.oauth.http import expect_ok, request
from pi.app.oauth.interaction import LoginInteraction, SelectOption
from pi.app.oauth.pkce import generate_pkce
from pi.app.oauth.providers import MAX_SAFE_INTEGER


class OpenRouterFlow:
    id = "openrouter"
    name = "OpenRouter OAuth"
    label = "Sign in with OpenRouter"
    is_subscription = False
    api_key_login = True
    methods: tuple[SelectOption, ...] = ()

    async def login(self, interaction: LoginInteraction, ctx: OAuthContext, method: str | None) -> dict[str, Any]:
        cfg = ctx.providers.openrouter
        pkce = generate_pkce()
        path = f"/oauth/callback/{uuid.uuid4()}"
        # No state parameter: the unguessable path is what ties the redirect to this sign-in.
        async with CallbackServer("OpenRouter", path, None, 0) as server:
            redirect = f"http://{cfg.callback_host}:{server.port}{path}"
            query = urlencode(
                {"callback_url": redirect, "code_challenge": pkce.challenge, "code_challenge_method": pkce.method}
            )
            interaction.auth_url(f"{cfg.authorize_url}?{query}")
            try:
                got = await asyncio.wait_for(wait_for_code(server, interaction, None), cfg.callback_timeout_seconds)
            except TimeoutError:
                raise OAuthError("OpenRouter sign-in timed out") from None
        body = {"code": got.code, "code_verifier": pkce.verifier, "code_challenge_method": "S256"}
        reply = await request("POST", cfg.keys_url, json_body=body, timeout=cfg.timeout_seconds)
        key = expect_ok(reply, "OpenRouter key exchange").get("key")
        if not isinstance(key, str) or not key:
            raise OAuthError('OpenRouter OAuth response carries no "key"')
        return oauth_entry(key, "", MAX_SAFE_INTEGER)

    async def refresh(self, credential: dict[str, Any], ctx: OAuthContext) -> dict[str, Any]:
        """The minted key does not expire; it is returned as it is."""
        return dict(credential)


__all__ = ["OpenRouterFlow"]
