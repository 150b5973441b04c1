"""Scroll position of the fullscreen transcript: follow the end, or stay where the user scrolled.

While following, the view sticks to the last line as output arrives. Any scroll away from the end
stops following; reaching the end again (Ctrl+End, the jump pill, scrolling down) resumes it.
"""

from __future__ import annotations

__all__ = ["JUMP_PILL_TEXT", "ScrollView", "WheelAccelerator"]

JUMP_PILL_TEXT = " ↓ Jump to latest message · Ctrl+End "
TRACK_CHAR = "│"
THUMB_CHAR = "┃"
THUMB_ACTIVE_CHAR = "█"


class ScrollView:
    """Offset of the first visible line of a document shown in a viewport of `height` rows."""

    def __init__(self) -> None:
        self.offset = 0
        self.following = True
        self.total = 0
        self.height = 0
        self.moves = 0
        """Counts the times the offset was moved on purpose (keys, wheel, drag, jumps; not following
        the end while output arrives): an `auto` scrollbar shows for a moment after each move."""
        self.bar_seen_moves = 0
        """`moves` as of the last frame that looked (a larger `moves` starts the scrollbar's delay)."""
        self.bar_until = 0.0
        """Clock time until which an `auto` scrollbar stays shown after the latest move."""
        self.bar_active = False
        """The pointer is over the scrollbar column or drags the thumb: the scrollbar shows meanwhile."""

    @property
    def max_offset(self) -> int:
        return max(0, self.total - self.height)

    @property
    def overflows(self) -> bool:
        return self.total > self.height

    def update(self, total: int, height: int) -> None:
        """New document length and viewport height; keeps the end in view while following."""
        self.total = total
        self.height = max(0, height)
        if self.following:
            self.offset = self.max_offset
        else:
            self.offset = min(max(0, self.offset), self.max_offset)
            if self.offset >= self.max_offset and self.max_offset == 0:
                self.following = True

    def _move_to(self, offset: int) -> None:
        if offset != self.offset:
            self.moves += 1
        self.offset = offset

    def scroll_by(self, lines: int) -> None:
        if lines == 0:
            return
        self._move_to(min(max(0, self.offset + lines), self.max_offset))
        self.following = self.offset >= self.max_offset

    def page_step(self) -> int:
        """PageUp/PageDown move by the viewport height minus 4 (at least one line)."""
        return max(1, self.height - 4)

    def page_up(self) -> None:
        self.scroll_by(-self.page_step())

    def page_down(self) -> None:
        self.scroll_by(self.page_step())

    def half_page(self, direction: int) -> None:
        self.scroll_by(direction * max(1, self.height // 2))

    def to_top(self) -> None:
        self._move_to(0)
        self.following = self.max_offset == 0

    def to_bottom(self) -> None:
        self.following = True
        self._move_to(self.max_offset)

    def scroll_to_line(self, index: int) -> None:
        """Put document line `index` at the top of the view (as far as the end allows)."""
        self._move_to(min(max(0, index), self.max_offset))
        self.following = self.offset >= self.max_offset

    def thumb(self) -> tuple[int, int]:
        """First row and size of the scrollbar thumb in a viewport of `height` rows."""
        if self.height <= 0:
            return (0, 0)
        if self.total <= self.height:
            return (0, self.height)
        size = max(1, min(self.height, round(self.height * self.height / self.total)))
        span = self.height - size
        start = round(self.offset / self.max_offset * span) if self.max_offset else 0
        return (start, size)

    def offset_for_thumb_row(self, row: int) -> int:
        """The offset that puts the thumb's top at `row` (for dragging)."""
        size = self.thumb()[1]
        span = self.height - size
        if span <= 0:
            return 0
        return round(min(max(0, row), span) / span * self.max_offset)


class WheelAccelerator:
    """Lines per wheel event: fixed, or for `auto` accelerating on fast spins up to 6 lines."""

    def __init__(self, setting: int | str = "auto", local_macos: bool = False) -> None:
        self.setting = setting
        self.local_macos = local_macos
        self._last = -1.0
        self._streak = 0

    def lines(self, now: float, alt: bool = False) -> int:
        factor = 5 if alt else 1
        if isinstance(self.setting, int):
            return max(1, min(100, self.setting)) * factor
        if self.local_macos:
            return factor
        if self._last >= 0 and now - self._last < 0.05:
            self._streak = min(self._streak + 1, 5)
        else:
            self._streak = 0
        self._last = now
        return (1 + self._streak) * factor
