"""Servers that extensions register while the session runs: added, replaced and withdrawn."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tests.app.mcp.conftest import FIXTURE
from tests.app.mcp.test_extension import RecordingPi, start, write_config


async def test_withdrawn_registrations_are_closed_and_their_tools_hidden(tmp_path: Path) -> None:
    write_config(tmp_path / "agent", {})
    pi = RecordingPi()
    registrations: list[dict[str, Any]] = []
    pi.get_mcp_servers = lambda: list(registrations)  # type: ignore[method-assign]
    ctx = await start(pi, tmp_path)
    change = pi.handlers["mcp_servers_change"]
    try:
        entry = {"command": sys.executable, "args": [FIXTURE], "exposure": "direct"}
        registrations.append({"name": "late", "config": entry, "extensionPath": "/ext/a.py"})
        await change(SimpleNamespace(), ctx)
        await pi.handlers["tool_call"](SimpleNamespace(tool_name="tool_search"), ctx)
        assert pi.tools["mcp__late__echo"].exposure == "direct"

        registrations[0] = {"name": "late", "config": {**entry, "exposure": "deferred"}, "extensionPath": "/ext/a.py"}
        await change(SimpleNamespace(), ctx)
        await pi.handlers["tool_call"](SimpleNamespace(tool_name="tool_search"), ctx)
        replaced = pi.tools["mcp__late__echo"]  # read anew: mypy keeps the narrowing of the expression
        assert replaced.exposure == "deferred", "a changed registration reconnects"

        registrations.clear()
        await change(SimpleNamespace(), ctx)
        withdrawn = pi.tools["mcp__late__echo"]
        assert withdrawn.exposure == "hidden"
        assert pi.tools["mcp__late__echo"].execute is not None
        gone = await pi.tools["mcp__late__echo"].execute("c", {}, None, None, None)
        assert gone["content"][0].text == 'MCP tool "late/echo" is no longer available.'
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)
