"""The fullscreen renderer: the transcript in a scroll view above a fixed dock, on the alternate screen.

Each frame composes exactly one line per screen row (viewport rows, then the dock), pastes the
scrollbar, the jump pill and overlays over them, and rewrites only the rows that changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pi.tui.component import CURSOR_MARKER, Component
from pi.tui.overlay import composite
from pi.tui.render_regular import check_widths, line_out
from pi.tui.scroll_view import JUMP_PILL_TEXT, THUMB_ACTIVE_CHAR, THUMB_CHAR, TRACK_CHAR, ScrollView
from pi.tui.text_width import ANSI_RE, SgrState, pad_to_width, slice_columns, visible_width

__all__ = ["FullscreenRenderer", "ScrollbarMode", "compose_dock", "compose_screen", "pill_span"]

ScrollbarMode = Literal["auto", "always", "hidden"]
_LINK_CLOSE = "\x1b]8;;\x1b\\"  # ends an OSC 8 hyperlink left open before the scrollbar cell
EDITOR_MIN_ROWS = 3


def compose_dock(parts: Sequence[tuple[list[str], int]], available: int) -> list[str]:
    """Dock lines from (lines, min_rows) parts, shrinking parts top-down to fit `available` rows.

    A shrunk part keeps its first lines and its last line (a bottom border stays visible).
    """
    heights = [len(lines) for lines, _ in parts]
    excess = sum(heights) - max(0, available)
    if excess > 0:
        for i, (lines, min_rows) in enumerate(parts):
            if excess <= 0:
                break
            floor = min(len(lines), min_rows)
            cut = min(excess, heights[i] - floor)
            heights[i] -= cut
            excess -= cut
    out: list[str] = []
    for (lines, _), h in zip(parts, heights, strict=True):
        if h >= len(lines):
            out.extend(lines)
        elif h > 1:
            out.extend(lines[: h - 1])
            out.append(lines[-1])
        elif h == 1:
            out.append(lines[-1])
    return out[-available:] if available > 0 else []


def pill_span(width: int) -> tuple[int, int]:
    """First column and width of the jump pill centred in a transcript `width` cells wide."""
    w = min(width, visible_width(JUMP_PILL_TEXT))
    return ((width - w) // 2, w)


def compose_screen(
    document: Component,
    dock_parts: Sequence[tuple[list[str], int]],
    scroll: ScrollView,
    width: int,
    height: int,
    scrollbar: ScrollbarMode = "auto",
    style: Callable[[str, str], str] | None = None,
    pill_style: Callable[[str], str] | None = None,
    decorate: Callable[[list[str], int, int], list[str]] | None = None,
    bar_revealed: bool = False,
) -> tuple[list[str], int, int]:
    """Screen rows for a frame, the number of transcript rows at the top, and the transcript width.

    `always` keeps the last column for the scrollbar, so the transcript is one column narrower.
    `auto` lays the transcript out at the full width and, while `bar_revealed` (just scrolled, or
    the pointer is on the bar) and the transcript overflows, draws the bar over its last column:
    the text never re-wraps when the bar comes and goes. `decorate(rows, first_line, width)` may
    restyle the visible transcript rows (selection, search matches, image placements) before the
    scrollbar and the pill are drawn over them.
    """
    dock = compose_dock(dock_parts, height)
    view_height = max(0, height - len(dock))
    doc_width = width - 1 if scrollbar == "always" and width > 1 else width
    lines = document.render(doc_width)
    scroll.update(len(lines), view_height)
    rows = lines[scroll.offset : scroll.offset + view_height]
    check_widths(rows, doc_width, scroll.offset)
    check_widths(dock, width, len(lines))
    if len(rows) < view_height:
        rows = rows + [""] * (view_height - len(rows))
    if decorate is not None:
        rows = decorate(rows, scroll.offset, doc_width)
    overlaid = scrollbar == "auto" and bar_revealed and scroll.overflows and width > 1
    if view_height > 0 and (doc_width < width or overlaid):
        rows = _paint_scrollbar(rows, scroll, width, style, keep_background=overlaid)
    if not scroll.following and view_height > 0:
        col, w = pill_span(doc_width)
        text = JUMP_PILL_TEXT if w == visible_width(JUMP_PILL_TEXT) else JUMP_PILL_TEXT[:w]
        pill = pill_style(text) if pill_style else text
        rows = composite(rows, [pill], view_height - 1, col, w, width)
    return rows + dock, view_height, doc_width


def _paint_scrollbar(
    rows: list[str],
    scroll: ScrollView,
    width: int,
    style: Callable[[str, str], str] | None,
    *,
    keep_background: bool,
) -> list[str]:
    """Track and thumb in the last column. Drawn over the transcript (`auto`), the cell keeps the
    background it covers, so a tool card's panel runs on to the screen edge under the bar."""
    start, size = scroll.thumb()
    paint = style or (lambda _token, text: text)
    track = paint("scrollbarTrack", TRACK_CHAR)
    thumb = paint("scrollbarThumb", THUMB_ACTIVE_CHAR if scroll.bar_active else THUMB_CHAR)
    painted: list[str] = []
    for i, row in enumerate(rows):
        bar = thumb if start <= i < start + size else track
        before = pad_to_width(slice_columns(row, 0, width - 1), width - 1)
        background = _background_at(row, width - 1) if keep_background else ""
        close = _LINK_CLOSE if "\x1b]8;" in before else ""
        painted.append(before + "\x1b[0m" + close + background + bar + "\x1b[0m")
    return painted


def _background_at(row: str, col: int) -> str:
    """The SGR that re-opens the background colour of cell `col` of `row` ("" for the default)."""
    cell = slice_columns(row, col, col + 1)
    if "\x1b" not in cell:
        return ""
    state = SgrState()
    for match in ANSI_RE.finditer(cell):
        state.apply(match.group())
    return f"\x1b[{state.bg}m" if state.bg else ""


class FullscreenRenderer:
    """Row-diffing writer for the alternate screen."""

    def __init__(self, show_cursor: bool = False) -> None:
        self.show_cursor = show_cursor
        self.reset()

    def reset(self) -> None:
        """Forget the screen; the next frame rewrites every row."""
        self.rows: list[str] = []
        self.width = -1
        self.height = -1
        self.cursor_visible = False

    def frame(self, rows: list[str], width: int, height: int) -> str:
        full = width != self.width or height != self.height or not self.rows
        parts: list[str] = ["\x1b[2J"] if full else []
        previous = self.rows
        for r, line in enumerate(rows[:height]):
            if not full and r < len(previous) and previous[r] == line:
                continue
            parts.append(f"\x1b[{r + 1};1H\x1b[2K" + line_out(line))
        if not full:
            for r in range(len(rows), min(len(previous), height)):
                parts.append(f"\x1b[{r + 1};1H\x1b[2K")
        self.rows = list(rows[:height])
        self.width = width
        self.height = height
        parts.append(self._cursor(rows[:height]))
        return "".join(parts)

    def _cursor(self, rows: list[str]) -> str:
        out = ""
        pos = None
        for r in range(len(rows) - 1, -1, -1):
            j = rows[r].find(CURSOR_MARKER)
            if j >= 0:
                pos = (r, visible_width(rows[r][:j]))
                break
        if pos is not None:
            out = f"\x1b[{pos[0] + 1};{pos[1] + 1}H"
        want = self.show_cursor and pos is not None
        if want != self.cursor_visible:
            out += "\x1b[?25h" if want else "\x1b[?25l"
            self.cursor_visible = want
        return out
