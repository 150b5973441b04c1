"""Flash messages: a short note at the top right of the screen that goes away by itself.

Used in fullscreen for feedback that needs no place in the transcript (`Copied!`). A new flash
replaces the one shown; errors stay 5 seconds so they can be read. The flash is a passive overlay:
it never takes the keyboard and does not stop the transcript from scrolling.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from pi.tui.overlay import Overlay
from pi.tui.text_width import truncate_to_width, visible_width

if TYPE_CHECKING:
    from pi.tui.theme import Theme
    from pi.tui.tui import TUI

__all__ = ["ERROR_SECONDS", "INFO_SECONDS", "FlashController", "FlashMessage"]

INFO_SECONDS = 1.5
ERROR_SECONDS = 5.0


class FlashMessage:
    """One line: the text between spaces, drawn inverse (errors in the theme's error colour)."""

    def __init__(self, text: str, error: bool, theme: Theme | None = None) -> None:
        self.text = text
        self.error = error
        self.theme = theme

    @property
    def width(self) -> int:
        return visible_width(self.text) + 2

    def invalidate(self) -> None:
        return None

    def render(self, width: int) -> list[str]:
        body = truncate_to_width(f" {self.text} ", width, "")
        code = "\x1b[7m"
        if self.error and self.theme is not None:
            code = self.theme.fg_code("error") + code
        return [code + body + "\x1b[0m"]


class FlashController:
    """Shows at most one flash on a TUI and removes it when its time is up."""

    def __init__(self, tui: TUI) -> None:
        self.tui = tui
        self.overlay: Overlay | None = None
        self._timer: asyncio.TimerHandle | None = None
        #: Set whenever the current flash is taken down (for callers that wait for it).
        self.hidden = asyncio.Event()

    @property
    def text(self) -> str | None:
        """The text shown now, or None."""
        if self.overlay is None:
            return None
        component = self.overlay.component
        return component.text if isinstance(component, FlashMessage) else None

    @property
    def hides_at(self) -> float | None:
        """Loop time at which the current flash goes away (None: not shown, or no loop to time it)."""
        return self._timer.when() if self._timer is not None else None

    def show(self, text: str, *, error: bool = False, duration: float | None = None) -> None:
        """Show `text` at the top right for `duration` seconds (1.5 s, errors 5 s)."""
        self.hide()
        self.hidden.clear()
        message = FlashMessage(text, error, self.tui.theme)
        overlay = Overlay(message, anchor="top-right", width=message.width, margin=0, passive=True)
        self.overlay = overlay
        self.tui.overlays.append(overlay)
        self.tui.request_render()
        seconds = duration if duration is not None else (ERROR_SECONDS if error else INFO_SECONDS)
        with contextlib.suppress(RuntimeError):  # without a loop the flash stays until replaced
            self._timer = asyncio.get_running_loop().call_later(seconds, self.hide)

    def hide(self) -> None:
        """Take the flash down now (nothing happens when none is shown)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        overlay, self.overlay = self.overlay, None
        if overlay is not None:
            self.tui.close_overlay(overlay)
        self.hidden.set()
