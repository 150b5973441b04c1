"""One loaded extension: what its `setup(pi)` registered, kept apart from every other extension's.

Registrations go into this record while `setup` runs; the record joins the registry only when
`setup` returns normally, which is what makes a failed extension leave nothing behind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from msgspec import Struct, field

from pi.app.extensions.types import McpServerRegistration, PendingProviderCall, SourceInfo, ToolDefinition

ExtensionState = Literal["loading", "active", "failed", "replaced"]
DEFAULT_MARKDOWN_SURFACES = ("user", "assistant", "assistant-thinking")


class RegisteredCommand(Struct):
    name: str
    handler: Callable[..., Any]
    description: str | None
    get_argument_completions: Callable[[str], Any] | None
    extension_path: str


class RegisteredShortcut(Struct):
    key: str
    handler: Callable[..., Any]
    description: str | None
    extension_path: str


class FlagDefinition(Struct):
    name: str
    type: Literal["boolean", "string"]
    default: bool | str | None
    description: str | None
    extension_path: str


class MarkdownTransformer(Struct):
    fn: Callable[..., Any]
    message_types: tuple[str, ...]


class Extension(Struct):
    """The registrations of one extension, in the order it made them."""

    path: str
    source_info: SourceInfo
    replaceable: bool = False
    builtin_name: str | None = None
    hidden: bool = False
    state: ExtensionState = "loading"
    handlers: list[tuple[str, Callable[..., Any]]] = field(default_factory=list)
    tools: dict[str, ToolDefinition] = field(default_factory=dict)
    commands: dict[str, RegisteredCommand] = field(default_factory=dict)
    shortcuts: dict[str, RegisteredShortcut] = field(default_factory=dict)
    flags: dict[str, FlagDefinition] = field(default_factory=dict)
    message_renderers: dict[str, Any] = field(default_factory=dict)
    entry_renderers: dict[str, Any] = field(default_factory=dict)
    tool_renderers: list[Callable[..., Any]] = field(default_factory=list)
    markdown_transformer: MarkdownTransformer | None = None
    pending_providers: list[PendingProviderCall] = field(default_factory=list)
    pending_mcp: dict[str, McpServerRegistration] = field(default_factory=dict)
    bus_unsubscribers: list[Callable[[], None]] = field(default_factory=list)

    def handlers_for(self, event: str) -> list[Callable[..., Any]]:
        return [handler for name, handler in self.handlers if name == event]

    def has_handlers(self, event: str) -> bool:
        return any(name == event for name, _ in self.handlers)


__all__ = [
    "DEFAULT_MARKDOWN_SURFACES",
    "Extension",
    "ExtensionState",
    "FlagDefinition",
    "MarkdownTransformer",
    "RegisteredCommand",
    "RegisteredShortcut",
]
