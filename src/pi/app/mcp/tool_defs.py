"""pi tool definitions for a connected server's tools.

Each definition's `execute` goes through the connection, so a call waits for a server that is
still connecting, reconnects a dropped one, and turns every failure into an error result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pi.ai.types import TextContent
from pi.app.extensions.types import ToolDefinition, ToolExposure
from pi.app.mcp import naming
from pi.app.mcp.config import ServerExposure
from pi.app.mcp.results import convert_call_result, progress_text

if TYPE_CHECKING:
    from pi.app.mcp.client import McpConnection


def registered_exposure(exposure: ServerExposure) -> ToolExposure:
    """Tools of `codemode` servers are registered `deferred`: scripts reach them, nothing declares them."""
    return "deferred" if exposure == "codemode" else exposure


def error_result(text: str, details: Any = None) -> dict[str, Any]:
    return {"content": [TextContent(text=text)], "details": details, "isError": True}


def namespace_info(connection: McpConnection) -> dict[str, Any]:
    server = connection.server
    info: dict[str, Any] = {"name": naming.namespace_name(server.name), "aliases": [server.name]}
    if server.description:
        info["description"] = server.description
    if connection.instructions:
        info["instructions"] = connection.instructions
    return info


def _executor(connection: McpConnection, tool: str) -> Callable[..., Any]:
    async def execute(
        tool_call_id: str, params: Any, signal: Any = None, on_update: Any = None, ctx: Any = None
    ) -> Any:
        server = connection.server
        if not server.enabled:
            return error_result(f'MCP server "{server.name}" is disabled.')

        async def progress(value: float, total: float | None, message: str | None) -> None:
            if on_update is not None:
                partial = {"content": [TextContent(text=progress_text(value, total, message))], "details": None}
                outcome = on_update(partial)
                if hasattr(outcome, "__await__"):
                    await outcome

        try:
            result = await connection.call_tool(tool, dict(params or {}), progress)
        except Exception as error:
            return error_result(str(error) or type(error).__name__, {"server": server.name, "tool": tool})
        data = result.model_dump(by_alias=True, exclude_none=True, mode="json")
        return convert_call_result(data, server.name, tool, readable=connection.has_resources)

    return execute


def definitions_for(connection: McpConnection, taken: Iterable[str] = ()) -> list[ToolDefinition]:
    """One definition per tool the server lists, named by the §3.3 rules."""
    server = connection.server
    names = naming.assign_names(server.name, [t.name for t in connection.tools], taken)
    namespace = namespace_info(connection)
    out: list[ToolDefinition] = []
    for tool in connection.tools:
        out.append(
            ToolDefinition(
                name=names[tool.name],
                label=naming.tool_label(server.name, tool),
                description=naming.tool_description(server.name, tool),
                parameters=naming.object_schema(tool.input_schema),
                output_schema=naming.result_schema(tool.output_schema),
                annotations=naming.boolean_hints(tool.annotations),
                exposure=registered_exposure(server.exposure_for_tool(tool.name)),
                namespace=namespace,
                execute=_executor(connection, tool.name),
            )
        )
    return out


def withdrawn(definition: ToolDefinition) -> ToolDefinition:
    """The same tool re-registered `hidden` (tools cannot be unregistered)."""
    name = definition.name
    label = definition.label

    async def gone(*_args: Any, **_kwargs: Any) -> Any:
        return error_result(f'MCP tool "{label}" is no longer available.')

    return ToolDefinition(
        name=name,
        label=label,
        description=definition.description,
        parameters=definition.parameters,
        exposure="hidden",
        namespace=definition.namespace,
        execute=gone,
    )


__all__ = ["definitions_for", "error_result", "namespace_info", "registered_exposure", "withdrawn"]
