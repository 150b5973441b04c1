"""Fullscreen input the TUI handles itself: scroll keys, wheel events and clicks on the jump pill."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:
    from pi.tui.tui import TUI

__all__ = ["MouseEvent", "handle_mouse", "handle_scroll_key", "parse_mouse", "prompt_starts"]

_MOUSE_RE = re.compile(r"^\x1b\[<(\d+);(\d+);(\d+)([Mm])$")
_PROMPT_MARK = "\x1b]133;A"


class MouseEvent(Struct, frozen=True):
    """An SGR mouse report; `row`/`col` are 0-based screen cells."""

    button: int
    row: int
    col: int
    pressed: bool
    shift: bool
    alt: bool
    ctrl: bool
    motion: bool

    @property
    def wheel(self) -> int:
        """-1 for wheel up, 1 for wheel down, 0 otherwise."""
        if self.button == 64:
            return -1
        if self.button == 65:
            return 1
        return 0


def parse_mouse(data: str) -> MouseEvent | None:
    """Decode `CSI < b;x;y M|m`."""
    m = _MOUSE_RE.match(data)
    if not m:
        return None
    code = int(m.group(1))
    return MouseEvent(
        button=code & ~(4 | 8 | 16 | 32),
        row=int(m.group(3)) - 1,
        col=int(m.group(2)) - 1,
        pressed=m.group(4) == "M",
        shift=bool(code & 4),
        alt=bool(code & 8),
        ctrl=bool(code & 16),
        motion=bool(code & 32),
    )


def handle_mouse(tui: TUI, data: str) -> bool:
    """Wheel scrolls the transcript; a click on the pill jumps to the end; the scrollbar drags.

    Other events go to `tui.mouse_handlers` (selection, clicks on cards). True if the view changed.
    """
    event = parse_mouse(data)
    if event is None:
        return False
    if event.wheel:
        if event.row >= tui.view_height:
            return False
        tui.scroll.scroll_by(event.wheel * tui.wheel.lines(tui.clock(), alt=event.alt))
        return True
    if event.button == 0 and event.pressed and not event.motion and tui.pill_hit(event.row, event.col):
        tui.scroll.to_bottom()
        return True
    hover_changed = _track_scrollbar_hover(tui, event)
    if _drag_scrollbar(tui, event):
        return True
    changed = hover_changed
    for handler in list(tui.mouse_handlers):
        if handler(event):
            changed = True
            break
    return changed


def _on_scrollbar_column(tui: TUI, event: MouseEvent) -> bool:
    """The event is in the last column of the transcript rows while a scrollbar can be there."""
    if tui.scrollbar == "hidden" or event.row >= tui.view_height or event.col != tui.terminal.columns - 1:
        return False
    return tui.scrollbar == "always" or tui.scroll.overflows


def _track_scrollbar_hover(tui: TUI, event: MouseEvent) -> bool:
    """The pointer over the scrollbar column (or dragging the thumb) keeps an `auto` bar shown and
    draws the thumb solid; leaving it, or a release (terminals without all-motion reports send
    nothing more), starts the usual delay before an `auto` bar goes. True if the bar's look changed."""
    scroll = tui.scroll
    active = event.pressed and (_on_scrollbar_column(tui, event) or tui.dragging_scrollbar)
    if active == scroll.bar_active:
        return False
    scroll.bar_active = active
    if not active:
        tui.reveal_scrollbar()
    return True


def _drag_scrollbar(tui: TUI, event: MouseEvent) -> bool:
    """A press on the scrollbar column moves the thumb there; motion with the button held drags it."""
    scroll = tui.scroll
    on_bar = _on_scrollbar_column(tui, event)
    if not event.pressed:
        tui.dragging_scrollbar = False
        return False
    if event.button != 0 or not (on_bar or (event.motion and tui.dragging_scrollbar)):
        return False
    if not event.motion:
        tui.dragging_scrollbar = True
    if not tui.dragging_scrollbar or (event.row >= tui.view_height and not event.motion):
        return False
    size = scroll.thumb()[1]
    scroll.scroll_to_line(scroll.offset_for_thumb_row(event.row - size // 2))
    return True


def prompt_starts(lines: list[str]) -> list[int]:
    """Document lines that start a message (OSC 133 `A` marks)."""
    return [i for i, line in enumerate(lines) if _PROMPT_MARK in line]


def handle_scroll_key(tui: TUI, data: str) -> bool:
    """The `tui.altScreen.*` keys. True if consumed."""
    kb = tui.keybindings
    scroll = tui.scroll
    action = kb.action_for(
        data,
        [
            "tui.altScreen.pageUp",
            "tui.altScreen.pageDown",
            "tui.altScreen.halfPageUp",
            "tui.altScreen.halfPageDown",
            "tui.altScreen.lineUp",
            "tui.altScreen.lineDown",
            "tui.altScreen.top",
            "tui.altScreen.bottom",
            "tui.altScreen.previousPrompt",
            "tui.altScreen.nextPrompt",
        ],
    )
    if action is None:
        return False
    name = action.rsplit(".", 1)[1]
    if name == "pageUp":
        scroll.page_up()
    elif name == "pageDown":
        scroll.page_down()
    elif name == "halfPageUp":
        scroll.half_page(-1)
    elif name == "halfPageDown":
        scroll.half_page(1)
    elif name == "lineUp":
        scroll.scroll_by(-1)
    elif name == "lineDown":
        scroll.scroll_by(1)
    elif name == "top":
        scroll.to_top()
    elif name == "bottom":
        scroll.to_bottom()
    else:
        starts = prompt_starts(tui.document.render(tui.document_width))
        if name == "previousPrompt":
            targets = [i for i in starts if i < scroll.offset]
            if targets:
                scroll.scroll_to_line(targets[-1])
        else:
            targets = [i for i in starts if i > scroll.offset]
            if targets:
                scroll.scroll_to_line(targets[0])
            else:
                scroll.to_bottom()
    return True
