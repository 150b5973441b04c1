"""Which inactive extension tools the tool flags and ``defaultTools`` settings turn on.

Tools an extension registers inactive (`codemode`, `tool_search`) are off unless something names
them: ``--tools +codemode``, a ``defaultTools`` entry, or a plain ``--tools`` list matching them.
The command line's choice is applied on top of the settings, as for the built-in tools.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec.structs


def tool_requester(
    selection: Any, global_settings: Mapping[str, Any], project_settings: Mapping[str, Any]
) -> Callable[[str], bool]:
    """`requested(name)` for tools that are off by default."""
    from pi.app.tool_patterns import ToolSelection, requests_tool, settings_tool_list

    base = selection if isinstance(selection, ToolSelection) else ToolSelection()
    combined = msgspec.structs.replace(
        base,
        user_default=settings_tool_list(global_settings.get("defaultTools")),
        project_default=settings_tool_list(project_settings.get("defaultTools")),
    )
    if combined.tools is None and combined.user_default is None and combined.project_default is None:
        return lambda _name: False
    return lambda name: requests_tool(name, combined)


__all__ = ["tool_requester"]
