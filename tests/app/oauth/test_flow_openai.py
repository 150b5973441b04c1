from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import msgspec.structs
import pytest

from pi.app.oauth.callback_server import CallbackServer
from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.flows.device_id import MISSING
from pi.app.oauth.flows.openai import NO_CLIENT, PORT_BUSY, OpenAIFlow
from pi.app.oauth.providers import ProviderTable
from tests.app.oauth.conftest import FakeClock, ScriptedInteraction
from tests.support.http_server import ScriptedServer, json_response

SCOPE = "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct"


def _ctx(stub: ScriptedServer, clock: FakeClock, agent: Path, port: int = 0) -> OAuthContext:
    table = ProviderTable()
    openai = msgspec.structs.replace(table.openai.with_base(stub.url), callback_port=port)
    return OAuthContext(msgspec.structs.replace(table, openai=openai), clock, agent_dir=agent)


def _redirect(extra: str):  # type: ignore[no-untyped-def]
    async def hit(url: str) -> None:
        params = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
        async with httpx.AsyncClient() as client:
            await client.get(f"{params['redirect_uri']}?code=oc&state={params['state']}{extra}")

    return hit


async def test_sign_in_with_chatgpt(tmp_path: Path, stub: ScriptedServer, clock: FakeClock) -> None:
    (tmp_path / "settings.json").write_text(json.dumps({"theme": "dark"}))
    stub.queue(
        json_response(
            200, {"access_token": "oa", "refresh_token": "or", "id_token": "i", "scope": SCOPE, "expires_in": 3600}
        )
    )
    ui = ScriptedInteraction(on_auth_url=_redirect("&client_id=issued-1"))
    entry = await OpenAIFlow().login(ui, _ctx(stub, clock, tmp_path), None)
    settings = json.loads((tmp_path / "settings.json").read_text())
    assert settings["theme"] == "dark"
    params = {k: v[0] for k, v in parse_qs(urlsplit(ui.urls()[0]).query).items()}
    assert params["ext_agent_host_id"] == f"urn:uuid:{settings['deviceId'].lower()}"
    assert (params["client_id"], params["agent_name_hint"]) == ("dynamic_agent_client", "Pi")
    assert params["resource"] == "https://api.openai.com/v1"
    assert len(params["nonce"]) == 43
    form = {k: v[0] for k, v in parse_qs(stub.requests[0].body.decode()).items()}
    assert (form["client_id"], form["resource"], form["code"]) == ("issued-1", "https://api.openai.com/v1", "oc")
    assert entry == {
        "type": "oauth",
        "refresh": "or",
        "access": "oa",
        "expires": int(clock.now() * 1000) + 3600_000 - 180000,
        "clientId": "issued-1",
        "scopes": SCOPE.split(),
    }


async def test_callback_without_an_issued_client_id(tmp_path: Path, stub: ScriptedServer, clock: FakeClock) -> None:
    with pytest.raises(OAuthError, match=f"^{re.escape(NO_CLIENT)}$"):
        await OpenAIFlow().login(ScriptedInteraction(on_auth_url=_redirect("")), _ctx(stub, clock, tmp_path), None)


async def test_invalid_device_id_and_busy_port(tmp_path: Path, stub: ScriptedServer, clock: FakeClock) -> None:
    (tmp_path / "settings.json").write_text(json.dumps({"deviceId": "not-a-uuid"}))
    with pytest.raises(OAuthError, match=f"^{re.escape(MISSING)}$"):
        await OpenAIFlow().login(ScriptedInteraction(), _ctx(stub, clock, tmp_path), None)
    (tmp_path / "settings.json").write_text("{}")
    async with CallbackServer("x", "/auth/callback", None) as busy:
        with pytest.raises(OAuthError) as caught:
            await OpenAIFlow().login(ScriptedInteraction(), _ctx(stub, clock, tmp_path, busy.port), None)
    assert str(caught.value) == PORT_BUSY
