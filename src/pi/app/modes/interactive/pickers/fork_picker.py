"""The fork picker (`/fork`): every user message of the active path, the last one preselected.

Each row is the message's first line and `Message i of n`; Enter reports the chosen entry id.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pi.app.modes.interactive.pickers.frame import fit, rule
from pi.tui.select_list import visible_window

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

TITLE = "Fork from Message"
SUBTITLE = "Select a user message to copy the active path up to that point into a new session"


class ForkPicker:
    def __init__(
        self,
        messages: Sequence[dict[str, str]],
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        on_select: Callable[[str], None],
        on_cancel: Callable[[], None],
        max_visible: int = 8,
    ) -> None:
        self.messages = list(messages)
        self.theme = theme
        self.keybindings = keybindings
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.max_visible = max_visible
        self.selected = len(self.messages) - 1
        self.focused = True

    def invalidate(self) -> None:
        return None

    def handle_input(self, data: str) -> bool:
        kb = self.keybindings
        count = len(self.messages)
        if kb.matches(data, "tui.select.up") and count:
            self.selected = (self.selected - 1) % count
        elif kb.matches(data, "tui.select.down") and count:
            self.selected = (self.selected + 1) % count
        elif kb.matches(data, "tui.select.pageUp"):
            self.selected = max(0, self.selected - self.max_visible)
        elif kb.matches(data, "tui.select.pageDown"):
            self.selected = max(0, min(count - 1, self.selected + self.max_visible))
        elif kb.matches(data, "tui.select.confirm") and count:
            self.on_select(self.messages[self.selected]["entryId"])
        elif kb.matches(data, "tui.select.cancel"):
            self.on_cancel()
        else:
            return False
        return True

    def render(self, width: int) -> list[str]:
        theme = self.theme
        lines = ["", " " + theme.bold(TITLE), " " + theme.fg("muted", SUBTITLE), "", rule(theme, width), ""]
        count = len(self.messages)
        start = visible_window(self.selected, count, self.max_visible)
        for index in range(start, min(count, start + self.max_visible)):
            text = " ".join(self.messages[index]["text"].split())
            if index == self.selected:
                lines.append(theme.fg("accent", "› ") + theme.bold(text))
            else:
                lines.append("  " + text)
            lines.append(theme.fg("muted", f"  Message {index + 1} of {count}"))
            lines.append("")
        lines.extend(["", rule(theme, width)])
        return [fit(line, width) for line in lines]


__all__ = ["SUBTITLE", "TITLE", "ForkPicker"]
