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
from pi.app.mcp.prompt_section import SECTION_MESSAGE_TYPE, PromptSections

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
        self.sections = PromptSections()

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
        check = getattr(ctx, "is_project_trusted", None)
        return bool(check()) if callable(check) else False


def _activate(pi: ExtensionAPI, config: McpConfig, ctx: Any) -> None:
    """Activate the tools that reach deferred MCP tools, or warn once that nothing can."""
    wanted = discovery_tools(config)
    if not wanted:
        return
    registered = {info.name: info for info in pi.get_all_tools()}

    def reaches(name: str) -> bool:
        return name in registered and registered[name].reaches_tools is not None

    if "codemode" in wanted and not reaches("codemode") and "tool_search" not in wanted:
        wanted.append("tool_search")  # without a codemode engine, tool_search can still load those tools
    usable = [name for name in wanted if reaches(name)]
    active = pi.get_active_tools()
    if usable:
        pi.set_active_tools([*active, *(n for n in usable if n not in active)])
    elif not any(name in active for name in wanted):
        suffix = " (autoEnableCodemode is false)" if config.auto_enable_codemode is False else ""
        notify(ctx, UNREACHABLE_WARNING.format(suffix=suffix))


def _reached(namespace: str, server: str, wanted: set[str]) -> bool:
    """Whether a `reaches_tools` answer (namespaces, server names or tool names) covers the server."""
    return any(w in (namespace, server) or w.startswith(namespace + "__") for w in wanted)


def notify(ctx: Any, text: str, kind: str = "warning") -> None:
    """Tell the user through the UI when there is one; print and JSON modes have none, so the text is
    logged (a warning, which reaches stderr there). `/mcp` reports the same way."""
    if getattr(ctx, "has_ui", True):
        try:
            ctx.ui.notify(text, kind)
            return
        except Exception as error:
            log.debug("MCP: notify failed: %s", error)
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
        pi.on("session_compact", self.on_context_replaced)
        pi.on("session_tree", self.on_context_replaced)
        pi.register_command("mcp", self.mcp_command, description="Show MCP servers and their state")

    def _registrations(self) -> list[tuple[str, dict[str, Any], str]]:
        return [(s["name"], s["config"], s["extensionPath"]) for s in self.pi.get_mcp_servers()]

    async def on_session_start(self, _event: Any, ctx: Any) -> None:
        from pi.app.mcp.manager import McpManager

        state, cwd, agent = self.state, Path(ctx.cwd), self.state.resolve_agent_dir()
        config = merge_registered(load_mcp_config(agent, cwd, trusted=state.is_trusted(ctx)), self._registrations())
        state.manager = McpManager(config, cwd=cwd, agent_dir=agent, register=self.pi.register_tool)
        state.manager.on_change = lambda: _register_resource_tools(self.pi, state)
        _activate(self.pi, config, ctx)
        state.manager.start()

    async def on_servers_change(self, _event: Any, _ctx: Any) -> None:
        """Servers that extensions registered after start-up connect right away."""
        manager = self.state.manager
        if manager is None:
            return
        from_files = {n: s for n, s in manager.config.servers.items() if s.scope != "extension"}
        merged = merge_registered(McpConfig(servers=dict(from_files)), self._registrations())
        manager.config.notes[:] = merged.notes
        for name, connection in list(manager.connections.items()):
            wanted = merged.servers.get(name)
            if connection.server.scope == "extension" and (wanted is None or wanted.raw != connection.server.raw):
                await manager.remove(name)
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
                notify(ctx, STILL_CONNECTING_NOTICE, "info")
        return _system_prompt_result(event, manager, state.sections)

    async def on_tool_call(self, event: Any, _ctx: Any) -> None:
        """Tools that reach MCP tools wait for the servers they may reach (all, or the named ones)."""
        manager = self.state.manager
        if manager is None:
            return
        name = str(getattr(event, "tool_name", ""))
        reach: Any = "all" if name in WAITS_FOR_ALL else None
        if reach is None:
            info = next((t for t in self.pi.get_all_tools() if t.name == name), None)
            if info is None or info.reaches_tools is None:
                return
            try:
                reach = info.reaches_tools(getattr(event, "input", None))
            except Exception as error:
                log.debug("MCP: reaches_tools of %s failed: %s", name, error)
                reach = "all"
        if reach == "all":
            await manager.wait_for()
        elif isinstance(reach, list | tuple | set):
            wanted = {str(r) for r in reach}
            servers = [c.name for c in manager.enabled() if _reached(c.server.namespace, c.name, wanted)]
            if servers:
                await manager.wait_for(servers)

    async def on_turn_start(self, _event: Any, ctx: Any) -> None:
        manager = self.state.manager
        if manager is None:
            return
        manager.reconnect_signed_in()
        report = manager.attention_report()
        if report:
            notify(ctx, report)

    async def on_context_replaced(self, _event: Any, _ctx: Any) -> None:
        self.state.sections.forget_updates()

    async def on_session_shutdown(self, _event: Any, _ctx: Any) -> None:
        manager, self.state.manager = self.state.manager, None
        self.state.first_prompt = True
        self.state.sections = PromptSections()
        if manager is not None:
            await manager.shutdown()

    async def mcp_command(self, args: str, ctx: Any) -> None:
        manager = self.state.manager
        if manager is None:
            notify(ctx, "MCP support is not started.", "info")
            return
        from pi.app.mcp.mcp_command import McpCommand

        agent, cwd = self.state.resolve_agent_dir(), Path(ctx.cwd)
        await McpCommand(manager, agent, cwd, self.pi, trusted=self.state.is_trusted(ctx)).run(args or "", ctx)


def create_mcp_extension(
    *,
    agent_dir: Path | None = None,
    trusted: bool | Callable[[], bool] | None = None,
    first_prompt_wait_s: float = 10.0,
) -> Callable[[ExtensionAPI], None]:
    """`setup(pi)` of `builtin:mcp`; `agent_dir`/`trusted` default to pi's agent dir and `ctx.is_project_trusted()`."""
    state = McpExtensionState(agent_dir, trusted, first_prompt_wait_s)

    def setup(pi: ExtensionAPI) -> None:
        McpExtension(pi, state).install()

    return setup


def _system_prompt_result(event: Any, manager: McpManager, sections: PromptSections) -> dict[str, Any] | None:
    from pi.app.mcp.prompt_section import mcp_servers_section

    section = mcp_servers_section((c.server, c.instructions) for c in manager.connections.values())
    in_prompt, update = sections.next(section)
    result: dict[str, Any] = {}
    if in_prompt:
        base = str(getattr(event, "system_prompt", "") or "")
        result["systemPrompt"] = f"{base}\n\n{in_prompt}" if base else in_prompt
    if update is not None:
        result["message"] = {"customType": SECTION_MESSAGE_TYPE, "content": update, "display": False}
    return result or None


def _register_resource_tools(pi: ExtensionAPI, state: McpExtensionState) -> None:
    manager = state.manager
    if manager is None or not any(c.has_resources for c in manager.connections.values()):
        return
    from pi.app.mcp.resource_tools import resource_tools

    for definition in resource_tools(lambda: manager.connections):
        pi.register_tool(definition)


__all__ = ["UNREACHABLE_WARNING", "create_mcp_extension", "discovery_tools", "notify"]
