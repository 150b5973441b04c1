from __future__ import annotations

from urllib.parse import parse_qs

import msgspec.structs
import pytest

from pi.app.oauth.device_flow import DRIFT_TIMEOUT_MESSAGE
from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.flows.kimi import KimiFlow
from pi.app.oauth.flows.meta import MetaFlow
from pi.app.oauth.flows.xai import XaiFlow
from pi.app.oauth.providers import ProviderTable
from tests.app.oauth.conftest import FakeClock, ScriptedInteraction
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response


def _ctx(stub: ScriptedServer, clock: FakeClock, env: dict[str, str] | None = None) -> OAuthContext:
    t = ProviderTable()
    table = msgspec.structs.replace(t, xai=t.xai.with_base(stub.url), meta=t.meta.with_base(stub.url))
    return OAuthContext(table, clock, env=env if env is not None else {"KIMI_CODE_OAUTH_HOST": stub.url})


def _form(body: bytes) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(body.decode()).items()}


def _device(uri: str = "https://x.test/device") -> ScriptedResponse:
    return json_response(200, {"device_code": "dc", "user_code": "UC", "verification_uri": uri, "expires_in": 600})


async def test_xai_pending_slow_down_then_token(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(
        _device(),
        json_response(400, {"error": "authorization_pending"}),
        json_response(400, {"error": "slow_down"}),
        json_response(200, {"access_token": "xa", "refresh_token": "xr"}),
    )
    entry = await XaiFlow().login(ScriptedInteraction(), _ctx(stub, clock), None)
    assert clock.sleeps == [5, 5, 10]
    assert entry == {
        "type": "oauth",
        "refresh": "xr",
        "access": "xa",
        "expires": int(clock.now() * 1000) + 3600 * 1000 - 300000,
    }
    assert _form(stub.requests[0].body) == {
        "client_id": "b1a00492-073a-47ea-816f-4c329264a828",
        "scope": "openid profile email offline_access grok-cli:access api:access",
        "referrer": "pi",
    }
    assert _form(stub.requests[1].body)["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code"


async def test_xai_only_slow_downs_until_expiry(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(
        json_response(
            200, {"device_code": "d", "user_code": "U", "verification_uri": "https://x.test", "expires_in": 30}
        )
    )
    stub.queue(*[json_response(400, {"error": "slow_down"}) for _ in range(10)])
    with pytest.raises(OAuthError) as caught:
        await XaiFlow().login(ScriptedInteraction(), _ctx(stub, clock), None)
    assert str(caught.value) == DRIFT_TIMEOUT_MESSAGE


async def test_xai_refuses_a_plain_http_verification_url(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(_device("http://x.test/device"))
    with pytest.raises(OAuthError, match="verification URL"):
        await XaiFlow().login(ScriptedInteraction(), _ctx(stub, clock), None)


async def test_xai_refresh_keeps_the_refresh_token_when_omitted(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(json_response(200, {"access_token": "new", "expires_in": 600}))
    entry = await XaiFlow().refresh(
        {"type": "oauth", "access": "a", "refresh": "keep", "expires": 0}, _ctx(stub, clock)
    )
    assert (entry["access"], entry["refresh"]) == ("new", "keep")


async def test_kimi_device_login_on_the_overridden_host(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(
        json_response(
            200, {"device_code": "dc", "user_code": "UC", "verification_uri_complete": "https://k.test/d?c=UC"}
        ),
        json_response(200, {"access_token": "ka", "refresh_token": "kr", "expires_in": 900}),
    )
    ui = ScriptedInteraction()
    entry = await KimiFlow().login(ui, _ctx(stub, clock), None)
    assert [r.path for r in stub.requests] == ["/api/oauth/device_authorization", "/api/oauth/token"]
    assert _form(stub.requests[0].body) == {"client_id": "17e5f671-d194-4dfb-9706-5516cb48c098"}
    assert entry == {"type": "oauth", "refresh": "kr", "access": "ka", "expires": int(clock.now() * 1000) + 900_000}
    assert next(v for k, v in ui.events if k == "device_code").verification_uri == "https://k.test/d?c=UC"


async def test_kimi_refresh_retries_server_errors_then_reports_unauthorized(
    stub: ScriptedServer, clock: FakeClock
) -> None:
    stub.queue(json_response(503, {}), json_response(429, {}), json_response(401, {}))
    with pytest.raises(OAuthError, match=r"^Kimi Code token refresh unauthorized \(status 401\)"):
        await KimiFlow().refresh({"refresh": "r"}, _ctx(stub, clock))
    assert clock.sleeps == [1, 2]
    assert _form(stub.requests[0].body)["grant_type"] == "refresh_token"


async def test_meta_mints_an_api_key_from_the_identity_token(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(
        _device(),
        json_response(200, {"id_token": "identity", "access_token": "ignored"}),
        json_response(200, {"api_key": "meta-key"}),
    )
    entry = await MetaFlow().login(ScriptedInteraction(), _ctx(stub, clock), None)
    assert entry == {
        "type": "oauth",
        "refresh": "identity",
        "access": "meta-key",
        "expires": int(clock.now() * 1000) + 86400000,
    }
    mint = stub.requests[2]
    assert (mint.path, mint.json()) == ("/muse-code/key", {})
    assert mint.headers["authorization"] == "Bearer identity"
    assert mint.headers["x-api-version"] == "1.0.0"


async def test_meta_expired_session(stub: ScriptedServer, clock: FakeClock) -> None:
    stub.queue(json_response(401, {}))
    with pytest.raises(
        OAuthError, match=r"^Meta session expired \(status 401\)\. Run `/login meta` to sign in again\.$"
    ):
        await MetaFlow().refresh({"refresh": "identity"}, _ctx(stub, clock))
