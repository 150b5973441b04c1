"""Which tools a run starts with: ``--tools``, ``--exclude-tools``, ``-nt``, ``-nbt`` and ``defaultTools``.

A tool list is either a selection (names and ``*`` patterns: exactly the tools that match) or an
edit of the default selection made only of ``+name`` / ``-name`` entries (``-t +grep,-write``).
Unknown names select nothing and are not an error, since an extension tool may simply not be
loaded this time. MCP tools (``mcp__server__tool``) stay unless a selection mentions ``mcp__``.
Exclusions apply last, to everything.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

from msgspec import Struct

MCP_PREFIX = "mcp__"


def _is_modifier(entry: str) -> bool:
    return entry[:1] in ("+", "-") and len(entry) > 1


def _is_pattern(entry: str) -> bool:
    return any(ch in entry for ch in "*?[")


def tools_flag_errors(entries: Sequence[str], flag: str = "--tools") -> list[str]:
    """What is wrong with a ``--tools`` list (or a ``defaultTools`` setting), as error messages."""
    modifiers = [e for e in entries if _is_modifier(e)]
    if modifiers and len(modifiers) != len(entries):
        return [f"{flag}: tool names cannot be mixed with +name or -name entries"]
    return [
        f"{flag}: +name and -name entries take exact tool names, not patterns: {entry}"
        for entry in modifiers
        if _is_pattern(entry[1:])
    ]


def _matches(name: str, entry: str) -> bool:
    return fnmatch.fnmatchcase(name, entry) if _is_pattern(entry) else name == entry


def apply_tool_list(current: Sequence[str], entries: Sequence[str], available: Sequence[str]) -> list[str]:
    """`entries` applied to the `current` selection: an edit if all are modifiers, else a new selection."""
    if not entries:
        return []
    if all(_is_modifier(e) for e in entries):
        chosen = set(current)
        for entry in entries:
            if entry[0] == "+":
                chosen.add(entry[1:])
            else:
                chosen.discard(entry[1:])
        return [name for name in available if name in chosen]
    keep_mcp = not any(e.startswith(MCP_PREFIX) for e in entries)
    return [
        name
        for name in available
        if any(_matches(name, e) for e in entries) or (keep_mcp and name.startswith(MCP_PREFIX) and name in current)
    ]


class ToolSelection(Struct, frozen=True):
    """Everything that chooses the starting tools, as the command line and settings give it."""

    tools: Sequence[str] | None = None
    exclude: Sequence[str] = ()
    no_tools: bool = False
    no_builtin_tools: bool = False
    user_default: Sequence[str] | None = None
    """``defaultTools`` from the global settings."""
    project_default: Sequence[str] | None = None
    """``defaultTools`` from the project settings (only when the project is trusted)."""


def default_tool_names(
    builtin_defaults: Sequence[str], builtins: Sequence[str], available: Sequence[str], selection: ToolSelection
) -> list[str]:
    """The selection before ``--tools``: built-in defaults plus every non-built-in tool, then defaultTools.

    An empty ``defaultTools`` turns the built-ins off and keeps extension tools; a project
    modifier list edits the user's list, a project selection replaces it.
    """
    current = [n for n in available if n in builtin_defaults or n not in builtins]
    for setting in (selection.user_default, selection.project_default):
        if setting is None:
            continue
        if not setting:
            current = [n for n in current if n not in builtins]
        else:
            current = apply_tool_list(current, setting, available)
    return current


def select_tool_names(
    available: Sequence[str],
    builtins: Sequence[str],
    builtin_defaults: Sequence[str],
    selection: ToolSelection,
) -> list[str]:
    """The tools a run starts with, in the order of `available`.

    `available` lists every tool that could be active (built-ins first, then extension, SDK and
    MCP tools); `builtins` says which of them are built in; `builtin_defaults` is the default set.
    """
    if selection.no_tools:
        current: list[str] = []
    elif selection.no_builtin_tools:
        current = [n for n in available if n not in builtins]
    else:
        current = default_tool_names(builtin_defaults, builtins, available, selection)
    if selection.tools is not None:
        plain = not selection.tools or not all(_is_modifier(e) for e in selection.tools)
        if plain and (selection.no_tools or selection.no_builtin_tools):
            current = sorted(set(current) | set(apply_tool_list([], selection.tools, available)), key=available.index)
        else:
            current = apply_tool_list(current, selection.tools, available)
    return [name for name in current if not any(_matches(name, e) for e in selection.exclude)]


def requests_tool(name: str, selection: ToolSelection) -> bool:
    """Whether the selection names a tool that is off by default (an extension tool registered
    inactive, such as `codemode`): ``--tools +codemode``, ``defaultTools: ["+codemode"]``, or a
    plain list that matches it; exclusions still win."""
    return bool(select_tool_names([name], [name], [], selection))


def settings_tool_list(value: object) -> Sequence[str] | None:
    """A ``defaultTools`` value as entries, or None when it is missing or not a usable tool list."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None
    entries = [item.strip() for item in value if item.strip()]
    return None if tools_flag_errors(entries, "defaultTools") else entries


__all__ = [
    "MCP_PREFIX",
    "ToolSelection",
    "apply_tool_list",
    "default_tool_names",
    "requests_tool",
    "select_tool_names",
    "settings_tool_list",
    "tools_flag_errors",
]
