"""Each request carries the key and headers of the model it goes to, also after the model changed.

Two loopback servers play providers A and B (models.json). A sends a custom header and an
Authorization header of its own (`authHeader`); none of that may ever reach B.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.entries import MessageEntry
from pi.session.manager import SessionManager
from tests.support.cli_env import PI
from tests.support.http_server import RecordedRequest, ScriptedServer
from tests.support.openai_chunks import text_reply


@pytest.fixture
def server_b() -> Iterator[ScriptedServer]:
    srv = ScriptedServer().start()
    try:
        yield srv
    finally:
        srv.stop()


def _write_models(agent_dir: Path, a: ScriptedServer, b: ScriptedServer) -> None:
    agent_dir.mkdir(parents=True, exist_ok=True)
    providers = {
        "prov-a": {
            "baseUrl": f"{a.url}/v1",
            "api": "openai-completions",
            "apiKey": "key-a",
            "authHeader": True,
            "headers": {"X-Team-A": "secret-a"},
            "models": [{"id": "model-a"}],
        },
        "prov-b": {
            "baseUrl": f"{b.url}/v1",
            "api": "openai-completions",
            "apiKey": "key-b",
            "models": [{"id": "model-b"}],
        },
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))


def _session(tmp_path: Path, model_id: str, manager: SessionManager | None = None) -> AgentSession:
    agent_dir = tmp_path / "agent"
    registry = ModelRegistry(AuthStorage.in_memory(), agent_dir / "models.json")
    provider = "prov-a" if model_id == "model-a" else "prov-b"
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=agent_dir,
            model=registry.find(provider, model_id),
            tools=[],
            settings=SettingsManager.in_memory(),
            model_registry=registry,
            resources=Resources(),
            session_manager=manager or SessionManager.create(str(tmp_path), agent_dir=agent_dir),
        )
    )


def _assert_only_b(request: RecordedRequest) -> None:
    assert request.headers["authorization"] == "Bearer key-b"
    assert "x-team-a" not in request.headers
    assert "key-a" not in json.dumps(request.headers)


async def test_switch_session_to_another_provider_sends_only_that_providers_credentials(
    server: ScriptedServer, server_b: ScriptedServer, tmp_path: Path
) -> None:
    _write_models(tmp_path / "agent", server, server_b)
    server.queue(text_reply("from a"))
    server_b.queue(text_reply("b's own"), text_reply("from b after switch"))
    on_b = _session(tmp_path, "model-b")
    await on_b.prompt("start on b")
    b_file = on_b.session_file
    assert b_file is not None

    session = _session(tmp_path, "model-a")
    await session.prompt("hello a")
    assert server.requests[0].headers["authorization"] == "Bearer key-a"
    assert server.requests[0].headers["x-team-a"] == "secret-a"

    await session.switch_session(b_file)
    model = session.model
    assert model is not None and model.provider == "prov-b"
    await session.prompt("continue on b")
    assert session.last_assistant_text() == "from b after switch"
    assert len(server.requests) == 1
    _assert_only_b(server_b.requests[-1])


async def test_set_model_and_fork_to_another_provider(
    server: ScriptedServer, server_b: ScriptedServer, tmp_path: Path
) -> None:
    _write_models(tmp_path / "agent", server, server_b)
    server.queue(text_reply("from a"))
    server_b.queue(text_reply("from b"), text_reply("b again"), text_reply("after fork"))
    session = _session(tmp_path, "model-a")
    await session.prompt("one")
    b = session.model_registry.find("prov-b", "model-b")
    assert b is not None
    session.set_model(b)
    await session.prompt("two")
    await session.prompt("three")
    _assert_only_b(server_b.requests[0])
    third = [
        e.id
        for e in session.session.get_entries()
        if isinstance(e, MessageEntry) and getattr(e.message, "role", None) == "user"
    ][-1]
    await session.fork(third)
    model = session.model
    assert model is not None and model.provider == "prov-b"
    await session.prompt("after the fork")
    assert len(server.requests) == 1
    for request in server_b.requests:
        _assert_only_b(request)


def _rpc(tmp_path: Path, commands: list[dict[str, Any]], env: dict[str, str]) -> list[dict[str, Any]]:
    """Send `commands`, and close stdin once the prompt's run settled (the end of input aborts a run)."""
    proc = subprocess.Popen(
        [*PI, "--mode", "rpc", "--provider", "prov-a", "--model", "model-a"],
        cwd=tmp_path / "project",
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(c) + "\n" for c in commands))
    proc.stdin.flush()
    frames: list[dict[str, Any]] = []
    for line in proc.stdout:
        frames.append(json.loads(line))
        if frames[-1].get("type") == "agent_settled":
            break
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    return frames


def test_rpc_switch_session_sends_only_the_new_providers_credentials(
    server: ScriptedServer, server_b: ScriptedServer, tmp_path: Path
) -> None:
    import os

    agent_dir = tmp_path / "agent"
    _write_models(agent_dir, server, server_b)
    (tmp_path / "project").mkdir()
    (tmp_path / "home").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("PI_")}
    env.update(PI_CODING_AGENT_DIR=str(agent_dir), HOME=str(tmp_path / "home"))
    server_b.queue(text_reply("b's own"), text_reply("from b via rpc"))
    server.queue(text_reply("from a"))
    first = subprocess.run(
        [*PI, "-p", "--provider", "prov-b", "--model", "model-b", "start on b"],
        cwd=tmp_path / "project",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert first.returncode == 0, first.stderr
    b_file = next((agent_dir / "sessions").rglob("*.jsonl"))
    frames = _rpc(
        tmp_path,
        [
            {"id": "p1", "type": "prompt", "message": "hello a"},
            {"id": "w1", "type": "wait"},  # unknown: answered after the prompt was accepted
        ],
        env,
    )
    assert any(f.get("type") == "agent_settled" for f in frames)
    frames = _rpc(
        tmp_path,
        [
            {"id": "s1", "type": "switch_session", "sessionPath": str(b_file)},
            {"id": "p2", "type": "prompt", "message": "continue on b"},
        ],
        env,
    )
    assert next(f for f in frames if f.get("id") == "s1")["success"] is True
    assert any(f.get("type") == "agent_settled" for f in frames)
    assert len(server.requests) == 1 and server.requests[0].headers["x-team-a"] == "secret-a"
    assert len(server_b.requests) == 2
    _assert_only_b(server_b.requests[-1])
