"""The `/hotkeys` tables, built from the keybindings in effect (user overrides included).

Three markdown tables, Navigation, Editing and Other, with the keys as selectors show them
(`Shift+Ctrl+P`); an action bound to nothing is left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pi.tui.keybindings import KeybindingsManager

_E = "tui.editor."

#: (action ids joined by " / ", description); a literal key is written as "=<key>".
NAVIGATION: tuple[tuple[tuple[str, ...], str], ...] = (
    ((_E + "cursorUp", _E + "cursorDown", _E + "cursorLeft", _E + "cursorRight"), "Move cursor / browse history"),
    ((_E + "cursorWordLeft", _E + "cursorWordRight"), "Move by word"),
    ((_E + "cursorLineStart",), "Start of line"),
    ((_E + "cursorLineEnd",), "End of line"),
    ((_E + "jumpForward",), "Jump forward to character"),
    ((_E + "jumpBackward",), "Jump backward to character"),
    ((_E + "pageUp", _E + "pageDown"), "Scroll by page"),
)
EDITING: tuple[tuple[tuple[str, ...], str], ...] = (
    (("tui.input.submit",), "Send message"),
    (("tui.input.newLine",), "New line"),
    ((_E + "deleteWordBackward",), "Delete word backwards"),
    ((_E + "deleteWordForward",), "Delete word forwards"),
    ((_E + "deleteToLineStart",), "Delete to start of line"),
    ((_E + "deleteToLineEnd",), "Delete to end of line"),
    ((_E + "yank",), "Paste the most-recently-deleted text"),
    ((_E + "yankPop",), "Cycle through the deleted text after pasting"),
    ((_E + "undo",), "Undo"),
)
OTHER: tuple[tuple[tuple[str, ...], str], ...] = (
    (("tui.input.tab",), "Path completion / accept autocomplete"),
    (("app.interrupt",), "Cancel autocomplete / abort streaming"),
    (("app.clear",), "Clear editor (first) / exit (second)"),
    (("app.exit",), "Exit (when editor is empty)"),
    (("app.suspend",), "Suspend to background"),
    (("app.thinking.cycle",), "Cycle thinking level"),
    (("app.model.cycleForward", "app.model.cycleBackward"), "Cycle models"),
    (("app.model.select",), "Open model selector"),
    (("app.tools.expand",), "Toggle tool output expansion"),
    (("app.thinking.toggle",), "Toggle thinking block visibility"),
    (("app.editor.external",), "Edit message in external editor"),
    (("app.message.copy",), "Copy selection or last assistant message"),
    (("app.message.followUp",), "Queue follow-up message"),
    (("app.message.dequeue",), "Restore queued messages"),
    (("app.clipboard.pasteImage",), "Paste files on macOS, images, or text from clipboard"),
    (("=/",), "Slash commands"),
    (("=!",), "Run bash command"),
    (("=!!",), "Run bash command (excluded from context)"),
)


def _keys(keybindings: KeybindingsManager, actions: tuple[str, ...]) -> str:
    labels = [a[1:] if a.startswith("=") else keybindings.key_label(a) for a in actions]
    return " / ".join(label for label in labels if label)


def _table(keybindings: KeybindingsManager, rows: tuple[tuple[tuple[str, ...], str], ...]) -> list[str]:
    lines = ["| Key | Action |", "| --- | --- |"]
    for actions, description in rows:
        keys = _keys(keybindings, actions)
        if keys:
            escaped = keys.replace("|", "\\|")
            lines.append(f"| {escaped} | {description} |")
    return lines


def hotkeys_markdown(keybindings: KeybindingsManager, extension_rows: Sequence[tuple[str, str]] = ()) -> str:
    """The tables; `extension_rows` (key label, description) add an **Extensions** table when given."""
    parts: list[str] = []
    for title, rows in (("Navigation", NAVIGATION), ("Editing", EDITING), ("Other", OTHER)):
        parts.extend([f"**{title}**", "", *_table(keybindings, rows), ""])
    if extension_rows:
        lines = ["| Key | Action |", "| --- | --- |"]
        lines += [f"| {key.replace('|', chr(92) + '|')} | {description} |" for key, description in extension_rows]
        parts.extend(["**Extensions**", "", *lines, ""])
    return "\n".join(parts).rstrip() + "\n"


__all__ = ["hotkeys_markdown"]
