from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import msgspec.structs
import pytest

from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.anthropic import COPY_CODE, AnthropicFlow
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.pkce import challenge_for
from pi.app.oauth.providers import ProviderTable
from tests.app.oauth.conftest import FakeClock, ScriptedInteraction
from tests.support.http_server import ScriptedServer, json_response

TOKEN = {"access_token": "sk-ant-oat-access", "refresh_token": "sk-ant-ort-refresh", "expires_in": 28800}


def _ctx(stub: ScriptedServer, clock: FakeClock) -> OAuthContext:
    table = ProviderTable()
    anthropic = msgspec.structs.replace(table.anthropic.with_base(stub.url), callback_port=0)
    return OAuthContext(msgspec.structs.replace(table, anthropic=anthropic), clock)


def _query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


async def _browser_redirect(url: str) -> None:
    params = _query(url)
    port = urlsplit(params["redirect_uri"]).port
    async with httpx.AsyncClient() as client:
        await client.get(f"http://127.0.0.1:{port}/callback?code=browser-code&state={params['state']}")


async def test_browser_login(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(json_response(200, TOKEN))
    ui = ScriptedInteraction(on_auth_url=_browser_redirect)
    entry = await AnthropicFlow().login(ui, _ctx(stub, clock), None)

    url = ui.urls()[0]
    assert url.startswith(f"{stub.url}/oauth/authorize?")
    params = _query(url)
    assert params["code"] == "true"
    assert params["client_id"] == "9d1c250a-e61b-44d9-88ed-5944d1962f5e"
    assert params["response_type"] == "code"
    assert params["code_challenge_method"] == "S256"
    assert params["code_challenge"] == challenge_for(params["state"])  # state is the PKCE verifier
    assert params["scope"].split(" ")[0] == "org:create_api_key"
    assert params["redirect_uri"].startswith("http://localhost:") and params["redirect_uri"].endswith("/callback")

    request = stub.requests[0]
    assert (request.method, request.path) == ("POST", "/v1/oauth/token")
    assert request.headers["content-type"] == "application/json"
    assert request.json() == {
        "grant_type": "authorization_code",
        "client_id": "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
        "code": "browser-code",
        "state": params["state"],
        "redirect_uri": params["redirect_uri"],
        "code_verifier": params["state"],
    }
    assert entry == {
        "type": "oauth",
        "refresh": "sk-ant-ort-refresh",
        "access": "sk-ant-oat-access",
        "expires": int(clock.now() * 1000) + 28800 * 1000 - 300000,
    }
    assert ui.manual_cancelled


async def test_copy_code_login_uses_the_platform_redirect_and_the_pasted_code(
    stub: ScriptedServer, clock: FakeClock
) -> None:
    stub.queue(json_response(200, TOKEN))
    ui = ScriptedInteraction()

    def paste(url: str) -> None:
        ui.pasted = f"pasted-code#{_query(url)['state']}"

    ui.on_auth_url = paste
    await AnthropicFlow().login(ui, _ctx(stub, clock), COPY_CODE)
    params = _query(ui.urls()[0])
    assert params["redirect_uri"] == "https://platform.claude.com/oauth/code/callback"
    body = stub.requests[0].json()
    assert (body["code"], body["redirect_uri"]) == ("pasted-code", "https://platform.claude.com/oauth/code/callback")


async def test_token_endpoint_failure_is_reported(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(json_response(400, {"error": "invalid_grant", "error_description": "bad code"}))
    ui = ScriptedInteraction(pasted="c")
    with pytest.raises(OAuthError, match=r"Anthropic token exchange failed.*bad code"):
        await AnthropicFlow().login(ui, _ctx(stub, clock), COPY_CODE)
