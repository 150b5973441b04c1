"""SettingsList: the ``/settings`` panel, rows of ``label  value`` with search and submenus.

Layout: the ``> `` search field, a blank line, the visible rows, the ``(i/N)`` counter when
they do not all fit, a blank line, the selected item's description, a blank line and the hint
``Type to search · Enter/Space to change · Esc to cancel``. Enter, or Space while the search is
empty, cycles an item's values or opens its submenu; changes are reported through ``on_change``
right away.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from msgspec import Struct, field

from pi.tui.fuzzy import fuzzy_filter
from pi.tui.input import Input
from pi.tui.keys import matches_key
from pi.tui.select_list import visible_window
from pi.tui.text_width import truncate_to_width, visible_width, wrap_text_with_ansi

if TYPE_CHECKING:
    from pi.tui.component import Focusable
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

HINT = "Type to search · Enter/Space to change · Esc to cancel"
LABEL_MAX = 32

#: Opens a submenu for an item: gets the current value and a ``done(new_value | None)`` callback.
SubmenuFactory = Callable[[str, Callable[[str | None], None]], "Focusable"]


class SettingItem(Struct):
    """One setting. ``values`` are cycled by Enter/Space; ``submenu`` opens a component instead."""

    id: str
    label: str
    value: str
    description: str = ""
    values: list[str] = field(default_factory=list)
    submenu: SubmenuFactory | None = None


class SettingsList:
    """A focusable settings panel (see the module docstring)."""

    def __init__(
        self,
        items: Sequence[SettingItem],
        theme: Theme,
        *,
        max_visible: int = 10,
        keybindings: KeybindingsManager | None = None,
        on_change: Callable[[str, str], None] | None = None,
        on_cancel: Callable[[], None] | None = None,
        space_always_changes: bool = False,
    ) -> None:
        """`space_always_changes`: Space changes the selected item even while a query is typed (a list
        of on/off switches, where names rarely hold spaces and toggling is the common keystroke)."""
        if keybindings is None:
            from pi.tui.keybindings import KeybindingsManager as _Manager

            keybindings = _Manager()
        self.theme = theme
        self.keybindings = keybindings
        self.max_visible = max_visible
        self.on_change = on_change
        self.on_cancel = on_cancel
        self.space_always_changes = space_always_changes
        self.focused = True
        self.items = list(items)
        self.search = Input(theme, prompt="> ", keybindings=keybindings)
        self.filtered: list[SettingItem] = list(self.items)
        self.selected = 0
        self.submenu: Focusable | None = None
        self._submenu_item: SettingItem | None = None

    def invalidate(self) -> None:
        self.search.invalidate()
        if self.submenu is not None:
            self.submenu.invalidate()

    def selected_item(self) -> SettingItem | None:
        return self.filtered[self.selected] if self.filtered else None

    def update_value(self, item_id: str, value: str) -> None:
        """Show a new value for an item (after the application changed it another way)."""
        for item in self.items:
            if item.id == item_id:
                item.value = value

    # -- input -------------------------------------------------------------------------
    def handle_input(self, data: str) -> bool:
        if self.submenu is not None:
            return self.submenu.handle_input(data)
        kb = self.keybindings
        count = len(self.filtered)
        space = data == " " or matches_key(data, "space")
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
        elif kb.matches(data, "tui.select.confirm") or (space and (self.space_always_changes or not self.search.value)):
            # Space changes the setting only while nothing is typed: inside a query it is a space.
            self._activate()
        elif kb.matches(data, "tui.select.cancel"):
            if self.on_cancel is not None:
                self.on_cancel()
        else:
            before = self.search.value
            if not self.search.handle_input(" " if space else data):
                return False
            if self.search.value != before:
                self.filtered = fuzzy_filter(self.items, self.search.value, key=lambda item: item.label)
                self.selected = 0
        return True

    def _activate(self) -> None:
        item = self.selected_item()
        if item is None:
            return
        if item.submenu is not None:
            self._submenu_item = item
            self.submenu = item.submenu(item.value, self._close_submenu)
            return
        if item.values:
            index = item.values.index(item.value) if item.value in item.values else -1
            self._set(item, item.values[(index + 1) % len(item.values)])

    def _close_submenu(self, value: str | None) -> None:
        item = self._submenu_item
        self.submenu = None
        self._submenu_item = None
        if item is not None and value is not None:
            self._set(item, value)

    def _set(self, item: SettingItem, value: str) -> None:
        item.value = value
        if self.on_change is not None:
            self.on_change(item.id, value)

    # -- output ------------------------------------------------------------------------
    def render(self, width: int) -> list[str]:
        if self.submenu is not None:
            return self.submenu.render(width)
        theme = self.theme
        lines = [*self.search.render(width), ""]
        column = min(LABEL_MAX, max((visible_width(item.label) for item in self.items), default=0))
        start = visible_window(self.selected, len(self.filtered), self.max_visible)
        for index in range(start, min(len(self.filtered), start + self.max_visible)):
            lines.append(self._row(self.filtered[index], index == self.selected, column, width))
        if not self.filtered:
            lines.append(theme.fg("muted", "  No matching settings"))
        footer: list[str] = []
        if len(self.filtered) > self.max_visible:
            footer.append(f"  ({self.selected + 1}/{len(self.filtered)})")
        item = self.selected_item()
        if item is not None and item.description:
            footer.append("")
            footer.extend("  " + line for line in wrap_text_with_ansi(item.description, max(1, width - 2)))
        footer.extend(["", "  " + HINT])
        lines.extend(theme.fg("dim", truncate_to_width(line, width, "")) if line else "" for line in footer)
        return lines

    def _row(self, item: SettingItem, selected: bool, column: int, width: int) -> str:
        theme = self.theme
        label = item.label if visible_width(item.label) <= column else truncate_to_width(item.label, column, "")
        padded = label + " " * (column - visible_width(label))
        room = max(0, width - 2 - column - 2)
        value = truncate_to_width(item.value, room, "") if visible_width(item.value) > room else item.value
        if selected:
            return theme.fg("accent", "→ " + padded) + "  " + theme.fg("accent", value)
        return "  " + padded + "  " + theme.fg("muted", value)
