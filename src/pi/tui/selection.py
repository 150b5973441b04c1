"""Mouse selection in the fullscreen transcript: drag, double-click a word, triple-click a line.

The terminal's own selection cannot work while pi captures the mouse, so pi draws one itself. A
selection is kept in document coordinates (line, cell column), not screen cells, so it stays on the
same text while the view scrolls or output streams in. It is drawn inverse over the visible rows;
dragging past the top or bottom edge scrolls. On release the plain text (no escapes) is copied when
copy-on-select is on (the fullscreenCopyOnSelect setting, default true), with the flash `Copied!`;
otherwise Ctrl+X copies it. Losing terminal focus ends a press as a release would.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from msgspec import Struct

from pi.tui.clipboard import ClipboardResult, copy_to_clipboard, osc52_sequence
from pi.tui.text_width import slice_columns, strip_ansi, visible_width
from pi.tui.tui_input import MouseEvent

if TYPE_CHECKING:
    from pi.tui.tui import TUI

__all__ = [
    "COPIED_FLASH",
    "DOUBLE_CLICK_SECONDS",
    "WORD_CHARS",
    "Point",
    "Selection",
    "enable_selection",
    "paint_span",
    "word_span",
]

logger = logging.getLogger(__name__)

DOUBLE_CLICK_SECONDS = 0.5
WORD_CHARS = frozenset("/-+\\~_.")
COPIED_FLASH = "Copied!"
AUTOSCROLL_SECONDS = 0.05
INVERSE = "\x1b[7m"
Copier = Callable[[str], Awaitable[ClipboardResult]]
Unit = Literal["char", "word", "line"]


class Point(Struct, frozen=True, order=True):
    """A cell of the document: line index and 0-based cell column."""

    line: int
    col: int


def paint_span(row: str, start: int, end: int, style: str) -> str:
    """`row` with cells [start, end) shown as plain text in `style` (an SGR string); the rest keeps its styles."""
    if end <= start:
        return row
    width = visible_width(row)
    end = min(end, width)
    if end <= start:
        return row
    before = slice_columns(row, 0, start)
    middle = strip_ansi(slice_columns(row, start, end))
    after = slice_columns(row, end, width)
    return before + "\x1b[0m" + style + middle + "\x1b[0m" + after


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch in WORD_CHARS


def _cells(plain: str) -> list[tuple[int, str]]:
    """(start column, character) of every character that takes cells."""
    out = []
    col = 0
    for ch in plain:
        w = visible_width(ch)
        if w == 0:
            continue
        out.append((col, ch))
        col += w
    return out


def word_span(plain: str, col: int) -> tuple[int, int]:
    """Cell columns [start, end) of the word under `col` (letters, digits and `/ - + \\ ~ _ .`)."""
    cells = _cells(plain)
    index = next((i for i, (c, ch) in enumerate(cells) if c <= col < c + max(1, visible_width(ch))), None)
    if index is None:
        return (col, col)
    if not _is_word(cells[index][1]):
        c, ch = cells[index]
        return (c, c + visible_width(ch))
    lo = index
    while lo > 0 and _is_word(cells[lo - 1][1]):
        lo -= 1
    hi = index
    while hi + 1 < len(cells) and _is_word(cells[hi + 1][1]):
        hi += 1
    end_col, end_ch = cells[hi]
    return (cells[lo][0], end_col + visible_width(end_ch))


class Selection:
    """The transcript selection of one TUI (see `enable_selection`)."""

    def __init__(self, tui: TUI, *, copy_on_select: bool = True, copier: Copier | None = None) -> None:
        self.tui = tui
        self.copy_on_select = copy_on_select
        self.copier: Copier = copier or self._default_copier
        self.anchor: Point | None = None
        self.head: Point | None = None
        self.unit: Unit = "char"
        self.pressing = False
        self.dragged = False
        #: A plain click (no drag) on the transcript: (document line, column) -> True if it did something.
        self.on_click: Callable[[int, int], bool] | None = None
        #: The copy started by the last release (or Ctrl+X), for callers that wait for it.
        self.last_copy: asyncio.Task[ClipboardResult | None] | None = None
        self._clicks = 0
        self._last_click = (-1.0, Point(-1, -1))
        self._edge = 0
        self._edge_col = 0
        self._timer: asyncio.TimerHandle | None = None

    # --- wiring -----------------------------------------------------------------------------
    def attach(self) -> None:
        self.tui.mouse_handlers.append(self.handle_mouse)
        self.tui.row_decorators.append(self.decorate)
        self.tui.focus_listeners.append(self._on_focus)
        self.tui.input_listeners.append(self.handle_key)

    def detach(self) -> None:
        for hooks, fn in (
            (self.tui.mouse_handlers, self.handle_mouse),
            (self.tui.row_decorators, self.decorate),
            (self.tui.focus_listeners, self._on_focus),
            (self.tui.input_listeners, self.handle_key),
        ):
            with contextlib.suppress(ValueError):
                hooks.remove(fn)  # type: ignore[arg-type]
        self.clear()

    # --- state ------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.range() is not None

    def clear(self) -> None:
        self.anchor = self.head = None
        self.pressing = self.dragged = False
        self._stop_autoscroll()

    def _lines(self) -> list[str]:
        return self.tui.document.render(self.tui.document_width)

    def _plain(self, line: int) -> str:
        lines = self._lines()
        return strip_ansi(lines[line]) if 0 <= line < len(lines) else ""

    def range(self) -> tuple[Point, Point] | None:
        """Start (inclusive) and end (exclusive column) of the selection, or None."""
        if self.anchor is None or self.head is None:
            return None
        a, b = sorted((self.anchor, self.head))
        if self.unit == "line":
            return (Point(a.line, 0), Point(b.line, visible_width(self._plain(b.line))))
        if self.unit == "word":
            start = word_span(self._plain(a.line), a.col)[0]
            end = word_span(self._plain(b.line), b.col)[1]
            return (Point(a.line, start), Point(b.line, end))
        if not self.dragged or a == b:
            return None
        return (a, Point(b.line, b.col + 1))

    def span_on(self, line: int) -> tuple[int, int] | None:
        """Cell columns [start, end) selected on document line `line`."""
        r = self.range()
        if r is None or not r[0].line <= line <= r[1].line:
            return None
        start = r[0].col if line == r[0].line else 0
        end = r[1].col if line == r[1].line else visible_width(self._plain(line))
        return (start, end) if end > start else None

    def text(self) -> str:
        """The selected text without styles; lines joined by newlines, trailing spaces dropped."""
        r = self.range()
        if r is None:
            return ""
        out = []
        for line in range(r[0].line, r[1].line + 1):
            span = self.span_on(line)
            out.append(slice_columns(self._plain(line), *span).rstrip() if span else "")
        return "\n".join(out)

    # --- drawing ----------------------------------------------------------------------------
    def decorate(self, rows: list[str], first_line: int, width: int) -> list[str]:
        r = self.range()
        if r is None or r[1].line < first_line or r[0].line >= first_line + len(rows):
            return rows
        out = list(rows)
        for i in range(max(0, r[0].line - first_line), min(len(rows), r[1].line - first_line + 1)):
            span = self.span_on(first_line + i)
            if span:
                out[i] = paint_span(out[i], span[0], min(span[1], width), INVERSE)
        return out

    # --- input ------------------------------------------------------------------------------
    def _point(self, event: MouseEvent) -> Point:
        tui = self.tui
        total = len(self._lines())
        row = min(max(0, event.row), max(0, tui.view_height - 1))
        line = min(max(0, tui.scroll.offset + row), max(0, total - 1))
        col = min(max(0, event.col), max(0, tui.document_width - 1))
        return Point(line, col)

    def handle_mouse(self, event: MouseEvent) -> bool:
        """Left button presses, drags and releases on the transcript. True if the view changed."""
        if self.tui.mode != "fullscreen" or event.wheel or event.button not in (0, 3):
            return False
        if event.pressed and not event.motion and event.button == 0:
            outside = event.row >= self.tui.view_height or event.col >= self.tui.document_width
            if outside or self.tui.has_active_overlays():
                return False
            return self._press(event)
        if not self.pressing:
            return False
        if event.pressed and event.motion:
            return self._drag(event) if event.button == 0 else False
        if not event.pressed:
            return self._release(event)
        return False

    def _press(self, event: MouseEvent) -> bool:
        now = self.tui.clock()
        point = self._point(event)
        last_time, last_point = self._last_click
        near = last_point.line == point.line and abs(last_point.col - point.col) <= 1
        self._clicks = self._clicks + 1 if near and now - last_time <= DOUBLE_CLICK_SECONDS else 1
        self._last_click = (now, point)
        self.unit = "line" if self._clicks >= 3 else "word" if self._clicks == 2 else "char"
        if self._clicks >= 3:
            self._clicks = 0  # a fourth click starts over
        self.anchor = self.head = point
        self.pressing = True
        self.dragged = False
        return True

    def _drag(self, event: MouseEvent) -> bool:
        point = self._point(event)
        if point != self.head:
            self.dragged = True
        self.head = point
        edge = -1 if event.row <= 0 else 1 if event.row >= self.tui.view_height - 1 else 0
        self._edge, self._edge_col = edge, event.col
        if edge:
            self._autoscroll_step()
            self._arm_autoscroll()
        else:
            self._stop_autoscroll()
        return True

    def _release(self, event: MouseEvent | None) -> bool:
        self.pressing = False
        self._stop_autoscroll()
        if event is not None and self.head is not None:
            point = self._point(event)
            if point != self.head and self.unit == "char":
                self.dragged = True
                self.head = point
        if self.range() is None:
            head = self.head
            self.anchor = self.head = None
            if event is not None and head is not None and self._clicks == 1 and self.on_click is not None:
                self.on_click(head.line, head.col)
            return True
        if self.copy_on_select:
            self.copy()
        return True

    def _on_focus(self, focused: bool) -> None:
        if not focused and self.pressing:
            self._release(None)
            self.tui.request_render()

    def handle_key(self, data: str) -> bool:
        """Ctrl+X (`app.message.copy`) copies the selection when copy-on-select is off; other keys clear it.

        With copy-on-select on, Ctrl+X is left to the application (it copies the last reply).
        """
        if self.anchor is None or data.startswith("\x1b[<") or data in ("\x1b[I", "\x1b[O"):
            return False
        if not self.copy_on_select and self.active and self.tui.keybindings.matches(data, "app.message.copy"):
            self.copy()
            return True
        self.clear()
        self.tui.request_render()
        return False

    # --- auto-scroll ------------------------------------------------------------------------
    def _autoscroll_step(self) -> None:
        scroll = self.tui.scroll
        before = scroll.offset
        scroll.scroll_by(self._edge)
        if scroll.offset != before and self.head is not None:
            row = 0 if self._edge < 0 else max(0, self.tui.view_height - 1)
            fake = MouseEvent(0, row, self._edge_col, True, False, False, False, True)
            self.head = self._point(fake)
            self.dragged = True
        self.tui.request_render()

    def _arm_autoscroll(self) -> None:
        if self._timer is not None:
            return
        with contextlib.suppress(RuntimeError):
            self._timer = asyncio.get_running_loop().call_later(AUTOSCROLL_SECONDS, self._on_autoscroll)

    def _on_autoscroll(self) -> None:
        self._timer = None
        if self.pressing and self._edge:
            self._autoscroll_step()
            self._arm_autoscroll()

    def _stop_autoscroll(self) -> None:
        self._edge = 0
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # --- copying ----------------------------------------------------------------------------
    async def _default_copier(self, text: str) -> ClipboardResult:
        term = self.tui.terminal
        return await copy_to_clipboard(text, term.write, environ=term.environ)

    def copy(self) -> None:
        """Copy the selected text in the background, then flash `Copied!` (or the error)."""
        text = self.text()
        if not text:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop to run a tool on: let the terminal do it
            self.tui.terminal.write(osc52_sequence(text))
            self.tui.show_flash(COPIED_FLASH)
            return
        self.last_copy = loop.create_task(self._copy(text))

    async def _copy(self, text: str) -> ClipboardResult | None:
        try:
            result = await self.copier(text)
        except Exception as exc:
            logger.warning("copying the selection failed: %s", exc)
            self.tui.show_flash(f"Copy failed: {exc}", error=True)
            return None
        if result.ok:
            self.tui.show_flash(COPIED_FLASH)
        else:
            self.tui.show_flash("Copy failed: no clipboard tool and no terminal to send OSC 52 to", error=True)
        return result


def enable_selection(tui: TUI, *, copy_on_select: bool = True, copier: Copier | None = None) -> Selection:
    """Give a TUI mouse selection in fullscreen; returns the `Selection` (detach() to turn it off)."""
    selection = Selection(tui, copy_on_select=copy_on_select, copier=copier)
    selection.attach()
    return selection
