"""`ExtensionAPI`: the one object an extension's `setup(pi)` receives.

Registration methods (tools, commands, shortcuts, flags, renderers, providers, MCP servers, event
handlers) work at any time. Action methods act on the session and raise until the session has
bound the runtime. Once the extension failed to load, or the runtime went stale, every method raises
with a message that says why.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from pi.app.extensions import errors
from pi.app.extensions.event_bus import EventBus, ExtensionEvents
from pi.app.extensions.exec import DEFAULT_MAX_BUFFER, exec_command
from pi.app.extensions.extension import (
    DEFAULT_MARKDOWN_SURFACES,
    Extension,
    FlagDefinition,
    MarkdownTransformer,
    RegisteredCommand,
    RegisteredShortcut,
)
from pi.app.extensions.runtime import RUNTIME_PATH, DeliverAs, ExtensionRuntime
from pi.app.extensions.types import (
    TOOL_EXPOSURES,
    CommandInfo,
    ExecResult,
    McpServerRegistration,
    PendingProviderCall,
    ToolDefinition,
    ToolInfo,
)

if TYPE_CHECKING:
    from pi.ai.abort import AbortSignal

Handler = Callable[..., Any]
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
_JS_TYPES = {bool: "boolean", str: "string", int: "number", float: "number"}


def _typeof(value: object) -> str:
    """The JavaScript `typeof` word for a value, as pi's flag message uses it."""
    return _JS_TYPES.get(type(value), "object")


class ExtensionAPI:
    """The `pi` object (extension spec §1.4). One per extension and runtime generation."""

    def __init__(self, extension: Extension, runtime: ExtensionRuntime, bus: EventBus) -> None:
        self._extension = extension
        self._runtime = runtime
        self._registry = runtime.registry
        self._events = ExtensionEvents(bus, extension, runtime, self._guard)

    def _guard(self) -> None:
        if self._extension.state == "failed":
            raise errors.ExtensionInactiveError(self._extension.path)
        self._runtime.check_stale()

    @property
    def events(self) -> ExtensionEvents:
        """The bus shared by all extensions: `pi.events.on(channel, handler)`, `pi.events.emit(channel, data)`."""
        self._guard()
        return self._events

    # -- events ---------------------------------------------------------------------------------

    @overload
    def on(self, event: str) -> Callable[[Handler], Handler]: ...

    @overload
    def on(self, event: str, handler: Handler) -> Callable[[], None]: ...

    def on(self, event: str, handler: Handler | None = None) -> Any:
        """Handle `event` with `handler(event, ctx)`; returns the unsubscribe function.
        Without a handler it is a decorator (`@pi.on("tool_call")`) returning the function."""
        self._guard()
        if handler is None:

            def decorate(fn: Handler) -> Handler:
                self.on(event, fn)
                return fn

            return decorate
        entry = (event, handler)
        self._extension.handlers.append(entry)

        def unsubscribe() -> None:
            if entry in self._extension.handlers:
                self._extension.handlers.remove(entry)

        return unsubscribe

    # -- registrations --------------------------------------------------------------------------

    def register_tool(self, tool: ToolDefinition | dict[str, Any]) -> None:
        """Offer a tool to the model (§1.5). Re-registering a name from the same extension replaces it."""
        self._guard()
        definition = ToolDefinition.from_value(tool)
        path = self._extension.path
        if not isinstance(definition.name, str) or not definition.name:
            raise errors.ExtensionError(f'A tool registered by extension "{path}" must have a non-empty string name.')
        schema = definition.parameter_schema()
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise errors.ExtensionError(
                f'Tool "{definition.name}" registered by extension "{path}" must define an object parameter schema.'
            )
        if definition.exposure not in TOOL_EXPOSURES:
            raise errors.ExtensionError(
                f'Tool "{definition.name}" registered by extension "{path}" has exposure "{definition.exposure}"; '
                f"use one of {', '.join(TOOL_EXPOSURES)}."
            )
        if not callable(definition.execute):
            raise errors.ExtensionError(
                f'Tool "{definition.name}" registered by extension "{path}" must define execute().'
            )
        self._extension.tools[definition.name] = definition
        if self._runtime.bound and self._extension.state == "active":
            self._registry.tool_added()

    def register_command(
        self,
        name: str,
        handler: Handler | None = None,
        *,
        description: str | None = None,
        get_argument_completions: Callable[[str], Any] | None = None,
    ) -> None:
        """Add `/name`; `handler(args, ctx)` runs when the user invokes it."""
        self._guard()
        path = self._extension.path
        if not isinstance(name, str) or not name.strip():
            raise errors.ExtensionError(
                f'Command registered by extension "{path}" must have a non-empty string name. '
                'Use pi.registerCommand("name", { description, handler }).'
            )
        if not callable(handler):
            raise errors.ExtensionError(f'Command "/{name}" registered by extension "{path}" must define handler().')
        self._extension.commands[name] = RegisteredCommand(name, handler, description, get_argument_completions, path)

    def register_shortcut(self, key: str, handler: Handler, *, description: str | None = None) -> None:
        """Bind a key in the terminal UI (keys compare lowercased)."""
        self._guard()
        if not callable(handler):
            raise errors.ExtensionError(
                f"Shortcut '{key}' registered by extension \"{self._extension.path}\" must define handler()."
            )
        lowered = key.lower()
        self._extension.shortcuts[lowered] = RegisteredShortcut(lowered, handler, description, self._extension.path)

    def register_flag(
        self,
        name: str,
        *,
        type: Literal["boolean", "string"],
        default: bool | str | None = None,
        description: str | None = None,
    ) -> None:
        """Add the command-line flag `--name`; read it with `get_flag(name)`."""
        self._guard()
        if type not in ("boolean", "string"):
            raise errors.ExtensionError(f'Invalid type for flag "{name}": expected "boolean" or "string", got {type!r}')
        if default is not None:
            expected = bool if type == "boolean" else str
            if not isinstance(default, expected) or (expected is str and isinstance(default, bool)):
                raise errors.ExtensionError(
                    f'Invalid default for flag "{name}": expected {type}, got {_typeof(default)}'
                )
        self._extension.flags[name] = FlagDefinition(name, type, default, description, self._extension.path)

    def get_flag(self, name: str) -> bool | str | None:
        """The value of a flag this extension registered: from the command line, else its default."""
        self._guard()
        return self._registry.flag_value(self._extension, name)

    def register_message_renderer(self, custom_type: str, renderer: Any) -> None:
        self._guard()
        self._extension.message_renderers[custom_type] = renderer

    def register_entry_renderer(self, custom_type: str, renderer: Any) -> None:
        self._guard()
        self._extension.entry_renderers[custom_type] = renderer

    def register_tool_renderer(self, resolver: Callable[[str, Callable[[], Any]], Any]) -> None:
        """Add `resolver(tool_name, next)` to the renderer chain (load order)."""
        self._guard()
        self._extension.tool_renderers.append(resolver)

    def register_markdown_transformer(
        self, fn: Callable[[str, dict[str, Any]], str], *, message_types: Sequence[str] | None = None
    ) -> None:
        """Rewrite displayed Markdown; one per extension (registering again replaces it)."""
        self._guard()
        surfaces = tuple(message_types) if message_types is not None else DEFAULT_MARKDOWN_SURFACES
        self._extension.markdown_transformer = MarkdownTransformer(fn, surfaces)

    # -- providers ------------------------------------------------------------------------------

    def _provider_call(self, kind: Any, *args: Any) -> None:
        self._guard()
        call = PendingProviderCall(self._extension.path, kind, args)
        if self._runtime.bound and self._extension.state == "active":
            event = "register_virtual_model" if "virtual" in kind else "register_provider"
            try:
                result = getattr(self._runtime.require_actions(), kind)(*args)
            except Exception as error:
                self._registry.report(self._extension.path, event, error)
                return
            self._runtime.fire_and_report(result, event, self._extension.path)
        else:
            self._extension.pending_providers.append(call)

    def register_provider(self, name: Any, config: Any = None) -> None:
        """Add or change a provider: `register_provider(name, config)` or `register_provider(provider)`."""
        if config is None and not isinstance(name, str):
            provider_name = getattr(name, "name", None) or (name.get("name") if isinstance(name, dict) else None)
            self._provider_call("register_provider", str(provider_name or ""), name)
        else:
            self._provider_call("register_provider", name, config)

    def unregister_provider(self, name: str) -> None:
        self._provider_call("unregister_provider", name)

    def register_virtual_model(self, model: Any) -> None:
        """List a routed model `{provider, id, name, thinkingLevels?, route(request, ctx)}` (provider+id replaces)."""
        self._provider_call("register_virtual_model", model, self._extension.path)

    def unregister_virtual_model(self, provider: str, model_id: str) -> None:
        self._provider_call("unregister_virtual_model", provider, model_id)

    # -- MCP servers ----------------------------------------------------------------------------

    def register_mcp_server(self, name: str, config: dict[str, Any]) -> None:
        """Declare an MCP server for the MCP support to connect (extension spec §3.9)."""
        self._guard()
        path = self._extension.path
        if not isinstance(name, str) or not name:
            raise errors.ExtensionError(
                f'Invalid MCP server registered by extension "{path}": name must be a non-empty string'
            )
        if not isinstance(config, dict):
            raise errors.ExtensionError(
                f'Invalid MCP server registered by extension "{path}": config must be an object'
            )
        from pi.app.mcp.config import registration_error

        problem = registration_error(name, config)
        if problem is not None:
            raise errors.ExtensionError(f'Invalid MCP server registered by extension "{path}": {problem}')
        self._registry.check_mcp_name(name, self._extension)
        registration = McpServerRegistration(name, dict(config), path)
        if self._extension.state == "active":
            self._registry.mcp_servers[name] = registration
            self._registry.mcp_changed()
        else:
            self._extension.pending_mcp[name] = registration

    def unregister_mcp_server(self, name: str) -> None:
        """Withdraw a server this extension registered; other extensions' servers are left alone."""
        self._guard()
        if self._extension.pending_mcp.pop(name, None) is not None:
            return
        server = self._registry.mcp_servers.get(name)
        if server is not None and server.extension_path == self._extension.path:
            del self._registry.mcp_servers[name]
            self._registry.mcp_changed()

    def get_mcp_servers(self) -> list[dict[str, Any]]:
        """Every registered server as `{name, config, extensionPath}`."""
        self._guard()
        pending = [s.to_json_dict() for s in self._extension.pending_mcp.values()]
        return self._registry.mcp_server_list() + pending

    # -- actions --------------------------------------------------------------------------------

    def _actions(self) -> Any:
        self._guard()
        return self._runtime.require_actions()

    def send_message(
        self, message: dict[str, Any], *, trigger_turn: bool = False, deliver_as: DeliverAs = "steer"
    ) -> None:
        """Store a custom message and send it to the model as a user-role message."""
        actions = self._actions()
        try:
            result = actions.send_message(dict(message), trigger_turn, deliver_as)
        except Exception as error:
            self._registry.report(RUNTIME_PATH, "send_message", error)
            return
        self._runtime.fire_and_report(result, "send_message")

    def send_user_message(
        self,
        content: str | list[Any],
        *,
        deliver_as: Literal["steer", "followUp"] | None = None,
        expand_prompt_templates: bool = False,
    ) -> None:
        """Send a real user message (through `input` handlers, source "extension")."""
        actions = self._actions()
        try:
            result = actions.send_user_message(content, deliver_as, expand_prompt_templates)
        except Exception as error:
            self._registry.report(RUNTIME_PATH, "send_user_message", error)
            return
        self._runtime.fire_and_report(result, "send_user_message")

    def append_entry(self, custom_type: str, data: Any = None) -> None:
        """Append a `custom` session entry (state that is not LLM context)."""
        self._runtime.fire_and_report(
            self._actions().append_entry(custom_type, data), "append_entry", self._extension.path
        )

    def set_session_name(self, name: str) -> None:
        self._runtime.fire_and_report(self._actions().set_session_name(name), "set_session_name", self._extension.path)

    def get_session_name(self) -> str | None:
        name: str | None = self._actions().get_session_name()
        return name

    def set_label(self, entry_id: str, label: str | None) -> None:
        self._runtime.fire_and_report(self._actions().set_label(entry_id, label), "set_label", self._extension.path)

    async def exec(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        signal: AbortSignal | None = None,
        timeout_ms: int | None = None,
        cwd: str | None = None,
        max_buffer: int = DEFAULT_MAX_BUFFER,
    ) -> ExecResult:
        """Run a program (no shell) in the session cwd unless `cwd` is given."""
        self._guard()
        where = cwd if cwd is not None else str(self._runtime.cwd)
        return await exec_command(
            command, list(args), cwd=where, signal=signal, timeout_ms=timeout_ms, max_buffer=max_buffer
        )

    def get_active_tools(self) -> list[str]:
        return list(self._actions().get_active_tools())

    def get_all_tools(self) -> list[ToolInfo]:
        return list(self._actions().get_all_tools())

    def set_active_tools(self, names: Sequence[str]) -> None:
        """Choose the tools declared to the model; unknown and `hidden` names are ignored."""
        actions = self._actions()
        exposures = {info.name: info.exposure for info in actions.get_all_tools()}
        kept: list[str] = []
        for name in names:
            if name in exposures and exposures[name] != "hidden" and name not in kept:
                kept.append(name)
        self._runtime.fire_and_report(actions.set_active_tools(kept), "set_active_tools", self._extension.path)

    def get_settings(self) -> dict[str, Any]:
        """A deep copy of the effective settings."""
        return copy.deepcopy(self._actions().get_settings())

    def get_commands(self) -> list[CommandInfo]:
        return list(self._actions().get_commands())

    async def set_model(self, model: Any) -> bool:
        """Switch the session model; False when its provider has no configured auth."""
        result = self._actions().set_model(model)
        if not isinstance(result, bool):
            result = await result
        return bool(result)

    def get_thinking_level(self) -> str:
        level: str = self._actions().get_thinking_level()
        return level

    def set_thinking_level(self, level: str) -> None:
        actions = self._actions()
        if level not in THINKING_LEVELS:
            raise errors.ExtensionError(f'Unknown thinking level "{level}"; use one of {", ".join(THINKING_LEVELS)}.')
        self._runtime.fire_and_report(actions.set_thinking_level(level), "set_thinking_level", self._extension.path)


__all__ = ["THINKING_LEVELS", "ExtensionAPI", "Handler"]
