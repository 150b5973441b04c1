"""Reading a server's tools (`tools/list`, every page) into pi's `RemoteTool` records."""

from __future__ import annotations

from typing import Any

from pi.app.mcp.naming import RemoteTool


async def list_remote_tools(session: Any) -> list[RemoteTool]:
    """Every page of `tools/list`, as pi's view of each tool."""
    tools: list[RemoteTool] = []
    cursor: str | None = None
    while True:
        page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
        for tool in page.tools:
            annotations = tool.annotations.model_dump(exclude_none=True) if tool.annotations else {}
            tools.append(
                RemoteTool(
                    name=tool.name,
                    description=tool.description,
                    title=tool.title,
                    input_schema=dict(tool.inputSchema or {}),
                    output_schema=dict(tool.outputSchema) if tool.outputSchema else None,
                    annotations=annotations,
                )
            )
        cursor = page.nextCursor
        if not cursor:
            return tools


__all__ = ["list_remote_tools"]
