"""The extensions that ship with pi, by name (`builtin:<name>`), imported only when they load.

Each entry names a zero-argument function (`"module:function"`) that returns the extension's
`setup(pi)`. Nothing here imports those modules: `builtin_factories()` hands discovery one small
wrapper per built-in that imports its module the moment the loader calls it. `builtins_have_work()`
is the cheap test a session makes before loading any extension machinery at all: built-ins only
matter when something for them is configured.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

BUILTINS: dict[str, str] = {
    "mcp": "pi.app.mcp.extension:create_mcp_extension",
    "codemode": "pi.app.codemode.extension:create_codemode_extension",
    "tool-search": "pi.app.mcp.tool_search_extension:create_tool_search_extension",
    "llama.cpp": "pi.app.llama.extension:create_llama_extension",
}
"""Built-in extension name -> the function that builds its `setup`."""

PROVIDER_BUILTINS = ("llama.cpp",)
"""Built-ins that register a provider at start-up: their builder takes ``startup_provider``."""


def resolve_builtin(target: str) -> Callable[..., Any]:
    """Import `"module:function"` and return the function."""
    module_name, _, attr = target.partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module_name), attr)
    return function


def lazy_setup(target: str, **kwargs: Any) -> Callable[[Any], Any]:
    """A `setup(pi)` that imports and builds the built-in on first call, then delegates to it."""

    def setup(pi: Any) -> Any:
        return resolve_builtin(target)(**kwargs)(pi)

    setup.__name__ = f"setup[{target}]"
    return setup


def builtin_factories(
    overrides: Mapping[str, Callable[..., Any]] | None = None, *, startup_provider: str | None = None
) -> dict[str, Callable[[Any], Any]]:
    """Every built-in as a lazy `setup`, with SDK-provided code (`overrides`) taking precedence.

    `startup_provider` is the provider of the model asked for (None: none asked, or not resolved yet).
    A provider built-in waits at start-up for its models only when the run may need them.
    """
    factories: dict[str, Callable[[Any], Any]] = {
        name: lazy_setup(target, startup_provider=startup_provider) if name in PROVIDER_BUILTINS else lazy_setup(target)
        for name, target in BUILTINS.items()
    }
    for name, factory in (overrides or {}).items():
        factories[name] = factory
    return factories


def builtins_have_work(agent_dir: Path, cwd: Path, project_trusted: bool) -> bool:
    """Whether any built-in has something to do without other extensions: an `mcp.json` exists, or a
    llama.cpp router is configured."""
    if (agent_dir / "mcp.json").is_file():
        return True
    from pi.app.llama.config import router_configured

    if router_configured(agent_dir):
        return True
    return project_trusted and (cwd / ".pi" / "mcp.json").is_file()


BUILTIN_TOOLS_OFF_BY_DEFAULT = ("codemode", "tool_search")
"""Tools of built-ins that are registered inactive: naming one in the tool flags loads the built-ins."""


def builtin_tool_requested(
    selection: Any, global_settings: Mapping[str, Any], project_settings: Mapping[str, Any]
) -> bool:
    """Whether ``--tools`` or ``defaultTools`` turns on a built-in's inactive tool (``+codemode``)."""
    from pi.app.session_tool_requests import tool_requester

    requested = tool_requester(selection, global_settings, project_settings)
    return any(requested(name) for name in BUILTIN_TOOLS_OFF_BY_DEFAULT)


__all__ = [
    "BUILTINS",
    "PROVIDER_BUILTINS",
    "builtin_factories",
    "builtin_tool_requested",
    "builtins_have_work",
    "lazy_setup",
    "resolve_builtin",
]
