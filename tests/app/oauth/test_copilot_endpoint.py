"""A Copilot token refresh that names another proxy endpoint moves the request it was made for.

The Copilot token exchange is a loopback stub (`PI_OAUTH_ENDPOINTS`). The session's stream
function records where each request would go; that `pi.ai.stream` sends a request to the endpoint
its options name is checked against a loopback model server.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.events import DoneEvent
from pi.ai.faux import faux_assistant_message
from pi.ai.models import get_model
from pi.ai.options import StreamOptions
from pi.ai.stream import complete_simple
from pi.ai.types import Context, Model, UserMessage
from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from tests.support.http_server import ScriptedServer, json_response
from tests.support.openai_chunks import text_reply

NOW_MS = int(time.time() * 1000)
MODELS = {"data": [{"id": "gpt-6.1-sol", "model_picker_enabled": True, "policy": {"state": "enabled"}}]}


def _entry(access: str, expires: int) -> dict[str, Any]:
    return {
        "type": "oauth",
        "refresh": "ghu_github",
        "access": access,
        "expires": expires,
        "availableModelIds": ["gpt-6.1-sol"],
    }


def copilot_session(
    tmp_path: Path, stub: ScriptedServer, monkeypatch: pytest.MonkeyPatch, models_json: dict[str, Any] | None = None
) -> tuple[AgentSession, list[tuple[str, Any]]]:
    """A session on Copilot's `gpt-6.1-sol` whose stored token (proxy.old.test) has expired; the stub
    hands out one for proxy.moved.test. Its stream function records `(model base URL, options base_url)`."""
    monkeypatch.setenv("PI_OAUTH_ENDPOINTS", json.dumps({"github_copilot": stub.url}))
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir(mode=0o700)
    auth_file = agent_dir / "auth.json"
    auth_file.write_text(json.dumps({"github-copilot": _entry("tid=1;exp=1;proxy-ep=proxy.old.test", NOW_MS - 1)}))
    os.chmod(auth_file, 0o600)
    if models_json is not None:
        (agent_dir / "models.json").write_text(json.dumps(models_json))
    stub.queue(
        json_response(200, {"token": "tid=2;exp=2;proxy-ep=proxy.moved.test", "expires_at": int(time.time()) + 1800}),
        json_response(200, MODELS),
    )
    seen: list[tuple[str, Any]] = []

    def stream_fn(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        seen.append((model.base_url, options.extra.get("base_url")))
        events = AssistantMessageEventStream()
        events.push(DoneEvent(reason="stop", message=faux_assistant_message("ok")))
        return events

    registry = ModelRegistry(AuthStorage(auth_file), agent_dir / "models.json")
    model = registry.find("github-copilot", "gpt-6.1-sol")
    assert model is not None
    session = create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=agent_dir,
            model=model,
            tools=[],
            settings=SettingsManager.in_memory({}),
            model_registry=registry,
            resources=Resources(),
            session_manager=SessionManager.create(str(tmp_path), agent_dir=agent_dir),
            stream_fn=stream_fn,
        )
    )
    return session, seen


async def test_a_refresh_that_names_a_new_proxy_endpoint_moves_the_same_request(
    tmp_path: Path, stub: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    session, seen = copilot_session(tmp_path, stub, monkeypatch)
    registry = session.model_registry
    assert session.model is not None and session.model.base_url == "https://api.old.test"
    await session.prompt("one")
    assert [r.path for r in stub.requests] == ["/copilot_internal/v2/token", "/models"]
    assert seen == [("https://api.old.test", "https://api.moved.test")], "the refreshing request itself moves"
    moved = registry.find("github-copilot", "gpt-6.1-sol")
    assert moved is not None and moved.base_url == "https://api.moved.test"
    await session.prompt("two")
    assert seen[1] == ("https://api.old.test", "https://api.moved.test")
    assert len(stub.requests) == 2, "a fresh token is not exchanged again"


async def test_a_user_set_copilot_base_url_is_kept_when_the_token_moves(
    tmp_path: Path, stub: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    models_json = {"providers": {"github-copilot": {"baseUrl": "https://copilot.mine.test"}}}
    session, seen = copilot_session(tmp_path, stub, monkeypatch, models_json)
    await session.prompt("one")
    assert seen == [("https://copilot.mine.test", None)]


async def test_a_request_goes_to_the_endpoint_its_options_name(server: ScriptedServer) -> None:
    model = get_model("openai", "gpt-4o-mini")
    assert model is not None
    model = model.model_copy(update={"api": "openai-completions", "base_url": "https://unreachable.invalid/v1"})
    server.queue(text_reply("served here"))
    options = StreamOptions(api_key="k", max_retries=0)
    options.extra["base_url"] = f"{server.url}/v1"
    reply = await complete_simple(model, Context(messages=[UserMessage(content="hi")]), options)
    assert reply.error_message is None
    assert server.requests[0].path == "/v1/chat/completions"
