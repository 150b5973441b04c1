"""The built-in extension `builtin:tool-search`: the `tool_search` tool.

Registered inactive; the MCP support (or the user) activates it when deferred tools exist. A call
ranks the registered, not yet declared `codemode`/`deferred` tools and activates the matches, so
the next request declares them while the earlier request prefix stays unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi.ai.types import TextContent
from pi.app.extensions.types import ToolDefinition
from pi.app.mcp.tool_search import DEFAULT_LIMIT, check_arguments, rank_tools, result_text, search_candidates

if TYPE_CHECKING:
    from pi.app.extensions.api import ExtensionAPI

DESCRIPTION = (
    "Find tools that are available but not declared yet (for example tools of MCP servers) by describing what you "
    "need. Matching tools are loaded and can be called from your next call on."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What the tool should do, or its name"},
        "limit": {"type": "number", "description": f"Most tools to load (default {DEFAULT_LIMIT})"},
    },
    "required": ["query"],
}


def search_and_activate(pi: Any, params: dict[str, Any]) -> dict[str, Any]:
    """Rank, activate the matches and build the tool result (raises ValueError for bad arguments)."""
    query, limit = check_arguments(params)
    active = list(pi.get_active_tools())
    candidates = search_candidates(pi.get_all_tools(), active)
    names = rank_tools(query, candidates, limit)
    by_name = {getattr(t, "name", None): t for t in candidates}
    if names:
        pi.set_active_tools([*active, *names])
    loaded = [(name, str(getattr(by_name[name], "description", "") or "")) for name in names]
    return {"content": [TextContent(text=result_text(loaded))], "details": {"loaded": names}}


def create_tool_search_extension() -> Callable[[ExtensionAPI], None]:
    def setup(pi: ExtensionAPI) -> None:
        async def execute(_id: str, params: dict[str, Any], *_rest: Any) -> Any:
            return search_and_activate(pi, dict(params or {}))

        pi.register_tool(
            ToolDefinition(
                name="tool_search",
                label="Tool search",
                description=DESCRIPTION,
                parameters=PARAMETERS,
                execute=execute,
                exposure="model-only",
                default_active=False,
                reaches_tools=lambda _input: "all",
            )
        )

    return setup


__all__ = ["create_tool_search_extension", "search_and_activate"]
