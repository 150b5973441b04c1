"""The text dialogs an extension can open in the editor's place: a one-line field and a multi-line editor.

`ctx.ui.select` and `ctx.ui.confirm` use the list dialog the built-in pickers share; these two are
the text counterparts. Both look like the other dialogs (title between the editor's rules, a hint
line), answer through `on_submit(text)` and give up through `on_cancel()`. The title can change while
the dialog is shown, which is how a timed dialog counts down (`Title (5s)`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi.app.modes.interactive.pickers.frame import framed
from pi.tui.editor import Editor
from pi.tui.input import Input

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme


def _hint(theme: Theme, pairs: list[tuple[str, str]]) -> str:
    return "  ".join(theme.fg("dim", key) + theme.fg("muted", " " + word) for key, word in pairs)


class InputDialog:
    """`ctx.ui.input`: a title, a one-line field (the placeholder shows while it is empty), a hint."""

    def __init__(
        self,
        title: str,
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        placeholder: str | None = None,
        on_submit: Callable[[str], None],
        on_cancel: Callable[[], None],
    ) -> None:
        self.title = title
        self.theme = theme
        self.keybindings = keybindings
        self.placeholder = placeholder or ""
        self.on_cancel = on_cancel
        self.field = Input(theme, prompt="> ", keybindings=keybindings, on_submit=on_submit, on_escape=on_cancel)
        self.focused = True

    def invalidate(self) -> None:
        self.field.invalidate()

    def handle_input(self, data: str) -> bool:
        if self.keybindings.matches(data, "tui.select.cancel") and not data.startswith("\x1b"):
            self.on_cancel()  # Ctrl+C (Esc is the field's own escape)
            return True
        return self.field.handle_input(data)

    def render(self, width: int) -> list[str]:
        theme = self.theme
        self.field.focused = self.focused
        line = self.field.render(max(1, width - 1))[0]
        if not self.field.value and self.placeholder:
            line = "> " + theme.fg("dim", self.placeholder)
        confirm = self.keybindings.key_hint("tui.input.submit") or "enter"
        cancel = self.keybindings.key_hint("tui.select.cancel") or "escape"
        hint = _hint(theme, [(confirm, "submit"), (cancel, "cancel")])
        body = ["", " " + theme.bold(self.title), "", " " + line, "", " " + hint, ""]
        return framed(theme, width, body)


class EditorDialog:
    """`ctx.ui.editor`: a title above a multi-line editor prefilled with the given text.

    Enter submits the whole text (trimmed, as the main editor does); the editor's own new-line key
    (Shift+Enter) adds lines; Esc or Ctrl+C cancels.
    """

    def __init__(
        self,
        title: str,
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        prefill: str | None = None,
        on_submit: Callable[[str], None],
        on_cancel: Callable[[], None],
        terminal_rows: int = 24,
    ) -> None:
        self.title = title
        self.theme = theme
        self.keybindings = keybindings
        self.on_cancel = on_cancel
        self._on_submit = on_submit
        self.editor = Editor(theme, keybindings, on_submit=self._submit, terminal_rows=terminal_rows)
        if prefill:
            self.editor.set_text(prefill)
        self.focused = True

    def _submit(self, text: str) -> None:
        self._on_submit(text)

    def invalidate(self) -> None:
        self.editor.invalidate()

    def handle_input(self, data: str) -> bool:
        if self.editor.handle_input(data):
            return True
        if self.keybindings.matches(data, "tui.select.cancel"):
            self.on_cancel()
            return True
        return False

    def render(self, width: int) -> list[str]:
        theme = self.theme
        self.editor.focused = self.focused
        submit = self.keybindings.key_hint("tui.input.submit") or "enter"
        newline = self.keybindings.key_hint("tui.input.newLine") or "shift+enter"
        cancel = self.keybindings.key_hint("tui.select.cancel") or "escape"
        hint = _hint(theme, [(submit, "submit"), (newline, "new line"), (cancel, "cancel")])
        return ["", " " + theme.bold(self.title), *self.editor.render(width), " " + hint]


__all__ = ["EditorDialog", "InputDialog"]
