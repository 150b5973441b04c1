"""Ask before the conversation is replaced: a new session, switching to another one, or a fork.

The current session file is never deleted, but leaving it by accident loses your place. When a UI
can answer, the switch waits for a yes; without one (print and JSON modes) it goes ahead.
"""

from __future__ import annotations

from typing import Any

from pi.app.extensions import ExtensionAPI


def setup(pi: ExtensionAPI) -> None:
    async def confirm(title: str, ctx: Any) -> dict[str, Any] | None:
        if not ctx.has_ui:
            return None
        if await ctx.ui.confirm(title, "You can come back to the current session later with /resume."):
            return None
        ctx.ui.notify("Kept the current session", "info")
        return {"cancel": True}

    @pi.on("session_before_switch")
    async def before_switch(event: Any, ctx: Any) -> dict[str, Any] | None:
        title = "Start a new session?" if event.reason == "new" else "Switch to another session?"
        return await confirm(title, ctx)

    @pi.on("session_before_fork")
    async def before_fork(event: Any, ctx: Any) -> dict[str, Any] | None:
        return await confirm("Fork into a new session?", ctx)
