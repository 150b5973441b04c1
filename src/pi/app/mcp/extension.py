"""The built-in extension `builtin:mcp`: MCP servers from `mcp.json` as pi tools.

At `session_start` it loads the configuration, activates the discovery tools the configured
exposures need and starts connecting in the background. The first prompt waits briefly for
servers with `direct` tools; every prompt gets the `mcp_servers` system-prompt section; problems
are reported once at the next turn; `session_shutdown` closes every server. The MCP SDK is only
imported once a server actually connects.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi.app.mcp.config import McpConfig, load_mcp_config, merge_registered

if TYPE_CHECKING:
    from pi.app.extensions.api import ExtensionAPI
    from pi.app.mcp.manager import McpManager

log = logging.getLogger(__name__)
WAITS_FOR_ALL = frozenset(
    {"tool_search", "codemode", "list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"}
)
UNREACHABLE_WARNING = (
    "MCP tools are only reachable from the codemode or tool_search tool, but neither is active{suffix}; "
    "they cannot be called."
)


def discovery_tools(config: McpConfig) -> list[str]:
    """`codemode` for codemode exposures (unless `autoEnableCodemode: false`), `tool_search` for deferred."""
    exposures = {e for s in config.servers.values() if s.enabled for e in (s.exposure, *s.tool_exposure.values())}
    wanted: list[str] = []
    if "codemode" in exposures and config.auto_enable_codemode is not False:
        wanted.append("codemode")
    if "deferred" in exposures:
        wanted.append("tool_search")
    return wanted


class McpExtensionState:
    """What the extension keeps between events of one session."""

    def __init__(self, agent_dir: Path | None, trusted: bool | Callable[[], bool] | None, wait_s: float) -> None:
        self.wait_s = wait_s
        self.agent_dir = agent_dir
        self.trusted = trusted
        self.manager: McpManager | None = None
        self.first_prompt = True

    def resolve_agent_dir(self) -> Path:
        if self.agent_dir is not None:
            return self.agent_dir
        from pi.app.paths import agent_dir

        return agent_dir()

    def is_trusted(self, ctx: Any) -> bool:
        trusted = self.trusted
        if callable(trusted):
            return bool(trusted())
        if trusted is not None:
            return trusted
        return bool(getattr(ctx, "project_trusted", False))


def _activate(pi: ExtensionAPI, config: McpConfig) -> None:
    """Activate the tools that reach deferred MCP tools, or warn once that nothing can."""
    wanted = discovery_tools(config)
    if not wanted:
        return
    registered = {info.name: info for info in pi.get_all_tools()}
    usable = [name for name in wanted if name in registered and registered[name].reaches_tools is not None]
    active = pi.get_active_tools()
    if usable:
        pi.set_active_tools([*active, *(n for n in usable if n not in active)])
    elif not any(name in active for name in wanted):
        suffix = " (autoEnableCodemode is false)" if config.auto_enable_codemode is False else ""
        log.warning(UNREACHABLE_WARNING.format(suffix=suffix))


def _notify(ctx: Any, text: str, kind: str = "warning") -> None:
    try:
        ctx.ui.notify(text, kind)
    except Exception:
        log.warning("%s", text)


class McpExtension:
    """The event handlers of one loaded instance of `builtin:mcp`."""

    def __init__(self, pi: ExtensionAPI, state: McpExtensionState) -> None:
        self.pi = pi
        self.state = state

    def install(self) -> None:
        pi = self.pi
        pi.on("session_start", self.on_session_start)
        pi.on("before_agent_start", self.on_before_agent_start)
        pi.on("tool_call", self.on_tool_call)
        pi.on("turn_start", self.on_turn_start)
        pi.on("session_shutdown", self.on_session_shutdown)
        pi.on("mcp_servers_change", self.on_servers_change)
        pi.register_command("mcp", self.mcp_command, description="Show MCP servers and their state")

    def _registrations(self) -> list[tuple[str, dict[str, Any], str]]:
        return [(s["name"], s["config"], s["extensionPath"]) for s in self.pi.get_mcp_servers()]

    async def on_session_start(self, _event: Any, ctx: Any) -> None:
        from pi.app.mcp.manager import McpManager

        state, cwd, agent = self.state, Path(ctx.cwd), self.state.resolve_agent_dir()
        config = merge_registered(load_mcp_config(agent, cwd, trusted=state.is_trusted(ctx)), self._registrations())
        state.manager = McpManager(config, cwd=cwd, agent_dir=agent, register=self.pi.register_tool)
        state.manager.on_change = lambda: _register_resource_tools(self.pi, state)
        _activate(self.pi, config)
        state.manager.start()

    async def on_servers_change(self, _event: Any, _ctx: Any) -> None:
        """Servers that extensions registered after start-up connect right away."""
        manager = self.state.manager
        if manager is None:
            return
        merged = merge_registered(McpConfig(servers=dict(manager.config.servers)), self._registrations())
        for name, server in merged.servers.items():
            if name not in manager.connections:
                manager.add(server)

    async def on_before_agent_start(self, event: Any, ctx: Any) -> Any:
        state, manager = self.state, self.state.manager
        if manager is None:
            return None
        if state.first_prompt:
            state.first_prompt = False
            from pi.app.mcp.manager import STILL_CONNECTING_NOTICE

            if not await manager.wait_for_direct(state.wait_s):
                _notify(ctx, STILL_CONNECTING_NOTICE, "info")
        return _system_prompt_result(event, manager)

    async def on_tool_call(self, event: Any, _ctx: Any) -> None:
        manager = self.state.manager
        if manager is not None and str(getattr(event, "tool_name", "")) in WAITS_FOR_ALL:
            await manager.wait_for()

    async def on_turn_start(self, _event: Any, ctx: Any) -> None:
        manager = self.state.manager
        report = manager.attention_report() if manager is not None else None
        if report:
            _notify(ctx, report)

    async def on_session_shutdown(self, _event: Any, _ctx: Any) -> None:
        manager, self.state.manager = self.state.manager, None
        self.state.first_prompt = True
        if manager is not None:
            await manager.shutdown()

    async def mcp_command(self, _args: str, ctx: Any) -> None:
        manager = self.state.manager
        lines = manager.status_lines() if manager is not None else ["MCP support is not started."]
        _notify(ctx, "\n".join(lines), "info")


def create_mcp_extension(
    *,
    agent_dir: Path | None = None,
    trusted: bool | Callable[[], bool] | None = None,
    first_prompt_wait_s: float = 10.0,
) -> Callable[[ExtensionAPI], None]:
    """`setup(pi)` of `builtin:mcp`; `agent_dir`/`trusted` default to pi's agent dir and `ctx.project_trusted`."""
    state = McpExtensionState(agent_dir, trusted, first_prompt_wait_s)

    def setup(pi: ExtensionAPI) -> None:
        McpExtension(pi, state).install()

    return setup


def _system_prompt_result(event: Any, manager: McpManager) -> dict[str, Any] | None:
    from pi.app.mcp.prompt_section import mcp_servers_section

    section = mcp_servers_section((c.server, c.instructions) for c in manager.connections.values())
    if not section:
        return None
    base = str(getattr(event, "system_prompt", "") or "")
    return {"systemPrompt": f"{base}\n\n{section}" if base else section}


def _register_resource_tools(pi: ExtensionAPI, state: McpExtensionState) -> None:
    manager = state.manager
    if manager is None or not any(c.has_resources for c in manager.connections.values()):
        return
    from pi.app.mcp.resource_tools import resource_tools

    for definition in resource_tools(lambda: manager.connections):
        pi.register_tool(definition)


__all__ = ["UNREACHABLE_WARNING", "create_mcp_extension", "discovery_tools"]
