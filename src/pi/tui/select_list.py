"""SelectList: a scrolling list of options with a ``→`` cursor and an optional ``> `` filter.

Rows are ``→ label   description`` (selected, all in ``accent``) or ``  label   description``
(description in ``muted``). The label column is as wide as the widest label plus two, kept
between a minimum and a maximum. When there are more items than rows a ``(i/n)`` counter follows.
The same row layout draws the editor's autocomplete list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from msgspec import Struct

from pi.tui.fuzzy import fuzzy_filter
from pi.tui.input import Input
from pi.tui.text_width import truncate_to_width, visible_width

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

DESCRIPTION_MIN_WIDTH = 40
COLUMN_GAP = 2


class SelectItem(Struct, frozen=True):
    """One option: ``value`` is what the caller gets back, ``label`` what is shown."""

    value: str
    label: str
    description: str = ""


def visible_window(selected: int, total: int, rows: int) -> int:
    """First visible index so that the selection stays in view, centred where possible."""
    if total <= rows:
        return 0
    return max(0, min(selected - rows // 2, total - rows))


def primary_width(items: Sequence[SelectItem], minimum: int, maximum: int) -> int:
    widest = max((visible_width(item.label) for item in items), default=0) + COLUMN_GAP
    return max(minimum, min(maximum, widest))


def render_rows(
    items: Sequence[SelectItem],
    selected: int,
    width: int,
    theme: Theme,
    *,
    max_visible: int,
    min_primary: int = 32,
    max_primary: int = 32,
) -> list[str]:
    """The visible rows plus the ``(i/n)`` counter when the items do not all fit."""
    lines: list[str] = []
    start = visible_window(selected, len(items), max_visible)
    column = primary_width(items, min_primary, max_primary)
    for index in range(start, min(len(items), start + max_visible)):
        lines.append(_row(items[index], index == selected, width, column, theme))
    if len(items) > max_visible:
        lines.append(theme.fg("muted", truncate_to_width(f"  ({selected + 1}/{len(items)})", width, "")))
    return lines


def _row(item: SelectItem, selected: bool, width: int, column: int, theme: Theme) -> str:
    prefix = "→ " if selected else "  "
    room = max(0, width - 2)
    label = item.label
    description = item.description.replace("\n", " ")
    if description and width > DESCRIPTION_MIN_WIDTH:
        label_room = min(column - COLUMN_GAP, room)
        if visible_width(label) > label_room:
            label = truncate_to_width(label, max(1, label_room), "")
        pad = " " * max(COLUMN_GAP, column - visible_width(label))
        desc_room = room - visible_width(label) - len(pad)
        if desc_room > 0:
            description = truncate_to_width(description, desc_room, "")
            if selected:
                return theme.fg("accent", prefix + label + pad + description)
            return prefix + label + theme.fg("muted", pad + description)
    label = truncate_to_width(label, room, "") if visible_width(label) > room else label
    return theme.fg("accent", prefix + label) if selected else prefix + label


class SelectList:
    """A focusable list of options, optionally with a fuzzy ``> `` filter field above it."""

    def __init__(
        self,
        items: Sequence[SelectItem],
        theme: Theme,
        *,
        max_visible: int = 10,
        filterable: bool = False,
        keybindings: KeybindingsManager | None = None,
        min_primary: int = 12,
        max_primary: int = 32,
        on_select: Callable[[SelectItem], None] | None = None,
        on_cancel: Callable[[], None] | None = None,
        on_selection_change: Callable[[SelectItem], None] | None = None,
        empty_text: str = "  No matching items",
    ) -> None:
        if keybindings is None:
            from pi.tui.keybindings import KeybindingsManager as _Manager

            keybindings = _Manager()
        self.theme = theme
        self.keybindings = keybindings
        self.max_visible = max_visible
        self.min_primary = min_primary
        self.max_primary = max_primary
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.on_selection_change = on_selection_change
        self.empty_text = empty_text
        self.focused = True
        self.filter: Input | None = Input(theme, prompt="> ", keybindings=keybindings) if filterable else None
        self._all = list(items)
        self.items: list[SelectItem] = list(items)
        self.selected = 0
        self._cache: tuple[tuple[object, ...], list[str]] | None = None

    # -- state -------------------------------------------------------------------------
    def set_items(self, items: Sequence[SelectItem]) -> None:
        self._all = list(items)
        self._apply_filter()

    def set_filter(self, query: str) -> None:
        if self.filter is not None:
            self.filter.set_value(query)
        self._apply_filter()

    def _apply_filter(self) -> None:
        query = self.filter.value if self.filter is not None else ""
        self.items = fuzzy_filter(self._all, query, key=lambda item: item.label)
        self.selected = 0
        self._notify()

    def set_selected(self, index: int) -> None:
        if self.items:
            self.selected = max(0, min(index, len(self.items) - 1))
            self._notify()

    def selected_item(self) -> SelectItem | None:
        return self.items[self.selected] if self.items else None

    def _notify(self) -> None:
        item = self.selected_item()
        if item is not None and self.on_selection_change is not None:
            self.on_selection_change(item)

    def invalidate(self) -> None:
        self._cache = None
        if self.filter is not None:
            self.filter.invalidate()

    # -- input -------------------------------------------------------------------------
    def move(self, delta: int, *, wrap: bool = True) -> None:
        """Move the cursor; single steps wrap around the ends, page steps stop there."""
        count = len(self.items)
        if not count:
            return
        target = self.selected + delta
        if wrap and abs(delta) == 1:
            target %= count
        self.set_selected(target)

    def handle_input(self, data: str) -> bool:
        kb = self.keybindings
        if kb.matches(data, "tui.select.up"):
            self.move(-1)
        elif kb.matches(data, "tui.select.down"):
            self.move(1)
        elif kb.matches(data, "tui.select.pageUp"):
            self.move(-self.max_visible, wrap=False)
        elif kb.matches(data, "tui.select.pageDown"):
            self.move(self.max_visible, wrap=False)
        elif kb.matches(data, "tui.select.confirm"):
            item = self.selected_item()
            if item is not None and self.on_select is not None:
                self.on_select(item)
        elif kb.matches(data, "tui.select.cancel"):
            if self.on_cancel is not None:
                self.on_cancel()
        elif self.filter is not None:
            before = self.filter.value
            if not self.filter.handle_input(data):
                return False
            if self.filter.value != before:
                self._apply_filter()
        else:
            return False
        return True

    # -- output ------------------------------------------------------------------------
    def render(self, width: int) -> list[str]:
        filter_lines = self.filter.render(width) if self.filter is not None else []
        key = (width, self.selected, tuple(self.items), tuple(filter_lines))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        lines = [*filter_lines, ""] if self.filter is not None else []
        if self.items:
            lines.extend(
                render_rows(
                    self.items,
                    self.selected,
                    width,
                    self.theme,
                    max_visible=self.max_visible,
                    min_primary=self.min_primary,
                    max_primary=self.max_primary,
                )
            )
        else:
            lines.append(self.theme.fg("muted", truncate_to_width(self.empty_text, width, "")))
        self._cache = (key, lines)
        return lines


def select_hint(theme: Theme, keybindings: KeybindingsManager | None = None) -> str:
    """``↑↓ navigate  enter select  escape/ctrl+c cancel``: keys ``dim``, words ``muted``."""
    confirm = keybindings.key_hint("tui.select.confirm") if keybindings else "enter"
    cancel = keybindings.key_hint("tui.select.cancel") if keybindings else "escape/ctrl+c"
    parts = [("↑↓", "navigate"), (confirm, "select"), (cancel, "cancel")]
    return "  ".join(theme.fg("dim", key) + theme.fg("muted", " " + word) for key, word in parts)
