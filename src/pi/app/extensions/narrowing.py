"""Type guards that narrow a `tool_call` or `tool_result` event to one built-in tool.

`is_tool_call_event_type("bash", event)` tells a type checker and the reader that `event.input`
holds bash arguments; `is_bash_tool_result(event)` does the same for results.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from pi.app.extensions.events import ToolCallEvent, ToolResultEvent


def is_tool_call_event_type(tool_name: str, event: Any) -> TypeGuard[ToolCallEvent]:
    """True when `event` is a `tool_call` event for `tool_name`."""
    return isinstance(event, ToolCallEvent) and event.tool_name == tool_name


def is_tool_result_event_type(tool_name: str, event: Any) -> TypeGuard[ToolResultEvent]:
    """True when `event` is a `tool_result` event for `tool_name`."""
    return isinstance(event, ToolResultEvent) and event.tool_name == tool_name


def is_bash_tool_result(event: Any) -> TypeGuard[ToolResultEvent]:
    return is_tool_result_event_type("bash", event)


def is_read_tool_result(event: Any) -> TypeGuard[ToolResultEvent]:
    return is_tool_result_event_type("read", event)


def is_edit_tool_result(event: Any) -> TypeGuard[ToolResultEvent]:
    return is_tool_result_event_type("edit", event)


def is_write_tool_result(event: Any) -> TypeGuard[ToolResultEvent]:
    return is_tool_result_event_type("write", event)


def is_grep_tool_result(event: Any) -> TypeGuard[ToolResultEvent]:
    return is_tool_result_event_type("grep", event)


def is_find_tool_result(event: Any) -> TypeGuard[ToolResultEvent]:
    return is_tool_result_event_type("find", event)


def is_ls_tool_result(event: Any) -> TypeGuard[ToolResultEvent]:
    return is_tool_result_event_type("ls", event)


def is_powershell_tool_result(event: Any) -> TypeGuard[ToolResultEvent]:
    return is_tool_result_event_type("powershell", event)


__all__ = [
    "is_bash_tool_result",
    "is_edit_tool_result",
    "is_find_tool_result",
    "is_grep_tool_result",
    "is_ls_tool_result",
    "is_powershell_tool_result",
    "is_read_tool_result",
    "is_tool_call_event_type",
    "is_tool_result_event_type",
    "is_write_tool_result",
]
