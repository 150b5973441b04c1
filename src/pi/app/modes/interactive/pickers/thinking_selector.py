"""The thinking-level selector (`/thinking`): the model's levels with what each means.

`✓` marks the session's level and ` · default` the saved one; Enter sets the session level,
Ctrl+S also saves it as the default.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pi.app.modes.interactive.pickers.frame import CursorList, framed

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

TITLE = "Thinking Level"
SUBTITLE = "Shift+Tab cycles thinking levels in-session"
HINT = "Enter to select · Ctrl+S to set as default · Escape/Ctrl+C to cancel"

LEVEL_DESCRIPTIONS: dict[str, str] = {
    "off": "No reasoning",
    "minimal": "Very brief reasoning (~1k tokens)",
    "low": "Light reasoning (~2k tokens)",
    "medium": "Moderate reasoning (~8k tokens)",
    "high": "Deep reasoning (~16k tokens)",
    "xhigh": "Extra-high reasoning (~32k tokens)",
    "max": "Maximum reasoning",
}


class ThinkingSelector:
    def __init__(
        self,
        levels: Sequence[str],
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        current: str,
        default: str | None,
        on_select: Callable[[str, bool], None],
        on_cancel: Callable[[], None],
    ) -> None:
        self.theme = theme
        self.keybindings = keybindings
        self.current = current
        self.default = default
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.focused = True
        start = list(levels).index(current) if current in levels else 0
        self.list: CursorList[str] = CursorList(levels, lambda lv: lv, theme, keybindings, selected=start)
        self._column = max((len(lv) for lv in levels), default=0) + 3

    def invalidate(self) -> None:
        self.list.search.invalidate()

    def handle_input(self, data: str) -> bool:
        kb = self.keybindings
        level = self.list.current()
        if kb.matches(data, "app.thinking.save"):
            if level is not None:
                self.on_select(level, True)
        elif kb.matches(data, "tui.select.confirm"):
            if level is not None:
                self.on_select(level, False)
        elif kb.matches(data, "tui.select.cancel"):
            self.on_cancel()
        else:
            return self.list.handle_navigation(data)
        return True

    def _row(self, level: str, selected: bool) -> str:
        check = "✓ " if level == self.current else "  "
        description = LEVEL_DESCRIPTIONS.get(level, "")
        if level == self.default:
            description += " · default"
        name = level.ljust(self._column)
        if selected:
            return self.theme.fg("accent", f"→ {check}{name}{description}")
        return f"  {check}{level}" + self.theme.fg("muted", " " * (self._column - len(level)) + description)

    def render(self, width: int) -> list[str]:
        theme = self.theme
        body = ["", TITLE, "", SUBTITLE, "", *self.list.search.render(width), ""]
        body.extend(self._row(level, i == self.list.selected) for i, level in self.list.window())
        if not self.list.items:
            body.append(theme.fg("muted", "  No matching levels"))
        body.extend(["", theme.fg("dim", "  " + HINT)])
        return framed(theme, width, body)


__all__ = ["HINT", "LEVEL_DESCRIPTIONS", "SUBTITLE", "TITLE", "ThinkingSelector"]
