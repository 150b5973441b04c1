"""All MCP connections of one session: background connects, tool registration, status and shutdown.

Connecting never blocks the session: `start()` schedules one task per enabled server and returns.
Only the first prompt waits (at most 10 s) and only for servers that have `direct` tools, because
those must be declared in that very request.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi.app.extensions.types import ToolDefinition
from pi.app.mcp.client import McpConnection
from pi.app.mcp.config import McpConfig, ServerConfig, ServerExposure
from pi.app.mcp.tool_defs import definitions_for, withdrawn

log = logging.getLogger(__name__)

FIRST_PROMPT_WAIT_S = 10.0
STILL_CONNECTING_NOTICE = "MCP servers are still connecting; their tools become available once connected."


def has_direct_tools(server: ServerConfig) -> bool:
    """Known from the configuration alone, before the server lists its tools."""
    return server.exposure == "direct" or "direct" in server.tool_exposure.values()


class McpManager:
    """Owns the connections; hands tool definitions to `register` as servers connect."""

    def __init__(
        self,
        config: McpConfig,
        *,
        cwd: Path,
        agent_dir: Path,
        register: Callable[[ToolDefinition], Any],
        on_change: Callable[[], Any] | None = None,
    ) -> None:
        self.config = config
        self.cwd = cwd
        self.agent_dir = agent_dir
        self.register = register
        self.on_change = on_change
        self.connections: dict[str, McpConnection] = {}
        self.definitions: dict[str, dict[str, ToolDefinition]] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._reported: set[str] = set()
        self._reconnecting: set[str] = set()
        self._background: set[asyncio.Future[None]] = set()
        self._rejected: dict[str, str] = {}
        """The token each needs-auth server was last retried with, so one bad token is tried once."""
        for server in config.servers.values():
            self._track(server)

    def _track(self, server: ServerConfig) -> McpConnection:
        connection = McpConnection(
            server,
            cwd=self.cwd,
            log_path=self.agent_dir / "mcp.log",
            agent_dir=self.agent_dir,
            on_tools_changed=self._tools_changed,
        )
        self.connections[server.name] = connection
        return connection

    def add(self, server: ServerConfig) -> None:
        """A server registered while the session runs: tracked and, when enabled, connected now."""
        self.config.servers[server.name] = server
        connection = self._track(server)
        if server.enabled:
            self._tasks[server.name] = asyncio.ensure_future(self._connect(connection))

    async def remove(self, name: str) -> None:
        """A server that is no longer registered: closed, its tools re-registered `hidden`."""
        connection = self.connections.pop(name, None)
        self.config.servers.pop(name, None)
        task = self._tasks.pop(name, None)
        if task is not None and not task.done():
            task.cancel()
        if connection is not None:
            await connection.close()
            self._withdraw(connection)

    def enabled(self) -> list[McpConnection]:
        return [c for c in self.connections.values() if c.server.enabled]

    def start(self) -> None:
        """Connect every enabled server in the background."""
        for connection in self.enabled():
            self._tasks[connection.name] = asyncio.ensure_future(self._connect(connection))

    async def _connect(self, connection: McpConnection) -> None:
        state = await connection.connect()
        if state == "connected":
            self._publish(connection)
        elif connection.error:
            log.info("%s", connection.error)

    def _taken_names(self, server: str) -> set[str]:
        return {name for other, defs in self.definitions.items() if other != server for name in defs}

    def _publish(self, connection: McpConnection) -> None:
        """Register (or replace) the server's tools; tools it no longer lists become `hidden`."""
        old = self.definitions.get(connection.name, {})
        new = {d.name: d for d in definitions_for(connection, self._taken_names(connection.name))}
        for definition in new.values():
            self.register(definition)
        for name, definition in old.items():
            if name not in new:
                hidden = withdrawn(definition)
                self.register(hidden)
                new[name] = hidden
        self.definitions[connection.name] = new
        if self.on_change is not None:
            self.on_change()

    def _tools_changed(self, connection: McpConnection) -> None:
        self._publish(connection)

    async def wait_for(self, names: list[str] | None = None, timeout: float | None = None) -> bool:
        """Wait until the named (default: all enabled) servers settled; False when time ran out."""
        tasks = [t for n, t in self._tasks.items() if names is None or n in names]
        if not tasks:
            return True
        _done, pending = await asyncio.wait([asyncio.shield(t) for t in tasks], timeout=timeout)
        return not pending

    async def wait_for_direct(self, timeout: float = FIRST_PROMPT_WAIT_S) -> bool:
        """The first-prompt wait: only servers with `direct` tools; True when all of them settled."""
        names = [c.name for c in self.enabled() if has_direct_tools(c.server)]
        if not names:
            return True
        return await self.wait_for(names, timeout)

    def attention_lines(self) -> list[str]:
        lines = [f"config: {error}" for error in self.config.errors]
        for connection in self.enabled():
            if connection.state == "needs-auth":
                lines.append(f"{connection.name}: needs sign-in")
            elif connection.state == "failed":
                first = (connection.error or "").split("\n", 1)[0]
                lines.append(f"{connection.name}: failed: {first}")
        return lines

    def attention_report(self) -> str | None:
        """`MCP servers need attention: …` for problems not reported before (each only once)."""
        fresh = [line for line in self.attention_lines() if line not in self._reported]
        if not fresh:
            return None
        self._reported.update(fresh)
        body = "\n".join(f"  {line}" for line in fresh)
        return f"MCP servers need attention:\n{body}\nRun /mcp to fix."

    def status_lines(self) -> list[str]:
        """The text `/mcp` prints outside the terminal UI."""
        if not self.connections and not self.config.errors:
            return [f"No MCP servers configured. Add them to {self.agent_dir}/mcp.json or .pi/mcp.json."]
        lines: list[str] = []
        for connection in self.connections.values():
            lines.extend(status_line(connection))
        lines.extend(f"config error: {error}" for error in self.config.errors)
        lines.extend(f"overridden: {note}" for note in self.config.notes)
        return lines

    async def reconnect(self, name: str) -> str:
        """Close and connect one server again (after a sign-in, or on request); its new state."""
        connection = self.connections[name]
        task = self._tasks.pop(name, None)
        if task is not None and not task.done():
            task.cancel()
        await connection.close()
        if not connection.server.enabled:
            self._withdraw(connection)
            return "disabled"
        task = asyncio.ensure_future(self._connect(connection))
        self._tasks[name] = task
        await asyncio.shield(task)
        return connection.state

    def reconnect_signed_in(self) -> None:
        """Servers waiting for sign-in whose tokens appeared (a sign-in in another pi) reconnect in
        the background; their tools register once connected."""
        from pi.app.mcp.auth_store import load_credentials
        from pi.app.mcp.oauth_tokens import access_token

        for connection in self.enabled():
            if connection.state != "needs-auth" or connection.name in self._reconnecting:
                continue
            state = load_credentials(self.agent_dir, connection.server) or {}
            token = access_token(state)
            if token is None or token == self._rejected.get(connection.name) or "stepUpScope" in state:
                continue
            self._rejected[connection.name] = token
            self._reconnecting.add(connection.name)
            task = asyncio.ensure_future(self._reconnect_quietly(connection.name))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _reconnect_quietly(self, name: str) -> None:
        try:
            await self.reconnect(name)
        except Exception as error:
            log.info("MCP server %s: reconnect after sign-in failed: %s", name, error)
        finally:
            self._reconnecting.discard(name)

    def _withdraw(self, connection: McpConnection) -> None:
        """Re-register every tool of the server `hidden` (a disabled server offers nothing)."""
        old = self.definitions.get(connection.name, {})
        hidden = {name: withdrawn(definition) for name, definition in old.items()}
        for definition in hidden.values():
            self.register(definition)
        self.definitions[connection.name] = hidden

    async def set_enabled(self, name: str, enabled: bool) -> str:
        """Switch a server on (connects it) or off (closes it and hides its tools)."""
        self.connections[name].server.enabled = enabled
        return await self.reconnect(name)

    async def set_exposure(self, name: str, exposure: ServerExposure) -> None:
        """Change the server's exposure; its tools are registered again with the new one."""
        connection = self.connections[name]
        connection.server.exposure = exposure
        if connection.state == "connected":
            self._publish(connection)

    async def shutdown(self) -> None:
        """Close every connection (stdio servers get pi's close sequence)."""
        for task in [*self._tasks.values(), *self._background]:
            if not task.done():
                task.cancel()
        await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)


def status_line(connection: McpConnection) -> list[str]:
    server = connection.server
    if not server.enabled:
        state = "disabled"
    elif connection.state == "connected":
        state = f"connected, {len(connection.tools)} tools"
    elif connection.state == "needs-auth":
        state = f"needs sign-in, run /mcp login {server.name}"
    elif connection.state == "disconnected" and connection.error:
        state = "disconnected, reconnects on next call"
    elif connection.state in ("connecting", "disconnected"):
        state = "starting"
    else:
        state = connection.state
    out = [f"{server.name}: {state} ({server.exposure})"]
    if connection.state == "failed" and connection.error:
        out.extend(f"  {line}" for line in connection.error.split("\n"))
    return out


__all__ = ["FIRST_PROMPT_WAIT_S", "STILL_CONNECTING_NOTICE", "McpManager", "has_direct_tools", "status_line"]
