"""Which files a stretch of conversation read and changed, carried from summary to summary.

A summary replaces the tool calls that touched files, so the lists are appended to it and stored in
the entry's details; the next compaction starts from those lists, which keeps them cumulative.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from msgspec import Struct, field

from pi.agent.messages import AgentMessage
from pi.ai.types import AssistantMessage, ToolCall


class FileOperations(Struct):
    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)


def extract_file_ops(messages: Iterable[AgentMessage], ops: FileOperations) -> None:
    """Add the paths of the read, write and edit tool calls in `messages`."""
    for message in messages:
        if not isinstance(message, AssistantMessage):
            continue
        for block in message.content:
            if not isinstance(block, ToolCall):
                continue
            path = block.arguments.get("path")
            if not isinstance(path, str) or not path:
                continue
            if block.name == "read":
                ops.read.add(path)
            elif block.name == "write":
                ops.written.add(path)
            elif block.name == "edit":
                ops.edited.add(path)


def add_details(details: Any, ops: FileOperations) -> None:
    """Add the lists an earlier summary stored (``{"readFiles": [...], "modifiedFiles": [...]}``)."""
    if not isinstance(details, dict):
        return
    for key, target in (("readFiles", ops.read), ("modifiedFiles", ops.edited)):
        values = details.get(key)
        if isinstance(values, list):
            target.update(v for v in values if isinstance(v, str))


def compute_file_lists(ops: FileOperations) -> tuple[list[str], list[str]]:
    """(read-only files, modified files), sorted; a file both read and changed counts as modified."""
    modified = ops.written | ops.edited
    return sorted(ops.read - modified), sorted(modified)


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """The lists as appended to a summary (empty when there are none)."""
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""


def file_lists_details(read_files: list[str], modified_files: list[str]) -> dict[str, Any]:
    return {"readFiles": read_files, "modifiedFiles": modified_files}


__all__ = [
    "FileOperations",
    "add_details",
    "compute_file_lists",
    "extract_file_ops",
    "file_lists_details",
    "format_file_operations",
]
