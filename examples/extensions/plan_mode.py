"""Plan mode: explore and plan with read-only tools, then switch back to make changes.

`/plan` toggles it (or start with `pi --plan`). While it is on, only `read`, `grep`, `find` and
`ls` are offered to the model, each prompt carries a note asking for a plan instead of edits, and
the footer shows "plan" (in UIs that have one). Turning it off restores the tools that were
active before.
"""

from __future__ import annotations

from typing import Any

from pi.app.extensions import ExtensionAPI

READ_ONLY = ["read", "grep", "find", "ls"]
NOTE = (
    "Plan mode is on: do not change any file. Investigate with the read-only tools and answer with a "
    "numbered plan of the changes you would make."
)


def setup(pi: ExtensionAPI) -> None:
    state: dict[str, Any] = {"on": False, "saved": None}
    pi.register_flag("plan", type="boolean", default=False, description="Start in plan mode (read-only tools)")

    def turn_on(ctx: Any) -> None:
        state["on"], state["saved"] = True, pi.get_active_tools()
        pi.set_active_tools(READ_ONLY)
        ctx.ui.set_status("plan-mode", "plan")

    def turn_off(ctx: Any) -> None:
        state["on"] = False
        pi.set_active_tools(state["saved"] or ["read", "bash", "edit", "write"])
        ctx.ui.set_status("plan-mode", None)

    async def toggle(args: str, ctx: Any) -> None:
        if state["on"]:
            turn_off(ctx)
            ctx.ui.notify("Plan mode off: all tools are back")
        else:
            turn_on(ctx)
            ctx.ui.notify("Plan mode on: read-only tools")

    pi.register_command("plan", toggle, description="Toggle plan mode (read-only exploration)")

    @pi.on("session_start")
    def start(event: Any, ctx: Any) -> None:
        if pi.get_flag("plan") and not state["on"]:
            turn_on(ctx)

    @pi.on("before_agent_start")
    def note(event: Any, ctx: Any) -> dict[str, Any] | None:
        if not state["on"]:
            return None
        return {"message": {"customType": "plan-mode", "content": NOTE, "display": False}}
