"""Extensions: Python modules with a `setup(pi)` that add tools, commands, event handlers and UI.

Layers, each its own module: `discovery` (which files, in which order), `loader` (fresh imports,
setup, diagnostics), `api` (the `ExtensionAPI` object given to setup), `registry` (what was
registered), `runner` (event dispatch), `events` (payload models), `context` / `ui` / `rpc_ui`
(the `ctx` objects), `hook_bridge` (joining the session's hook chains), `helpers` (for authors).
Names are imported from their module on first access so that start-up without extensions pays
nothing for them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi.app.extensions.api import ExtensionAPI
    from pi.app.extensions.context import (
        ExtensionCommandContext,
        ExtensionContext,
        ExtensionContextHost,
        ExtensionToolContext,
    )
    from pi.app.extensions.discovery import DiscoveryOptions, ExtensionSource, discover_extensions
    from pi.app.extensions.loader import ExtensionLoader, LoadResult, load_extensions, startup_failure_lines
    from pi.app.extensions.narrowing import is_bash_tool_result, is_tool_call_event_type
    from pi.app.extensions.registry import ExtensionRegistry
    from pi.app.extensions.runner import ExtensionRunner
    from pi.app.extensions.runtime import ExtensionRuntime, ExtensionRuntimeActions
    from pi.app.extensions.types import ExecResult, ToolDefinition, ToolInfo
    from pi.app.extensions.ui import NoOpUI, UIContext

_LAZY: dict[str, str] = {
    "ExtensionAPI": "pi.app.extensions.api",
    **dict.fromkeys(
        ("ExtensionCommandContext", "ExtensionContext", "ExtensionContextHost", "ExtensionToolContext"),
        "pi.app.extensions.context",
    ),
    **dict.fromkeys(("DiscoveryOptions", "ExtensionSource", "discover_extensions"), "pi.app.extensions.discovery"),
    **dict.fromkeys(
        ("ExtensionLoader", "LoadResult", "load_extensions", "startup_failure_lines"), "pi.app.extensions.loader"
    ),
    **dict.fromkeys(("is_bash_tool_result", "is_tool_call_event_type"), "pi.app.extensions.narrowing"),
    "ExtensionRegistry": "pi.app.extensions.registry",
    "ExtensionRunner": "pi.app.extensions.runner",
    **dict.fromkeys(("ExtensionRuntime", "ExtensionRuntimeActions"), "pi.app.extensions.runtime"),
    **dict.fromkeys(("ExecResult", "ToolDefinition", "ToolInfo"), "pi.app.extensions.types"),
    **dict.fromkeys(("NoOpUI", "UIContext"), "pi.app.extensions.ui"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DiscoveryOptions",
    "ExecResult",
    "ExtensionAPI",
    "ExtensionCommandContext",
    "ExtensionContext",
    "ExtensionContextHost",
    "ExtensionLoader",
    "ExtensionRegistry",
    "ExtensionRunner",
    "ExtensionRuntime",
    "ExtensionRuntimeActions",
    "ExtensionSource",
    "ExtensionToolContext",
    "LoadResult",
    "NoOpUI",
    "ToolDefinition",
    "ToolInfo",
    "UIContext",
    "discover_extensions",
    "is_bash_tool_result",
    "is_tool_call_event_type",
    "load_extensions",
    "startup_failure_lines",
]
