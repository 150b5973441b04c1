"""The prompt editor: multi-line text between two rules, with history and completion.

Keys go through the keybinding action ids (``tui.editor.*``, ``tui.input.*``), so user
keybindings apply. Keys the editor does not use (Escape without a completion list, Ctrl+C,
Ctrl+D on an empty editor, application shortcuts) make ``handle_input`` return False for the
application to handle. Submitting calls ``on_submit`` with the trimmed text, paste markers
expanded; the application adds prompts to the history with ``add_to_history``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi.tui import editor_layout as el
from pi.tui.autocomplete import AutocompleteProvider, Completion, Suggestions
from pi.tui.editor_buffer import EditorBuffer
from pi.tui.editor_keys import handle_editor_input
from pi.tui.editor_view import draw_line, frame_content, rule_line, visible_line_budget
from pi.tui.select_list import render_rows

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

HISTORY_LIMIT = 100


class Editor:
    """A focusable multi-line editor component (see the module docstring)."""

    def __init__(
        self,
        theme: Theme,
        keybindings: KeybindingsManager | None = None,
        *,
        autocomplete: AutocompleteProvider | None = None,
        on_submit: Callable[[str], None] | None = None,
        on_change: Callable[[str], None] | None = None,
        padding_x: int = 0,
        autocomplete_max_visible: int = 5,
        terminal_rows: int = 24,
    ) -> None:
        if keybindings is None:
            from pi.tui.keybindings import KeybindingsManager as _Manager

            keybindings = _Manager()
        self.theme = theme
        self.keybindings = keybindings
        self.autocomplete = autocomplete
        self.on_submit = on_submit
        self.on_change = on_change
        self.padding_x = padding_x
        self.autocomplete_max_visible = autocomplete_max_visible
        self.terminal_rows = terminal_rows
        self.focused = True
        #: Thinking level whose ``thinking<Level>`` token colours the rules.
        self.thinking_level = "off"
        #: A theme token that overrides the rule colour (None: thinking level or bash mode).
        self.border_token: str | None = None
        #: Text in the top rule, e.g. ``"⠸ Working"``; None for a plain rule.
        self.working_label: str | None = None
        self.buffer = EditorBuffer()
        self.history: list[str] = []
        self._history_index = -1
        self._history_text: str | None = None
        self._draft = ""
        self.preferred_col: int | None = None
        self._scroll = 0
        self._width = 80
        self.suggestions: Suggestions | None = None
        self._suggest_version = 0
        self.selected = 0
        self.jump_pending: str | None = None
        self._cache: tuple[tuple[object, ...], list[str]] | None = None

    # -- public API ----------------------------------------------------------------------
    def get_text(self) -> str:
        """The text as shown (paste markers not expanded)."""
        return self.buffer.text

    def get_expanded_text(self) -> str:
        """The text with paste markers replaced by what was pasted."""
        return self.buffer.expanded_text()

    def set_text(self, text: str) -> None:
        """Replace the text (undoable), cursor at the end."""
        self.buffer.set_text(text)
        self.after_change(typed=False)

    def insert_text(self, text: str) -> None:
        """Insert text at the cursor as if typed in one go."""
        self.buffer.insert(text)
        self.after_change(typed=False)

    def clear(self) -> None:
        self.buffer.set_text("")
        self.close_autocomplete()
        self._history_index = -1
        self._notify_change()

    def is_empty(self) -> bool:
        return self.buffer.text == ""

    def is_bash_mode(self) -> bool:
        return self.buffer.text.lstrip().startswith("!")

    def add_to_history(self, text: str) -> None:
        """Remember a prompt (newest last, no consecutive duplicates, at most 100)."""
        text = text.strip()
        if not text or (self.history and self.history[-1] == text):
            return
        self.history.append(text)
        if len(self.history) > HISTORY_LIMIT:
            del self.history[0]

    def is_autocomplete_open(self) -> bool:
        return self.suggestions is not None

    def close_autocomplete(self) -> None:
        if self.suggestions is not None:
            self.suggestions = None
            self.selected = 0
            self._suggest_version += 1
            if self.autocomplete is not None:
                self.autocomplete.reset()

    def invalidate(self) -> None:
        self._cache = None

    def handle_input(self, data: str) -> bool:
        """One key sequence or bracketed paste; False when the application should handle it."""
        return handle_editor_input(self, data)

    # -- submit --------------------------------------------------------------------------
    def submit(self) -> None:
        """Send the trimmed text (markers expanded) to ``on_submit`` and clear the editor."""
        text = self.buffer.expanded_text().strip()
        if not text:
            return
        self.buffer.set_text("", undoable=False)
        self.buffer.undo_stack.clear()
        self.buffer.pastes.clear()
        self._history_index = -1
        self._scroll = 0
        self.close_autocomplete()
        self._notify_change()
        if self.on_submit is not None:
            self.on_submit(text)

    # -- history -------------------------------------------------------------------------
    def history_older(self) -> bool:
        if not self.history or self._history_index >= len(self.history) - 1:
            return False
        if self._history_index == -1:
            self._draft = self.buffer.text
        self._history_index += 1
        self._load_history(cursor_at_start=True)
        return True

    def history_newer(self) -> bool:
        if self._history_index < 0:
            return False
        self._history_index -= 1
        if self._history_index < 0:
            self.buffer.set_text(self._draft)
            self._history_text = None
        else:
            self._load_history(cursor_at_start=False)
        self.after_change(typed=False, keep_history=True)
        return True

    def _load_history(self, *, cursor_at_start: bool) -> None:
        text = self.history[len(self.history) - 1 - self._history_index]
        self.buffer.set_text(text, cursor_at_start=cursor_at_start)
        self._history_text = text
        self.after_change(typed=False, keep_history=True)

    def is_browsing_history(self) -> bool:
        return self._history_index >= 0 and self._history_text == self.buffer.text

    # -- layout helpers ------------------------------------------------------------------
    def content_width(self, width: int | None = None) -> int:
        w = self._width if width is None else width
        inner = w - 2 * self.padding_x
        return max(1, inner - (1 if self.padding_x == 0 else 0))

    def visual_lines(self) -> list[el.VisualLine]:
        return el.layout(self.buffer.text, self.content_width(), self.buffer.pastes)

    def after_change(self, *, typed: bool, keep_history: bool = False) -> None:
        """Bookkeeping after the text changed: history browsing, completion, listeners."""
        if not keep_history and self._history_text != self.buffer.text:
            self._history_index = -1
        self.preferred_col = None
        self._refresh_autocomplete(typed)
        self._notify_change()

    def _notify_change(self) -> None:
        if self.on_change is not None:
            self.on_change(self.buffer.text)

    # -- autocomplete --------------------------------------------------------------------
    def _current_line(self) -> tuple[str, int, bool]:
        start = self.buffer.line_start()
        line = self.buffer.text[start : self.buffer.line_end()]
        return line, self.buffer.cursor - start, start == 0

    def _refresh_autocomplete(self, typed: bool) -> None:
        provider = self.autocomplete
        if provider is None:
            return
        if self.suggestions is None and not typed:
            return
        line, col, first = self._current_line()
        if self.suggestions is not None and self.suggestions.kind == "path":
            found = provider.complete_path(line, col)
        else:
            found = provider.suggest(line, col, first_line=first)
        self._show(found)

    def _show(self, found: Suggestions | None) -> None:
        if found is None or not found.items:
            self.close_autocomplete()
            return
        self.suggestions = found
        self.selected = 0
        self._suggest_version += 1

    def open_path_completion(self) -> bool:
        """Tab outside a command name: insert a single match at once, list several."""
        provider = self.autocomplete
        if provider is None:
            return False
        line, col, first = self._current_line()
        if provider.is_command_name(line, col, first):
            self._show(provider.suggest(line, col, first_line=first))
            return self.suggestions is not None
        found = provider.complete_path(line, col)
        if found is None:
            return False
        if len(found.items) == 1:
            self._accept(found, found.items[0])
            self.close_autocomplete()
            return True
        self._show(found)
        return True

    def accept_selected(self) -> Completion | None:
        """Insert the selected completion; returns it (None when the list is closed)."""
        found = self.suggestions
        if found is None or not found.items:
            return None
        item = found.items[self.selected]
        self._accept(found, item)
        if item.keep_open and found.kind == "file":
            self._refresh_autocomplete(True)
        else:
            self.close_autocomplete()
        return item

    def _accept(self, found: Suggestions, item: Completion) -> None:
        base = self.buffer.line_start()
        insert = item.insert or item.value
        self.buffer.replace_range(base + found.start, base + found.end, insert)
        self._history_index = -1
        self._notify_change()

    # -- rendering -----------------------------------------------------------------------
    def border_color_token(self) -> str:
        if self.border_token:
            return self.border_token
        if self.is_bash_mode():
            return "bashMode"
        level = self.thinking_level or "off"
        return "thinking" + level[:1].upper() + level[1:]

    def render(self, width: int) -> list[str]:
        key = (
            width,
            self.terminal_rows,
            self.buffer.version,
            self.buffer.text,
            self.buffer.cursor,
            self.focused,
            self.working_label,
            self.border_color_token(),
            self._suggest_version,
            self.selected,
            self.padding_x,
        )
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        self._width = width
        lines = self._render(width)
        self._cache = (key, lines)
        return lines

    def _render(self, width: int) -> list[str]:
        theme = self.theme
        token = self.border_color_token()
        visual = self.visual_lines()
        row = el.cursor_row(visual, self.buffer.cursor)
        budget = visible_line_budget(self.terminal_rows)
        if row < self._scroll:
            self._scroll = row
        elif row >= self._scroll + budget:
            self._scroll = row - budget + 1
        self._scroll = max(0, min(self._scroll, max(0, len(visual) - budget)))
        shown = visual[self._scroll : self._scroll + budget]
        above = self._scroll
        below = max(0, len(visual) - self._scroll - budget)
        text = self.buffer.text
        body: list[str] = []
        for index, vl in enumerate(shown):
            end = text.find("\n", vl.offset)
            logical = text[vl.offset : end if end != -1 else len(text)]
            cursor_col = self.buffer.cursor - vl.offset if index + self._scroll == row else None
            body.append(draw_line(logical, vl, cursor_col, self.focused))
        lines = [
            rule_line(width, theme, token, label=self.working_label, indicator=f" ↑ {above} more " if above else None)
        ]
        lines.extend(frame_content(body, width, self.padding_x))
        lines.append(rule_line(width, theme, token, indicator=f" ↓ {below} more " if below else None))
        if self.suggestions is not None:
            found = self.suggestions
            lines.extend(
                render_rows(
                    found.items,
                    self.selected,
                    width,
                    theme,
                    max_visible=self.autocomplete_max_visible,
                    min_primary=found.layout[0],
                    max_primary=found.layout[1],
                )
            )
        return lines
