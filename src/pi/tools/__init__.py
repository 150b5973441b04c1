"""The model's hands: read, bash, edit, write, and the read-only grep, find and ls.

A coding session gets read, bash, edit and write (bash covers searching and listing); grep, find
and ls exist for agents that must not change anything and so get no shell. Each tool is built by a
`create_<name>_tool(cwd, options)` factory whose options can swap where it acts (local machine by
default; SSH, a container or a test double through its Operations).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pi.agent.tool import AgentTool
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

ToolName: TypeAlias = Literal["read", "bash", "edit", "write", "grep", "find", "ls"]

ALL_TOOL_NAMES: tuple[ToolName, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULT_ACTIVE_TOOL_NAMES: tuple[ToolName, ...] = ("read", "bash", "edit", "write")
READ_ONLY_TOOL_NAMES: tuple[ToolName, ...] = ("read", "grep", "find", "ls")


@dataclass(slots=True)
class ToolsOptions:
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
        return create_read_tool(cwd, opts.read)
    if name == "bash":
        return create_bash_tool(cwd, opts.bash)
    if name == "edit":
        return create_edit_tool(cwd, opts.edit)
    if name == "write":
        return create_write_tool(cwd, opts.write)
    if name == "grep":
        return create_grep_tool(cwd, opts.grep)
    if name == "find":
        return create_find_tool(cwd, opts.find)
    return create_ls_tool(cwd, opts.ls)


def create_coding_tools(cwd: str, options: ToolsOptions | None = None) -> list[AgentTool[Any]]:
    """read, bash, edit, write: the default set, in the order the system prompt lists them."""
    return [create_tool(name, cwd, options) for name in DEFAULT_ACTIVE_TOOL_NAMES]


def create_read_only_tools(cwd: str, options: ToolsOptions | None = None) -> list[AgentTool[Any]]:
    """read, grep, find, ls: nothing in this set can change a file or run a command."""
    return [create_tool(name, cwd, options) for name in READ_ONLY_TOOL_NAMES]


def create_all_tools(cwd: str, options: ToolsOptions | None = None) -> dict[ToolName, AgentTool[Any]]:
    return {name: create_tool(name, cwd, options) for name in ALL_TOOL_NAMES}


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
    "create_all_tools",
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
