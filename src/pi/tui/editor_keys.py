"""Key handling of the editor: what each key sequence does, by keybinding action id."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pi.tui import editor_layout as el
from pi.tui.editor_view import visible_line_budget
from pi.tui.keys import decode_printable, matches_key
from pi.tui.text_width import visible_width

if TYPE_CHECKING:
    from pi.tui.editor import Editor

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
PASTE_TAB = "    "
_CSI_U_CTRL = re.compile(r"\x1b\[(\d+);5u")

_E = "tui.editor."
#: Actions that map one-to-one onto a buffer method.
_BUFFER_ACTIONS: tuple[tuple[str, str], ...] = (
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


def normalize_paste(text: str) -> str:
    """Pasted text as it enters the editor: ``\\n`` line ends, tabs as spaces, no control bytes."""
    text = _CSI_U_CTRL.sub(lambda m: chr(int(m.group(1)) & 0x1F), text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", PASTE_TAB)
    return "".join(ch for ch in text if ch == "\n" or (ord(ch) >= 32 and ord(ch) != 127))


def is_newline_key(editor: Editor, data: str) -> bool:
    """Shift+Enter, Ctrl+J, ``ESC CR``, ``CSI 13;2~`` or any other multi-byte ESC…CR sequence."""
    if editor.keybindings.matches(data, "tui.input.newLine"):
        return True
    if data == "\x1b[13;2~":
        return True
    return len(data) > 1 and "\x1b" in data and "\r" in data


def handle_editor_input(editor: Editor, data: str) -> bool:
    """Apply one key sequence (or bracketed paste) to the editor; False when not used."""
    buf = editor.buffer
    if editor.jump_pending is not None:
        direction = editor.jump_pending
        editor.jump_pending = None
        text = decode_printable(data)
        if text:
            buf.jump_to_char(text[0], forward=direction == "forward")
            return True
    if data.startswith(PASTE_START):
        pasted = normalize_paste(data[len(PASTE_START) :].removesuffix(PASTE_END))
        if pasted:
            buf.paste(pasted)
            editor.after_change(typed=True)
        return True
    if editor.suggestions is not None:
        handled = _autocomplete_key(editor, data)
        if handled is not None:
            return handled
    kb = editor.keybindings
    if is_newline_key(editor, data):
        buf.insert("\n")
        editor.after_change(typed=False)
        return True
    if kb.matches(data, "tui.input.submit"):
        if buf.text[: buf.cursor].endswith("\\"):
            buf.backspace()
            buf.insert("\n")
            editor.after_change(typed=False)
        else:
            editor.submit()
        return True
    if kb.matches(data, "tui.input.tab"):
        editor.open_path_completion()
        return True
    return _edit_key(editor, data)


def _edit_key(editor: Editor, data: str) -> bool:
    buf = editor.buffer
    kb = editor.keybindings
    if kb.matches(data, _E + "cursorUp"):
        _vertical(editor, -1)
        return True
    if kb.matches(data, _E + "cursorDown"):
        _vertical(editor, 1)
        return True
    if kb.matches(data, _E + "pageUp"):
        _vertical(editor, -visible_line_budget(editor.terminal_rows), page=True)
        return True
    if kb.matches(data, _E + "pageDown"):
        _vertical(editor, visible_line_budget(editor.terminal_rows), page=True)
        return True
    if kb.matches(data, _E + "historyPrevious"):
        editor.history_older()
        return True
    if kb.matches(data, _E + "historyNext"):
        editor.history_newer()
        return True
    if kb.matches(data, _E + "jumpForward"):
        editor.jump_pending = "forward"
        return True
    if kb.matches(data, _E + "jumpBackward"):
        editor.jump_pending = "backward"
        return True
    for action, method in _BUFFER_ACTIONS:
        if kb.matches(data, action):
            if action == _E + "deleteCharForward" and not buf.text and matches_key(data, "ctrl+d"):
                return False  # Ctrl+D on an empty editor is the application's (quit)
            before = buf.text
            getattr(buf, method)()
            editor.preferred_col = None
            if buf.text != before:
                editor.after_change(typed=editor.suggestions is not None)
            return True
    if matches_key(data, "shift+space"):
        buf.type_char(" ")
        editor.after_change(typed=True)
        return True
    text = decode_printable(data)
    if text is None:
        return False
    for ch in text:
        buf.type_char(ch)
    editor.after_change(typed=True)
    return True


def _autocomplete_key(editor: Editor, data: str) -> bool | None:
    """Keys that act on the open completion list; None lets the key edit the text."""
    found = editor.suggestions
    assert found is not None
    kb = editor.keybindings
    count = len(found.items)
    page = editor.autocomplete_max_visible
    if kb.matches(data, "tui.select.up"):
        editor.selected = (editor.selected - 1) % count
    elif kb.matches(data, "tui.select.down"):
        editor.selected = (editor.selected + 1) % count
    elif kb.matches(data, "tui.select.pageUp"):
        editor.selected = max(0, editor.selected - page)
    elif kb.matches(data, "tui.select.pageDown"):
        editor.selected = min(count - 1, editor.selected + page)
    elif matches_key(data, "escape"):
        editor.close_autocomplete()
    elif kb.matches(data, "tui.input.tab"):
        editor.accept_selected()
    elif kb.matches(data, "tui.input.submit"):
        kind = found.kind
        editor.accept_selected()
        if kind == "command":
            editor.submit()
    else:
        return None
    return True


def _vertical(editor: Editor, delta: int, *, page: bool = False) -> None:
    """Move the cursor ``delta`` visual lines, keeping its column; history at the edges."""
    buf = editor.buffer
    visual = editor.visual_lines()
    row = el.cursor_row(visual, buf.cursor)
    if delta < 0 and row == 0:
        if not page and (not buf.text or editor.is_browsing_history() or buf.cursor == 0) and editor.history_older():
            return
        buf.move_to(0)
        return
    if delta > 0 and row == len(visual) - 1:
        if not page and editor.is_browsing_history() and editor.history_newer():
            return
        buf.move_to(len(buf.text))
        return
    current = visual[row]
    if editor.preferred_col is None:
        line = buf.text[current.offset : current.offset + current.end]
        editor.preferred_col = visible_width(line[current.start : buf.cursor - current.offset])
    target = visual[max(0, min(len(visual) - 1, row + delta))]
    column = editor.preferred_col
    buf.move_to(el.offset_at_column(buf.text, target, column, buf.pastes))
    editor.preferred_col = column
