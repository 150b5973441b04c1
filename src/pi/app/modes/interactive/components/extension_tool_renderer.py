"""Tool cards drawn by an extension's `render_call` / `render_result` (a tool's own, or a renderer resolver's).

`render_call(args, theme, context)` draws the call and `render_result(result, options, theme,
context)` the output, where `result` is `{"content", "details", "is_error"}` and `options` is
`{"expanded", "is_partial"}`. Each returns a component, a string or lines. A missing or raising
`render_call` shows the tool name; a missing or raising `render_result` shows the raw text output.
The card itself (panel, background, caching) stays pi's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from pi.app.modes.interactive.components.extension_guard import ErrorReporter, GuardedComponent
from pi.app.modes.interactive.components.formatting import EXPAND_KEY, wrap
from pi.app.modes.interactive.components.tool_renderers.base import BaseRenderer, ToolState, output_lines, title

if TYPE_CHECKING:
    from pi.tui.theme import Theme


class ToolRenderContext(Struct):
    """What a render function may look at besides the arguments or the result."""

    args: dict[str, Any]
    tool_call_id: str
    cwd: str
    execution_started: bool
    args_complete: bool
    is_partial: bool
    expanded: bool
    is_error: bool
    duration_ms: float | None
    output_pad: int = 1
    show_images: bool = False
    state: dict[str, Any] = field(default_factory=dict)
    """Kept between calls for this tool call: a renderer may store what it computed."""
    last_component: Any = None
    invalidate: Callable[[], None] = lambda: None

    def key_text(self, action: str = "app.tools.expand") -> str:
        return EXPAND_KEY if action == "app.tools.expand" else action

    def key_hint(self, action: str = "app.tools.expand", description: str = "to expand") -> str:
        return f"({self.key_text(action)} {description})"


class ExtensionToolRenderer(BaseRenderer):
    """Renders a card through the extension's functions (see the module docstring)."""

    def __init__(self, slots: dict[str, Any], on_error: ErrorReporter | None = None, output_pad: int = 1) -> None:
        self.render_call = slots.get("render_call")
        self.render_result = slots.get("render_result")
        self.on_error = on_error
        self.output_pad = output_pad
        self._failed: set[str] = set()

    def _context(self, state: ToolState) -> ToolRenderContext:
        memo = state.memo.setdefault("extension_render_state", {})
        return ToolRenderContext(
            args=state.args,
            tool_call_id=state.call_id,
            cwd=state.cwd,
            execution_started=state.started_at is not None,
            args_complete=state.args_complete,
            is_partial=state.result is None,
            expanded=state.expanded,
            is_error=state.is_error,
            duration_ms=state.duration_ms,
            output_pad=self.output_pad,
            state=memo,
            last_component=state.memo.get("extension_last_component"),
        )

    def _draw(self, slot: str, call: Callable[[], Any], state: ToolState, width: int) -> list[str] | None:
        """Lines of one render function, None when it fails (reported once per card and slot)."""
        where = f'{slot} of tool "{state.name}"'
        try:
            built = call()
        except Exception as error:
            if slot not in self._failed and self.on_error is not None:
                self.on_error(where, error)
            self._failed.add(slot)
            return None
        if built is None:
            return None
        state.memo["extension_last_component"] = built
        if isinstance(built, str) or (isinstance(built, list | tuple) and all(isinstance(x, str) for x in built)):
            text = built if isinstance(built, str) else "\n".join(built)
            return [line for part in text.split("\n") for line in (wrap(part, width) if part else [""])]
        return GuardedComponent(built, where, self.on_error).render(width)

    def render(self, state: ToolState, theme: Theme, width: int) -> list[str]:
        context = self._context(state)
        call_lines = None
        if self.render_call is not None:
            render_call = self.render_call
            call_lines = self._draw("render_call", lambda: render_call(state.args, theme, context), state, width)
        if call_lines is None:
            call_lines = wrap(title(theme, state.name), width)
        output = state.output
        if output is None:
            return call_lines
        result = {"content": [{"type": "text", "text": output.text}], "details": output.details}
        result["is_error"] = state.is_error
        options = {"expanded": state.expanded, "is_partial": state.result is None}
        result_lines = None
        if self.render_result is not None:
            render_result = self.render_result
            result_lines = self._draw(
                "render_result", lambda: render_result(result, options, theme, context), state, width
            )
        if result_lines is None:
            token = "error" if state.is_error else "toolOutput"
            result_lines = [line for raw in output_lines(output.text) for line in wrap(theme.fg(token, raw), width)]
        return [*call_lines, *([""] if result_lines else []), *result_lines]


__all__ = ["ExtensionToolRenderer", "ToolRenderContext"]
