"""The interactive `/mcp` forwards to the MCP extension's command, or says why there is none."""

from __future__ import annotations

from pathlib import Path

from pi.app.modes.interactive.commands.mcp_command import NOT_LOADED
from pi.app.modes.interactive.commands.registry import CommandRegistry
from tests.app.interactive.test_commands_fakes import FakeApi, make_env


async def test_without_configured_servers_it_says_where_to_add_them(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    assert await CommandRegistry(api.session).execute(api, "/mcp")
    assert api.texts("status") == [f"No MCP servers configured. Add them to {env.agent_dir}/mcp.json or .pi/mcp.json."]


async def test_with_servers_but_no_mcp_support_loaded_it_warns(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    (env.agent_dir / "mcp.json").write_text('{"mcpServers": {}}')
    api = FakeApi(env)
    assert await CommandRegistry(api.session).execute(api, "/mcp reconnect")
    assert api.texts("warning") == [NOT_LOADED]
