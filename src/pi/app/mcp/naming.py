"""How a server's tools are named and described to pi (`mcp__<server>__<tool>`).

Names keep only `[A-Za-z0-9_]`. A name that is too long, or that collides with another tool's
(two tools of one server that sanitise alike included: every one of them), is shortened to 55
characters plus a hash of the exact server and tool names, so it stays stable across restarts.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from msgspec import Struct, field

MAX_TOOL_NAME = 64
HASH_PREFIX = 55
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


class RemoteTool(Struct):
    """A tool as the server listed it (the fields of MCP's `Tool` that pi uses)."""

    name: str
    description: str | None = None
    title: str | None = None
    input_schema: dict[str, Any] = field(default_factory=dict)
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] = field(default_factory=dict)


def sanitize(text: str) -> str:
    return _UNSAFE.sub("_", text)


def plain_name(server: str, tool: str) -> str:
    return f"mcp__{sanitize(server)}__{sanitize(tool)}"


def hashed_name(server: str, tool: str) -> str:
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{plain_name(server, tool)[:HASH_PREFIX]}_{digest}"


def assign_names(server: str, tools: Iterable[str], taken: Iterable[str] = ()) -> dict[str, str]:
    """Map each tool of `server` to its pi name; `taken` are names other sources already use."""
    tool_list = list(tools)
    counts: dict[str, int] = {}
    for tool in tool_list:
        counts[plain_name(server, tool)] = counts.get(plain_name(server, tool), 0) + 1
    other = set(taken)
    names: dict[str, str] = {}
    for tool in tool_list:
        plain = plain_name(server, tool)
        clash = counts[plain] > 1 or plain in other
        names[tool] = hashed_name(server, tool) if clash or len(plain) > MAX_TOOL_NAME else plain
    return names


def namespace_name(server: str) -> str:
    return "mcp__" + server.replace("-", "_")


def tool_label(server: str, tool: RemoteTool) -> str:
    return f"{server}/{tool.name}"


def tool_description(server: str, tool: RemoteTool) -> str:
    return tool.description or tool.title or f"MCP tool {tool.name} from server {server}"


def object_schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The input schema as an object schema that always has `properties`."""
    out = dict(schema) if isinstance(schema, Mapping) else {}
    out["type"] = "object"
    if not isinstance(out.get("properties"), dict):
        out["properties"] = {}
    return out


def result_schema(output_schema: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A `CallToolResult` schema whose `structuredContent` is the tool's own output schema."""
    if not output_schema:
        return None
    return {
        "type": "object",
        "properties": {
            "content": {"type": "array", "items": {"type": "object"}},
            "structuredContent": dict(output_schema),
            "isError": {"type": "boolean"},
        },
        "required": ["content"],
    }


def boolean_hints(annotations: Mapping[str, Any] | None) -> dict[str, bool] | None:
    """Only the four boolean hints; everything else in MCP's annotations is left out."""
    if not annotations:
        return None
    hints = {key: value for key, value in annotations.items() if key in ANNOTATION_HINTS and isinstance(value, bool)}
    return hints or None


__all__ = [
    "MAX_TOOL_NAME",
    "RemoteTool",
    "assign_names",
    "boolean_hints",
    "hashed_name",
    "namespace_name",
    "object_schema",
    "plain_name",
    "result_schema",
    "sanitize",
    "tool_description",
    "tool_label",
]
