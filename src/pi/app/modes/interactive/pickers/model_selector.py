"""The model selector (`/model`, Ctrl+L): rows `<id> [<provider>]`, a search, Enter or Ctrl+S.

Enter chooses a model for this session only; Ctrl+S also makes it the saved default. Which of the
two happened is the caller's business (`on_select(model, save)`), so the picker stays a view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pi.app.modes.interactive.pickers.frame import CursorList, framed

if TYPE_CHECKING:
    from pi.ai.types import Model
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

SCOPE_NOTE = "Only showing models from configured providers. Use /login to add providers."
HINT = "Enter to select · Ctrl+S to set as default · Escape/Ctrl+C to cancel"
CATALOGS_NOTE = "Model catalogs refreshed."


def same_model(a: Model | None, b: Model | None) -> bool:
    return a is not None and b is not None and a.provider == b.provider and a.id == b.id


class ModelSelector:
    """A focusable model list; see the module docstring."""

    def __init__(
        self,
        models: Sequence[Model],
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        current: Model | None,
        default: tuple[str, str] | None,
        on_select: Callable[[Model, bool], None],
        on_cancel: Callable[[], None],
        query: str = "",
    ) -> None:
        self.theme = theme
        self.keybindings = keybindings
        self.current = current
        self.default = default
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.focused = True
        ordered = sorted(models, key=lambda m: not same_model(m, current))
        self.list: CursorList[Model] = CursorList(
            ordered, lambda m: f"{m.id} {m.provider}", theme, keybindings, query=query
        )

    def invalidate(self) -> None:
        self.list.search.invalidate()

    def set_models(self, models: Sequence[Model]) -> None:
        """Show a refreshed model list, keeping the search and, when it is still listed, the highlighted model."""
        highlighted = self.list.current()
        ordered = sorted(models, key=lambda m: not same_model(m, self.current))
        keep = next((m for m in ordered if same_model(m, highlighted)), None)
        self.list.set_items(ordered, keep)

    def handle_input(self, data: str) -> bool:
        kb = self.keybindings
        model = self.list.current()
        if kb.matches(data, "app.models.save"):
            if model is not None:
                self.on_select(model, True)
        elif kb.matches(data, "tui.select.confirm"):
            if model is not None:
                self.on_select(model, False)
        elif kb.matches(data, "tui.select.cancel"):
            self.on_cancel()
        else:
            return self.list.handle_navigation(data)
        return True

    def _row(self, model: Model, selected: bool) -> str:
        theme = self.theme
        check = "✓ " if same_model(model, self.current) else "  "
        tail = f"[{model.provider}]"
        if self.default == (model.provider, model.id):
            tail += " · default"
        if selected:
            return theme.fg("accent", f"→ {check}{model.id}") + " " + theme.fg("muted", tail)
        return f"  {theme.fg('success', check) if check.strip() else check}{model.id} " + theme.fg("muted", tail)

    def render(self, width: int) -> list[str]:
        theme = self.theme
        body = ["", theme.fg("warning", SCOPE_NOTE), "", *self.list.search.render(width), ""]
        rows = self.list.window()
        body.extend(self._row(model, index == self.list.selected) for index, model in rows)
        if not rows:
            body.append(theme.fg("muted", "  No matching models"))
        if len(self.list.items) > self.list.max_visible:
            body.append(theme.fg("muted", f"  ({self.list.selected + 1}/{len(self.list.items)})"))
        chosen = self.list.current()
        if chosen is not None:
            body.extend(["", theme.fg("muted", f"  Model Name: {chosen.name or chosen.id}")])
        body.extend(["", theme.fg("success", "  " + CATALOGS_NOTE), "", theme.fg("dim", "  " + HINT)])
        return framed(theme, width, body)


__all__ = ["CATALOGS_NOTE", "HINT", "SCOPE_NOTE", "ModelSelector", "same_model"]
