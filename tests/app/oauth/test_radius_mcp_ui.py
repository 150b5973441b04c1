"""`/login radius` in the UI: the account's model list is fetched and offered at once, and the gateway's
MCP server is offered, written only after "Yes"."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.app.modes.interactive.commands.registry import CommandRegistry
from pi.app.modes.interactive.pickers.dialogs import SelectDialog
from pi.app.modes.interactive.pickers.login_dialog import LoginDialog
from tests.app.interactive.test_commands_fakes import DOWN, ENTER, FakeApi, make_env
from tests.app.oauth.radius_gateway import GATEWAY_MODEL, RadiusGateway

TIMEOUT = 30.0
MODEL = GATEWAY_MODEL


@pytest.fixture
def gateway(monkeypatch: pytest.MonkeyPatch) -> Iterator[RadiusGateway]:
    gw = RadiusGateway().start()
    monkeypatch.setenv("PI_RADIUS_GATEWAY", gw.url)
    try:
        yield gw
    finally:
        gw.stop()


async def _login_by_device_code(api: FakeApi) -> None:
    """/login radius → account → device code; returns once the login task has finished."""
    assert await CommandRegistry(api.session).execute(api, "/login radius")
    if isinstance(api.selector, SelectDialog):  # an account or an API key for the same provider
        api.press(ENTER)
    assert isinstance(api.selector, LoginDialog)
    running = asyncio.ensure_future(api.run_spawned())
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not any("Sign in with device code" in line for line in api.screen()):
        assert loop.time() < deadline, api.screen()
        await asyncio.sleep(0.01)
    api.press(DOWN, ENTER)
    await asyncio.wait_for(running, TIMEOUT)


async def test_yes_adds_the_server_and_reloads(tmp_path: Path, gateway: RadiusGateway) -> None:
    gateway.config_models = [MODEL]
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _login_by_device_code(api)
    registry = env.session.model_registry
    assert [m.id for m in registry.all_models() if m.provider == "radius"] == ["gw-fast"]  # the account's list
    assert api.texts("warning") == []
    mcp = env.agent_dir / "mcp.json"
    assert api.texts("status")[-1] == f"Logged in to Radius. Credentials saved to {env.agent_dir / 'auth.json'}"
    assert isinstance(api.selector, SelectDialog)
    assert f" Configure Radius MCP in {mcp}?" in api.screen(400)
    assert not mcp.exists()
    api.press(ENTER)  # Yes
    assert api.selector is None
    assert json.loads(mcp.read_text()) == {
        "mcpServers": {"radius": {"url": f"{gateway.url}/mcp", "auth": {"provider": "radius"}}}
    }
    await api.run_spawned()
    assert api.reloads == 1


async def test_no_leaves_mcp_json_alone_and_a_configured_server_is_not_offered_again(
    tmp_path: Path, gateway: RadiusGateway
) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _login_by_device_code(api)
    assert isinstance(api.selector, SelectDialog)
    api.press(DOWN, ENTER)  # No
    assert api.selector is None and not (env.agent_dir / "mcp.json").exists() and api.spawned == []

    entry = {"mcpServers": {"gw": {"url": f"{gateway.url}/mcp/", "auth": {"provider": "radius"}}}}
    (env.agent_dir / "mcp.json").write_text(json.dumps(entry))
    await _login_by_device_code(api)
    assert api.selector is None  # nothing asked
    assert json.loads((env.agent_dir / "mcp.json").read_text()) == entry
