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


def loaded_on_branch(session_manager: Any) -> list[str]:
    """Every tool name earlier `tool_search` results on the current branch loaded, in order."""
    names: list[str] = []
    try:
        entries = session_manager.get_branch()
    except Exception:
        return names
    for entry in entries:
        message = getattr(entry, "message_json", None)
        if not isinstance(message, dict) or message.get("role") != "toolResult":
            continue
        if message.get("toolName") != "tool_search" or not isinstance(message.get("details"), dict):
            continue
        loaded = message["details"].get("loaded")
        names += [n for n in loaded if isinstance(n, str) and n not in names] if isinstance(loaded, list) else []
    return names


class BranchTools:
    """Tools loaded by `tool_search` stay declared on their branch: after a resume, a fork or a tree
    move they are declared again (once registered; MCP tools appear as their servers connect)."""

    def __init__(self, pi: Any) -> None:
        self.pi = pi
        self.wanted: list[str] = []

    def follow(self, ctx: Any) -> None:
        """Re-read the branch; tools loaded only on the branch we left are no longer declared."""
        wanted = loaded_on_branch(getattr(ctx, "session_manager", None))
        dropped = [n for n in self.wanted if n not in wanted]
        self.wanted = wanted
        if dropped:
            self.pi.set_active_tools([n for n in self.pi.get_active_tools() if n not in dropped])
        self.apply()

    def apply(self) -> None:
        if not self.wanted:
            return
        active = list(self.pi.get_active_tools())
        known = {info.name for info in self.pi.get_all_tools()}
        missing = [n for n in self.wanted if n in known and n not in active]
        if missing:
            self.pi.set_active_tools([*active, *missing])

    def note(self, names: list[str]) -> None:
        self.wanted += [n for n in names if n not in self.wanted]


def create_tool_search_extension() -> Callable[[ExtensionAPI], None]:
    def setup(pi: ExtensionAPI) -> None:
        branch = BranchTools(pi)

        async def execute(_id: str, params: dict[str, Any], *_rest: Any) -> Any:
            result = search_and_activate(pi, dict(params or {}))
            branch.note(result["details"]["loaded"])
            return result

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
        for event in ("session_start", "session_tree"):
            pi.on(event, lambda _event, ctx: branch.follow(ctx))
        for event in ("before_agent_start", "turn_start"):
            pi.on(event, lambda _event, _ctx: branch.apply())

    return setup


__all__ = ["BranchTools", "create_tool_search_extension", "loaded_on_branch", "search_and_activate"]
