"""`pi mcp list [--json]`: connect to every enabled server and show what it offers.

A server whose last answer asked for more scope (`403 insufficient_scope`, remembered in
`mcp-auth.json` until the next sign-in) is listed as waiting for sign-in even though the narrower
token still connects: its calls would be refused until the user signs in again.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from pathlib import Path
from typing import Any, TextIO

from pi.app.mcp.client import McpConnection
from pi.app.mcp.config import ServerConfig, load_mcp_config, project_config_path
from pi.app.mcp.tool_defs import registered_exposure


def transport_text(server: ServerConfig) -> str:
    if server.transport == "http":
        return f"http: {server.url}"
    return "stdio: " + shlex.join([server.command or "", *server.args])


def listed_state(connection: McpConnection, agent_dir: Path | None = None) -> str:
    """The state to report: the connection's, except that a pending step-up sign-in is `needs-auth`."""
    if not connection.server.enabled:
        return "disabled"
    if connection.state == "connected" and agent_dir is not None and _step_up_pending(connection, agent_dir):
        return "needs-auth"
    return connection.state


def _step_up_pending(connection: McpConnection, agent_dir: Path) -> bool:
    from pi.app.mcp.oauth_tokens import step_up_pending, uses_oauth

    server = connection.server
    return not server.auth_provider and uses_oauth(server) and step_up_pending(agent_dir, server)


def state_text(connection: McpConnection, state: str | None = None) -> str:
    state = state or listed_state(connection)
    if state == "connected":
        count = len(connection.tools)
        return f"connected, {count} tool{'' if count == 1 else 's'}"
    if state == "needs-auth":
        return "needs sign-in"
    return state


def server_lines(connection: McpConnection, agent_dir: Path | None = None) -> list[str]:
    server = connection.server
    state = listed_state(connection, agent_dir)
    lines = [
        f"{server.name}: {state_text(connection, state)} ({server.exposure}, {server.scope})",
        f"  {transport_text(server)}",
    ]
    if server.override:
        lines.append(f"  project override: {server.override}")
    if state == "needs-auth":
        provider = server.auth_provider
        how = f"/login {provider} in pi" if provider else f"pi mcp login {server.name}"
        lines.append(f"  sign in with: {how}")
    if connection.tools:
        shown = []
        for tool in connection.tools:
            exposure = registered_exposure(server.exposure_for_tool(tool.name))
            shown.append(tool.name if exposure == registered_exposure(server.exposure) else f"{tool.name} [{exposure}]")
        lines.append("  tools: " + ", ".join(shown))
    if connection.has_resources:
        lines.append("  offers resources")
    if connection.error and connection.state not in ("connected", "needs-auth"):
        lines.extend(f"  {line}" for line in connection.error.split("\n"))
    return lines


def server_json(connection: McpConnection, agent_dir: Path | None = None) -> dict[str, Any]:
    server = connection.server
    out: dict[str, Any] = {"name": server.name, "scope": server.scope, "source": server.source}
    if server.override:
        out["override"] = server.override
    out.update(enabled=server.enabled, exposure=server.exposure, transport=server.transport)
    if server.auth_provider:
        out["authProvider"] = server.auth_provider
    out["state"] = listed_state(connection, agent_dir)
    out["tools"] = [t.name for t in connection.tools]
    if server.tool_exposure:
        out["toolExposure"] = dict(server.tool_exposure)
    if connection.has_resources:
        out["resources"] = True
    if connection.error and connection.state != "connected":
        out["error"] = connection.error
    return out


def untrusted_note(cwd: Path, trusted: bool) -> str:
    """The line saying that an untrusted project's `.pi/mcp.json` is not read (empty when nothing is ignored)."""
    path = project_config_path(cwd)
    if trusted or not path.is_file():
        return ""
    return f"{path} is ignored because the project is not trusted. Start pi in the project to trust it.\n"


async def cmd_list(argv: list[str], agent_dir: Path, cwd: Path, trusted: bool, out: TextIO) -> int:
    config = load_mcp_config(agent_dir, cwd, trusted=trusted)
    connections = [
        McpConnection(s, cwd=cwd, log_path=agent_dir / "mcp.log", agent_dir=agent_dir) for s in config.servers.values()
    ]
    enabled = [c for c in connections if c.server.enabled]
    await asyncio.gather(*(c.connect() for c in enabled))
    failed = bool(config.errors) or any(listed_state(c, agent_dir) != "connected" for c in enabled)
    try:
        if "--json" in argv:
            servers = [server_json(c, agent_dir) for c in connections]
            data: dict[str, Any] = {"servers": servers, "errors": config.errors}
            if not connections:
                data["note"] = f"No MCP servers configured. Add them to {agent_dir}/mcp.json or .pi/mcp.json."
            out.write(json.dumps(data, indent=2) + "\n")
        elif not connections and not config.errors:
            out.write(untrusted_note(cwd, trusted))
            out.write(f"No MCP servers configured. Add them to {agent_dir}/mcp.json or .pi/mcp.json.\n")
        else:
            out.write(untrusted_note(cwd, trusted))
            for connection in connections:
                out.write("\n".join(server_lines(connection, agent_dir)) + "\n")
            for error in config.errors:
                out.write(f"config error: {error}\n")
    finally:
        await asyncio.gather(*(c.close() for c in enabled), return_exceptions=True)
    return 1 if failed else 0


__all__ = ["cmd_list", "listed_state", "server_lines", "transport_text", "untrusted_note"]
