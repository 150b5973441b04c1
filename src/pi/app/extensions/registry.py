"""Everything the loaded extensions registered, merged in load order.

Tools: the first extension to register a name owns it; a tool named like a built-in replaces the
built-in. Commands never conflict: a name several extensions register is offered as `name:1`,
`name:2`, ... in load order. Flags belong to their first registrant too. Providers and MCP servers
registered during loading wait until the session binds; after that they apply at once.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pi.app.extensions import errors
from pi.app.extensions.extension import Extension, FlagDefinition, RegisteredCommand
from pi.app.extensions.types import (
    ACTIVE_BY_DEFAULT,
    BUILTIN_TOOL_NAMES,
    CommandInfo,
    Diagnostic,
    ExtensionErrorInfo,
    McpServerRegistration,
    ToolDefinition,
    ToolInfo,
)

logger = logging.getLogger(__name__)
ErrorListener = Callable[[ExtensionErrorInfo], None]


class ExtensionRegistry:
    """The committed extensions and the merged view of their registrations."""

    def __init__(self) -> None:
        self.extensions: list[Extension] = []
        self.flag_values: dict[str, bool | str] = {}
        """Values given on the command line for extension flags (`--name [value]`)."""
        self.mcp_servers: dict[str, McpServerRegistration] = {}
        self._error_listeners: list[ErrorListener] = []
        self._reported: set[str] = set()
        self.on_tools_changed: Callable[[], None] | None = None
        """Called when a tool is registered after the session bound (so it can refresh its tool set)."""
        self.on_mcp_servers_changed: Callable[[], None] | None = None
        """Called after an MCP server (un)registration made once the session bound."""

    # -- errors ---------------------------------------------------------------------------------

    def on_error(self, listener: ErrorListener) -> Callable[[], None]:
        """Be told of every caught extension failure; returns the function that stops it."""
        self._error_listeners.append(listener)
        return lambda: self._error_listeners.remove(listener) if listener in self._error_listeners else None

    def report(self, extension_path: str, event: str, error: BaseException | str) -> None:
        """Send a caught failure to the listeners (or the log when there are none); never raises."""
        if isinstance(error, BaseException):
            text = errors.error_text(error)
            stack = "".join(traceback.format_exception(error)).rstrip() or None
        else:
            text, stack = error, None
        info = ExtensionErrorInfo(extension_path, event, text, stack)
        if not self._error_listeners:
            logger.error("Extension error (%s): %s", extension_path, text)
        for listener in list(self._error_listeners):
            try:
                listener(info)
            except Exception as inner:
                logger.error("an extension error listener failed: %s", errors.error_text(inner))

    # -- extensions -----------------------------------------------------------------------------

    def commit(self, extension: Extension) -> None:
        extension.state = "active"
        self.extensions.append(extension)
        for server in extension.pending_mcp.values():
            self.mcp_servers[server.name] = server
        extension.pending_mcp.clear()

    def active(self) -> list[Extension]:
        return [ext for ext in self.extensions if ext.state == "active"]

    def find(self, path: str) -> Extension | None:
        return next((ext for ext in self.extensions if ext.path == path), None)

    def remove(self, extension: Extension) -> None:
        """Take an extension's registrations out (a replaced built-in)."""
        extension.state = "replaced"
        for unsubscribe in extension.bus_unsubscribers:
            unsubscribe()
        for name in [n for n, s in self.mcp_servers.items() if s.extension_path == extension.path]:
            del self.mcp_servers[name]

    def handlers(self, event: str) -> list[tuple[Extension, Callable[..., Any]]]:
        """The handlers of `event` in load order, then registration order (a snapshot)."""
        return [(ext, handler) for ext in self.active() for handler in ext.handlers_for(event)]

    def has_handlers(self, event: str) -> bool:
        return any(ext.has_handlers(event) for ext in self.active())

    # -- tools ----------------------------------------------------------------------------------

    def tools(self) -> dict[str, tuple[Extension, ToolDefinition]]:
        """Each tool name with the extension that owns it (the first to register it)."""
        owned: dict[str, tuple[Extension, ToolDefinition]] = {}
        for ext in self.active():
            for name, tool in ext.tools.items():
                owned.setdefault(name, (ext, tool))
        return owned

    def tool_infos(self) -> list[ToolInfo]:
        infos = []
        for name, (ext, tool) in self.tools().items():
            infos.append(
                ToolInfo(
                    name=name,
                    description=tool.description,
                    parameters=tool.parameter_schema() or {},
                    prompt_guidelines=list(tool.prompt_guidelines or []),
                    exposure=tool.exposure,
                    source_info=ext.source_info,
                    namespace=tool.namespace,
                    annotations=tool.annotations,
                    reaches_tools=tool.reaches_tools,
                )
            )
        return infos

    def builtin_overrides(self) -> list[str]:
        """Names of built-in tools an extension replaces."""
        return [name for name in self.tools() if name in BUILTIN_TOOL_NAMES]

    def default_active_tools(self) -> list[str]:
        """Extension tools active from the start: `default_active` and a declared exposure."""
        return [
            name
            for name, (_, tool) in self.tools().items()
            if tool.default_active and tool.exposure in ACTIVE_BY_DEFAULT
        ]

    def activatable(self, names: Iterable[str], known: Iterable[str] = ()) -> list[str]:
        """The names `set_active_tools` keeps: known tools (built-in `known` or extension tools)
        that are not `hidden`; unknown and hidden names are dropped, order and first occurrence kept."""
        tools = self.tools()
        known_set = set(known)
        kept: list[str] = []
        for name in names:
            if name in kept:
                continue
            if name in tools:
                if tools[name][1].exposure == "hidden":
                    continue
            elif name not in known_set:
                continue
            kept.append(name)
        return kept

    def tool_added(self) -> None:
        if self.on_tools_changed is not None:
            self.on_tools_changed()

    # -- commands -------------------------------------------------------------------------------

    def commands(self) -> list[tuple[str, RegisteredCommand]]:
        """Every extension command under its invocation name, in load order (`name:N` for shared names)."""
        registered = [cmd for ext in self.active() for cmd in ext.commands.values()]
        counts: dict[str, int] = {}
        for cmd in registered:
            counts[cmd.name] = counts.get(cmd.name, 0) + 1
        taken = {cmd.name for cmd in registered}
        next_index: dict[str, int] = {}
        out: list[tuple[str, RegisteredCommand]] = []
        for cmd in registered:
            if counts[cmd.name] == 1:
                out.append((cmd.name, cmd))
                continue
            index = next_index.get(cmd.name, 1)
            while f"{cmd.name}:{index}" in taken:
                index += 1
            invocation = f"{cmd.name}:{index}"
            taken.add(invocation)
            next_index[cmd.name] = index + 1
            out.append((invocation, cmd))
        return out

    def command(self, invocation: str) -> RegisteredCommand | None:
        return next((cmd for name, cmd in self.commands() if name == invocation), None)

    def command_infos(self) -> list[CommandInfo]:
        infos = []
        for name, cmd in self.commands():
            ext = self.find(cmd.extension_path)
            infos.append(CommandInfo(name, "extension", ext.source_info if ext else None, cmd.description))
        return infos

    # -- flags ----------------------------------------------------------------------------------

    def flags(self) -> dict[str, FlagDefinition]:
        """Every extension flag, owned by its first registrant (what `--help` lists and the parser accepts)."""
        owned: dict[str, FlagDefinition] = {}
        for ext in self.active():
            for name, flag in ext.flags.items():
                owned.setdefault(name, flag)
        return owned

    def flag_value(self, extension: Extension, name: str) -> bool | str | None:
        flag = extension.flags.get(name)
        if flag is None:
            return None
        if name in self.flag_values:
            return self.flag_values[name]
        return flag.default

    # -- renderers and transformers -------------------------------------------------------------

    def message_renderer(self, custom_type: str) -> Any:
        return next(
            (e.message_renderers[custom_type] for e in self.active() if custom_type in e.message_renderers), None
        )

    def entry_renderer(self, custom_type: str) -> Any:
        return next((e.entry_renderers[custom_type] for e in self.active() if custom_type in e.entry_renderers), None)

    def tool_renderers(self, tool_name: str) -> Any:
        """Run the `register_tool_renderer` chain: each resolver may answer or call `next()`;
        at the end of the chain the registered tool's own render_* functions answer."""
        resolvers = [(ext, r) for ext in self.active() for r in ext.tool_renderers]
        owner = self.tools().get(tool_name)

        def at(index: int) -> Any:
            if index >= len(resolvers):
                if owner is None:
                    return None
                tool = owner[1]
                slots = {"render_shell": tool.render_shell, "render_call": tool.render_call}
                slots["render_result"] = tool.render_result
                return {k: v for k, v in slots.items() if v is not None} or None
            ext, resolver = resolvers[index]
            try:
                return resolver(tool_name, lambda: at(index + 1))
            except Exception as error:
                self.report(ext.path, "render_tool", error)
                return at(index + 1)

        return at(0)

    def transform_markdown(self, text: str, context: Mapping[str, Any]) -> str:
        """Apply the markdown transformers in load order; one that raises or returns a non-string is skipped."""
        message_type = str(context.get("message_type", "assistant"))
        for ext in self.active():
            transformer = ext.markdown_transformer
            if transformer is None or message_type not in transformer.message_types:
                continue
            try:
                result = transformer.fn(text, dict(context))
            except Exception as error:
                self.report(ext.path, "markdown_transformer", error)
                continue
            if isinstance(result, str):
                text = result
        return text

    # -- MCP servers ----------------------------------------------------------------------------

    def check_mcp_name(self, name: str, extension: Extension) -> None:
        """Raise when `name` is taken by another extension (or equal to another name up to - and _)."""
        everything = {**self.mcp_servers, **extension.pending_mcp}
        existing = everything.get(name)
        if existing is not None and existing.extension_path != extension.path:
            raise errors.ExtensionError(
                f'MCP server "{name}" is already registered by extension "{existing.extension_path}"'
            )
        normalized = name.replace("-", "_")
        for other in everything:
            if other != name and other.replace("-", "_") == normalized:
                raise errors.ExtensionError(f'MCP server "{name}" conflicts with registered server "{other}"')

    def mcp_changed(self) -> None:
        if self.on_mcp_servers_changed is not None:
            self.on_mcp_servers_changed()

    def mcp_server_list(self) -> list[dict[str, Any]]:
        return [server.to_json_dict() for server in self.mcp_servers.values()]

    # -- after loading --------------------------------------------------------------------------

    def finalize(self) -> list[Diagnostic]:
        """Drop replaceable extensions whose names another extension took, then report conflicts."""
        found = self._drop_replaced() + self._conflicts()
        fresh = [d for d in found if d.message not in self._reported]  # a second load pass repeats none
        self._reported.update(d.message for d in fresh)
        return fresh

    def _drop_replaced(self) -> list[Diagnostic]:
        diagnostics: list[Diagnostic] = []
        for ext in self.active():
            if not ext.replaceable:
                continue
            clash = self._clash_with(ext)
            if clash is not None:
                other, kind, name = clash
                self.remove(ext)
                label = ext.builtin_name or ext.path
                diagnostics.append(Diagnostic("warning", errors.replaced_builtin(other, kind, name, label), ext.path))
        return diagnostics

    def _clash_with(self, replaceable: Extension) -> tuple[str, str, str] | None:
        for other in self.active():
            if other is replaceable or other.replaceable:
                continue
            for kind, mine, theirs in (
                ("tool", replaceable.tools, other.tools),
                ("command", replaceable.commands, other.commands),
                ("flag", replaceable.flags, other.flags),
            ):
                for name in mine:
                    if name in theirs:
                        return other.path, kind, name
        return None

    def _conflicts(self) -> list[Diagnostic]:
        diagnostics: list[Diagnostic] = []
        tool_owner: dict[str, str] = {}
        flag_owner: dict[str, str] = {}
        for ext in self.active():
            for name in ext.tools:
                owner = tool_owner.setdefault(name, ext.path)
                if owner != ext.path:
                    message = errors.failed_to_load(ext.path, errors.tool_conflict(name, owner))
                    diagnostics.append(Diagnostic("error", message, ext.path))
            for name in ext.flags:
                owner = flag_owner.setdefault(name, ext.path)
                if owner != ext.path:
                    message = errors.failed_to_load(ext.path, errors.flag_conflict(name, owner))
                    diagnostics.append(Diagnostic("error", message, ext.path))
        return diagnostics


__all__ = ["ErrorListener", "ExtensionRegistry"]
