"""Tools added while pi runs: `/echo-tool <name>` registers a tool called `<name>`.

Tools registered after start-up are offered to the model from its next request on. Each of these
tools repeats the text it is given, prefixed with its own name.
"""

from __future__ import annotations

import re
from typing import Any

from pi.app.extensions import ExtensionAPI

PARAMETERS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")


def setup(pi: ExtensionAPI) -> None:
    def make(name: str) -> dict[str, Any]:
        def execute(tool_call_id: str, params: dict[str, Any], *rest: Any) -> Any:
            return {"content": [{"type": "text", "text": f"{name}: {params['text']}"}], "details": None}

        return {
            "name": name,
            "description": f"Repeat text (added at run time as {name}).",
            "parameters": PARAMETERS,
            "execute": execute,
        }

    async def add(args: str, ctx: Any) -> None:
        name = args.strip()
        if not NAME.match(name):
            ctx.ui.notify("Usage: /echo-tool <name> (lowercase letters, digits, _)", "warning")
            return
        pi.register_tool(make(name))
        ctx.ui.notify(f"Tool {name} added")

    pi.register_command("echo-tool", add, description="Register an echo tool with the given name")
