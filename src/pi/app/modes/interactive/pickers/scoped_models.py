"""`/scoped-models`: which models Ctrl+P cycles through, and in what order.

Changes apply to the session at once (`on_change`); Ctrl+S also saves them as `enabledModels`
(`on_save`). With every model enabled the scope is "all": nothing is pinned, so models added later
join the cycle too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pi.app.modes.interactive.pickers.frame import CursorList, framed
from pi.app.modes.interactive.pickers.model_selector import CATALOGS_NOTE
from pi.tui.text_width import wrap_text_with_ansi

if TYPE_CHECKING:
    from pi.ai.types import Model
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

TITLE = "Model Configuration"
SUBTITLE = "Session-only. Ctrl+S to save to settings."
HINT = "Enter toggle · Ctrl+A all · Ctrl+X clear · Ctrl+P provider · Alt+Up/Alt+Down reorder · Ctrl+S save"

#: The enabled models in cycle order, or None for "all enabled".
Scope = list["Model"] | None


def _key(model: Model) -> tuple[str, str]:
    return (model.provider, model.id)


class ScopedModelsPicker:
    def __init__(
        self,
        models: Sequence[Model],
        enabled: Sequence[Model] | None,
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        on_change: Callable[[Scope], None],
        on_save: Callable[[Scope], None],
        on_cancel: Callable[[], None],
    ) -> None:
        self.theme = theme
        self.keybindings = keybindings
        self.on_change = on_change
        self.on_save = on_save
        self.on_cancel = on_cancel
        self.focused = True
        ordered = list(enabled or []) + [
            m for m in models if enabled is None or _key(m) not in {_key(e) for e in enabled}
        ]
        self.enabled: set[tuple[str, str]] = {_key(m) for m in (enabled if enabled is not None else models)}
        self.list: CursorList[Model] = CursorList(ordered, lambda m: f"{m.id} {m.provider}", theme, keybindings)

    def scope(self) -> Scope:
        models = self.list.all_items
        if all(_key(m) in self.enabled for m in models):
            return None
        return [m for m in models if _key(m) in self.enabled]

    def _changed(self) -> None:
        self.on_change(self.scope())

    def _reorder(self, delta: int) -> None:
        model = self.list.current()
        items = self.list.all_items
        if model is None:
            return
        index = items.index(model)
        target = index + delta
        if 0 <= target < len(items):
            items[index], items[target] = items[target], items[index]
            self.list.set_items(items, keep=model)
            self._changed()

    def handle_input(self, data: str) -> bool:
        kb = self.keybindings
        model = self.list.current()
        if kb.matches(data, "tui.select.confirm"):
            if model is not None:
                self.enabled ^= {_key(model)}
                self._changed()
        elif kb.matches(data, "app.models.enableAll"):
            self.enabled = {_key(m) for m in self.list.all_items}
            self._changed()
        elif kb.matches(data, "app.models.clearAll"):
            self.enabled = set()
            self._changed()
        elif kb.matches(data, "app.models.toggleProvider"):
            if model is not None:
                same = {_key(m) for m in self.list.all_items if m.provider == model.provider}
                self.enabled = self.enabled - same if same <= self.enabled else self.enabled | same
                self._changed()
        elif kb.matches(data, "app.models.reorderUp"):
            self._reorder(-1)
        elif kb.matches(data, "app.models.reorderDown"):
            self._reorder(1)
        elif kb.matches(data, "app.models.save"):
            self.on_save(self.scope())
        elif kb.matches(data, "tui.select.cancel"):
            self.on_cancel()
        else:
            return self.list.handle_navigation(data)
        return True

    def invalidate(self) -> None:
        self.list.search.invalidate()

    def _row(self, model: Model, selected: bool) -> str:
        theme = self.theme
        on = _key(model) in self.enabled
        check = "✓ " if on else "  "
        if selected:
            return theme.fg("accent", f"→ {check}{model.id}") + " " + theme.fg("muted", f"[{model.provider}]")
        mark = theme.fg("success", check) if on else check
        return f"  {mark}{model.id} " + theme.fg("muted", f"[{model.provider}]")

    def render(self, width: int) -> list[str]:
        theme = self.theme
        body = ["", TITLE, theme.fg("muted", SUBTITLE), "", *self.list.search.render(width), ""]
        body.extend(self._row(m, i == self.list.selected) for i, m in self.list.window())
        if len(self.list.items) > self.list.max_visible:
            body.append(theme.fg("muted", f"  ({self.list.selected + 1}/{len(self.list.items)})"))
        chosen = self.list.current()
        if chosen is not None:
            body.extend(["", theme.fg("muted", f"  Model Name: {chosen.name or chosen.id}")])
        total = len(self.list.all_items)
        count = sum(1 for m in self.list.all_items if _key(m) in self.enabled)
        status = "all enabled" if count == total else f"{count}/{total} enabled"
        body.extend(["", theme.fg("success", "  " + CATALOGS_NOTE)])
        body.extend(theme.fg("dim", line) for line in wrap_text_with_ansi(f"  {HINT} · {status}", max(1, width)))
        return framed(theme, width, body)


__all__ = ["HINT", "SUBTITLE", "TITLE", "Scope", "ScopedModelsPicker"]
