"""Tokens live only in auth.json: not in other files, not in output, not in logs or error text."""

from __future__ import annotations

import io
import json
import logging
import stat
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import msgspec.structs
import pytest

from pi.app.oauth.auth_command import run_auth_command
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.providers import ProviderTable
from tests.app.oauth.conftest import FakeClock, ScriptedInteraction
from tests.support.http_server import ScriptedServer, json_response

ACCESS = "sk-ant-oat01-SECRET-ACCESS-7f3a"
REFRESH = "sk-ant-ort01-SECRET-REFRESH-91c2"


def test_login_and_failed_refresh_leak_no_token(
    tmp_path: Path, stub: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    agent = tmp_path / "agent"
    clock = FakeClock()
    table = ProviderTable()
    anthropic = msgspec.structs.replace(table.anthropic.with_base(stub.url), callback_port=0)
    ctx = OAuthContext(msgspec.structs.replace(table, anthropic=anthropic), clock)

    def redirect(url: str) -> object:
        params = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
        port = urlsplit(params["redirect_uri"]).port

        async def hit() -> None:
            async with httpx.AsyncClient() as client:
                await client.get(f"http://127.0.0.1:{port}/callback?code=c0de&state={params['state']}")

        return hit()

    # expires_in 60 s: already inside the refresh margin, so the check below must refresh.
    stub.queue(json_response(200, {"access_token": ACCESS, "refresh_token": REFRESH, "expires_in": 60}))
    stub.queue(json_response(400, {"error": "invalid_grant", "error_description": "refresh token revoked"}))
    out, err = io.StringIO(), io.StringIO()
    ui = ScriptedInteraction(on_auth_url=redirect)
    assert run_auth_command(["login", "anthropic"], agent, out, err, interaction=ui, context=ctx) == 0
    assert run_auth_command(["check", "--provider", "anthropic", "--json"], agent, out, err, context=ctx) == 2
    assert run_auth_command(["list"], agent, out, err, context=ctx) == 0

    stored = json.loads((agent / "auth.json").read_text())["anthropic"]
    assert (stored["access"], stored["refresh"]) == (ACCESS, REFRESH)
    assert stat.S_IMODE((agent / "auth.json").stat().st_mode) == 0o600
    assert stat.S_IMODE(agent.stat().st_mode) == 0o700

    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != agent / "auth.json"]
    texts = [p.read_text(errors="replace") for p in written]
    texts += [out.getvalue(), err.getvalue(), caplog.text]
    texts += [str(event) for event in ui.events if event[0] != "auth_url"]
    for secret in (ACCESS, REFRESH, ACCESS[-8:], REFRESH[-8:]):
        assert not any(secret in text for text in texts), secret
    assert "Logged in to Anthropic." in out.getvalue()
