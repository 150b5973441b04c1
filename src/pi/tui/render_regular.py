"""The regular (inline) renderer: content in the normal screen, history in the terminal's scrollback.

Each frame rewrites from the first line that changed. Lines that scrolled off the top belong to the
terminal's scrollback and cannot be rewritten, so a change there (or a width change, which re-wraps
everything) clears the screen and scrollback and repaints it all.
"""

from __future__ import annotations

from pi.tui.component import CURSOR_MARKER
from pi.tui.text_width import visible_width

__all__ = ["FULL_CLEAR", "RegularRenderer", "WidthOverflow", "check_widths", "first_difference", "line_out"]

FULL_CLEAR = "\x1b[2J\x1b[H\x1b[3J"
_OSC133 = "\x1b]133;"


class WidthOverflow(Exception):
    """A component rendered a line wider than the terminal."""

    def __init__(self, index: int, line_width: int, width: int, lines: list[str]) -> None:
        super().__init__(f"Rendered line {index} exceeds terminal width ({line_width} > {width}).")
        self.index = index
        self.line_width = line_width
        self.width = width
        self.lines = lines


def line_out(line: str) -> str:
    """A line as written: cursor marker and prompt marks removed, styles reset at the end."""
    if "\x1b" not in line:
        return line
    if CURSOR_MARKER in line:
        line = line.replace(CURSOR_MARKER, "")
    if _OSC133 in line:
        line = _strip_osc133(line)
    return line + "\x1b[0m"


def _strip_osc133(line: str) -> str:
    out = []
    start = 0
    while True:
        i = line.find(_OSC133, start)
        if i < 0:
            out.append(line[start:])
            return "".join(out)
        out.append(line[start:i])
        end_bel = line.find("\x07", i)
        end_st = line.find("\x1b\\", i)
        ends = [e + 1 for e in (end_bel,) if e >= 0] + [e + 2 for e in (end_st,) if e >= 0]
        start = min(ends) if ends else len(line)


def first_difference(old: list[str], new: list[str]) -> int:
    """Index of the first line that differs; len of the shorter list if one is a prefix of the other."""
    n = min(len(old), len(new))
    # Most frames change only near the end: compare big blocks at C speed first.
    lo = 0
    step = 256
    while lo + step <= n and old[lo : lo + step] == new[lo : lo + step]:
        lo += step
    for i in range(lo, n):
        if old[i] != new[i]:
            return i
    return n


def check_widths(lines: list[str], width: int, first_index: int = 0) -> None:
    """Raise WidthOverflow for the first line wider than `width` (numbered from `first_index`)."""
    for i, line in enumerate(lines):
        if len(line) <= width and line.isascii() and line.isprintable():
            continue
        w = visible_width(line)
        if w > width:
            raise WidthOverflow(first_index + i, w, width, lines)


def cursor_position(lines: list[str], first: int) -> tuple[int, int] | None:
    """(line index, column) of the cursor marker in lines[first:], searching from the bottom."""
    for i in range(len(lines) - 1, first - 1, -1):
        line = lines[i]
        j = line.find(CURSOR_MARKER)
        if j >= 0:
            return (i, visible_width(line[:j]))
    return None


class RegularRenderer:
    """Differential inline renderer. `frame()` returns the bytes to write for the new lines."""

    def __init__(self, clear_on_shrink: bool = False, show_cursor: bool = False) -> None:
        self.clear_on_shrink = clear_on_shrink
        self.show_cursor = show_cursor
        self.reset()

    def reset(self, *, fresh: bool = True) -> None:
        """Forget the screen: the next frame paints everything (at the cursor if `fresh`, else clearing)."""
        self.lines: list[str] = []
        self.width = -1
        self.height = -1
        self.cursor_row = 0  # content line the terminal cursor is on
        self.max_lines = 0
        self.fresh = fresh
        self.cursor_visible = False

    def frame(self, lines: list[str], width: int, height: int) -> str:
        """Output for one frame (without the synchronized-output brackets)."""
        if self.fresh:
            check_widths(lines, width)
            out = self._paint(lines, width, height, clear=False)
        elif width != self.width or height != self.height or (self.clear_on_shrink and len(lines) < self.max_lines):
            check_widths(lines, width)
            out = self._paint(lines, width, height, clear=True)
        else:
            first = first_difference(self.lines, lines)
            if first == len(lines) == len(self.lines):
                return self._place_cursor(lines, height)
            check_widths(lines[first:], width, first)
            viewport_top = max(0, self.max_lines - height)
            if first < viewport_top:
                out = self._paint(lines, width, height, clear=True)
            else:
                out = self._rewrite_from(first, lines)
        self.lines = lines
        return out + self._place_cursor(lines, height)

    def _paint(self, lines: list[str], width: int, height: int, clear: bool) -> str:
        body = "\r\n".join(line_out(line) for line in lines)
        self.fresh = False
        self.width = width
        self.height = height
        self.max_lines = len(lines)
        self.cursor_row = max(0, len(lines) - 1)
        return (FULL_CLEAR if clear else "") + body

    def _move_to(self, row: int) -> str:
        delta = self.cursor_row - row
        self.cursor_row = row
        if delta > 0:
            return f"\x1b[{delta}A\r"
        if delta < 0:
            return f"\x1b[{-delta}B\r"
        return "\r"

    def _rewrite_from(self, first: int, lines: list[str]) -> str:
        parts: list[str] = []
        old_count = len(self.lines)
        new_count = len(lines)
        if first < new_count:
            if first < max(old_count, 1):
                parts.append(self._move_to(first))
            else:  # appending below the last row written
                parts.append(self._move_to(old_count - 1) + "\r\n")
            parts.append("\x1b[2K" + line_out(lines[first]))
            parts.extend("\r\n\x1b[2K" + line_out(lines[i]) for i in range(first + 1, new_count))
            self.cursor_row = new_count - 1
        if old_count > new_count:
            # Clear the rows of old content below the new end, then come back up.
            clear_from = new_count
            if new_count == 0:
                parts.append(self._move_to(0) + "\x1b[2K")
                clear_from = 1
            else:
                parts.append(self._move_to(new_count - 1))
            parts.extend("\r\n\x1b[2K" for _ in range(clear_from, old_count))
            self.cursor_row = max(0, old_count - 1)
            parts.append(self._move_to(max(0, new_count - 1)))
        self.max_lines = max(self.max_lines, new_count)
        return "".join(parts)

    def _place_cursor(self, lines: list[str], height: int) -> str:
        """Put the hardware cursor at the marker (for IMEs) and show/hide it."""
        pos = cursor_position(lines, max(0, len(lines) - height))
        out = ""
        if pos is not None:
            row, col = pos
            out = self._move_to(row) + (f"\x1b[{col}C" if col else "")
        elif lines:
            out = self._move_to(len(lines) - 1)
        want = self.show_cursor and pos is not None
        if want != self.cursor_visible:
            out += "\x1b[?25h" if want else "\x1b[?25l"
            self.cursor_visible = want
        return out

    def end(self) -> str:
        """Move below the content so that later output starts on a fresh line."""
        if not self.lines:
            return ""
        return self._move_to(len(self.lines) - 1) + "\r\n"
