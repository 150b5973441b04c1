"""A todo list the model keeps, stored in the session so that it follows the conversation's branches.

The `todo` tool adds, checks off and lists items. The whole list is kept in each result's
`details`, so the state at any point of the session is the one in the last `todo` result on that
branch: after a fork or a jump in the session tree the list is rebuilt from the branch, and items
added on another branch are not there.
"""

from __future__ import annotations

from typing import Any

from pi.app.extensions import ExtensionAPI

PARAMETERS = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["list", "add", "done", "clear"]},
        "text": {"type": "string", "description": "The item (for add)"},
        "id": {"type": "integer", "description": "The item number (for done)"},
    },
    "required": ["action"],
}


def render(items: list[dict[str, Any]]) -> str:
    if not items:
        return "No todos."
    return "\n".join(f"{item['id']}. [{'x' if item['done'] else ' '}] {item['text']}" for item in items)


def setup(pi: ExtensionAPI) -> None:
    items: list[dict[str, Any]] = []

    def rebuild(ctx: Any) -> None:
        """The list as the last todo result on the current branch left it."""
        items.clear()
        for entry in ctx.session_manager.get_branch():
            message = getattr(entry, "message", None)
            if getattr(message, "role", None) == "toolResult" and getattr(message, "tool_name", None) == "todo":
                details = message.details or {}
                items[:] = [dict(item) for item in details.get("items", [])]

    for event_name in ("session_start", "session_tree"):
        pi.on(event_name, lambda event, ctx: rebuild(ctx))

    async def execute(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> Any:
        action = params["action"]
        if action == "add":
            text = str(params.get("text") or "").strip()
            if not text:
                raise ValueError("add needs a text")
            items.append({"id": len(items) + 1, "text": text, "done": False})
        elif action == "done":
            match = next((item for item in items if item["id"] == params.get("id")), None)
            if match is None:
                raise ValueError(f"No todo with id {params.get('id')}")
            match["done"] = True
        elif action == "clear":
            items.clear()
        return {"content": [{"type": "text", "text": render(items)}], "details": {"items": [dict(i) for i in items]}}

    pi.register_tool(
        {
            "name": "todo",
            "label": "Todo",
            "description": "Keep a todo list: list, add (text), done (id), clear.",
            "parameters": PARAMETERS,
            "execute": execute,
        }
    )
