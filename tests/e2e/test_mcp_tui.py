"""`/mcp` in the real terminal UI (tmux): the server list, a server's actions and its tools."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.mcp.conftest import FIXTURE
from tests.support.http_server import ScriptedServer
from tests.tui_e2e.harness import TmuxPi, tmux_available


@pytest.fixture
def tui(server: ScriptedServer, tmp_path: Path) -> Iterator[TmuxPi]:
    if not tmux_available():
        pytest.fail("tmux is needed for the terminal UI tests (.ci/run installs it)")
    pi = TmuxPi(server, tmp_path / "run")
    try:
        yield pi
    finally:
        pi.close()


def test_mcp_lists_servers_and_shows_a_servers_tools(tui: TmuxPi) -> None:
    servers = {"srv": {"command": sys.executable, "args": [FIXTURE], "exposure": "direct"}}
    (tui.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    tui.start()
    tui.wait_for("fake-claude")
    tui.type("/mcp reconnect srv")
    tui.keys("Enter")
    tui.wait_for('Reconnected to MCP server "srv" (connected).')
    tui.type("/mcp")
    tui.keys("Enter")
    tui.wait_for("srv  connected · direct · global")
    tui.keys("Enter")
    text = tui.wait_for("Disable")
    assert "Tools" in text and "Exposure" in text
    tui.keys("Enter")
    text = tui.wait_for("srv tools:")
    assert "echo [direct]: Echo the text back" in text
    tui.keys("C-d")
    assert tui.wait_exit() == 0
