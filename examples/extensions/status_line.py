"""A status line in the footer and a small widget above the editor that follow the agent's turns.

Run it with `pi -e examples/extensions/status_line.py`. The footer's third line reads `turns: ready`
at start, `turn 2 running...` while the agent works and `3 turns done` when it stops; a one-line
widget above the editor counts the tool calls of the session. `/status-line` asks (with a list
dialog) whether to keep showing them or hide them.

In print and JSON modes there is no footer: `ctx.ui` quietly does nothing, so the extension can stay
loaded everywhere.
"""

from __future__ import annotations

from typing import Any

from pi.app.extensions import ExtensionAPI

KEY = "status-line"


class Counters:
    """What the status line shows; one instance per loaded extension."""

    def __init__(self) -> None:
        self.turns = 0
        self.tool_calls = 0
        self.visible = True

    def widget_lines(self) -> list[str]:
        return [f"tool calls this session: {self.tool_calls}"]


def setup(pi: ExtensionAPI) -> None:
    counters = Counters()

    def show(ctx: Any, text: str) -> None:
        if counters.visible:
            ctx.ui.set_status(KEY, text)
            ctx.ui.set_widget(KEY, counters.widget_lines())

    @pi.on("session_start")
    def started(event: Any, ctx: Any) -> None:
        show(ctx, "turns: ready")

    @pi.on("turn_start")
    def turn_started(event: Any, ctx: Any) -> None:
        counters.turns += 1
        show(ctx, f"turn {counters.turns} running...")

    @pi.on("tool_execution_start")
    def tool_started(event: Any, ctx: Any) -> None:
        counters.tool_calls += 1
        show(ctx, f"turn {counters.turns} running...")

    @pi.on("agent_end")
    def finished(event: Any, ctx: Any) -> None:
        plural = "" if counters.turns == 1 else "s"
        show(ctx, f"{counters.turns} turn{plural} done")

    async def configure(args: str, ctx: Any) -> None:
        choice = await ctx.ui.select("Status line", ["Show turns", "Hide"])
        if choice is None:
            return
        counters.visible = choice == "Show turns"
        if counters.visible:
            show(ctx, f"{counters.turns} turns so far")
        else:
            ctx.ui.set_status(KEY, None)
            ctx.ui.set_widget(KEY, None)
        ctx.ui.notify(f"Status line: {'shown' if counters.visible else 'hidden'}")

    pi.register_command("status-line", configure, description="Show or hide the turn status line")
