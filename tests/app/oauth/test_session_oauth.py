"""Sessions take an OAuth login from auth.json per request: refreshed under the lock, in each provider's shape.

The model servers and the token endpoints are loopback stubs; `PI_OAUTH_ENDPOINTS` sends the
refresh calls to them, as it would for a pi process.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from tests.app.oauth.wire import anthropic_reply, codex_jwt, codex_reply
from tests.support.http_server import ScriptedServer, json_response
from tests.support.openai_chunks import text_reply

NOW_MS = int(time.time() * 1000)


@pytest.fixture(autouse=True)
def _no_env_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.endswith(("_API_KEY", "_OAUTH_TOKEN", "_AUTH_TOKEN")) or name == "COPILOT_GITHUB_TOKEN":
            monkeypatch.delenv(name)


def _agent_dir(tmp_path: Path, model_server: ScriptedServer, auth: dict[str, Any]) -> Path:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir(mode=0o700)
    providers = {
        "anthropic": {"baseUrl": model_server.url},
        "openai-codex": {"baseUrl": f"{model_server.url}/backend-api"},
        "github-copilot": {"baseUrl": model_server.url},
        "fake": {
            "baseUrl": f"{model_server.url}/v1",
            "api": "openai-completions",
            "apiKey": "fake-key",
            "models": [{"id": "fake-model"}],
        },
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
    (agent_dir / "auth.json").write_text(json.dumps(auth))
    os.chmod(agent_dir / "auth.json", 0o600)
    return agent_dir


def _session(
    tmp_path: Path, agent_dir: Path, provider: str, model_id: str, settings: dict[str, Any] | None = None
) -> AgentSession:
    registry = ModelRegistry(AuthStorage(agent_dir / "auth.json"), agent_dir / "models.json")
    model = registry.find(provider, model_id)
    assert model is not None, (provider, model_id)
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=agent_dir,
            model=model,
            tools=[],
            settings=SettingsManager.in_memory(settings or {}),
            model_registry=registry,
            resources=Resources(),
            session_manager=SessionManager.create(str(tmp_path), agent_dir=agent_dir),
        )
    )


def _anthropic_model(registry_dir: Path) -> str:
    registry = ModelRegistry(AuthStorage.in_memory(), registry_dir / "models.json")
    return next(m.id for m in registry.all_models() if m.provider == "anthropic")


async def test_anthropic_login_is_refreshed_once_and_sent_in_claude_code_shape(
    tmp_path: Path, server: ScriptedServer, stub: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Check 53: two concurrent requests with 4 minutes left refresh once and both use the new token."""
    monkeypatch.setenv("PI_OAUTH_ENDPOINTS", json.dumps({"anthropic": stub.url}))
    stale = {"type": "oauth", "access": "sk-ant-oat01-old", "refresh": "r0", "expires": NOW_MS + 4 * 60_000}
    agent_dir = _agent_dir(tmp_path, server, {"anthropic": stale})
    stub.queue(json_response(200, {"access_token": "sk-ant-oat01-new", "refresh_token": "r1", "expires_in": 3600}))
    server.queue(anthropic_reply("one"), anthropic_reply("two"))
    model_id = _anthropic_model(agent_dir)
    first = _session(tmp_path, agent_dir, "anthropic", model_id)
    second = _session(tmp_path, agent_dir, "anthropic", model_id)
    await asyncio.gather(first.prompt("hello"), second.prompt("hello"))
    assert len(stub.requests) == 1
    assert stub.requests[0].json() == {
        "grant_type": "refresh_token",
        "client_id": "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
        "refresh_token": "r0",
    }
    assert {first.last_assistant_text(), second.last_assistant_text()} == {"one", "two"}
    for request in server.requests:
        headers = request.headers
        assert headers["authorization"] == "Bearer sk-ant-oat01-new"
        assert "x-api-key" not in headers
        assert {"claude-code-20250219", "oauth-2025-04-20"} <= set(headers["anthropic-beta"].split(","))
        assert (headers["user-agent"], headers["x-app"]) == ("claude-cli/2.1.322", "cli")
        assert headers["anthropic-dangerous-direct-browser-access"] == "true"
        system = request.json()["system"]
        assert system[0]["text"] == "You are Claude Code, Anthropic's official CLI for Claude."
    stored = json.loads((agent_dir / "auth.json").read_text())["anthropic"]
    assert (stored["access"], stored["refresh"], stored["type"]) == ("sk-ant-oat01-new", "r1", "oauth")
    assert stored["expires"] >= NOW_MS + 3600_000 - 300_000 - 60_000
    assert stat.S_IMODE(os.stat(agent_dir / "auth.json").st_mode) == 0o600


async def test_failed_refresh_is_an_error_and_no_environment_key_is_used(
    tmp_path: Path, server: ScriptedServer, stub: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Check 53 (second half): refresh HTTP 400 -> `OAuth refresh failed for anthropic`."""
    monkeypatch.setenv("PI_OAUTH_ENDPOINTS", json.dumps({"anthropic": stub.url}))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key-must-not-be-used")
    expired = {"type": "oauth", "access": "sk-ant-oat01-old", "refresh": "r0", "expires": NOW_MS - 1000}
    agent_dir = _agent_dir(tmp_path, server, {"anthropic": expired})
    stub.queue(json_response(400, {"error": "invalid_grant", "error_description": "refresh token revoked"}))
    session = _session(tmp_path, agent_dir, "anthropic", _anthropic_model(agent_dir))
    await session.prompt("hello")
    reply = session.agent.state.messages[-1]
    assert getattr(reply, "stop_reason", None) == "error"
    assert "OAuth refresh failed for anthropic" in str(getattr(reply, "error_message", ""))
    assert server.requests == []
    assert json.loads((agent_dir / "auth.json").read_text())["anthropic"] == expired


async def test_codex_requests_carry_the_account_and_go_to_codex_responses(
    tmp_path: Path, server: ScriptedServer
) -> None:
    """Check 50 (request half): `chatgpt-account-id`, `originator: pi`, `OpenAI-Beta: responses=experimental`."""
    token = codex_jwt("acc")
    entry = {"type": "oauth", "access": token, "refresh": "r", "expires": NOW_MS + 3600_000, "accountId": "acc"}
    agent_dir = _agent_dir(tmp_path, server, {"openai-codex": entry})
    server.queue(codex_reply("codex says hi"))
    session = _session(tmp_path, agent_dir, "openai-codex", "gpt-6.2-sol")
    await session.prompt("hello")
    assert session.last_assistant_text() == "codex says hi"
    request = server.requests[0]
    assert request.path == "/backend-api/codex/responses"
    headers = request.headers
    assert headers["authorization"] == f"Bearer {token}"
    assert headers["chatgpt-account-id"] == "acc"
    assert headers["originator"] == "pi"
    assert headers["openai-beta"] == "responses=experimental"
    assert headers["accept"] == "text/event-stream"
    session_id = session.session.get_session_id()
    assert headers["session-id"] == headers["x-client-request-id"] == session_id
    body = request.json()
    assert (body["store"], body["stream"], body["prompt_cache_key"]) == (False, True, session_id)
    assert body["include"] == ["reasoning.encrypted_content"]


async def test_switching_away_from_an_oauth_model_sends_none_of_its_credentials(
    tmp_path: Path, server: ScriptedServer
) -> None:
    token = codex_jwt("acc")
    entry = {"type": "oauth", "access": token, "refresh": "r", "expires": NOW_MS + 3600_000, "accountId": "acc"}
    agent_dir = _agent_dir(tmp_path, server, {"openai-codex": entry})
    server.queue(codex_reply("from codex"), text_reply("from fake"), codex_reply("codex again"))
    session = _session(tmp_path, agent_dir, "openai-codex", "gpt-6.2-sol")
    await session.prompt("one")
    fake = session.model_registry.find("fake", "fake-model")
    codex = session.model
    assert fake is not None and codex is not None
    session.set_model(fake)
    await session.prompt("two")
    other = server.requests[1]
    assert other.headers["authorization"] == "Bearer fake-key"
    assert "chatgpt-account-id" not in other.headers and token not in json.dumps(other.headers)
    session.set_model(codex)
    await session.prompt("three")
    assert server.requests[2].headers["authorization"] == f"Bearer {token}"


async def test_copilot_login_uses_the_copilot_token_and_its_headers(
    tmp_path: Path, server: ScriptedServer, stub: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An expired Copilot token is re-exchanged with the GitHub token; requests carry Copilot's headers."""
    monkeypatch.setenv("PI_OAUTH_ENDPOINTS", json.dumps({"github_copilot": stub.url}))
    entry = {
        "type": "oauth",
        "refresh": "ghu_github",
        "access": "tid=1;exp=1;sku=x",
        "expires": NOW_MS - 1,
        "availableModelIds": ["gpt-6.1-sol"],
    }
    agent_dir = _agent_dir(tmp_path, server, {"github-copilot": entry})
    expires_at = int(time.time()) + 1800
    stub.queue(
        json_response(200, {"token": "tid=2;exp=2;sku=x", "expires_at": expires_at}),
        json_response(
            200, {"data": [{"id": "gpt-6.1-sol", "model_picker_enabled": True, "policy": {"state": "enabled"}}]}
        ),
    )
    session = _session(tmp_path, agent_dir, "github-copilot", "gpt-6.1-sol")
    assert [m.id for m in session.model_registry.all_models() if m.provider == "github-copilot"] == ["gpt-6.1-sol"]
    server.queue(codex_reply("copilot reply"))
    await session.prompt("hi")
    assert session.last_assistant_text() == "copilot reply"
    exchange = stub.requests[0]
    assert exchange.path == "/copilot_internal/v2/token"
    assert exchange.headers["authorization"] == "Bearer ghu_github"
    assert exchange.headers["editor-version"] == "vscode/1.107.0"
    request = server.requests[0]
    assert request.path == "/responses"
    assert request.headers["authorization"] == "Bearer tid=2;exp=2;sku=x"
    assert request.headers["x-initiator"] == "user"
    assert request.headers["openai-intent"] == "conversation-edits"
    assert request.headers["copilot-integration-id"] == "vscode-chat"
    stored = json.loads((agent_dir / "auth.json").read_text())["github-copilot"]
    assert stored["expires"] == expires_at * 1000 - 300_000 and stored["refresh"] == "ghu_github"


async def test_a_login_saved_by_another_process_is_used_by_the_next_request(
    tmp_path: Path, server: ScriptedServer
) -> None:
    from pi.app.oauth.store import OAuthStore

    agent_dir = _agent_dir(tmp_path, server, {})
    server.queue(text_reply("from fake"), codex_reply("from codex"))
    session = _session(tmp_path, agent_dir, "fake", "fake-model")
    await session.prompt("one")
    token = codex_jwt("acc-other")
    entry = {"type": "oauth", "access": token, "refresh": "r", "expires": NOW_MS + 3600_000, "accountId": "acc-other"}
    OAuthStore(agent_dir / "auth.json").set("openai-codex", entry)  # as `pi auth login` elsewhere would
    codex = session.model_registry.find("openai-codex", "gpt-6.2-sol")
    assert codex is not None
    session.set_model(codex)
    await session.prompt("two")
    assert session.last_assistant_text() == "from codex"
    assert server.requests[1].headers["authorization"] == f"Bearer {token}"
    assert server.requests[1].headers["chatgpt-account-id"] == "acc-other"


async def test_the_transport_setting_reaches_the_codex_wire_api(tmp_path: Path, server: ScriptedServer) -> None:
    entry = {"type": "oauth", "access": codex_jwt(), "refresh": "r", "expires": NOW_MS + 3600_000, "accountId": "acc"}
    agent_dir = _agent_dir(tmp_path, server, {"openai-codex": entry})
    session = _session(tmp_path, agent_dir, "openai-codex", "gpt-6.2-sol", {"transport": "websocket"})
    await session.prompt("hello")
    reply = session.agent.state.messages[-1]
    assert str(getattr(reply, "error_message", "")).startswith("WebSocket upgrade refused")
    assert server.requests == [] and len(server.upgrades) == 1
    assert server.upgrades[0].headers["openai-beta"] == "responses_websockets=2026-02-06"
