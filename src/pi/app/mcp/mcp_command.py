"""`/mcp`: the server manager (with a UI), status lines (without), and login/logout/reconnect.

With a UI the user picks a server (the ones needing attention first) and then an action: sign in,
show tools, reconnect, sign out, change the exposure, enable or disable. Changes to servers from
`mcp.json` are saved to the file that defines them; extension-registered servers change only for
the session.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi.app.mcp.config import EXPOSURES, McpConfig
from pi.app.mcp.extension import notify
from pi.app.mcp.tool_defs import registered_exposure

if TYPE_CHECKING:
    from pi.app.mcp.client import McpConnection
    from pi.app.mcp.manager import McpManager

log = logging.getLogger(__name__)

USAGE = "Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]"
NO_OAUTH_SERVER = "No enabled MCP server uses OAuth. Only HTTP servers without an Authorization header do."
ATTENTION_FIRST = {"needs-auth": 0, "failed": 1, "disconnected": 2}


def _has_ui(ctx: Any) -> bool:
    return bool(getattr(ctx, "has_ui", False))


class McpCommand:
    """One `/mcp` invocation's context: the manager, where files live, and the extension API."""

    def __init__(self, manager: McpManager, agent_dir: Path, cwd: Path, pi: Any, trusted: bool = False) -> None:
        self.trusted = trusted
        """Whether the project is trusted: only then can a project override be written."""
        self.manager = manager
        self.agent_dir = agent_dir
        self.cwd = cwd
        self.pi = pi

    async def run(self, args: str, ctx: Any) -> None:
        words = args.split()
        if not words:
            if _has_ui(ctx):
                await self.dialog(ctx)
            else:
                notify(ctx, "\n".join(self.manager.status_lines()), "info")
            return
        sub, target = words[0], (words[1] if len(words) > 1 else None)
        if sub not in ("login", "logout", "reconnect") or len(words) > 2:
            notify(ctx, USAGE, "warning")
            return
        if target is not None and target not in self.manager.connections:
            from pi.app.mcp.cli_command import unknown_server_message

            notify(ctx, unknown_server_message(target, McpConfig(servers=dict(self.manager.config.servers))), "error")
            return
        if sub == "reconnect":
            names = [target] if target else [c.name for c in self.manager.enabled()]
            for name in names:
                await self.reconnect(ctx, name)
        elif sub == "logout":
            await self.logout(ctx, target or await self._pick_oauth(ctx))
        else:
            await self.login(ctx, target or await self._pick_oauth(ctx))

    # -- actions -------------------------------------------------------------------------------

    async def reconnect(self, ctx: Any, name: str) -> None:
        state = await self.manager.reconnect(name)
        self._sync_active()
        notify(ctx, f'Reconnected to MCP server "{name}" ({state}).', "info")

    def _oauth_servers(self) -> list[str]:
        from pi.app.mcp.oauth_tokens import uses_oauth

        return [c.name for c in self.manager.enabled() if uses_oauth(c.server)]

    async def _pick_oauth(self, ctx: Any) -> str | None:
        names = self._oauth_servers()
        if not names:
            notify(ctx, NO_OAUTH_SERVER, "warning")
            return None
        if len(names) == 1 or not _has_ui(ctx):
            return names[0]
        choice = await ctx.ui.select("Sign in to which MCP server?", names)
        return str(choice) if choice else None

    async def login(self, ctx: Any, name: str | None) -> None:
        if name is None:
            return
        if not _has_ui(ctx):
            notify(ctx, f'Signing in to MCP server "{name}" requires interactive mode.', "warning")
            return
        from pi.app.mcp.oauth_login import SignInError, sign_in

        server = self.manager.connections[name].server

        async def open_url(url: str) -> None:
            import webbrowser

            notify(ctx, f"Open this URL in your browser to sign in:\n{url}", "info")
            await asyncio.to_thread(webbrowser.open, url)

        try:
            count = await sign_in(server, self.agent_dir, self.cwd, open_url)
        except SignInError as error:
            notify(ctx, f'Signing in to MCP server "{name}" failed: {error}', "error")
            return
        await self.manager.reconnect(name)
        self._sync_active()
        notify(ctx, f'Signed in to MCP server "{name}" ({count} tools).', "info")

    async def logout(self, ctx: Any, name: str | None) -> None:
        if name is None:
            return
        from pi.app.mcp.auth_store import delete_credentials

        if not delete_credentials(self.agent_dir, self.manager.connections[name].server):
            notify(ctx, f'No stored credentials for MCP server "{name}".', "info")
            return
        await self.manager.reconnect(name)
        notify(ctx, f'Signed out of MCP server "{name}".', "info")

    async def set_enabled(self, ctx: Any, name: str, enabled: bool, in_project: bool = False) -> None:
        from pi.app.mcp.server_edits import save_project_override, save_server_field

        server = self.manager.connections[name].server
        if in_project:
            saved: Path | None = save_project_override(server, self.cwd, "enabled", enabled)
        else:
            saved = save_server_field(server, self.agent_dir, self.cwd, "enabled", enabled)
        state = await self.manager.set_enabled(name, enabled)
        self._sync_active()
        where = f" (saved to {saved})" if saved else " (for this session)"
        notify(ctx, f'MCP server "{name}" {"enabled" if enabled else "disabled"}: {state}{where}.', "info")

    async def set_exposure(self, ctx: Any, name: str) -> None:
        from pi.app.mcp.server_edits import save_server_field

        choice = await ctx.ui.select(f"Exposure of {name}", list(EXPOSURES))
        if choice not in EXPOSURES:
            return
        server = self.manager.connections[name].server
        saved = save_server_field(server, self.agent_dir, self.cwd, "exposure", choice)
        await self.manager.set_exposure(name, choice)
        self._sync_active()
        where = f" (saved to {saved})" if saved else " (for this session)"
        notify(ctx, f'MCP server "{name}" exposure: {choice}{where}.', "info")

    def _sync_active(self) -> None:
        """Declare `direct` MCP tools and stop declaring the ones that are no longer direct."""
        try:
            infos = {info.name: info.exposure for info in self.pi.get_all_tools()}
            mine = {n for defs in self.manager.definitions.values() for n in defs}
            active = [n for n in self.pi.get_active_tools() if n not in mine or infos.get(n) == "direct"]
            active += [n for n in sorted(mine) if infos.get(n) == "direct" and n not in active]
            self.pi.set_active_tools(active)
        except Exception as error:  # the session may be gone; nothing to declare then
            log.debug("MCP: could not update active tools: %s", error)

    # -- the manager dialog --------------------------------------------------------------------

    def _row(self, connection: McpConnection) -> str:
        server = connection.server
        state = "disabled" if not server.enabled else connection.state
        return f"{server.name}  {state} · {server.exposure} · {server.scope}"

    async def dialog(self, ctx: Any) -> None:
        connections = sorted(self.manager.connections.values(), key=lambda c: (ATTENTION_FIRST.get(c.state, 3), c.name))
        if not connections:
            notify(ctx, "\n".join(self.manager.status_lines()), "info")
            return
        rows = {self._row(c): c.name for c in connections}
        choice = await ctx.ui.select("MCP servers", list(rows))
        if choice in rows:
            await self.server_actions(ctx, rows[choice])

    async def server_actions(self, ctx: Any, name: str) -> None:
        from pi.app.mcp.oauth_tokens import uses_oauth

        connection = self.manager.connections[name]
        server = connection.server
        oauth = uses_oauth(server)
        actions = (["Sign in"] if oauth else []) + ["Tools", "Reconnect"] + (["Sign out"] if oauth else [])
        toggle = "Disable" if server.enabled else "Enable"
        actions += ["Exposure", toggle]
        if self.trusted and server.scope == "global":
            actions.append(f"{toggle} in this project")
        choice = await ctx.ui.select(f"MCP server {name}", actions)
        if choice == "Sign in":
            await self.login(ctx, name)
        elif choice == "Tools":
            notify(ctx, self.tools_text(connection), "info")
        elif choice == "Reconnect":
            await self.reconnect(ctx, name)
        elif choice == "Sign out":
            await self.logout(ctx, name)
        elif choice == "Exposure":
            await self.set_exposure(ctx, name)
        elif choice in ("Enable", "Disable"):
            await self.set_enabled(ctx, name, choice == "Enable")
        elif choice in ("Enable in this project", "Disable in this project"):
            await self.set_enabled(ctx, name, choice.startswith("Enable"), in_project=True)

    def tools_text(self, connection: McpConnection) -> str:
        if not connection.tools:
            return f"{connection.name}: no tools ({connection.state})"
        lines = [f"{connection.name} tools:"]
        for tool in connection.tools:
            exposure = registered_exposure(connection.server.exposure_for_tool(tool.name))
            summary = f": {tool.description.splitlines()[0]}" if tool.description else ""
            lines.append(f"  {tool.name} [{exposure}]{summary}")
        return "\n".join(lines)


__all__ = ["NO_OAUTH_SERVER", "USAGE", "McpCommand"]
