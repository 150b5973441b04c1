"""Which tools a session with extensions has, and which of them the model is offered.

The agent holds the active tools. This set knows every tool that could be active: the built-in
tools the session started with (others are built on demand, when an extension activates one),
and the tools extensions registered, adapted for the agent loop. An extension tool named like a
built-in replaces it. Extension tools are active from the start unless they say otherwise
(`default_active=False`, or an exposure other than `direct`/`model-only`); `hidden` tools are
never reachable. Before the first prompt the system prompt is rebuilt so it describes the tools
the model will really get; after that the session keeps it in step by itself.

A resumed session gets back the extension and MCP tools it was using: the names its system messages
declared when it was opened are remembered (before any new request records a smaller set), and each
such tool is activated when it registers, however late (MCP servers connect in the background).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pi.agent.tool import AgentTool, tool_schema
from pi.app.extensions.registry import ExtensionRegistry
from pi.app.extensions.tool_adapter import to_agent_tool
from pi.app.extensions.types import SourceInfo, ToolDefinition, ToolInfo

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession


class SessionToolSet:
    def __init__(self, session: AgentSession, prompted: Callable[[], bool]) -> None:
        self.session = session
        self._prompted = prompted
        self.builtin: dict[str, AgentTool[Any]] = {tool.name: tool for tool in session.tools}
        self.active: list[str] = [tool.name for tool in session.agent.state.tools]
        self.tool_options: Any = None
        self._registry: ExtensionRegistry | None = None
        self._context: Callable[[str], Any] | None = None
        self._adapted: dict[int, tuple[ToolDefinition, AgentTool[Any]]] = {}
        self._defaults_seen: set[str] = set()
        self._admits: Callable[[str], bool] | None = None
        self.requested: Callable[[str], bool] = lambda _name: False
        """Whether the tool flags or ``defaultTools`` turn on an extension tool registered inactive."""
        """The command line's tool choice for tools it could not name yet (None: every tool may be active)."""
        self._resumed_for: str | None = None
        self._resumed: dict[str, None] = {}
        """Non-built-in tools the opened session last declared, in order, not yet given back."""
        self._remember_resumed_tools()

    def _remember_resumed_tools(self) -> None:
        """Note which extension tools the session file (if it changed) was using, to restore them on registration."""
        from pi.tools import ALL_TOOL_NAMES

        manager = self.session.session
        session_id = manager.get_session_id()
        if session_id == self._resumed_for:
            return
        self._resumed_for = session_id
        state = manager.get_system_state() if manager.get_entries() else None
        declared = list(state.tools) if state is not None else []
        self._resumed = dict.fromkeys(name for name in declared if name not in ALL_TOOL_NAMES)

    def admit_with(self, admits: Callable[[str], bool] | None) -> None:
        """Apply `--tools`/`--exclude-tools` to extension and MCP tools registered from now on."""
        self._admits = admits

    def bind(self, registry: ExtensionRegistry, context: Callable[[str], Any]) -> None:
        """Use this generation's registry (a reload keeps the active names) and refresh."""
        self._registry = registry
        self._context = context
        self._adapted.clear()
        self._remember_resumed_tools()
        self.refresh()

    def _extension_tools(self) -> dict[str, AgentTool[Any]]:
        registry, context = self._registry, self._context
        if registry is None or context is None:
            return {}
        out: dict[str, AgentTool[Any]] = {}
        for name, (_, definition) in registry.tools().items():
            if definition.exposure == "hidden":
                continue
            cached = self._adapted.get(id(definition))
            if cached is None or cached[0] is not definition:
                cached = (definition, to_agent_tool(definition, context))
                self._adapted[id(definition)] = cached
            out[name] = cached[1]
        return out

    def all_tools(self) -> dict[str, AgentTool[Any]]:
        """Every reachable tool by name (extension tools over built-ins of the same name)."""
        return {**self.builtin, **self._extension_tools()}

    def known_names(self) -> list[str]:
        from pi.tools import ALL_TOOL_NAMES

        return list(dict.fromkeys([*self.all_tools(), *ALL_TOOL_NAMES]))

    def refresh(self) -> None:
        """Activate newly registered default-active tools and give the agent the active set."""
        registry = self._registry
        if registry is not None:
            admits = self._admits
            for name in registry.default_active_tools():
                if name not in self._defaults_seen:
                    self._defaults_seen.add(name)
                    if name not in self.active and (admits is None or admits(name)):
                        self.active.append(name)
            for name, (_, tool) in registry.tools().items():
                if name not in self._defaults_seen and tool.exposure != "hidden" and self.requested(name):
                    self._defaults_seen.add(name)
                    if name not in self.active:
                        self.active.append(name)
            self._restore_resumed(admits)
        tools = self.all_tools()
        active = [tools[name] for name in self.active if name in tools]
        self.session.agent.set_tools(active)
        if not self._prompted():
            self.session.replace_initial_tools(active)

    def _restore_resumed(self, admits: Callable[[str], bool] | None) -> None:
        """Activate the resumed session's tools that have registered by now (each once)."""
        if not self._resumed:
            return
        registered = self._extension_tools()
        for name in [name for name in self._resumed if name in registered]:
            del self._resumed[name]
            if name not in self.active and (admits is None or admits(name)):
                self.active.append(name)

    def _build_missing_builtins(self) -> None:
        """Every built-in tool exists once an extension asks about or activates tools.

        They get the wiring the start-up tools got (bash's PI_* variables, read's image handling for
        the session's model), so a tool activated later behaves like one the session began with.
        """
        from pi.app.sdk import session_tool_options
        from pi.tools import ALL_TOOL_NAMES, create_tool

        missing = [name for name in ALL_TOOL_NAMES if name not in self.builtin]
        if not missing:
            return
        options = session_tool_options(self.session, self.tool_options, missing)
        for name in missing:
            self.builtin[name] = create_tool(name, str(self.session.cwd), options)

    def set_active(self, names: Sequence[str]) -> None:
        """Activate exactly `names` (unknown and hidden names are ignored; missing built-ins are built)."""
        self._build_missing_builtins()
        known = set(self.known_names())
        admits = self._admits
        self.active = [
            name
            for name in dict.fromkeys(names)
            if name in known and (admits is None or name in self.builtin or admits(name))
        ]
        self.refresh()

    def infos(self) -> list[ToolInfo]:
        """`pi.get_all_tools()`: built-ins first (unless replaced), then extension tools."""
        self._build_missing_builtins()
        registry = self._registry
        extension = {info.name: info for info in registry.tool_infos()} if registry is not None else {}
        out: list[ToolInfo] = []
        for name, tool in self.builtin.items():
            if name in extension:
                continue
            out.append(
                ToolInfo(
                    name=name,
                    description=tool.description,
                    parameters=tool_schema(tool.parameters),
                    prompt_guidelines=list(tool.prompt_guidelines),
                    exposure="direct",
                    source_info=SourceInfo(f"builtin:{name}", "builtin"),
                )
            )
        out.extend(extension.values())
        return out


__all__ = ["SessionToolSet"]
