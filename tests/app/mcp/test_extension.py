"""`builtin:mcp` driven through the ExtensionAPI names with a recording stand-in for the session."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pi.app.extensions.types import ToolDefinition
from pi.app.mcp.extension import create_mcp_extension
from pi.app.mcp.manager import STILL_CONNECTING_NOTICE
from tests.app.mcp.conftest import FIXTURE


class RecordingPi:
    """Just enough of ExtensionAPI: tools, handlers, commands and the active set."""

    def __init__(self, discovery: tuple[str, ...] = ("codemode", "tool_search")) -> None:
        self.tools: dict[str, ToolDefinition] = {}
        self.handlers: dict[str, Any] = {}
        self.commands: dict[str, Any] = {}
        self.active: list[str] = ["read"]
        self.discovery = discovery

    def register_tool(self, definition: ToolDefinition) -> None:
        self.tools[definition.name] = definition
        if definition.exposure == "direct" and definition.name not in self.active:
            self.active.append(definition.name)

    def on(self, event: str, handler: Any) -> Any:
        self.handlers[event] = handler
        return lambda: None

    def register_command(self, name: str, handler: Any, *, description: str | None = None) -> None:
        self.commands[name] = handler

    def get_all_tools(self) -> list[Any]:
        infos = [SimpleNamespace(name=n, reaches_tools=lambda _i: "all", exposure="model-only") for n in self.discovery]
        return infos + [SimpleNamespace(name=n, reaches_tools=None, exposure=d.exposure) for n, d in self.tools.items()]

    def get_active_tools(self) -> list[str]:
        return list(self.active)

    def set_active_tools(self, names: list[str]) -> None:
        self.active = list(names)

    def get_mcp_servers(self) -> list[dict[str, Any]]:
        return []


class Ui:
    def __init__(self) -> None:
        self.notes: list[str] = []

    def notify(self, text: str, kind: str | None = None) -> None:
        self.notes.append(text)


def write_config(agent: Path, servers: dict[str, Any]) -> None:
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": servers}))


async def start(pi: RecordingPi, tmp_path: Path, **kwargs: Any) -> Any:
    create_mcp_extension(agent_dir=tmp_path / "agent", trusted=False, **kwargs)(pi)  # type: ignore[arg-type]
    ctx = SimpleNamespace(cwd=str(tmp_path), ui=Ui())
    await pi.handlers["session_start"](SimpleNamespace(reason="startup"), ctx)
    return ctx


async def test_default_exposure_registers_deferred_tools_and_activates_codemode(tmp_path: Path) -> None:
    write_config(tmp_path / "agent", {"srv": {"command": sys.executable, "args": [FIXTURE], "description": "Fixtures"}})
    pi = RecordingPi()
    ctx = await start(pi, tmp_path)
    try:
        assert "codemode" in pi.active and "tool_search" not in pi.active
        event = SimpleNamespace(system_prompt="BASE")
        first = await pi.handlers["before_agent_start"](event, ctx)
        assert first["systemPrompt"].startswith("BASE\n\nMCP servers whose tools are not declared to you.")
        assert "- mcp__srv (codemode): Fixtures" in first["systemPrompt"]
        await pi.handlers["tool_call"](SimpleNamespace(tool_name="codemode"), ctx)
        hashed = [n for n in pi.tools if n.startswith("mcp__srv__a_b_")]
        assert len(hashed) == 2 and all(len(n) == len("mcp__srv__a_b_") + 8 for n in hashed)
        echo = pi.tools["mcp__srv__echo"]
        assert echo.exposure == "deferred" and echo.label == "srv/echo"
        assert echo.namespace["name"] == "mcp__srv" and echo.namespace["instructions"].startswith("Fixture server.")
        assert echo.execute is not None
        result = await echo.execute("c1", {"text": "yo"}, None, None, None)
        assert result["content"][0].text == "echo: yo" and result["details"] == {"server": "srv", "tool": "echo"}
        assert {"list_mcp_resources", "read_mcp_resource"} <= set(pi.tools)
        listing = await pi.tools["list_mcp_resources"].execute("c2", {}, None, None, None)  # type: ignore[misc]
        assert json.loads(listing["content"][0].text) == {
            "resources": [
                {
                    "server": "srv",
                    "uri": "file:///notes.txt",
                    "name": "notes",
                    "description": "",
                    "mimeType": "text/plain",
                }
            ]
        }
        read = await pi.tools["read_mcp_resource"].execute(  # type: ignore[misc]
            "c3", {"server": "srv", "uri": "file:///notes.txt"}, None, None, None
        )
        assert read["content"][0].text == "the notes"
        assert pi.tools["list_mcp_resources"].exposure == "deferred"
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)


async def test_tool_exposure_and_direct_tools_are_waited_for(tmp_path: Path) -> None:
    entry = {
        "command": sys.executable,
        "args": [FIXTURE],
        "exposure": "hidden",
        "toolExposure": {"echo": "direct", "a*": "deferred"},
    }
    write_config(tmp_path / "agent", {"srv": entry})
    pi = RecordingPi()
    ctx = await start(pi, tmp_path)
    try:
        assert "tool_search" in pi.active
        await pi.handlers["before_agent_start"](SimpleNamespace(system_prompt=""), ctx)
        assert "mcp__srv__echo" in pi.active, "direct tools are registered before the first prompt goes out"
        assert pi.tools["mcp__srv__echo"].exposure == "direct"
        assert pi.tools["mcp__srv__long_text"].exposure == "hidden"
        assert all(pi.tools[n].exposure == "deferred" for n in pi.tools if n.startswith("mcp__srv__a_b"))
        assert ctx.ui.notes == []
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)


async def test_hung_direct_server_delays_first_prompt_only_up_to_the_limit(tmp_path: Path) -> None:
    hung = {"command": sys.executable, "args": ["-c", "import sys; sys.stdin.read()"], "exposure": "direct"}
    write_config(tmp_path / "agent", {"hung": hung, "broken": {"command": "/nonexistent/binary"}, "bad name": {}})
    pi = RecordingPi()
    ctx = await start(pi, tmp_path, first_prompt_wait_s=0.5)
    try:
        await pi.handlers["before_agent_start"](SimpleNamespace(system_prompt=""), ctx)
        assert ctx.ui.notes == [STILL_CONNECTING_NOTICE]
        await pi.handlers["turn_start"](SimpleNamespace(), ctx)
        report = ctx.ui.notes[-1]
        assert report.startswith("MCP servers need attention:\n  config: ")
        assert '\n  broken: failed: MCP server "broken" failed to connect: ' in report
        assert report.endswith("\nRun /mcp to fix.")
        await pi.handlers["turn_start"](SimpleNamespace(), ctx)
        assert ctx.ui.notes[-1] == report and len(ctx.ui.notes) == 2, "each problem is reported once"
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)


async def test_end_to_end_with_the_published_time_server(tmp_path: Path) -> None:
    write_config(
        tmp_path / "agent",
        {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"], "exposure": "direct"}},
    )
    pi = RecordingPi()
    ctx = await start(pi, tmp_path)
    try:
        await pi.handlers["before_agent_start"](SimpleNamespace(system_prompt=""), ctx)
        tool = pi.tools["mcp__time__get_current_time"]
        assert "mcp__time__get_current_time" in pi.active and "timezone" in tool.parameters["properties"]
        assert tool.execute is not None
        result = await tool.execute("c1", {"timezone": "UTC"}, None, None, None)
        assert json.loads(result["content"][0].text)["timezone"] == "UTC"
        assert "isError" not in result
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)


async def test_servers_registered_later_connect_on_mcp_servers_change(tmp_path: Path) -> None:
    pi = RecordingPi()
    ctx = await start(pi, tmp_path)
    try:
        entry = {"command": sys.executable, "args": [FIXTURE], "exposure": "direct"}
        pi.get_mcp_servers = lambda: [{"name": "late", "config": entry, "extensionPath": "/ext/late.py"}]  # type: ignore[method-assign]
        await pi.handlers["mcp_servers_change"](SimpleNamespace(servers=[]), ctx)
        await pi.handlers["tool_call"](SimpleNamespace(tool_name="tool_search"), ctx)
        assert "mcp__late__echo" in pi.active
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)


async def test_without_a_codemode_engine_tool_search_reaches_codemode_servers(tmp_path: Path) -> None:
    write_config(tmp_path / "agent", {"srv": {"command": sys.executable, "args": [FIXTURE]}})
    pi = RecordingPi(discovery=("tool_search",))
    ctx = await start(pi, tmp_path)
    try:
        assert "tool_search" in pi.active and ctx.ui.notes == []
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)


async def test_with_no_discovery_tool_at_all_one_warning_says_the_tools_cannot_be_called(tmp_path: Path) -> None:
    from pi.app.mcp.extension import UNREACHABLE_WARNING

    write_config(tmp_path / "agent", {"srv": {"command": sys.executable, "args": [FIXTURE]}})
    pi = RecordingPi(discovery=())
    ctx = await start(pi, tmp_path)
    try:
        assert ctx.ui.notes == [UNREACHABLE_WARNING.format(suffix="")]
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)


async def test_a_tool_that_reaches_named_servers_waits_for_them_only(tmp_path: Path) -> None:
    hung = {"command": sys.executable, "args": ["-c", "import sys; sys.stdin.read()"]}
    write_config(tmp_path / "agent", {"srv": {"command": sys.executable, "args": [FIXTURE]}, "hung": hung})
    pi = RecordingPi()
    ctx = await start(pi, tmp_path)
    reacher = SimpleNamespace(name="scripts", reaches_tools=lambda _input: ["mcp__srv"], exposure="direct")
    base = pi.get_all_tools
    pi.get_all_tools = lambda: [*base(), reacher]  # type: ignore[method-assign]
    try:
        await pi.handlers["tool_call"](SimpleNamespace(tool_name="scripts", input={}), ctx)
        assert "mcp__srv__echo" in pi.tools, "the reached server settled before the call runs"
        assert not any(n.startswith("mcp__hung__") for n in pi.tools)
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)
