"""/share to Radius (`sessionShareDestination`) against a loopback artifact server.

`radius` uploads the branch as JSON lines to `<gateway>/v1/artifacts` and needs a Radius credential;
`auto` does that when one is configured and makes a gist otherwise; `gist` never asks Radius.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from pi.ai.faux import faux_assistant_message
from pi.app.modes.interactive.commands.registry import CommandRegistry
from pi.app.modes.interactive.commands.share_command import GH_MISSING
from pi.app.modes.interactive.commands.share_radius import NOT_CONFIGURED, UPLOADING
from tests.app.interactive.test_commands_fakes import Env, FakeApi, make_env
from tests.support.http_server import ScriptedServer, json_response

VIEWER = "https://radius.pi.dev/artifacts/art_42"


@pytest.fixture(autouse=True)
def _gateway(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PI_RADIUS_GATEWAY", server.url)
    monkeypatch.delenv("RADIUS_API_KEY", raising=False)
    no_gh = tmp_path / "no-gh-bin"
    no_gh.mkdir()
    monkeypatch.setenv("PATH", str(no_gh))


async def _share(env: Env) -> FakeApi:
    env.reasoning.append_responses([faux_assistant_message("the answer")])
    await env.session.prompt("share this conversation")
    api = FakeApi(env)
    assert await CommandRegistry(api.session).execute(api, "/share")
    return api


def _artifact(server: ScriptedServer) -> None:
    server.queue(json_response(201, {"artifact": {"id": "art_42", "canonical_url": VIEWER}}))


async def test_radius_uploads_the_branch_and_shows_the_artifact_url(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RADIUS_API_KEY", "rk-share-1")
    _artifact(server)
    env = make_env(tmp_path, {"sessionShareDestination": "radius"})
    api = await _share(env)
    assert api.texts("error") == []
    assert api.texts("status") == [f"Share URL: {VIEWER}"]
    assert api.texts("working") == [UPLOADING, "None"]

    (request,) = server.requests
    assert (request.method, request.path) == ("POST", "/v1/artifacts?visibility=organization&title=Pi+session")
    assert request.headers["authorization"] == "Bearer rk-share-1"
    assert request.headers["content-type"] == "application/x-ndjson"
    assert int(request.headers["content-length"]) == len(request.body)
    lines = [json.loads(line) for line in request.body.decode().splitlines()]
    header, *entries, share = lines
    manager = env.session.session
    assert header["type"] == "session" and header["id"] == manager.get_session_id()
    assert header["cwd"] == manager.get_cwd() and header["version"] == 3
    assert [e["id"] for e in entries] == [e.id for e in manager.get_branch()]
    parents = [e["parentId"] for e in entries]
    assert parents == [None, *[e["id"] for e in entries[:-1]]]
    texts = json.dumps(entries)
    assert "share this conversation" in texts and "the answer" in texts
    assert share["type"] == "custom" and share["customType"] == "pi.share"
    assert share["parentId"] == entries[-1]["id"] and share["timestamp"] == header["timestamp"]
    state = env.session.agent.state
    assert share["data"]["systemPrompt"] == state.system_prompt and state.system_prompt
    assert share["data"]["tools"] == [t.to_tool().to_json_dict() for t in state.tools]


async def test_auto_uses_the_stored_radius_login(server: ScriptedServer, tmp_path: Path) -> None:
    _artifact(server)
    env = make_env(tmp_path)
    login = {"type": "oauth", "access": "radius-oauth-9", "refresh": "r", "expires": int(time.time() * 1000) + 3600_000}
    (env.agent_dir / "auth.json").write_text(json.dumps({"radius": login}))
    api = await _share(env)
    assert api.texts("status") == [f"Share URL: {VIEWER}"]
    assert server.requests[0].headers["authorization"] == "Bearer radius-oauth-9"


async def test_auto_without_a_radius_credential_makes_a_gist(server: ScriptedServer, tmp_path: Path) -> None:
    api = await _share(make_env(tmp_path))
    assert api.texts("error") == [GH_MISSING]
    assert server.requests == []


async def test_radius_without_a_credential_says_to_sign_in(server: ScriptedServer, tmp_path: Path) -> None:
    api = await _share(make_env(tmp_path, {"sessionShareDestination": "radius"}))
    assert api.texts("error") == [NOT_CONFIGURED]
    assert NOT_CONFIGURED == "Radius authentication is not configured. Run '/login radius' first."
    assert server.requests == []


async def test_gist_never_asks_radius(server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RADIUS_API_KEY", "rk-share-1")
    api = await _share(make_env(tmp_path, {"sessionShareDestination": "gist"}))
    assert api.texts("error") == [GH_MISSING]
    assert server.requests == []


async def test_a_refused_upload_shows_the_gateways_reason(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RADIUS_API_KEY", "rk-share-1")
    server.queue(json_response(403, {"error": "Artifacts are disabled for your organization"}))
    api = await _share(make_env(tmp_path))
    assert api.texts("error") == ["Failed to upload Radius artifact: Artifacts are disabled for your organization"]
    assert api.texts("status") == []


async def test_an_unreachable_gateway_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RADIUS_API_KEY", "rk-share-1")
    monkeypatch.setenv("PI_RADIUS_GATEWAY", "http://127.0.0.1:9")
    api = await _share(make_env(tmp_path, {"sessionShareDestination": "radius"}))
    (error,) = api.texts("error")
    assert error.startswith("Failed to upload Radius artifact: ")
    assert api.texts("working") == [UPLOADING, "None"]


async def test_a_login_that_cannot_be_refreshed_is_reported_not_skipped(server: ScriptedServer, tmp_path: Path) -> None:
    """An expired Radius login is refreshed at the gateway first; when that fails, /share says so."""
    server.queue(json_response(400, {"error": "invalid_grant", "error_description": "refresh token revoked"}))
    env = make_env(tmp_path)
    login = {"type": "oauth", "access": "old", "refresh": "rt-secret-77", "expires": int(time.time() * 1000) - 1000}
    (env.agent_dir / "auth.json").write_text(json.dumps({"radius": login}))
    api = await _share(env)
    (error,) = api.texts("error")
    assert error.startswith("Failed to upload Radius artifact: ") and "rt-secret-77" not in error
    assert [request.path for request in server.requests] == ["/v1/oauth/token"]
