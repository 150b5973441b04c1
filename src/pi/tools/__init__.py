"""The model's hands: read, bash, edit, write, and the read-only grep, find and ls.

A coding session gets read, bash, edit and write (bash covers searching and listing); grep, find
and ls exist for agents that must not change anything and so get no shell. Each tool is built by a
`create_<name>_tool(cwd, options)` factory whose options can swap where it acts (local machine by
default; SSH, a container or a test double through its Operations).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from msgspec import Struct

from pi.agent.tool import AgentTool

if TYPE_CHECKING:
    from pi.tools.bash import (
        BashError,
        BashExecution,
        BashOperations,
        BashParams,
        BashToolDetails,
        BashToolOptions,
        create_bash_tool,
        create_local_bash_operations,
    )
    from pi.tools.edit import EditToolOptions, create_edit_tool
    from pi.tools.find import FindOperations, FindParams, FindToolDetails, FindToolOptions, create_find_tool
    from pi.tools.grep import GrepOperations, GrepParams, GrepToolDetails, GrepToolOptions, create_grep_tool
    from pi.tools.ls import LsOperations, LsParams, LsToolDetails, LsToolOptions, create_ls_tool
    from pi.tools.paths import expand_path, normalize_path_argument, resolve_read_path, resolve_to_cwd
    from pi.tools.read import ReadToolOptions, create_read_tool
    from pi.tools.shell import kill_tracked_process_groups
    from pi.tools.truncate import (
        DEFAULT_MAX_BYTES,
        DEFAULT_MAX_LINES,
        GREP_MAX_LINE_LENGTH,
        TruncationResult,
        format_size,
        truncate_head,
        truncate_line,
        truncate_tail,
    )
    from pi.tools.write import WriteToolOptions, create_write_tool

# Each tool lives in its own module and a session usually activates only some of them, so names are
# imported from their module on first access rather than all at once with the package.
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
            "BashError",
            "BashExecution",
            "BashOperations",
            "BashParams",
            "BashToolDetails",
            "BashToolOptions",
            "create_bash_tool",
            "create_local_bash_operations",
        ),
        "pi.tools.bash",
    ),
    **dict.fromkeys(("EditToolOptions", "create_edit_tool"), "pi.tools.edit"),
    **dict.fromkeys(
        ("FindOperations", "FindParams", "FindToolDetails", "FindToolOptions", "create_find_tool"), "pi.tools.find"
    ),
    **dict.fromkeys(
        ("GrepOperations", "GrepParams", "GrepToolDetails", "GrepToolOptions", "create_grep_tool"), "pi.tools.grep"
    ),
    **dict.fromkeys(("LsOperations", "LsParams", "LsToolDetails", "LsToolOptions", "create_ls_tool"), "pi.tools.ls"),
    **dict.fromkeys(
        ("expand_path", "normalize_path_argument", "resolve_read_path", "resolve_to_cwd"), "pi.tools.paths"
    ),
    **dict.fromkeys(("ReadToolOptions", "create_read_tool"), "pi.tools.read"),
    "kill_tracked_process_groups": "pi.tools.shell",
    **dict.fromkeys(
        (
            "DEFAULT_MAX_BYTES",
            "DEFAULT_MAX_LINES",
            "GREP_MAX_LINE_LENGTH",
            "TruncationResult",
            "format_size",
            "truncate_head",
            "truncate_line",
            "truncate_tail",
        ),
        "pi.tools.truncate",
    ),
    **dict.fromkeys(("WriteToolOptions", "create_write_tool"), "pi.tools.write"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


ToolName: TypeAlias = Literal["read", "bash", "edit", "write", "grep", "find", "ls"]

ALL_TOOL_NAMES: tuple[ToolName, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULT_ACTIVE_TOOL_NAMES: tuple[ToolName, ...] = ("read", "bash", "edit", "write")
READ_ONLY_TOOL_NAMES: tuple[ToolName, ...] = ("read", "grep", "find", "ls")


class ToolsOptions(Struct):
    """Options for each built-in tool, by tool name."""

    read: ReadToolOptions | None = None
    bash: BashToolOptions | None = None
    edit: EditToolOptions | None = None
    write: WriteToolOptions | None = None
    grep: GrepToolOptions | None = None
    find: FindToolOptions | None = None
    ls: LsToolOptions | None = None


def create_tool(name: ToolName, cwd: str, options: ToolsOptions | None = None) -> AgentTool[Any]:
    opts = options or ToolsOptions()
    if name == "read":
        from pi.tools.read import create_read_tool

        return create_read_tool(cwd, opts.read)
    if name == "bash":
        from pi.tools.bash import create_bash_tool

        return create_bash_tool(cwd, opts.bash)
    if name == "edit":
        from pi.tools.edit import create_edit_tool

        return create_edit_tool(cwd, opts.edit)
    if name == "write":
        from pi.tools.write import create_write_tool

        return create_write_tool(cwd, opts.write)
    if name == "grep":
        from pi.tools.grep import create_grep_tool

        return create_grep_tool(cwd, opts.grep)
    if name == "find":
        from pi.tools.find import create_find_tool

        return create_find_tool(cwd, opts.find)
    from pi.tools.ls import create_ls_tool

    return create_ls_tool(cwd, opts.ls)


def create_coding_tools(cwd: str, options: ToolsOptions | None = None) -> list[AgentTool[Any]]:
    """read, bash, edit, write: the default set, in the order the system prompt lists them."""
    return [create_tool(name, cwd, options) for name in DEFAULT_ACTIVE_TOOL_NAMES]


def create_read_only_tools(cwd: str, options: ToolsOptions | None = None) -> list[AgentTool[Any]]:
    """read, grep, find, ls: nothing in this set can change a file or run a command."""
    return [create_tool(name, cwd, options) for name in READ_ONLY_TOOL_NAMES]


__all__ = [
    "ALL_TOOL_NAMES",
    "DEFAULT_ACTIVE_TOOL_NAMES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "GREP_MAX_LINE_LENGTH",
    "READ_ONLY_TOOL_NAMES",
    "BashError",
    "BashExecution",
    "BashOperations",
    "BashParams",
    "BashToolDetails",
    "BashToolOptions",
    "EditToolOptions",
    "FindOperations",
    "FindParams",
    "FindToolDetails",
    "FindToolOptions",
    "GrepOperations",
    "GrepParams",
    "GrepToolDetails",
    "GrepToolOptions",
    "LsOperations",
    "LsParams",
    "LsToolDetails",
    "LsToolOptions",
    "ReadToolOptions",
    "ToolName",
    "ToolsOptions",
    "TruncationResult",
    "WriteToolOptions",
    "create_bash_tool",
    "create_coding_tools",
    "create_edit_tool",
    "create_find_tool",
    "create_grep_tool",
    "create_local_bash_operations",
    "create_ls_tool",
    "create_read_only_tools",
    "create_read_tool",
    "create_tool",
    "create_write_tool",
    "expand_path",
    "format_size",
    "kill_tracked_process_groups",
    "normalize_path_argument",
    "resolve_read_path",
    "resolve_to_cwd",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]
