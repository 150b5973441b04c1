"""`pi auth login radius` sets up the gateway's MCP server, and MCP then signs in with that login.

Real `pi` processes against a loopback Radius gateway (`PI_RADIUS_GATEWAY`) that serves both the
device sign-in and the MCP endpoint, which refuses any token it did not issue.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pytest

from tests.app.oauth.radius_gateway import GATEWAY_MODEL, RadiusGateway
from tests.support import pi_messages as pm
from tests.support.http_server import ScriptedServer

PI = [sys.executable, "-m", "pi"]


@pytest.fixture
def gateway() -> Iterator[RadiusGateway]:
    gw = RadiusGateway().start()
    try:
        yield gw
    finally:
        gw.stop()


class World:
    def __init__(self, root: Path, gateway: RadiusGateway) -> None:
        self.agent = root / "agent"
        self.cwd = root / "project"
        home, tmp = root / "home", root / "tmp"
        for path in (self.cwd, home, tmp):
            path.mkdir()
        self.agent.mkdir(mode=0o700)
        self.mcp = self.agent / "mcp.json"
        self.env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN")) and k[:3] != "PI_"}
        self.env.update(
            PI_CODING_AGENT_DIR=str(self.agent),
            PI_RADIUS_GATEWAY=gateway.url,
            HOME=str(home),
            TMPDIR=str(tmp),
            BROWSER="true",
        )

    def login(self) -> str:
        """`pi auth login radius --no-browser` in a terminal: the device code, then the gateway's approval."""
        child = pexpect.spawn(
            PI[0], [*PI[1:], "auth", "login", "radius", "--no-browser"], cwd=str(self.cwd), env=self.env,
            encoding="utf-8", timeout=60,
        )  # fmt: skip
        try:
            child.expect("enter code: RAD-CODE")
            child.expect(pexpect.EOF)
        finally:
            child.close()
        transcript = str(child.before)
        assert child.exitstatus == 0, transcript
        assert "Logged in to Radius. Credentials saved to" in transcript
        return transcript

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*PI, *args], cwd=self.cwd, env=self.env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=90,
        )  # fmt: skip

    def stored(self) -> dict[str, object]:
        entry = json.loads((self.agent / "auth.json").read_text())["radius"]
        assert isinstance(entry, dict)
        return entry


@pytest.fixture
def world(tmp_path: Path, gateway: RadiusGateway) -> World:
    return World(tmp_path, gateway)


def test_login_adds_the_server_once_keeps_the_users_entries_and_mcp_uses_the_login(
    world: World, gateway: RadiusGateway
) -> None:
    docs = {"url": "https://docs.example.com/mcp", "enabled": False, "description": "Team docs"}
    world.mcp.write_text(json.dumps({"autoEnableCodemode": False, "mcpServers": {"docs": docs}}, indent=4) + "\n")

    transcript = world.login()
    assert f'Added MCP server "radius" in {world.mcp} to use the Radius login.' in " ".join(transcript.split())
    text = world.mcp.read_text()
    assert json.loads(text) == {
        "autoEnableCodemode": False,
        "mcpServers": {"docs": docs, "radius": {"url": f"{gateway.url}/mcp", "auth": {"provider": "radius"}}},
    }
    assert text.startswith('{\n    "autoEnableCodemode"')  # the file's own indentation is kept

    again = world.login()  # a second login finds the server already using it
    assert "MCP server" not in again
    assert world.mcp.read_text() == text

    listed = world.run("mcp", "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "radius: connected, 1 tool (codemode, global)" in listed.stdout
    assert "tools: whoami" in listed.stdout
    calls = gateway.mcp_requests()
    assert [c.rpc_method() for c in calls][:3] == ["initialize", "notifications/initialized", "tools/list"]
    assert {c.authorization for c in calls} == {f"Bearer {world.stored()['access']}"}
    assert world.stored()["access"] == "radius-access-2"


def test_an_expired_login_is_refreshed_before_mcp_requests(world: World, gateway: RadiusGateway) -> None:
    world.mcp.write_text(
        json.dumps({"mcpServers": {"radius": {"url": f"{gateway.url}/mcp", "auth": {"provider": "radius"}}}})
    )
    expired = {"type": "oauth", "access": "radius-access-old", "refresh": "radius-refresh-0", "expires": 1000}
    (world.agent / "auth.json").write_text(json.dumps({"radius": expired}))

    listed = world.run("mcp", "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "radius: connected, 1 tool" in listed.stdout
    refreshes = [r.form() for r in gateway.requests if r.path == "/v1/oauth/token"]
    assert refreshes == [
        {"grant_type": "refresh_token", "client_id": "pi-gateway", "refresh_token": "radius-refresh-0"}
    ]
    assert {c.authorization for c in gateway.mcp_requests()} == {"Bearer radius-access-1"}
    stored = world.stored()
    assert (stored["access"], stored["refresh"]) == ("radius-access-1", "radius-refresh-1")
    assert isinstance(stored["expires"], int) and stored["expires"] > time.time() * 1000
    assert "radius-access-1" not in listed.stdout + listed.stderr


def test_without_a_login_the_server_needs_sign_in_with_radius(world: World, gateway: RadiusGateway) -> None:
    world.mcp.write_text(
        json.dumps({"mcpServers": {"radius": {"url": f"{gateway.url}/mcp", "auth": {"provider": "radius"}}}})
    )
    listed = world.run("mcp", "list")
    assert listed.returncode == 1
    assert "radius: needs sign-in (codemode, global)" in listed.stdout
    assert "sign in with: /login radius in pi" in listed.stdout
    assert [c.authorization for c in gateway.mcp_requests()] == [None]


GW_MODEL = GATEWAY_MODEL


def test_login_keeps_the_accounts_model_list_which_later_runs_read_without_fetching(
    world: World, gateway: RadiusGateway, server: ScriptedServer
) -> None:
    gateway.config_base_url = f"{server.url}/v1"
    gateway.config_models = [GW_MODEL, {"id": "broken", "name": "lacks limits"}]
    world.login()
    (config,) = [r for r in gateway.requests if r.path == "/v1/config"]
    assert config.authorization == f"Bearer {world.stored()['access']}"
    store = json.loads((world.agent / "models-store.json").read_text())
    assert list(store) == ["radius"] and isinstance(store["radius"]["checkedAt"], int)
    assert store["radius"]["models"] == [
        {**GW_MODEL, "api": "pi-messages", "provider": "radius", "baseUrl": f"{server.url}/v1"}
    ]

    listed = world.run("--list-models", "radius")
    assert listed.returncode == 0, listed.stderr
    rows = [line.split()[:2] for line in listed.stdout.splitlines()[1:]]
    assert rows == [["radius", "gw-fast"]]  # the account's list replaces the shipped one

    server.queue(pm.text_reply("from the account's model"))
    done = world.run("-p", "--provider", "radius", "--model", "gw-fast", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "from the account's model"
    (request,) = server.requests
    assert request.path == "/v1/messages" and request.json()["model"] == "gw-fast"
    assert request.headers["authorization"] == f"Bearer {world.stored()['access']}"
    # Neither run asked for the list again (the print run's MCP connection to /mcp is the login's server).
    assert [r.path for r in gateway.requests].count("/v1/config") == 1


def test_offline_login_fetches_no_model_list(world: World, gateway: RadiusGateway) -> None:
    world.env["PI_OFFLINE"] = "1"
    world.login()
    assert [r.path for r in gateway.requests if r.method == "GET"] == []
    assert not (world.agent / "models-store.json").exists()


def test_a_gateway_that_cannot_list_models_is_reported_and_the_login_still_counts(
    world: World, gateway: RadiusGateway
) -> None:
    gateway.accepted.clear()  # /v1/config refuses every token
    gateway.issue = _refused_tokens(gateway)  # type: ignore[method-assign]
    transcript = " ".join(world.login().split())
    assert (
        f"The Radius model catalog could not be refreshed: Could not load Radius config from {gateway.url}: 401:"
    ) in transcript
    assert not (world.agent / "models-store.json").exists()
    assert world.stored()["access"] == "radius-access-refused"
    listed = world.run("--list-models", "radius")
    assert "balanced" in listed.stdout  # the shipped catalog stays


def _refused_tokens(gateway: RadiusGateway) -> Callable[[], dict[str, object]]:
    def issue() -> dict[str, object]:
        return {"access_token": "radius-access-refused", "refresh_token": "r", "expires_in": 3600}

    return issue
