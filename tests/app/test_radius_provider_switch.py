"""Switching between Radius and another provider: each request carries only its own server's credential.

Radius (at a loopback gateway through `PI_RADIUS_GATEWAY`) signs in with an OAuth login stored in
auth.json; the other provider (models.json) has an API key and a header of its own.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from tests.support import pi_messages as pm
from tests.support.http_server import RecordedRequest, ScriptedServer
from tests.support.openai_chunks import text_reply


@pytest.fixture
def other() -> Iterator[ScriptedServer]:
    srv = ScriptedServer().start()
    try:
        yield srv
    finally:
        srv.stop()


def _session(tmp_path: Path, other: ScriptedServer) -> AgentSession:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    login = {
        "type": "oauth",
        "access": "radius-access-7",
        "refresh": "r",
        "expires": int(time.time() * 1000) + 3600_000,
    }
    (agent_dir / "auth.json").write_text(json.dumps({"radius": login}))
    provider = {
        "baseUrl": f"{other.url}/v1",
        "api": "openai-completions",
        "apiKey": "key-other",
        "headers": {"X-Other-Team": "team-secret"},
        "models": [{"id": "other-model"}],
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"other": provider}}))
    registry = ModelRegistry(AuthStorage(agent_dir / "auth.json"), agent_dir / "models.json")
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=agent_dir,
            model=registry.find("radius", "balanced"),
            tools=[],
            settings=SettingsManager.in_memory(),
            model_registry=registry,
            resources=Resources(),
            session_manager=SessionManager.create(str(tmp_path), agent_dir=agent_dir),
        )
    )


def _only_radius(request: RecordedRequest) -> None:
    assert request.path == "/v1/messages"
    assert request.headers["authorization"] == "Bearer radius-access-7"
    assert "x-other-team" not in request.headers and "key-other" not in json.dumps(request.headers)


async def test_radius_then_another_provider_then_radius_again(
    server: ScriptedServer, other: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_RADIUS_GATEWAY", server.url)
    monkeypatch.delenv("RADIUS_API_KEY", raising=False)
    server.queue(pm.text_reply("radius one"), pm.text_reply("radius two"))
    other.queue(text_reply("from the other"))
    session = _session(tmp_path, other)

    await session.prompt("first")
    assert session.last_assistant_text() == "radius one"
    switched = session.model_registry.find("other", "other-model")
    assert switched is not None
    session.set_model(switched)
    await session.prompt("second")
    assert session.last_assistant_text() == "from the other"
    radius = session.model_registry.find("radius", "balanced")
    assert radius is not None
    session.set_model(radius)
    await session.prompt("third")
    assert session.last_assistant_text() == "radius two"

    assert len(server.requests) == 2 and len(other.requests) == 1
    for request in server.requests:
        _only_radius(request)
    (to_other,) = other.requests
    assert to_other.headers["authorization"] == "Bearer key-other"
    assert to_other.headers["x-other-team"] == "team-secret"
    assert "radius-access-7" not in json.dumps(to_other.headers)
    # The conversation moved with the model: the last Radius request carries every turn.
    texts = json.dumps(server.requests[-1].json()["context"]["messages"])
    assert "first" in texts and "from the other" in texts and "third" in texts
