"""`auth: {provider}` servers: the login's token is worked out for each request, not once per connection."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.app.mcp.client import McpConnection
from pi.app.mcp.config import validate_server
from tests.app.oauth.radius_gateway import RadiusGateway


@pytest.fixture
def gateway(monkeypatch: pytest.MonkeyPatch) -> Iterator[RadiusGateway]:
    gw = RadiusGateway().start()
    monkeypatch.setenv("PI_RADIUS_GATEWAY", gw.url)
    monkeypatch.delenv("RADIUS_API_KEY", raising=False)
    try:
        yield gw
    finally:
        gw.stop()


def _login(agent: Path, access: str, refresh: str, expires: int) -> None:
    entry = {"type": "oauth", "access": access, "refresh": refresh, "expires": expires}
    (agent / "auth.json").write_text(json.dumps({"radius": entry}))


def _connection(gateway: RadiusGateway, agent: Path) -> McpConnection:
    config = validate_server(
        "radius", {"url": f"{gateway.url}/mcp", "auth": {"provider": "radius"}}, scope="global", source="test"
    )
    return McpConnection(config, cwd=agent, agent_dir=agent)


async def test_a_login_changed_by_another_process_applies_to_the_next_call(
    tmp_path: Path, gateway: RadiusGateway
) -> None:
    first = gateway.issue()["access_token"]
    _login(tmp_path, first, "r1", expires=4_000_000_000_000)
    connection = _connection(gateway, tmp_path)
    try:
        assert await connection.connect() == "connected", connection.error
        second = gateway.issue()["access_token"]
        gateway.revoke(first)
        _login(tmp_path, second, "r2", expires=4_000_000_000_000)  # e.g. a refresh done by another pi
        result = await connection.call_tool("whoami", {})
        assert result.content[0].text == "signed in to Radius"
    finally:
        await connection.close()
    calls = gateway.mcp_requests()
    assert calls[0].authorization == f"Bearer {first}"
    assert calls[-1].rpc_method() == "tools/call" and calls[-1].authorization == f"Bearer {second}"


async def test_an_api_key_in_the_environment_is_sent_when_nothing_is_stored(
    tmp_path: Path, gateway: RadiusGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = gateway.issue()["access_token"]
    monkeypatch.setenv("RADIUS_API_KEY", key)
    connection = _connection(gateway, tmp_path)
    try:
        assert await connection.connect() == "connected", connection.error
    finally:
        await connection.close()
    assert {c.authorization for c in gateway.mcp_requests()} == {f"Bearer {key}"}


async def test_a_login_whose_refresh_fails_needs_sign_in_and_sends_no_token(tmp_path: Path) -> None:
    from tests.support.http_server import ScriptedServer, json_response

    refuser = ScriptedServer().start()
    gateway = RadiusGateway().start()
    try:
        refuser.queue(json_response(400, {"error": "invalid_grant"}))
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("PI_RADIUS_GATEWAY", refuser.url)
            _login(tmp_path, "radius-access-old", "radius-refresh-old", expires=1000)
            connection = _connection(gateway, tmp_path)
            assert await connection.connect() == "needs-auth"
        assert connection.error == 'MCP server "radius" requires sign-in. Run /login radius to sign in.'
        assert [r.path for r in refuser.requests] == ["/v1/oauth/token"]
        assert [c.authorization for c in gateway.mcp_requests()] == [None]
    finally:
        gateway.stop()
        refuser.stop()
