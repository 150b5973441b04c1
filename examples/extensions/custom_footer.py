"""Replace pi's footer with a one-line footer of your own, and switch back with `/footer`.

Run it with `pi -e examples/extensions/custom_footer.py`. The footer becomes a single line: the
project folder with its git branch on the left, the model and the number of turns on the right,
extension statuses in between. `/footer` toggles between this footer and pi's own.

A footer is a component: `render(width)` returns lines no wider than `width` (wider ones are cut).
The factory gets `(tui, theme, footer_data)`; `footer_data` reads the git branch and the statuses
other extensions set, and `tui.request_render()` asks for a new frame when something changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi.app.extensions import ExtensionAPI
from pi.tui.text_width import truncate_to_width, visible_width


class OneLineFooter:
    """`<folder> (<branch>)  <statuses>  <model> · <n> turns`, in dim text."""

    def __init__(self, theme: Any, data: Any, cwd: str, state: dict[str, Any]) -> None:
        self.theme = theme
        self.data = data
        self.cwd = cwd
        self.state = state

    def invalidate(self) -> None:
        return None

    def render(self, width: int) -> list[str]:
        branch = self.data.get_git_branch()
        left = Path(self.cwd).name + (f" ({branch})" if branch else "")
        statuses = " ".join(self.data.get_extension_statuses().values())
        right = f"{self.state['model']} · {self.state['turns']} turns"
        middle = f"  {statuses}" if statuses else ""
        gap = width - visible_width(left + middle) - visible_width(right)
        line = left + middle + " " * max(2, gap) + right
        return [self.theme.dim(truncate_to_width(line, width))]


def setup(pi: ExtensionAPI) -> None:
    state: dict[str, Any] = {"model": "no model", "turns": 0, "custom": False, "tui": None}

    def refresh() -> None:
        tui = state["tui"]
        if tui is not None:
            tui.request_render()

    def install(ctx: Any) -> None:
        def factory(tui: Any, theme: Any, data: Any) -> OneLineFooter:
            state["tui"] = tui
            return OneLineFooter(theme, data, ctx.cwd, state)

        ctx.ui.set_footer(factory)
        state["custom"] = True

    @pi.on("session_start")
    def started(event: Any, ctx: Any) -> None:
        state["model"] = ctx.model.id if ctx.model is not None else "no model"
        install(ctx)

    @pi.on("turn_end")
    def turn_done(event: Any, ctx: Any) -> None:
        state["turns"] += 1
        refresh()

    @pi.on("model_select")
    def model_changed(event: Any, ctx: Any) -> None:
        state["model"] = ctx.model.id if ctx.model is not None else "no model"
        refresh()

    def toggle(args: str, ctx: Any) -> None:
        if state["custom"]:
            ctx.ui.set_footer(None)
            state["custom"] = False
            ctx.ui.notify("pi's footer restored")
        else:
            install(ctx)
            ctx.ui.notify("Custom footer on")

    pi.register_command("footer", toggle, description="Switch between the custom footer and pi's own")
