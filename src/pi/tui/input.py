"""Input: a one-line text field (search boxes, dialogs) with the editor's editing keys.

It shares the editor's text model, so word moves, kills, yank and undo behave the same; newlines
never enter it (a paste is joined into one line). Too-long text scrolls horizontally to keep the
cursor in view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi.tui.component import CURSOR_MARKER
from pi.tui.editor_buffer import EditorBuffer
from pi.tui.editor_text import grapheme_bounds
from pi.tui.keys import decode_printable
from pi.tui.text_width import visible_width

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"

_E = "tui.editor."
_ACTIONS: tuple[tuple[str, str], ...] = (
    (_E + "cursorLeft", "move_left"),
    (_E + "cursorRight", "move_right"),
    (_E + "cursorWordLeft", "move_word_left"),
    (_E + "cursorWordRight", "move_word_right"),
    (_E + "cursorLineStart", "move_line_start"),
    (_E + "cursorLineEnd", "move_line_end"),
    (_E + "deleteCharBackward", "backspace"),
    (_E + "deleteCharForward", "delete_forward"),
    (_E + "deleteWordBackward", "kill_word_backward"),
    (_E + "deleteWordForward", "kill_word_forward"),
    (_E + "deleteToLineStart", "kill_to_line_start"),
    (_E + "deleteToLineEnd", "kill_to_line_end"),
    (_E + "yank", "yank"),
    (_E + "yankPop", "yank_pop"),
    (_E + "undo", "undo"),
)


class Input:
    """A focusable single-line field: ``prompt`` + text, reverse-video cursor."""

    def __init__(
        self,
        theme: Theme,
        *,
        prompt: str = "",
        value: str = "",
        keybindings: KeybindingsManager | None = None,
        on_submit: Callable[[str], None] | None = None,
        on_escape: Callable[[], None] | None = None,
        on_change: Callable[[str], None] | None = None,
    ) -> None:
        if keybindings is None:
            from pi.tui.keybindings import KeybindingsManager as _Manager

            keybindings = _Manager()
        self.theme = theme
        self.prompt = prompt
        self.keybindings = keybindings
        self.on_submit = on_submit
        self.on_escape = on_escape
        self.on_change = on_change
        self.focused = True
        self.buffer = EditorBuffer()
        self.buffer.set_text(value, undoable=False)
        self._cache: tuple[tuple[object, ...], list[str]] | None = None

    @property
    def value(self) -> str:
        return self.buffer.text

    @property
    def cursor(self) -> int:
        return self.buffer.cursor

    def set_value(self, value: str) -> None:
        self.buffer.set_text(value.replace("\n", " "), undoable=False)

    def invalidate(self) -> None:
        self._cache = None

    def handle_input(self, data: str) -> bool:
        before = self.buffer.text
        handled = self._dispatch(data)
        if handled and self.buffer.text != before and self.on_change is not None:
            self.on_change(self.buffer.text)
        return handled

    def _dispatch(self, data: str) -> bool:
        kb = self.keybindings
        if data.startswith(PASTE_START):
            text = data[len(PASTE_START) :].removesuffix(PASTE_END)
            text = "".join(ch for ch in text.replace("\r\n", " ").replace("\n", " ") if ch.isprintable() or ch == " ")
            if text:
                self.buffer.insert(text)
            return True
        if kb.matches(data, "tui.input.submit"):
            if self.on_submit is not None:
                self.on_submit(self.value)
            return True
        if kb.matches(data, "tui.select.cancel") and data.startswith("\x1b") and self.on_escape is not None:
            self.on_escape()
            return True
        for action, method in _ACTIONS:
            if kb.matches(data, action):
                getattr(self.buffer, method)()
                return True
        typed = decode_printable(data)
        if typed is not None and "\n" not in typed:
            for ch in typed:
                self.buffer.type_char(ch)
            return True
        return False

    def render(self, width: int) -> list[str]:
        key = (width, self.buffer.version, self.buffer.text, self.buffer.cursor, self.focused, self.prompt)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        room = max(1, width - visible_width(self.prompt) - 1)
        text = self.value
        cursor = self.cursor
        start = self._scroll_start(text, cursor, room)
        before = text[start:cursor]
        bounds = grapheme_bounds(text[cursor:])
        under = text[cursor : cursor + bounds[1]] if len(bounds) > 1 and bounds[1] else ""
        after = text[cursor + len(under) :]
        cursor_cell = CURSOR_MARKER + "\x1b[7m" + (under or " ") + "\x1b[0m"
        body = before + (cursor_cell if self.focused else under)
        used = visible_width(before) + max(1, visible_width(under))
        rest = ""
        g_bounds = grapheme_bounds(after)
        for index in range(len(g_bounds) - 1):
            piece = after[g_bounds[index] : g_bounds[index + 1]]
            if used + visible_width(piece) > room:
                break
            rest += piece
            used += visible_width(piece)
        lines = [self.prompt + body + rest]
        self._cache = (key, lines)
        return lines

    @staticmethod
    def _scroll_start(text: str, cursor: int, room: int) -> int:
        """First shown offset: the cursor and its cell always fit in ``room`` cells."""
        if visible_width(text[:cursor]) < room:
            return 0
        bounds = grapheme_bounds(text[:cursor])
        width = 0
        start = cursor
        for index in range(len(bounds) - 2, -1, -1):
            piece = text[bounds[index] : bounds[index + 1]]
            if width + visible_width(piece) >= room:
                break
            width += visible_width(piece)
            start = bounds[index]
        return start
