"""A first extension: one tool the model can call.

Run it with `pi -e examples/extensions/hello.py -p "say hello to Ada"`. The model sees a tool
named `hello`; when it calls it, `execute` answers with a greeting, which goes back to the model
as the tool's result.
"""

from __future__ import annotations

from typing import Any

from pi.app.extensions import ExtensionAPI


def setup(pi: ExtensionAPI) -> None:
    async def execute(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> Any:
        name = params["name"]
        return {"content": [{"type": "text", "text": f"Hello, {name}!"}], "details": {"greeted": name}}

    pi.register_tool(
        {
            "name": "hello",
            "label": "Hello",
            "description": "Greet someone by name.",
            "prompt_snippet": "hello: greet someone by name",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string", "description": "Who to greet"}},
                "required": ["name"],
            },
            "execute": execute,
        }
    )
