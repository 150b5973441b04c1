"""`/mcp` over RPC: status lines and subcommands reach the client as notifications."""

from __future__ import annotations

import json
import sys

from tests.app.extensions.cli_support import Rpc
from tests.app.mcp.conftest import FIXTURE
from tests.support.cli_env import Env, env

__all__ = ["env"]


def test_mcp_status_and_reconnect_over_rpc(env: Env) -> None:
    servers = {"srv": {"command": sys.executable, "args": [FIXTURE], "exposure": "direct"}}
    (env.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    rpc = Rpc(env)
    try:
        rpc.send({"id": "r", "type": "prompt", "message": "/mcp reconnect srv"})
        note = rpc.ui_request("notify")
        assert note["message"] == 'Reconnected to MCP server "srv" (connected).'
        rpc.send({"id": "s", "type": "prompt", "message": "/mcp"})
        status = rpc.ui_request("select")
        assert status["title"] == "MCP servers" and status["options"] == ["srv  connected · direct · global"]
        rpc.send({"type": "extension_ui_response", "id": status["id"], "cancelled": True})
        rpc.send({"id": "u", "type": "prompt", "message": "/mcp nonsense"})
        usage = rpc.ui_request("notify")
        assert usage["message"] == "Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]"
    finally:
        assert rpc.close() == 0
