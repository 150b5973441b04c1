"""Configured headers belong to their model: after a switch, none of the first model's reach the second.

Model A (OpenAI-compatible) and model B (Anthropic) each have models.json headers written as
`$VAR`, `${VAR}` and `!command`. The registry hands out models without those templates; each request,
the loop's and the one-shot summary's alike, carries only its own model's headers, resolved then.
"""

from __future__ import annotations

import json
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
from tests.support.http_server import ScriptedServer
from tests.support.openai_chunks import text_reply
from tests.tui_e2e.anthropic_chunks import anthropic_reply


@pytest.fixture
def server_b() -> Iterator[ScriptedServer]:
    srv = ScriptedServer().start()
    try:
        yield srv
    finally:
        srv.stop()


def _registry(tmp_path: Path, a: ScriptedServer, b: ScriptedServer) -> ModelRegistry:
    providers = {
        "prov-a": {
            "baseUrl": f"{a.url}/v1",
            "api": "openai-completions",
            "apiKey": "key-a",
            "headers": {"X-A": "$PI_HDR_A", "X-A-Unset": "${PI_HDR_NOT_SET}", "X-A-Cmd": "!printf a-cmd"},
            "models": [{"id": "model-a"}],
        },
        "prov-b": {
            "baseUrl": b.url,
            "api": "anthropic-messages",
            "apiKey": "key-b",
            "headers": {"X-B": "${PI_HDR_B}"},
            "models": [{"id": "model-b", "headers": {"X-B-Model": "$PI_HDR_NOT_SET"}}],
        },
    }
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"providers": providers}))
    return ModelRegistry(AuthStorage.in_memory(), path)


def _session(tmp_path: Path, registry: ModelRegistry) -> AgentSession:
    settings = SettingsManager.in_memory({"compaction": {"reserveTokens": 100, "keepRecentTokens": 10}})
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=registry.find("prov-a", "model-a"),
            tools=[],
            settings=settings,
            model_registry=registry,
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
        )
    )


def _assert_only_b(headers: dict[str, str]) -> None:
    assert headers["x-b"] == "b-value"
    assert headers["x-api-key"] == "key-b"
    assert not [name for name in headers if name == "x-a" or name.startswith("x-a-")]
    assert "key-a" not in json.dumps(headers) and "$" not in json.dumps(headers)
    assert "x-b-model" not in headers


def test_the_models_handed_out_carry_no_header_templates(
    tmp_path: Path, server: ScriptedServer, server_b: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_HDR_A", "a-value")
    monkeypatch.delenv("PI_HDR_NOT_SET", raising=False)
    registry = _registry(tmp_path, server, server_b)
    model = registry.find("prov-a", "model-a")
    assert model is not None and not model.headers
    assert registry.request_headers(model, "key-a") == {"X-A": "a-value", "X-A-Cmd": "a-cmd"}
    assert any("PI_HDR_NOT_SET" in error and "not sent" in error for error in registry.errors)


async def test_headers_of_the_first_model_never_reach_the_second(
    tmp_path: Path, server: ScriptedServer, server_b: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_HDR_A", "a-value")
    monkeypatch.setenv("PI_HDR_B", "b-value")
    monkeypatch.delenv("PI_HDR_NOT_SET", raising=False)
    registry = _registry(tmp_path, server, server_b)
    session = _session(tmp_path, registry)
    server.queue(text_reply("from a " + "x" * 200))
    await session.prompt("hello a " + "y" * 200)
    first = server.requests[0].headers
    assert (first["x-a"], first["x-a-cmd"], first["authorization"]) == ("a-value", "a-cmd", "Bearer key-a")
    assert "x-a-unset" not in first and "$" not in json.dumps(first)

    model_b = registry.find("prov-b", "model-b")
    assert model_b is not None
    session.set_model(model_b)
    server_b.queue(anthropic_reply("from b " + "z" * 200), anthropic_reply("summary"), anthropic_reply("prefix"))
    await session.prompt("continue on b " + "w" * 200)
    assert session.last_assistant_text() == "from b " + "z" * 200
    _assert_only_b(server_b.requests[0].headers)

    await session.compact()  # the summary request goes through the one-shot path
    assert len(server_b.requests) > 1
    for request in server_b.requests[1:]:
        _assert_only_b(request.headers)
    assert len(server.requests) == 1
