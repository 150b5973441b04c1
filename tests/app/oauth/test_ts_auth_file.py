"""auth.json shared with pi 1.6.0: its entries work here unchanged, ours keep its field names.

`fixtures/ts_auth.json` is the file pi 1.6.0 wrote after a Kimi Code device login against a loopback
stub (`fixtures/make_ts_auth.py`). Its `expires` is a real timestamp, so the fresh-token case moves
only that field into the future; the stale case uses the file as it is once it has expired, or with
an expiry in the past.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from tests.support.http_server import ScriptedServer, json_response
from tests.support.openai_chunks import text_reply

FIXTURE = Path(__file__).parent / "fixtures" / "ts_auth.json"
OAUTH_FIELDS = {"type", "access", "refresh", "expires"}


def _ts_entry() -> dict[str, Any]:
    entry: dict[str, Any] = json.loads(FIXTURE.read_text())["kimi-coding"]
    return entry


def _session_for(tmp_path: Path, server: ScriptedServer, auth: dict[str, Any]) -> Any:
    agent = tmp_path / "agent"
    agent.mkdir(mode=0o700)
    (agent / "auth.json").write_text(json.dumps(auth, indent=2))
    os.chmod(agent / "auth.json", 0o600)
    (agent / "models.json").write_text(json.dumps({"providers": {"kimi-coding": {"baseUrl": f"{server.url}/v1"}}}))
    registry = ModelRegistry(AuthStorage(agent / "auth.json"), agent / "models.json")
    model = registry.find("kimi-coding", "kimi-for-coding")
    assert model is not None
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=agent,
            model=model,
            tools=[],
            settings=SettingsManager.in_memory(),
            model_registry=registry,
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
        )
    )


def test_the_fixture_has_pi_16_field_names() -> None:
    assert set(_ts_entry()) == OAUTH_FIELDS and _ts_entry()["type"] == "oauth"


async def test_a_fresh_pi_16_login_is_sent_as_it_is(tmp_path: Path, server: ScriptedServer) -> None:
    entry = {**_ts_entry(), "expires": int(time.time() * 1000) + 3600_000}
    session = _session_for(tmp_path, server, {"kimi-coding": entry})
    server.queue(text_reply("kimi here"))
    await session.prompt("hi")
    assert session.last_assistant_text() == "kimi here"
    assert server.requests[0].headers["authorization"] == f"Bearer {entry['access']}"
    assert json.loads((tmp_path / "agent" / "auth.json").read_text())["kimi-coding"] == entry


async def test_a_stale_pi_16_login_is_refreshed_and_stays_in_its_shape(
    tmp_path: Path, server: ScriptedServer, stub: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KIMI_CODE_OAUTH_HOST", stub.url)
    entry = {**_ts_entry(), "expires": min(_ts_entry()["expires"], int(time.time() * 1000) - 1)}
    session = _session_for(tmp_path, server, {"kimi-coding": entry, "other": {"type": "api_key", "key": "kept"}})
    stub.queue(json_response(200, {"access_token": "kimi-new", "refresh_token": "kimi-r2", "expires_in": 3600}))
    server.queue(text_reply("refreshed"))
    await session.prompt("hi")
    form = stub.requests[0].body.decode()
    assert "grant_type=refresh_token" in form and f"refresh_token={entry['refresh']}" in form
    assert server.requests[0].headers["authorization"] == "Bearer kimi-new"
    written = json.loads((tmp_path / "agent" / "auth.json").read_text())
    assert set(written["kimi-coding"]) == OAUTH_FIELDS
    assert (written["kimi-coding"]["access"], written["kimi-coding"]["refresh"]) == ("kimi-new", "kimi-r2")
    assert written["other"] == {"type": "api_key", "key": "kept"}
