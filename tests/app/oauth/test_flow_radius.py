from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import msgspec.structs

from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.flows.radius import DEVICE, RadiusFlow
from pi.app.oauth.providers import ProviderTable
from tests.app.oauth.conftest import FakeClock, ScriptedInteraction
from tests.support.http_server import ScriptedServer, json_response


def _ctx(stub: ScriptedServer, clock: FakeClock) -> OAuthContext:
    table = ProviderTable()
    radius = msgspec.structs.replace(table.radius.with_base(stub.url), callback_port=0)
    return OAuthContext(msgspec.structs.replace(table, radius=radius), clock)


async def _redirect(url: str) -> None:
    params = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    async with httpx.AsyncClient() as client:
        await client.get(f"{params['redirect_uri']}?code=rc&state={params['state']}")


async def test_browser_login_discovers_the_authorize_endpoint(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(
        json_response(200, {"authorizationEndpoint": "https://idp.test/authorize"}),
        json_response(200, {"access_token": "ra", "refresh_token": "rr", "expires_in": 600, "scope": "gateway"}),
    )
    ui = ScriptedInteraction(on_auth_url=_redirect)
    entry = await RadiusFlow().login(ui, _ctx(stub, clock), None)
    assert ui.urls()[0].startswith("https://idp.test/authorize?")
    params = {k: v[0] for k, v in parse_qs(urlsplit(ui.urls()[0]).query).items()}
    assert (params["client_id"], params["handoff"], params["scope"]) == ("pi-gateway", "url", "gateway offline_access")
    assert [r.path for r in stub.requests] == ["/v1/oauth", "/v1/oauth/token"]
    assert entry == {
        "type": "oauth",
        "refresh": "rr",
        "access": "ra",
        "expires": int(clock.now() * 1000) + 600_000 - 60000,
        "scope": "gateway",
    }


async def test_device_login(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(
        json_response(200, {"device_code": "d", "user_code": "U", "verification_uri": "https://r.test/device"}),
        json_response(200, {"access_token": "ra", "refresh_token": "rr", "expires_in": 600}),
    )
    entry = await RadiusFlow().login(ScriptedInteraction(), _ctx(stub, clock), DEVICE)
    assert stub.requests[0].path == "/v1/oauth/device"
    assert parse_qs(stub.requests[0].body.decode()) == {
        "client_id": ["pi-gateway"],
        "scope": ["gateway offline_access"],
    }
    assert entry["access"] == "ra"
