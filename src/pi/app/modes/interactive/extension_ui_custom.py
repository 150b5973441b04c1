"""`ctx.ui.custom`: an extension's own component, in the editor's place or as an overlay, with the keys.

The factory is called as `factory(tui, theme, keybindings, done)` and returns a component (or an
awaitable of one): `render(width) -> list[str]`, and optionally `handle_input(data)`, `invalidate()`,
`dispose()`. The component has the keyboard until it calls `done(value)`; `custom` then returns
`value`. Inline, it replaces the editor like a dialog; as an overlay it is drawn over the screen
(`overlay_options`: `anchor`, `width` in cells or as a fraction, `margin`, `offset_x`, `offset_y`)
and `on_handle` receives an `OverlayHandle` to hide, show, focus or unfocus it. `blocked=True` tells
the terminal that pi waits for the user while the component is shown (OSC 7501, where enabled).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.components.extension_guard import ErrorReporter, GuardedComponent

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp
    from pi.app.modes.interactive.extension_ui_dialogs import DialogHost
    from pi.tui.overlay import Anchor, Overlay

_ANCHORS = ("center", "top", "top-right", "top-left", "bottom", "bottom-right", "bottom-left")


def _option(options: Any, *names: str) -> Any:
    for name in names:
        if isinstance(options, dict) and name in options:
            return options[name]
        if not isinstance(options, dict) and hasattr(options, name):
            return getattr(options, name)
    return None


def overlay_placement(options: Any) -> tuple[Anchor, int | float | None, int, int, int]:
    """(anchor, width, margin, row offset, column offset) from a dict or an object; bad values fall back."""
    anchor = _option(options, "anchor")
    width = _option(options, "width")
    if isinstance(width, str) and width.endswith("%"):
        try:
            width = float(width[:-1]) / 100
        except ValueError:
            width = None
    if isinstance(width, bool) or not isinstance(width, int | float):
        width = None
    margin = _option(options, "margin")
    row = _option(options, "offset_y", "offsetY", "row_offset")
    col = _option(options, "offset_x", "offsetX", "col_offset")

    def whole(value: Any, default: int) -> int:
        return value if isinstance(value, int) and not isinstance(value, bool) else default

    chosen: Anchor = anchor if anchor in _ANCHORS else "center"
    return chosen, width, whole(margin, 1), whole(row, 0), whole(col, 0)


class OverlayHandle:
    """What `on_handle` gets for an overlay: hide or show it, give the keyboard to it or take it back."""

    def __init__(self, app: InteractiveApp, overlay: Overlay) -> None:
        self._app = app
        self._overlay = overlay

    def hide(self) -> None:
        """Take the overlay away for good (the `custom` call still waits for `done`)."""
        self._app.tui.close_overlay(self._overlay)

    def set_hidden(self, hidden: bool) -> None:
        self._overlay.hidden = hidden
        if hidden:
            self.unfocus()
        self._app.tui.request_render(full=True)

    def is_hidden(self) -> bool:
        return self._overlay.hidden

    def focus(self) -> None:
        component = self._overlay.component
        if isinstance(component, GuardedComponent) and not self._overlay.hidden:
            self._app.tui.set_focus(component)

    def unfocus(self) -> None:
        if self._app.tui.focused is self._overlay.component:
            self._app.tui.set_focus(self._app.slot)

    def is_focused(self) -> bool:
        return self._app.tui.focused is self._overlay.component


async def run_custom(
    app: InteractiveApp,
    dialogs: DialogHost,
    factory: Callable[..., Any],
    *,
    overlay: bool,
    overlay_options: Any,
    on_handle: Callable[[Any], None] | None,
    blocked: bool,
    on_error: ErrorReporter,
) -> Any:
    """Show the factory's component until it calls `done(value)`; returns `value` (None if the factory fails)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def done(value: Any = None) -> None:
        if not future.done():
            future.set_result(value)
        app.request_render()

    try:
        inner = factory(app.tui, app.theme, app.keybindings, done)
        if inspect.isawaitable(inner):
            inner = await inner
    except Exception as error:
        on_error("custom component", error)
        return None
    if future.done():  # finished while being built
        return future.result()
    guard = GuardedComponent(inner, "custom component", on_error)
    shown: Overlay | None = None
    if overlay:
        anchor, width, margin, row, col = overlay_placement(overlay_options)
        shown = app.tui.show_overlay(guard, anchor, width, margin, focus=True)
        shown.row_offset, shown.col_offset = row, col
        if on_handle is not None:
            try:
                on_handle(OverlayHandle(app, shown))
            except Exception as error:
                on_error("custom component", error)
    else:
        dialogs.show(guard)
    if blocked:
        app.terminal.set_program_status("blocked")
    try:
        return await future
    finally:
        if shown is not None:
            app.tui.close_overlay(shown)  # gives the keyboard back when the overlay had it
        else:
            dialogs.close(guard)
        guard.dispose()
        if blocked:
            app.terminal.set_program_status("working" if app.session.is_streaming else "idle")
        app.tui.request_render(full=True)


__all__ = ["OverlayHandle", "overlay_placement", "run_custom"]
