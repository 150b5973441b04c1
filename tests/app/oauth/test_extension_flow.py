"""§5.4: an extension's OAuth provider logs in through pi's login surface, refreshes and shapes its models."""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi.ai.types import Model
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.oauth.auth_command import run_auth_command
from pi.app.oauth.extension_flow import register_extension_oauth
from pi.app.oauth.provider_names import oauth_flows
from pi.app.oauth.registry import unregister_oauth_flows
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from tests.app.oauth.conftest import ScriptedInteraction
from tests.support.http_server import ScriptedServer
from tests.support.openai_chunks import text_reply

SOURCE = "/ext/acme.py"


class AcmeOAuth:
    """An extension's provider: shows a URL, asks for a code, picks a region; refresh counts its calls."""

    name = "Acme (team plan)"
    is_subscription = True

    def __init__(self) -> None:
        self.refreshes: list[dict[str, Any]] = []

    async def login(self, callbacks: Any) -> dict[str, Any]:
        callbacks.on_auth({"url": "https://acme.test/authorize", "instructions": "Sign in with your team"})
        callbacks.on_progress("waiting for the code")
        code = await callbacks.on_prompt({"message": "Code:"})
        region = await callbacks.on_select({"message": "Region", "options": [{"id": "eu", "label": "Europe"}]})
        return {"access": f"acc-{code}", "refresh": "ref-1", "expires": 1, "region": region}

    def refresh_token(self, credentials: dict[str, Any], signal: Any) -> dict[str, Any]:
        self.refreshes.append(credentials)
        assert not signal.aborted
        expires = int(time.time() * 1000) + 3600_000
        return {**credentials, "access": "acc-fresh", "refresh": "ref-2", "expires": expires}

    def get_api_key(self, credentials: dict[str, Any]) -> str:
        return f"key:{credentials['access']}:{credentials['region']}"

    def modify_models(self, models: list[Model], credentials: dict[str, Any]) -> list[Model]:
        return [m.model_copy(update={"name": f"{m.name} ({credentials['region']})"}) for m in models]


@pytest.fixture
def acme() -> Iterator[AcmeOAuth]:
    oauth = AcmeOAuth()
    register_extension_oauth("acme", oauth, source_id=SOURCE)
    yield oauth
    unregister_oauth_flows(SOURCE)


def test_a_registration_without_login_is_refused_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match='The oauth of provider "bad" needs callable "login" and "refresh_token"'):
        register_extension_oauth("bad", {"name": "Bad"})
    assert "bad" not in oauth_flows()


async def test_login_refresh_key_and_models(
    tmp_path: Path, server: ScriptedServer, acme: AcmeOAuth, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "agent"
    ui = ScriptedInteraction(texts=["1234"])
    out, err = io.StringIO(), io.StringIO()
    assert await _to_thread(run_auth_command, ["login", "acme"], agent, out, err, ui) == 0, err.getvalue()
    assert "Logged in to Acme (team plan)." in out.getvalue()
    assert ("auth_url", "https://acme.test/authorize") in ui.events and (
        "progress",
        "waiting for the code",
    ) in ui.events
    stored = json.loads((agent / "auth.json").read_text())["acme"]
    assert stored == {"access": "acc-1234", "refresh": "ref-1", "expires": 1, "region": "eu", "type": "oauth"}
    assert oct(os.stat(agent / "auth.json").st_mode & 0o777) == "0o600"

    providers = {
        "acme": {
            "baseUrl": f"{server.url}/v1",
            "api": "openai-completions",
            "models": [{"id": "acme-1", "name": "Acme One"}],
        }
    }
    (agent / "models.json").write_text(json.dumps({"providers": providers}))
    registry = ModelRegistry(AuthStorage(agent / "auth.json"), agent / "models.json")
    model = registry.find("acme", "acme-1")
    assert model is not None and model.name == "Acme One (eu)"
    session = create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=agent,
            model=model,
            tools=[],
            settings=SettingsManager.in_memory(),
            model_registry=registry,
            resources=Resources(),
            session_manager=SessionManager.create(str(tmp_path), agent_dir=agent),
        )
    )
    server.queue(text_reply("hello from acme"))
    await session.prompt("hi")
    assert session.last_assistant_text() == "hello from acme"
    assert [r["refresh"] for r in acme.refreshes] == ["ref-1"]
    assert server.requests[0].headers["authorization"] == "Bearer key:acc-fresh:eu"
    assert json.loads((agent / "auth.json").read_text())["acme"]["refresh"] == "ref-2"


async def _to_thread(fn: Any, *args: Any) -> Any:
    """`run_auth_command` runs its own event loop; give it a thread, as the CLI's main thread would be."""
    import asyncio

    return await asyncio.to_thread(lambda: fn(*args[:4], interaction=args[4]))
