from __future__ import annotations

import base64
import json
import re
from urllib.parse import parse_qs, urlsplit

import msgspec.structs
import pytest

from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.flows.openai_codex import DEVICE, DEVICE_DISABLED, OpenAICodexFlow, account_id
from pi.app.oauth.providers import ProviderTable
from tests.app.oauth.conftest import FakeClock, ScriptedInteraction
from tests.support.http_server import ScriptedServer, json_response


def fake_jwt(payload: dict[str, object]) -> str:
    def part(value: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none'})}.{part(payload)}.sig"


ACCESS = fake_jwt({"https://api.openai.com/auth": {"chatgpt_account_id": "acc"}})


def _ctx(stub: ScriptedServer, clock: FakeClock) -> OAuthContext:
    table = ProviderTable()
    codex = msgspec.structs.replace(table.openai_codex.with_base(stub.url), callback_port=0)
    return OAuthContext(msgspec.structs.replace(table, openai_codex=codex), clock)


def _form(body: bytes) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(body.decode()).items()}


async def test_browser_login_stores_the_account_id_from_the_token(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(json_response(200, {"access_token": ACCESS, "refresh_token": "r", "expires_in": 864000}))
    ui = ScriptedInteraction()

    def paste(url: str) -> None:
        state = parse_qs(urlsplit(url).query)["state"][0]
        ui.pasted = f"http://localhost:1455/auth/callback?code=cx&state={state}"

    ui.on_auth_url = paste
    entry = await OpenAICodexFlow().login(ui, _ctx(stub, clock), None)
    params = {k: v[0] for k, v in parse_qs(urlsplit(ui.urls()[0]).query).items()}
    assert params["redirect_uri"] == "http://localhost:1455/auth/callback"
    assert params["originator"] == "pi"
    assert params["codex_cli_simplified_flow"] == "true"
    assert params["id_token_add_organizations"] == "true"
    assert len(params["state"]) == 32
    form = _form(stub.requests[0].body)
    assert form["grant_type"] == "authorization_code"
    assert form["code"] == "cx"
    assert form["redirect_uri"] == "http://localhost:1455/auth/callback"
    assert entry == {
        "type": "oauth",
        "access": ACCESS,
        "refresh": "r",
        "expires": int(clock.now() * 1000) + 864000 * 1000,
        "accountId": "acc",
    }


async def test_device_login_polls_then_exchanges_with_the_device_redirect(
    stub: ScriptedServer, clock: FakeClock
) -> None:
    stub.queue(
        json_response(200, {"device_auth_id": "da", "user_code": "ABCD-1234", "interval": 3}),
        json_response(403, {"error": {"code": "deviceauth_authorization_pending"}}),
        json_response(200, {"authorization_code": "ac", "code_verifier": "cv"}),
        json_response(200, {"access_token": ACCESS, "refresh_token": "r", "expires_in": 100}),
    )
    ui = ScriptedInteraction()
    entry = await OpenAICodexFlow().login(ui, _ctx(stub, clock), DEVICE)
    assert entry["accountId"] == "acc"
    assert stub.requests[0].json() == {"client_id": "app_EMoamEEZ73f0CkXaXp7hrann"}
    assert stub.requests[1].json() == {"device_auth_id": "da", "user_code": "ABCD-1234"}
    form = _form(stub.requests[3].body)
    assert (form["code"], form["code_verifier"]) == ("ac", "cv")
    assert form["redirect_uri"] == "https://auth.openai.com/deviceauth/callback"
    shown = next(value for kind, value in ui.events if kind == "device_code")
    assert (shown.user_code, shown.verification_uri) == ("ABCD-1234", "https://auth.openai.com/codex/device")
    assert clock.sleeps == [3, 3]


async def test_device_code_not_enabled(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(json_response(404, {}))
    with pytest.raises(OAuthError, match=f"^{re.escape(DEVICE_DISABLED)}$"):
        await OpenAICodexFlow().login(ScriptedInteraction(), _ctx(stub, clock), DEVICE)


def test_a_token_without_the_claim_is_rejected() -> None:
    assert account_id(ACCESS) == "acc"
    with pytest.raises(OAuthError, match=r"^Failed to extract accountId from token$"):
        account_id(fake_jwt({"sub": "x"}))
    with pytest.raises(OAuthError, match=r"^Failed to extract accountId from token$"):
        account_id("not-a-jwt")
