"""The manager: tool registration, `tools/list_changed`, server logs and the close sequence."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pi.app.extensions.types import ToolDefinition
from pi.app.mcp.config import McpConfig, merge_registered
from pi.app.mcp.manager import McpManager
from tests.app.mcp.conftest import fixture_config


def manager_for(tmp_path: Path, registered: list[ToolDefinition], changed: asyncio.Queue[None]) -> McpManager:
    config = McpConfig(servers={"srv": fixture_config()})
    return McpManager(
        config, cwd=tmp_path, agent_dir=tmp_path, register=registered.append, on_change=lambda: changed.put_nowait(None)
    )


async def test_list_changed_registers_new_tools_and_hides_withdrawn_ones(tmp_path: Path) -> None:
    registered: list[ToolDefinition] = []
    changed: asyncio.Queue[None] = asyncio.Queue()
    manager = manager_for(tmp_path, registered, changed)
    manager.start()
    try:
        await changed.get()
        tools = manager.definitions["srv"]
        grow = next(d for d in tools.values() if d.label == "srv/grow")
        assert grow.execute is not None
        await grow.execute("c1", {}, None, None, None)
        await changed.get()
        by_name = manager.definitions["srv"]
        assert by_name["mcp__srv__extra"].exposure == "deferred"
        withdrawn = next(d for d in by_name.values() if d.label == "srv/a-b")
        assert withdrawn.exposure == "hidden" and registered[-1].exposure == "hidden"
        assert withdrawn.execute is not None
        gone = await withdrawn.execute("c2", {}, None, None, None)
        assert gone["isError"] is True and gone["content"][0].text == 'MCP tool "srv/a-b" is no longer available.'
        assert "mcp__srv__a_b" in by_name, "the remaining tool no longer collides and gets its plain name"
    finally:
        await manager.shutdown()


async def test_log_messages_go_to_mcp_log(tmp_path: Path) -> None:
    registered: list[ToolDefinition] = []
    changed: asyncio.Queue[None] = asyncio.Queue()
    manager = manager_for(tmp_path, registered, changed)
    manager.start()
    try:
        await changed.get()
        result = await manager.connections["srv"].call_tool("log_something", {})
        assert result.content[0].text == "logged"
        lines = (tmp_path / "mcp.log").read_text().splitlines()
        assert lines[-2].endswith(" [srv] info first line") and lines[-1] == "    second line"
    finally:
        await manager.shutdown()


async def test_shutdown_ends_the_whole_process_group(tmp_path: Path) -> None:
    registered: list[ToolDefinition] = []
    changed: asyncio.Queue[None] = asyncio.Queue()
    manager = manager_for(tmp_path, registered, changed)
    manager.start()
    await changed.get()
    result = await manager.connections["srv"].call_tool("spawn_child", {})
    child = int(result.content[0].text)
    os.kill(child, 0)
    await manager.shutdown()
    assert manager.connections["srv"].state == "closed"
    with pytest.raises(ProcessLookupError):
        for _ in range(200):  # the killed child may linger as a zombie until its parent is reaped
            os.kill(child, 0)
            if Path(f"/proc/{child}/stat").read_text().split()[2] == "Z":
                raise ProcessLookupError
            await asyncio.sleep(0.01)


def test_extension_servers_lose_to_mcp_json_of_the_same_namespace() -> None:
    config = McpConfig(servers={"my-docs": fixture_config("my-docs")})
    merge_registered(config, [("my_docs", {"command": "x"}, "/ext/a.py"), ("jira", {"command": "j"}, "/ext/a.py")])
    assert list(config.servers) == ["my-docs", "jira"] and config.servers["jira"].scope == "extension"
    assert config.notes == ['"my_docs" registered by /ext/a.py is overridden by "my-docs" in test']
