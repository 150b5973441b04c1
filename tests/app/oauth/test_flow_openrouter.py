from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import msgspec.structs
import pytest

from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.flows.openrouter import OpenRouterFlow
from pi.app.oauth.pkce import challenge_for
from pi.app.oauth.providers import ProviderTable
from tests.app.oauth.conftest import FakeClock, ScriptedInteraction
from tests.support.http_server import ScriptedServer, json_response


def _ctx(stub: ScriptedServer, clock: FakeClock) -> OAuthContext:
    table = ProviderTable()
    return OAuthContext(msgspec.structs.replace(table, openrouter=table.openrouter.with_base(stub.url)), clock)


async def _redirect(url: str) -> None:
    callback = parse_qs(urlsplit(url).query)["callback_url"][0]
    async with httpx.AsyncClient() as client:
        await client.get(f"{callback}?code=or-code")


async def test_minted_key_is_stored_as_a_never_expiring_login(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(json_response(200, {"key": "k"}))
    ui = ScriptedInteraction(on_auth_url=_redirect)
    entry = await OpenRouterFlow().login(ui, _ctx(stub, clock), None)
    assert entry == {"type": "oauth", "access": "k", "refresh": "", "expires": 9007199254740991}
    params = {k: v[0] for k, v in parse_qs(urlsplit(ui.urls()[0]).query).items()}
    assert urlsplit(params["callback_url"]).path.startswith("/oauth/callback/")
    assert params["code_challenge_method"] == "S256"
    body = stub.requests[0].json()
    assert (stub.requests[0].path, body["code"], body["code_challenge_method"]) == (
        "/api/v1/auth/keys",
        "or-code",
        "S256",
    )
    assert challenge_for(body["code_verifier"]) == params["code_challenge"]
    assert await OpenRouterFlow().refresh(entry, _ctx(stub, clock)) == entry


async def test_a_reply_without_key_is_an_error(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(json_response(200, {}))
    with pytest.raises(OAuthError, match=r'^OpenRouter OAuth response carries no "key"$'):
        await OpenRouterFlow().login(ScriptedInteraction(on_auth_url=_redirect), _ctx(stub, clock), None)
