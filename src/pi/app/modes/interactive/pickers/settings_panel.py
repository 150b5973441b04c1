"""`/settings`: the settings list between the picker rules, saving every change as it is made.

The panel writes settings.json itself and then reports `(key, value, status)` so the app can apply
the change live (`TUI mode: regular` leaves the alternate screen, a theme repaints). Two items open
submenus: the per-model thinking level (a model, then a level or `(clear override)`) and the theme
(`theme_menu`: one theme or a light/dark pair, previewed while the cursor moves, restored on Esc).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.pickers.frame import framed
from pi.app.modes.interactive.pickers.settings_items import (
    SETTING_DEFS,
    SettingDef,
    display,
    read_value,
    to_json,
    write_value,
)
from pi.app.modes.interactive.pickers.theme_menu import Appearance, ThemeMenu
from pi.tui.select_list import SelectItem, SelectList
from pi.tui.settings_list import SettingItem, SettingsList

if TYPE_CHECKING:
    from pi.app.settings import SettingsManager
    from pi.tui.component import Focusable
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

CLEAR_OVERRIDE = "(clear override)"

#: Called after a change was saved: settings.json key, its new JSON value, the status to show.
Applied = Callable[[str, Any, str], None]


class _ModelLevelMenu:
    """Two steps: choose a model, then its level (or clear its override)."""

    def __init__(
        self,
        models: Sequence[str],
        levels_for: Callable[[str], list[str]],
        theme: Theme,
        keybindings: KeybindingsManager,
        done: Callable[[str | None], None],
    ) -> None:
        self.theme = theme
        self.keybindings = keybindings
        self.levels_for = levels_for
        self.done = done
        self.focused = True
        self.model: str | None = None
        self.list = self._models_list(models)

    def _models_list(self, models: Sequence[str]) -> SelectList:
        items = [SelectItem(m, m) for m in models]
        return SelectList(
            items,
            self.theme,
            filterable=True,
            keybindings=self.keybindings,
            on_select=self._chose_model,
            on_cancel=lambda: self.done(None),
        )

    def _chose_model(self, item: SelectItem) -> None:
        self.model = item.value
        levels = [*self.levels_for(item.value), CLEAR_OVERRIDE]
        self.list = SelectList(
            [SelectItem(lv, lv) for lv in levels],
            self.theme,
            keybindings=self.keybindings,
            on_select=self._chose_level,
            on_cancel=lambda: self.done(None),
        )

    def _chose_level(self, item: SelectItem) -> None:
        level = "" if item.value == CLEAR_OVERRIDE else item.value
        self.done(f"{self.model}={level}")

    def invalidate(self) -> None:
        self.list.invalidate()

    def handle_input(self, data: str) -> bool:
        return self.list.handle_input(data)

    def render(self, width: int) -> list[str]:
        title = "Default thinking level per model" if self.model is None else f"Thinking level for {self.model}"
        return [self.theme.bold(title), "", *self.list.render(width)]


class SettingsPanel:
    def __init__(
        self,
        settings: SettingsManager,
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        on_applied: Applied,
        on_cancel: Callable[[], None],
        models: Sequence[str] = (),
        levels_for: Callable[[str], list[str]] = lambda _ref: ["off"],
        themes: Sequence[str] = ("dark", "light", "system"),
        preview_theme: Callable[[str | None], None] | None = None,
        appearance: Callable[[], Appearance] = lambda: "dark",
        images_supported: bool = False,
    ) -> None:
        self.settings = settings
        self.theme = theme
        self.keybindings = keybindings
        self.on_applied = on_applied
        self.models = list(models)
        self.levels_for = levels_for
        self.themes = list(themes)
        self.preview_theme = preview_theme
        self.appearance = appearance
        """Whether the terminal looks light or dark: which half of a `light/dark` pair is showing."""
        self.focused = True
        self.defs = {d.id: d for d in SETTING_DEFS if images_supported or not d.images_only}
        items = [self._item(d) for d in self.defs.values()]
        self.list = SettingsList(items, theme, keybindings=keybindings, on_change=self._changed, on_cancel=on_cancel)

    def _overrides(self) -> dict[str, str]:
        value = self.settings.get("modelThinkingLevels")
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}

    def _item(self, definition: SettingDef) -> SettingItem:
        if definition.id == "modelThinkingLevels":
            count = len(self._overrides())
            value = f"{count} override{'s' if count != 1 else ''}" if count else "none"
            return SettingItem(
                definition.id, definition.label, value, definition.description, submenu=self._levels_menu
            )
        current = display(definition, read_value(self.settings, definition.key, definition.default))
        if definition.id == "theme":
            return SettingItem(
                definition.id, definition.label, current, definition.description, submenu=self._theme_menu
            )
        return SettingItem(definition.id, definition.label, current, definition.description, list(definition.values))

    def _levels_menu(self, _value: str, done: Callable[[str | None], None]) -> Focusable:
        return _ModelLevelMenu(self.models, self.levels_for, self.theme, self.keybindings, done)

    def _theme_menu(self, value: str, done: Callable[[str | None], None]) -> Focusable:
        return ThemeMenu(
            value,
            self.themes,
            self.theme,
            self.keybindings,
            done=done,
            preview=self.preview_theme,
            appearance=self.appearance,
        )

    def _changed(self, item_id: str, text: str) -> None:
        definition = self.defs[item_id]
        if item_id == "modelThinkingLevels":
            ref, _, level = text.partition("=")
            overrides = self._overrides()
            if level:
                overrides[ref] = level
            else:
                overrides.pop(ref, None)
            self.settings.set("modelThinkingLevels", overrides)
            count = len(overrides)
            self.list.update_value(item_id, f"{count} override{'s' if count != 1 else ''}" if count else "none")
            status = f"Thinking level for {ref}: {level}" if level else f"Thinking level override cleared for {ref}"
            self.on_applied("modelThinkingLevels", overrides, status)
            return
        value = to_json(definition, text)
        write_value(self.settings, definition.key, value)
        self.on_applied(definition.key, value, f"{definition.label}: {text}")

    def invalidate(self) -> None:
        self.list.invalidate()

    def handle_input(self, data: str) -> bool:
        return self.list.handle_input(data)

    def render(self, width: int) -> list[str]:
        return framed(self.theme, width, self.list.render(width))


__all__ = ["CLEAR_OVERRIDE", "Applied", "SettingsPanel"]
