from __future__ import annotations

import asyncio
import json
from pathlib import Path

import msgspec.structs
import pytest

from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.anthropic import AnthropicFlow
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.providers import ProviderTable
from pi.app.oauth.refresh import fresh_credential, needs_refresh
from pi.app.oauth.store import OAuthStore
from tests.app.oauth.conftest import FakeClock
from tests.support.http_server import ScriptedServer, json_response


def _ctx(stub: ScriptedServer, clock: FakeClock) -> OAuthContext:
    table = ProviderTable()
    return OAuthContext(msgspec.structs.replace(table, anthropic=table.anthropic.with_base(stub.url)), clock)


def _store(tmp_path: Path, clock: FakeClock, minutes_left: float) -> OAuthStore:
    store = OAuthStore(tmp_path / "auth.json")
    expires = int(clock.now() * 1000 + minutes_left * 60_000)
    store.set("anthropic", {"type": "oauth", "access": "old-access", "refresh": "old-refresh", "expires": expires})
    return store


async def test_two_concurrent_requests_near_expiry_refresh_once(
    tmp_path: Path, stub: ScriptedServer, clock: FakeClock
) -> None:
    store = _store(tmp_path, clock, minutes_left=4)
    stub.queue(json_response(200, {"access_token": "new-access", "refresh_token": "new-refresh", "expires_in": 3600}))
    ctx = _ctx(stub, clock)
    first, second = await asyncio.gather(
        fresh_credential(store, AnthropicFlow(), ctx), fresh_credential(store, AnthropicFlow(), ctx)
    )
    assert first["access"] == second["access"] == "new-access"
    assert len(stub.requests) == 1
    assert stub.requests[0].json() == {
        "grant_type": "refresh_token",
        "client_id": "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
        "refresh_token": "old-refresh",
    }
    stored = json.loads(store.path.read_text())["anthropic"]
    assert (stored["access"], stored["refresh"]) == ("new-access", "new-refresh")
    assert stored["expires"] == int(clock.now() * 1000) + 3600_000 - 300_000


async def test_a_token_with_more_than_five_minutes_left_is_used_as_is(
    tmp_path: Path, stub: ScriptedServer, clock: FakeClock
) -> None:
    store = _store(tmp_path, clock, minutes_left=6)
    entry = await fresh_credential(store, AnthropicFlow(), _ctx(stub, clock))
    assert entry["access"] == "old-access"
    assert stub.requests == []


async def test_a_refused_refresh_names_the_provider_and_keeps_the_old_entry(
    tmp_path: Path, stub: ScriptedServer, clock: FakeClock
) -> None:
    store = _store(tmp_path, clock, minutes_left=1)
    stub.queue(json_response(400, {"error": "invalid_grant"}))
    with pytest.raises(OAuthError, match=r"^OAuth refresh failed for anthropic$"):
        await fresh_credential(store, AnthropicFlow(), _ctx(stub, clock))
    assert json.loads(store.path.read_text())["anthropic"]["access"] == "old-access"


def test_needs_refresh_boundary() -> None:
    assert needs_refresh({"expires": 1_300_000}, 1_000_000)
    assert not needs_refresh({"expires": 1_300_001}, 1_000_000)
    assert not needs_refresh({"expires": None}, 0)
