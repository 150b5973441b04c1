"""/settings → Theme: one theme for every terminal, or `automatic`, a light and a dark theme.

The `theme` setting holds either a name or a `light/dark` pair that follows the terminal's
appearance. The menu opens on whichever of the two the setting already is:

- *single*: `system` (first), `automatic`, then the other themes; the current one is ticked.
  Choosing a theme saves it; choosing `automatic` switches to the pair screen.
- *automatic*: Light theme / Dark theme (each opens its own list), Apply (saves the pair) and
  Change mode (back to one theme, the one the terminal's appearance picks from the pair).

Every cursor move previews what would be saved, and Esc restores the saved theme (from the pick
lists, Esc goes back to the pair screen and previews the pair as it stands).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from pi.app.modes.interactive.theme_live import theme_pair
from pi.tui.keys import matches_key
from pi.tui.select_list import SelectItem, SelectList
from pi.tui.text_width import truncate_to_width, visible_width, wrap_text_with_ansi

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

Appearance = Literal["light", "dark"]
SYSTEM = "system"
#: The `automatic` row's value: a slash can never be a theme's name, so it cannot clash with one.
AUTOMATIC = "/"
SELECT_HINT = "Enter to select · Esc to go back"
CHANGE_HINT = "Enter/Space to change · Esc to cancel"
SYSTEM_DESCRIPTION = "Theme created from your terminal's colors"
AUTOMATIC_DESCRIPTION = "Use separate themes for light and dark terminal appearance"


class _Row:
    """One line of the pair screen: a label, the value shown beside it, and what Enter does."""

    def __init__(self, label: str, value: str, description: str, activate: Callable[[], None]) -> None:
        self.label = label
        self.value = value
        self.description = description
        self.activate = activate


class ThemeMenu:
    """See the module docstring. `done(setting)` saves; `done(None)` leaves the setting as it was."""

    def __init__(
        self,
        current: str,
        themes: Sequence[str],
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        done: Callable[[str | None], None],
        preview: Callable[[str | None], None] | None = None,
        appearance: Callable[[], Appearance] = lambda: "dark",
    ) -> None:
        self.theme = theme
        self.keybindings = keybindings
        self.done = done
        self._preview = preview
        self.appearance = appearance
        self.focused = True
        names = list(dict.fromkeys(themes))
        # `system` leads every list: it is the default and the one that needs no choosing.
        self.themes = [SYSTEM, *(n for n in names if n != SYSTEM)] if SYSTEM in names else names
        pair = theme_pair(current)
        fixed = None if pair is not None or "/" in current else current
        self.light, self.dark = pair if pair is not None else (self._known(fixed), self._known(fixed))
        self.single = self._known(fixed if pair is None else self._active())
        self.list: SelectList | None = None
        """The list with the keyboard: the single-theme list or a light/dark pick list (None: the pair screen)."""
        self._list_title: tuple[str, str] = ("", "")
        self._rows: list[_Row] = []
        self._cursor = 0
        self.mode: Literal["single", "automatic"] = "single"
        if pair is not None:
            self._show_pair()
        else:
            self._show_single()

    # -- state -------------------------------------------------------------------------------------
    def _known(self, name: str | None) -> str:
        """`name` when the session offers it, else `system`, else the first theme there is."""
        if name is not None and name in self.themes:
            return name
        return SYSTEM if SYSTEM in self.themes or not self.themes else self.themes[0]

    def _active(self) -> str:
        return self.light if self.appearance() == "light" else self.dark

    @property
    def pair_setting(self) -> str:
        return f"{self.light}/{self.dark}"

    def _show(self, setting: str | None) -> None:
        if self._preview is not None:
            self._preview(setting)

    def _items(self, ticked: str) -> list[SelectItem]:
        return [
            SelectItem(name, ("✓ " if name == ticked else "  ") + name, SYSTEM_DESCRIPTION if name == SYSTEM else "")
            for name in self.themes
        ]

    def _select(
        self,
        title: str,
        description: str,
        items: list[SelectItem],
        current: str,
        on_select: Callable[[SelectItem], None],
        on_cancel: Callable[[], None],
    ) -> None:
        def moved(item: SelectItem) -> None:
            self._show(self.pair_setting if item.value == AUTOMATIC else item.value)

        menu = SelectList(
            items,
            self.theme,
            max_visible=min(len(items), 10) or 1,
            keybindings=self.keybindings,
            on_select=on_select,
            on_cancel=on_cancel,
            on_selection_change=moved,
        )
        values = [item.value for item in items]
        if current in values:
            menu.selected = values.index(current)  # no preview: the current theme is already shown
        self.list = menu
        self._list_title = (title, description)

    # -- the single-theme screen ---------------------------------------------------------------------
    def _show_single(self) -> None:
        self.mode = "single"
        items = self._items(self.single)
        automatic = SelectItem(AUTOMATIC, "  automatic", AUTOMATIC_DESCRIPTION)
        at = 1 if items and items[0].value == SYSTEM else 0
        items.insert(at, automatic)
        self._select(
            "Theme",
            "Select a theme, or choose automatic to follow terminal appearance.",
            items,
            self.single,
            self._chose_single,
            self._cancel,
        )

    def _chose_single(self, item: SelectItem) -> None:
        if item.value == AUTOMATIC:
            self._show(self.pair_setting)
            self._show_pair()
            return
        self.done(item.value)

    def _cancel(self) -> None:
        self._show(None)
        self.done(None)

    # -- the pair screen -----------------------------------------------------------------------------
    def _show_pair(self, cursor: int = 0) -> None:
        self.mode = "automatic"
        self.list = None
        self._cursor = cursor
        self._rows = [
            _Row(
                "Light theme", self.light, "Theme to use in automatic mode when the terminal is light", self._pick_light
            ),
            _Row("Dark theme", self.dark, "Theme to use in automatic mode when the terminal is dark", self._pick_dark),
            _Row("Apply", "save and go back", "Save and go back", lambda: self.done(self.pair_setting)),
            _Row("Change mode", "switch to single theme", "Switch to one theme for light and dark", self._to_single),
        ]

    def _pick_light(self) -> None:
        def chose(item: SelectItem) -> None:
            self.light = item.value
            self._show(self.pair_setting)
            self._show_pair(0)

        self._pick("Light Theme", "Select the theme to use for light terminal appearance", self.light, chose, 0)

    def _pick_dark(self) -> None:
        def chose(item: SelectItem) -> None:
            self.dark = item.value
            self._show(self.pair_setting)
            self._show_pair(1)

        self._pick("Dark Theme", "Select the theme to use for dark terminal appearance", self.dark, chose, 1)

    def _pick(self, title: str, description: str, current: str, chose: Callable[[SelectItem], None], row: int) -> None:
        def back() -> None:
            self._show(self.pair_setting)
            self._show_pair(row)

        self._select(title, description, self._items(current), current, chose, back)

    def _to_single(self) -> None:
        self.single = self._active()
        self._show(self.single)
        self._show_single()

    # -- keyboard and screen -------------------------------------------------------------------------
    def invalidate(self) -> None:
        if self.list is not None:
            self.list.invalidate()

    def handle_input(self, data: str) -> bool:
        if self.list is not None:
            return self.list.handle_input(data)
        kb = self.keybindings
        count = len(self._rows)
        if kb.matches(data, "tui.select.up"):
            self._cursor = (self._cursor - 1) % count
        elif kb.matches(data, "tui.select.down"):
            self._cursor = (self._cursor + 1) % count
        elif kb.matches(data, "tui.select.confirm") or data == " " or matches_key(data, "space"):
            self._rows[self._cursor].activate()
        elif kb.matches(data, "tui.select.cancel"):
            self._cancel()
        else:
            return False
        return True

    def render(self, width: int) -> list[str]:
        theme = self.theme
        lines: list[str] = []
        if self.mode == "automatic":
            lines += [theme.bold(theme.fg("accent", "Automatic Theme")), ""]
            for text in (
                "Choose themes for terminal light and dark appearance.",
                "Light/dark detection requires terminal support.",
            ):
                lines += wrap_text_with_ansi(theme.fg("muted", text), max(1, width))
            lines.append("")
        if self.list is not None:
            title, description = self._list_title
            lines += [theme.bold(theme.fg("accent", title)), ""]
            lines += wrap_text_with_ansi(theme.fg("muted", description), max(1, width))
            lines += [
                "",
                *self.list.render(width),
                "",
                theme.fg("dim", truncate_to_width("  " + SELECT_HINT, width, "")),
            ]
            return lines
        column = max(visible_width(row.label) for row in self._rows)
        for index, row in enumerate(self._rows):
            label = row.label + " " * (column - visible_width(row.label))
            value = truncate_to_width(row.value, max(0, width - column - 4), "")
            if index == self._cursor:
                lines.append(theme.fg("accent", "→ " + label) + "  " + theme.fg("accent", value))
            else:
                lines.append("  " + label + "  " + theme.fg("muted", value))
        description = self._rows[self._cursor].description
        lines += ["", *(theme.fg("dim", "  " + part) for part in wrap_text_with_ansi(description, max(1, width - 2)))]
        lines += ["", theme.fg("dim", truncate_to_width("  " + CHANGE_HINT, width, ""))]
        return lines


__all__ = ["AUTOMATIC", "Appearance", "ThemeMenu"]
