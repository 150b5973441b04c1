"""The resource tools: `list_mcp_resources`, `list_mcp_resource_templates`, `read_mcp_resource`.

They exist once any connected, enabled, non-hidden server offers resources, with the widest
exposure among those servers. Resources meant for MCP apps (`ui://`, `text/html;profile=mcp-app`)
are left out: pi has nothing to show them with.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pi.ai.types import TextContent
from pi.app.extensions.types import ToolDefinition, ToolExposure
from pi.app.mcp.results import resource_blocks
from pi.app.mcp.tool_defs import error_result, registered_exposure

if TYPE_CHECKING:
    from pi.app.mcp.client import McpConnection

APP_MIME = "text/html;profile=mcp-app"
EXPOSURE_ORDER = ("direct", "codemode", "deferred")
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False}


def is_app_resource(item: dict[str, Any]) -> bool:
    uri = str(item.get("uri") or item.get("uriTemplate") or "")
    return uri.startswith("ui://") or str(item.get("mimeType") or "").replace(" ", "") == APP_MIME


def _entry(server: str, item: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {"server": server}
    for key in keys:
        if item.get(key) is not None:
            out[key] = item[key]
    return out


def widest_exposure(connections: Iterable[McpConnection]) -> ToolExposure:
    exposures = {
        c.server.exposure
        for c in connections
        if c.server.enabled and c.state == "connected" and c.has_resources and c.server.exposure != "hidden"
    }
    for exposure in EXPOSURE_ORDER:
        if exposure in exposures:
            return registered_exposure(exposure)
    return "hidden"


async def _list(
    connections: dict[str, McpConnection], server: str | None, cursor: str | None, templates: bool
) -> dict[str, Any]:
    method, field = ("list_resource_templates", "resourceTemplates") if templates else ("list_resources", "resources")
    keys = (
        ("uriTemplate", "name", "title", "description", "mimeType")
        if templates
        else ("uri", "name", "title", "description", "mimeType", "size")
    )
    targets = [connections[server]] if server is not None else [c for c in connections.values() if c.server.enabled]
    out: dict[str, Any] = {"server": server} if server is not None else {}
    items: list[dict[str, Any]] = []
    errors: list[dict[str, str]] = []
    for connection in targets:
        if not connection.has_resources and connection.state == "connected":
            continue
        page_cursor = cursor
        try:
            while True:
                kwargs = {"cursor": page_cursor} if page_cursor else {}
                page = (await connection.request(method, **kwargs)).model_dump(
                    by_alias=True, exclude_none=True, mode="json"
                )
                items += [_entry(connection.name, i, keys) for i in page.get(field, []) if not is_app_resource(i)]
                page_cursor = page.get("nextCursor")
                if server is not None:
                    if page_cursor:
                        out["nextCursor"] = page_cursor
                    break
                if not page_cursor:
                    break
        except Exception as error:
            if templates and "Method not found" in str(error):
                continue
            errors.append({"server": connection.name, "error": str(error)})
    out[field] = items
    if errors:
        out["errors"] = errors
    return out


def _json_result(data: dict[str, Any]) -> dict[str, Any]:
    return {"content": [TextContent(text=json.dumps(data, indent=2))], "details": data, "structuredContent": data}


Connections = Callable[[], "dict[str, McpConnection]"]


def _unknown(connections: Connections, server: Any) -> dict[str, Any] | None:
    if server is not None and server not in connections():
        return error_result(f'No MCP server named "{server}". Configured: {", ".join(connections())}.')
    return None


async def _list_tool(connections: Connections, templates: bool, params: dict[str, Any]) -> dict[str, Any]:
    server = params.get("server")
    return _unknown(connections, server) or _json_result(
        await _list(connections(), server, params.get("cursor"), templates)
    )


async def _read_tool(connections: Connections, params: dict[str, Any]) -> dict[str, Any]:
    server, uri = params.get("server"), params.get("uri")
    if server is None or not uri:
        return error_result("read_mcp_resource needs both server and uri")
    missing = _unknown(connections, server)
    if missing is not None:
        return missing
    try:
        result = await connections()[server].request("read_resource", uri=uri)
    except Exception as error:
        return error_result(str(error))
    contents = result.model_dump(by_alias=True, exclude_none=True, mode="json").get("contents", [])
    blocks = [block for item in contents if not is_app_resource(item) for block in resource_blocks(item)]
    data = {"server": server, "uri": uri, "contents": contents}
    return {"content": blocks, "details": {"server": server, "uri": uri}, "structuredContent": data}


def _execute(handler: Callable[..., Any], *bound: Any) -> Callable[..., Any]:
    async def execute(_id: str, params: dict[str, Any], *_rest: Any) -> Any:
        return await handler(*bound, dict(params or {}))

    return execute


LIST_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "server": {"type": "string", "description": "MCP server name; omit to list every server"},
        "cursor": {"type": "string", "description": "Cursor from a previous page (needs server)"},
    },
}
READ_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {"server": {"type": "string", "description": "MCP server name"}, "uri": {"type": "string"}},
    "required": ["server", "uri"],
}


def resource_tools(connections: Connections) -> list[ToolDefinition]:
    """The three definitions, reading the live connection table on every call."""
    common: dict[str, Any] = {"exposure": widest_exposure(connections().values()), "annotations": READ_ONLY}
    specs = [
        (
            "list_mcp_resources",
            "MCP resources",
            "List the resources MCP servers offer (files, documents, records) with their URIs.",
            LIST_PARAMS,
            _execute(_list_tool, connections, False),
        ),
        (
            "list_mcp_resource_templates",
            "MCP resource templates",
            "List the URI templates of parameterised resources MCP servers offer.",
            LIST_PARAMS,
            _execute(_list_tool, connections, True),
        ),
        (
            "read_mcp_resource",
            "Read MCP resource",
            "Read one resource of an MCP server by its URI.",
            READ_PARAMS,
            _execute(_read_tool, connections),
        ),
    ]
    return [
        ToolDefinition(name=name, label=label, description=description, parameters=params, execute=run, **common)
        for name, label, description, params, run in specs
    ]


__all__ = ["is_app_resource", "resource_tools", "widest_exposure"]
