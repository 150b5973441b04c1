"""Shared pieces of the pickers: the rules around a picker, a filtered cursor list, hint lines.

A picker takes the editor's place, so it draws the two rules the editor would have drawn; the
list keeps a cursor over the items a fuzzy `> ` search leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Generic, TypeVar

from pi.tui.fuzzy import fuzzy_filter
from pi.tui.input import Input
from pi.tui.select_list import visible_window
from pi.tui.text_width import truncate_to_width, visible_width

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

T = TypeVar("T")


def rule(theme: Theme, width: int) -> str:
    return theme.fg("border", "─" * max(0, width))


def framed(theme: Theme, width: int, body: Sequence[str]) -> list[str]:
    """`body` between two rules, every line cut to `width`."""
    return [rule(theme, width), *(fit(line, width) for line in body), rule(theme, width)]


def fit(line: str, width: int) -> str:
    return line if visible_width(line) <= width else truncate_to_width(line, width, "")


def right_align(left: str, right: str, width: int) -> str:
    """`left`, spaces, then `right` ending at the last column; `left` is cut with `…` when both do not fit."""
    room = width - visible_width(right) - 1
    if room < 1:
        return fit(left, width)
    if visible_width(left) > room:
        left = truncate_to_width(left, room, "…")
    return left + " " * (width - visible_width(left) - visible_width(right)) + right


class CursorList(Generic[T]):
    """Items, a fuzzy `> ` search over them, and a cursor over what the search leaves."""

    def __init__(
        self,
        items: Sequence[T],
        key: Callable[[T], str],
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        max_visible: int = 10,
        query: str = "",
        selected: int = 0,
    ) -> None:
        self.key = key
        self.keybindings = keybindings
        self.max_visible = max_visible
        self.search = Input(theme, prompt="> ", keybindings=keybindings)
        self._all = list(items)
        self.items: list[T] = list(items)
        self.selected = 0
        if query:
            self.set_query(query)
        else:
            self.selected = max(0, min(selected, len(self.items) - 1))

    @property
    def all_items(self) -> list[T]:
        return list(self._all)

    def set_items(self, items: Sequence[T], keep: T | None = None) -> None:
        self._all = list(items)
        self._refilter(keep)

    def set_query(self, query: str) -> None:
        self.search.set_value(query)
        self._refilter(None)

    def _refilter(self, keep: T | None) -> None:
        query = self.search.value
        self.items = fuzzy_filter(self._all, query, key=self.key) if query.strip() else list(self._all)
        self.selected = self.items.index(keep) if keep is not None and keep in self.items else 0

    def current(self) -> T | None:
        return self.items[self.selected] if self.items else None

    def handle_navigation(self, data: str, *, typing: bool = True) -> bool:
        """Cursor keys move; other keys edit the search (when `typing`). True when the key was used."""
        kb = self.keybindings
        count = len(self.items)
        if kb.matches(data, "tui.select.up"):
            if count:
                self.selected = (self.selected - 1) % count
        elif kb.matches(data, "tui.select.down"):
            if count:
                self.selected = (self.selected + 1) % count
        elif kb.matches(data, "tui.select.pageUp"):
            self.selected = max(0, self.selected - self.max_visible)
        elif kb.matches(data, "tui.select.pageDown"):
            self.selected = max(0, min(count - 1, self.selected + self.max_visible))
        elif typing:
            before = self.search.value
            if not self.search.handle_input(data):
                return False
            if self.search.value != before:
                self._refilter(None)
        else:
            return False
        return True

    def window(self) -> list[tuple[int, T]]:
        start = visible_window(self.selected, len(self.items), self.max_visible)
        return [(i, self.items[i]) for i in range(start, min(len(self.items), start + self.max_visible))]


__all__ = ["CursorList", "fit", "framed", "right_align", "rule"]
