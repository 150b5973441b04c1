"""Let the model ask the user a multiple-choice question.

The `question` tool shows its options with `ctx.ui.select` and returns the choice. In RPC mode
the client gets an `extension_ui_request` and answers it; where there is no UI at all the tool
says so, and the model carries on without an answer.
"""

from __future__ import annotations

from typing import Any

from pi.app.extensions import ExtensionAPI

PARAMETERS = {
    "type": "object",
    "properties": {
        "question": {"type": "string"},
        "options": {"type": "array", "items": {"type": "string"}, "minItems": 2},
    },
    "required": ["question", "options"],
}


def setup(pi: ExtensionAPI) -> None:
    async def execute(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> Any:
        if not ctx.has_ui:
            return {
                "content": [{"type": "text", "text": "No user interface: decide yourself and say what you chose."}],
                "details": None,
                "isError": True,
            }
        choice = await ctx.ui.select(params["question"], list(params["options"]), signal=signal)
        if choice is None:
            return {"content": [{"type": "text", "text": "The user dismissed the question."}], "details": None}
        return {"content": [{"type": "text", "text": f"The user chose: {choice}"}], "details": {"choice": choice}}

    pi.register_tool(
        {
            "name": "question",
            "label": "Question",
            "description": "Ask the user to choose one of several options; returns the choice.",
            "parameters": PARAMETERS,
            "execute": execute,
        }
    )
