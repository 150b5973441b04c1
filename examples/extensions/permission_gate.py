"""Ask before the model runs a dangerous shell command.

Every `bash` call is checked against a few patterns (recursive deletes, `sudo`, `chmod 777`,
writing to a disk device). A match asks the user through `ctx.ui.select`; anything but "Allow"
blocks the call, and the model is told why. Without a UI to ask (print and JSON modes) dangerous
commands are blocked outright.
"""

from __future__ import annotations

import re
from typing import Any

from pi.app.extensions import ExtensionAPI, is_tool_call_event_type

DANGEROUS = [
    re.compile(r"\brm\s+(-[a-zA-Z]*[rf][a-zA-Z]*\s+)+"),
    re.compile(r"\bsudo\b"),
    re.compile(r"\bchmod\s+(-R\s+)?777\b"),
    re.compile(r">\s*/dev/sd[a-z]"),
    re.compile(r"\bmkfs(\.\w+)?\b"),
]


def is_dangerous(command: str) -> bool:
    return any(pattern.search(command) for pattern in DANGEROUS)


def setup(pi: ExtensionAPI) -> None:
    @pi.on("tool_call")
    async def gate(event: Any, ctx: Any) -> dict[str, Any] | None:
        if not is_tool_call_event_type("bash", event):
            return None
        command = str(event.input.get("command", ""))
        if not is_dangerous(command):
            return None
        if not ctx.has_ui:
            return {"block": True, "reason": "Dangerous command blocked: no user is there to confirm it"}
        choice = await ctx.ui.select(f"Allow dangerous command?\n\n  {command}", ["Allow", "Block"])
        if choice == "Allow":
            return None
        ctx.ui.notify("Command blocked by user", "warning")
        return {"block": True, "reason": "The user blocked this command"}
