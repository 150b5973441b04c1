"""Overlays: components drawn over the screen (dialogs, the search box, flashes).

An overlay is rendered at its own width and pasted over the rows beneath it, cell-exact: the parts
of the underlying lines left and right of it keep their styles.
"""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from pi.tui.component import Component
from pi.tui.text_width import pad_to_width, slice_columns

__all__ = ["Anchor", "Overlay", "composite"]

Anchor = Literal["center", "top", "top-right", "top-left", "bottom", "bottom-right", "bottom-left"]


class Overlay(Struct, eq=False):
    """A component placed over the screen. `width` is cells, a fraction of the screen, or None (80 max)."""

    component: Component
    anchor: Anchor = "center"
    width: int | float | None = None
    margin: int = 1
    row_offset: int = 0
    col_offset: int = 0
    hidden: bool = False
    #: A passive overlay (a flash, the search box) leaves the transcript's scroll keys working.
    passive: bool = False

    def resolved_width(self, screen_width: int) -> int:
        room = max(1, screen_width - 2 * self.margin)
        if self.width is None:
            return min(80, room)
        if isinstance(self.width, float):
            return max(1, min(room, int(screen_width * self.width)))
        return max(1, min(room, self.width))

    def place(self, height: int, width: int, screen_width: int, screen_height: int) -> tuple[int, int]:
        """Top row and left column for an overlay of `height` × `width`."""
        m = self.margin
        if self.anchor in ("center", "top", "bottom"):
            col = (screen_width - width) // 2
        elif self.anchor.endswith("right"):
            col = screen_width - width - m
        else:
            col = m
        if self.anchor == "center":
            row = (screen_height - height) // 2
        elif self.anchor.startswith("top"):
            row = m - 1 if m > 0 else 0
        else:
            row = screen_height - height - m
        row = min(max(0, row + self.row_offset), max(0, screen_height - height))
        col = min(max(0, col + self.col_offset), max(0, screen_width - width))
        return row, col


def composite(rows: list[str], lines: list[str], top: int, left: int, width: int, screen_width: int) -> list[str]:
    """`rows` with `lines` pasted at (top, left), each overlay line filling exactly `width` cells."""
    result = list(rows)
    for i, line in enumerate(lines):
        r = top + i
        if r < 0 or r >= len(result):
            continue
        base = result[r]
        before = pad_to_width(slice_columns(base, 0, left), left) if left > 0 else ""
        after = slice_columns(base, left + width, screen_width)
        result[r] = before + "\x1b[0m" + pad_to_width(line, width) + "\x1b[0m" + after
    return result
