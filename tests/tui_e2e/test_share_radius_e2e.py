"""/share to Radius and the Radius model list in the real `pi` in tmux, with `PI_RADIUS_GATEWAY` at a
loopback gateway."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.app.oauth.radius_gateway import GATEWAY_MODEL
from tests.support.http_server import ScriptedServer, json_response
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import TmuxPi

VIEWER = "https://radius.pi.dev/a/art_42"


@pytest.fixture
def gateway() -> Iterator[ScriptedServer]:
    srv = ScriptedServer().start()
    yield srv
    srv.stop()


def _chat_then_share(pi: TmuxPi, server: ScriptedServer, env: dict[str, str]) -> None:
    server.queue(anthropic_reply("Shared reply."))
    pi.start("--use-theme", "dark", "--tui-mode", "regular", env=env)
    pi.wait_for("fake-claude • medium")
    pi.chat("share this please", "Shared reply.")
    pi.submit("/share")


def test_share_uploads_a_radius_artifact_and_shows_its_url(
    make_pi: Any, server: ScriptedServer, gateway: ScriptedServer
) -> None:
    """With a Radius key and the default `auto` destination, /share uploads the session to the
    gateway's artifacts endpoint and shows the artifact's URL."""
    gateway.queue(json_response(201, {"artifact": {"id": "art_42", "canonical_url": VIEWER}}))
    pi: TmuxPi = make_pi()
    _chat_then_share(pi, server, {"PI_RADIUS_GATEWAY": gateway.url, "RADIUS_API_KEY": "rk-tmux-1"})
    pi.wait_for(f"Share URL: {VIEWER}")
    (upload,) = gateway.requests
    assert upload.path == "/v1/artifacts?visibility=organization&title=Pi+session"
    assert upload.headers["authorization"] == "Bearer rk-tmux-1"
    lines = [json.loads(line) for line in upload.body.decode().splitlines()]
    assert lines[0]["type"] == "session"
    assert "share this please" in json.dumps(lines) and "Shared reply." in json.dumps(lines)
    share = lines[-1]
    assert share["customType"] == "pi.share"
    assert "read" in [tool["name"] for tool in share["data"]["tools"]]


def test_share_to_radius_without_a_login_says_to_sign_in(
    make_pi: Any, server: ScriptedServer, gateway: ScriptedServer
) -> None:
    pi: TmuxPi = make_pi({"sessionShareDestination": "radius"})
    _chat_then_share(pi, server, {"PI_RADIUS_GATEWAY": gateway.url, "RADIUS_API_KEY": ""})
    pi.wait_for("Radius authentication is not configured. Run '/login radius' first.")
    assert gateway.requests == []


def test_opening_the_model_selector_lists_the_radius_accounts_models(
    make_pi: Any, server: ScriptedServer, gateway: ScriptedServer
) -> None:
    """With a Radius key, /model fetches the account's list from the gateway and shows its models."""
    model = {**GATEWAY_MODEL, "id": "gw-tmux", "name": "GW Tmux"}
    gateway.queue(json_response(200, {"baseUrl": f"{gateway.url}/v1", "models": [model]}))
    pi: TmuxPi = make_pi()
    online = {"PI_OFFLINE": ""}  # the harness runs pi offline, which would leave the gateway unasked
    pi.start(
        "--use-theme",
        "dark",
        "--tui-mode",
        "regular",
        env={**online, "PI_RADIUS_GATEWAY": gateway.url, "RADIUS_API_KEY": "rk-tmux-2"},
    )
    pi.wait_for("fake-claude • medium")
    pi.type("/model gw-tmux")
    pi.keys("Enter")
    pi.wait_for("gw-tmux [radius]")
    (config,) = gateway.requests
    assert config.path == "/v1/config" and config.headers["authorization"] == "Bearer rk-tmux-2"
