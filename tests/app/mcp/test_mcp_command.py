"""`/mcp` of builtin:mcp: status lines, login/logout/reconnect messages and the manager dialog."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pi.app.mcp.auth_store import save_credentials
from pi.app.mcp.mcp_command import NO_OAUTH_SERVER, USAGE
from tests.app.mcp.conftest import FIXTURE
from tests.app.mcp.test_extension import RecordingPi, Ui, write_config


class DialogUi(Ui):
    """Answers each `select` with the first option containing the next scripted text."""

    def __init__(self, answers: Sequence[str]) -> None:
        super().__init__()
        self.answers = list(answers)
        self.titles: list[tuple[str, list[str]]] = []

    async def select(self, title: str, options: Sequence[str], **_kwargs: Any) -> str | None:
        self.titles.append((title, list(options)))
        wanted = self.answers.pop(0)
        return next((o for o in options if wanted in o), None)


async def _session(
    tmp_path: Path, servers: dict[str, Any], ui: Ui, has_ui: bool, trusted: bool = False
) -> tuple[RecordingPi, Any]:
    from pi.app.mcp.extension import create_mcp_extension

    write_config(tmp_path / "agent", servers)
    pi = RecordingPi()
    create_mcp_extension(agent_dir=tmp_path / "agent", trusted=trusted)(pi)  # type: ignore[arg-type]
    ctx = SimpleNamespace(cwd=str(tmp_path), ui=ui, has_ui=has_ui)
    await pi.handlers["session_start"](SimpleNamespace(reason="startup"), ctx)
    await pi.handlers["tool_call"](SimpleNamespace(tool_name="tool_search"), ctx)  # wait for the connects
    return pi, ctx


def _srv(**extra: Any) -> dict[str, Any]:
    import sys

    return {"command": sys.executable, "args": [FIXTURE], **extra}


async def test_status_lines_usage_and_messages(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    ui = Ui()
    web = {"url": "http://127.0.0.1:1/mcp", "enabled": False}
    pi, ctx = await _session(tmp_path, {"srv": _srv(exposure="direct"), "web": web}, ui, has_ui=True)
    command = pi.commands["mcp"]
    try:
        await command("reconnect", ctx)
        assert ui.notes[-1] == 'Reconnected to MCP server "srv" (connected).'
        ctx.has_ui = False
        with caplog.at_level(logging.WARNING):
            await command("", ctx)
        assert caplog.messages[-1].splitlines() == ["srv: connected, 11 tools (direct)", "web: disabled (codemode)"]
        ctx.has_ui = True
        await command("bogus", ctx)
        assert ui.notes[-1] == USAGE
        await command("reconnect srv", ctx)
        assert ui.notes[-1] == 'Reconnected to MCP server "srv" (connected).'
        assert "mcp__srv__echo" in pi.active
        await command("login", ctx)
        assert ui.notes[-1] == NO_OAUTH_SERVER
        await command("logout srvv", ctx)
        assert ui.notes[-1] == 'No MCP server named "srvv". Did you mean "srv"? Configured: srv, web.'
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)


async def test_login_needs_a_ui_and_logout_deletes_stored_credentials(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ui = Ui()
    pi, ctx = await _session(tmp_path, {"web": {"url": "http://127.0.0.1:1/mcp"}}, ui, has_ui=False)
    command = pi.commands["mcp"]
    try:
        with caplog.at_level(logging.WARNING):
            await command("login web", ctx)
        assert caplog.messages[-1] == 'Signing in to MCP server "web" requires interactive mode.'
        ctx.has_ui = True
        await command("logout web", ctx)
        assert ui.notes[-1] == 'No stored credentials for MCP server "web".'
        from pi.app.mcp.config import validate_server

        server = validate_server("web", {"url": "http://127.0.0.1:1/mcp"}, scope="global", source="t")
        save_credentials(tmp_path / "agent", server, {"tokens": {"access_token": "x"}})
        await command("logout web", ctx)
        assert ui.notes[-1] == 'Signed out of MCP server "web".'
        assert json.loads((tmp_path / "agent" / "mcp-auth.json").read_text()) == {}
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)


async def test_the_dialog_lists_servers_and_disabling_is_saved_to_the_file(tmp_path: Path) -> None:
    ui = DialogUi(["srv", "Tools", "srv", "Disable", "srv", "Exposure", "deferred"])
    broken = {"command": "/nonexistent/binary"}
    pi, ctx = await _session(tmp_path, {"srv": _srv(exposure="direct"), "broken": broken}, ui, has_ui=True)
    command = pi.commands["mcp"]
    try:
        await command("", ctx)
        title, rows = ui.titles[0]
        assert title == "MCP servers"
        assert rows == ["broken  failed · codemode · global", "srv  connected · direct · global"]
        assert ui.notes[-1].startswith("srv tools:\n") and "  echo [direct]: Echo the text back" in ui.notes[-1]
        await command("", ctx)
        assert ui.titles[3][1] == ["Tools", "Reconnect", "Exposure", "Disable"]
        saved = json.loads((tmp_path / "agent" / "mcp.json").read_text())
        assert saved["mcpServers"]["srv"]["enabled"] is False
        assert "mcp__srv__echo" not in pi.active and pi.tools["mcp__srv__echo"].exposure == "hidden"
        await command("", ctx)
        saved = json.loads((tmp_path / "agent" / "mcp.json").read_text())
        assert saved["mcpServers"]["srv"]["exposure"] == "deferred"
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)


async def test_disabling_in_a_trusted_project_writes_a_project_override(tmp_path: Path) -> None:
    ui = DialogUi(["srv", "Disable in this project"])
    pi, ctx = await _session(tmp_path, {"srv": _srv(exposure="direct")}, ui, has_ui=True, trusted=True)
    try:
        await pi.commands["mcp"]("", ctx)
        assert ui.titles[1][1][-1] == "Disable in this project"
        project = json.loads((tmp_path / ".pi" / "mcp.json").read_text())
        assert project == {"mcpServers": {"srv": {"enabled": False}}}
        assert "enabled" not in json.loads((tmp_path / "agent" / "mcp.json").read_text())["mcpServers"]["srv"]
        assert ui.notes[-1] == f'MCP server "srv" disabled: disabled (saved to {tmp_path / ".pi" / "mcp.json"}).'
    finally:
        await pi.handlers["session_shutdown"](SimpleNamespace(reason="quit"), ctx)
