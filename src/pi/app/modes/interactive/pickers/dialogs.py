"""Simple dialogs in the editor's place: a titled list of `→` options, and a yes/no confirmation.

They look alike: a title, optional message lines, the options, and the hint
`↑↓ navigate  enter select  escape/ctrl+c cancel`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pi.app.modes.interactive.pickers.frame import framed
from pi.tui.select_list import select_hint
from pi.tui.text_width import wrap_text_with_ansi

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme


class SelectDialog:
    """Pick one of `options`; `on_select(index)` or `on_cancel()`."""

    def __init__(
        self,
        title: str,
        options: Sequence[str],
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        on_select: Callable[[int], None],
        on_cancel: Callable[[], None],
        message: Sequence[str] = (),
        selected: int = 0,
    ) -> None:
        self.title = title
        self.options = list(options)
        self.message = list(message)
        self.theme = theme
        self.keybindings = keybindings
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.selected = max(0, min(selected, len(self.options) - 1))
        self.focused = True

    def invalidate(self) -> None:
        return None

    def handle_input(self, data: str) -> bool:
        kb = self.keybindings
        count = len(self.options)
        if kb.matches(data, "tui.select.up") and count:
            self.selected = (self.selected - 1) % count
        elif kb.matches(data, "tui.select.down") and count:
            self.selected = (self.selected + 1) % count
        elif kb.matches(data, "tui.select.confirm") and count:
            self.on_select(self.selected)
        elif kb.matches(data, "tui.select.cancel"):
            self.on_cancel()
        else:
            return False
        return True

    def render(self, width: int) -> list[str]:
        theme = self.theme
        body = ["", " " + theme.bold(self.title)]
        for line in self.message:
            body.extend(" " + part for part in wrap_text_with_ansi(theme.fg("muted", line), max(1, width - 2)))
        body.append("")
        for index, option in enumerate(self.options):
            if index == self.selected:
                body.append(" " + theme.fg("accent", "→ " + option))
            else:
                body.append("   " + option)
        body.extend(["", " " + select_hint(theme, self.keybindings), ""])
        return framed(theme, width, body)


def confirm_dialog(
    title: str,
    message: str,
    theme: Theme,
    keybindings: KeybindingsManager,
    on_answer: Callable[[bool], None],
) -> SelectDialog:
    """A Yes/No question; Esc answers No."""
    return SelectDialog(
        title,
        ["Yes", "No"],
        theme,
        keybindings,
        message=[message],
        on_select=lambda index: on_answer(index == 0),
        on_cancel=lambda: on_answer(False),
    )


class TextPromptDialog:
    """A title, optional message lines and one input line; Enter gives the text, Esc cancels."""

    def __init__(
        self,
        title: str,
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        on_submit: Callable[[str], None],
        on_cancel: Callable[[], None],
        value: str = "",
        message: Sequence[str] = (),
    ) -> None:
        from pi.tui.input import Input

        self.title = title
        self.theme = theme
        self.message = list(message)
        self.on_cancel = on_cancel
        self.field = Input(theme, prompt="> ", value=value, keybindings=keybindings, on_submit=on_submit)
        self.keybindings = keybindings
        self.focused = True

    def invalidate(self) -> None:
        self.field.invalidate()

    def handle_input(self, data: str) -> bool:
        if self.keybindings.matches(data, "tui.select.cancel"):
            self.on_cancel()
            return True
        return self.field.handle_input(data)

    def render(self, width: int) -> list[str]:
        theme = self.theme
        body = ["", " " + theme.bold(self.title)]
        for line in self.message:
            body.extend(" " + part for part in wrap_text_with_ansi(theme.fg("muted", line), max(1, width - 2)))
        body.extend(["", *(" " + line for line in self.field.render(max(1, width - 1)))])
        body.extend(["", " " + theme.fg("dim", "enter confirm · escape cancel"), ""])
        return framed(theme, width, body)


__all__ = ["SelectDialog", "TextPromptDialog", "confirm_dialog"]
