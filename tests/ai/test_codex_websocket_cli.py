"""`pi -p` with a stored ChatGPT login talks to the Codex backend over its WebSocket transport.

The backend is a loopback websockets server speaking the real frames; the login is an auth.json
entry as `/login` writes it. A tool call makes the run two requests on one session, which share
one connection and, under ``auto``, continue with ``previous_response_id``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ai.codex_ws_server import CodexWebSocketServer, Turn, text_events, tool_call_events
from tests.app.oauth.wire import codex_jwt

TOKEN = codex_jwt("acc-cli")


@pytest.fixture
def ws() -> Iterator[CodexWebSocketServer]:
    server = CodexWebSocketServer().start()
    yield server
    server.stop()


def _pi(tmp_path: Path, ws_url: str, settings: dict[str, Any], prompt: str) -> subprocess.CompletedProcess[str]:
    agent = tmp_path / "agent"
    agent.mkdir(mode=0o700)
    (tmp_path / "home").mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("the tide turns at noon\n")
    entry = {"type": "oauth", "access": TOKEN, "refresh": "r", "expires": int(time.time() * 1000) + 3600_000}
    (agent / "auth.json").write_text(json.dumps({"openai-codex": {**entry, "accountId": "acc-cli"}}))
    os.chmod(agent / "auth.json", 0o600)
    providers = {"openai-codex": {"baseUrl": f"{ws_url}/backend-api"}}
    (agent / "models.json").write_text(json.dumps({"providers": providers}))
    (agent / "settings.json").write_text(json.dumps({"retry": {"enabled": False}, **settings}))
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_OAUTH_TOKEN"))}
    env.update({"PI_CODING_AGENT_DIR": str(agent), "HOME": str(tmp_path / "home")})
    command = [sys.executable, "-m", "pi", "-p", "--provider", "openai-codex", "--model", "gpt-6.2-sol", prompt]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=60)


def _read_then_answer(turn: Turn) -> None:
    if turn.index == 0:
        events = tool_call_events("resp_0", "call_1", "read", {"path": "notes.txt"})
    else:
        events = text_events("resp_1", "The tide turns at noon.")
    for event in events:
        turn.send(event)


@pytest.mark.parametrize("settings", [{}, {"transport": "websocket-cached"}], ids=["default-auto", "cached"])
def test_a_tool_turn_continues_on_the_same_connection(
    tmp_path: Path, ws: CodexWebSocketServer, settings: dict[str, Any]
) -> None:
    ws.script = _read_then_answer
    result = _pi(tmp_path, ws.url, settings, "When does the tide turn? Read notes.txt.")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "The tide turns at noon."
    assert len(ws.upgrades) == 1, "both requests of the run share one connection"
    headers = ws.upgrades[0]
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["chatgpt-account-id"] == "acc-cli"
    assert headers["openai-beta"] == "responses_websockets=2026-02-06"
    first, second = ws.bodies()
    assert first["type"] == second["type"] == "response.create"
    assert first["prompt_cache_key"] == headers["session-id"] == headers["x-client-request-id"]
    assert "previous_response_id" not in first
    assert second["previous_response_id"] == "resp_0"
    [output] = second["input"]
    assert (output["type"], output["call_id"]) == ("function_call_output", "call_1")
    assert "the tide turns at noon" in output["output"]


def test_plain_websocket_sends_the_whole_conversation_each_time(tmp_path: Path, ws: CodexWebSocketServer) -> None:
    ws.script = _read_then_answer
    result = _pi(tmp_path, ws.url, {"transport": "websocket"}, "When does the tide turn? Read notes.txt.")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "The tide turns at noon."
    assert len(ws.upgrades) == 1
    _, second = ws.bodies()
    assert "previous_response_id" not in second
    assert [item.get("type") for item in second["input"]][-2:] == ["function_call", "function_call_output"]


def test_a_refused_upgrade_under_an_explicit_websocket_transport_says_what_to_do(
    tmp_path: Path, ws: CodexWebSocketServer
) -> None:
    ws.refuse = 403
    result = _pi(tmp_path, ws.url, {"transport": "websocket"}, "hi")
    assert result.returncode == 1
    assert "WebSocket upgrade refused: the server answered HTTP 403" in result.stderr
    assert 'set "transport": "auto" or "sse" in settings.json' in result.stderr
    assert ws.received == []


def test_the_connect_timeout_setting_bounds_the_handshake(tmp_path: Path, ws: CodexWebSocketServer) -> None:
    ws.stall = True
    settings = {"transport": "websocket", "websocketConnectTimeoutMs": 300}
    result = _pi(tmp_path, ws.url, settings, "hi")
    assert result.returncode == 1
    assert "WebSocket connect timeout after 300ms" in result.stderr
