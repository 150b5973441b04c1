"""The editor's text model: one string, a cursor offset, kill ring, undo and paste markers.

Keeping the text as a single string with a flat cursor offset makes kills, yanks and undo
snapshots trivial; line-based views (current line, column) are derived on demand. Pasted blocks
above the size limits are stored aside and shown as atomic ``[paste #N …]`` markers.
"""

from __future__ import annotations

import re

from pi.tui import editor_text as et
from pi.tui.editor_killring import KillRing, Snapshot, UndoStack

PASTE_LINE_LIMIT = 10
PASTE_CHAR_LIMIT = 1000


class EditorBuffer:
    """Editable multi-line text with Emacs-style editing operations."""

    def __init__(self) -> None:
        self.text = ""
        self.cursor = 0
        self.pastes: dict[int, str] = {}
        self._next_paste = 1
        self.kill_ring = KillRing()
        self.undo_stack = UndoStack()
        self.last_action: str | None = None
        self._yank_start = 0
        self.version = 0

    # -- derived positions -------------------------------------------------------------
    def line_start(self, pos: int | None = None) -> int:
        p = self.cursor if pos is None else pos
        return self.text.rfind("\n", 0, p) + 1

    def line_end(self, pos: int | None = None) -> int:
        p = self.cursor if pos is None else pos
        end = self.text.find("\n", p)
        return len(self.text) if end == -1 else end

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def line_col(self) -> tuple[int, int]:
        """(line index, column offset within the line) of the cursor."""
        line = self.text.count("\n", 0, self.cursor)
        return line, self.cursor - self.line_start()

    def set_line_col(self, line: int, col: int) -> None:
        """Place the cursor at ``col`` of logical line ``line`` (clamped, snapped to a unit start)."""
        lines = self.lines
        line = max(0, min(line, len(lines) - 1))
        start = sum(len(ln) + 1 for ln in lines[:line])
        text = lines[line]
        self.cursor = start + et.snap(text, max(0, min(col, len(text))), self.pastes)
        self.last_action = None
        self.version += 1

    # -- whole-text operations ---------------------------------------------------------
    def snapshot(self) -> None:
        """Record the current state for undo."""
        self.undo_stack.push(Snapshot(self.text, self.cursor))

    def set_text(self, text: str, *, cursor_at_start: bool = False, undoable: bool = True) -> None:
        if undoable and text != self.text:
            self.snapshot()
        self.text = text
        self.cursor = 0 if cursor_at_start else len(text)
        self.last_action = None
        self.version += 1

    def clear(self) -> None:
        self.set_text("")

    def undo(self) -> bool:
        snap = self.undo_stack.pop()
        if snap is None:
            return False
        self.text, self.cursor = snap.text, snap.cursor
        self.last_action = None
        self.version += 1
        return True

    def _replace(self, start: int, end: int, new: str, cursor: int) -> None:
        self.text = self.text[:start] + new + self.text[end:]
        self.cursor = cursor
        self.version += 1

    # -- insertion ---------------------------------------------------------------------
    def type_char(self, ch: str) -> None:
        """Insert typed text; runs of non-space typing form one undo step."""
        if self.last_action != "type" or ch.isspace():
            self.snapshot()
        self._replace(self.cursor, self.cursor, ch, self.cursor + len(ch))
        self.last_action = "type"

    def insert(self, text: str, *, action: str | None = None) -> None:
        """Insert ``text`` at the cursor as one undo step."""
        self.snapshot()
        self._replace(self.cursor, self.cursor, text, self.cursor + len(text))
        self.last_action = action

    def replace_range(self, start: int, end: int, text: str) -> None:
        """Replace ``text[start:end]`` (e.g. by a completion) as one undo step; cursor after it."""
        self.snapshot()
        self._replace(start, end, text, start + len(text))
        self.last_action = None

    def paste(self, text: str) -> None:
        """Insert normalised pasted text, as a marker when it is large."""
        line_count = len(text.split("\n"))
        if line_count > PASTE_LINE_LIMIT or len(text) > PASTE_CHAR_LIMIT:
            pid = self._next_paste
            self._next_paste += 1
            self.pastes[pid] = text
            label = f"+{line_count} lines" if line_count > PASTE_LINE_LIMIT else f"{len(text)} chars"
            text = f"[paste #{pid} {label}]"
        before = self.text[: self.cursor]
        if text[:1] in ("/", "~", ".") and before and et.char_class(before[-1]) == 2:
            text = " " + text
        self.insert(text)

    def expanded_text(self) -> str:
        """The text with every paste marker replaced by its content."""
        if not self.pastes:
            return self.text

        def expand(match: re.Match[str]) -> str:
            content = self.pastes.get(int(match.group(1)))
            return match.group(0) if content is None else content

        return et.PASTE_MARKER_RE.sub(expand, self.text)

    # -- deletion ----------------------------------------------------------------------
    def backspace(self) -> None:
        if self.cursor == 0:
            return
        start = self.line_start()
        col = self.cursor - start
        new = (
            self.cursor - 1 if col == 0 else start + et.prev_unit(self.text[start : self.line_end()], col, self.pastes)
        )
        self.snapshot()
        self._replace(new, self.cursor, "", new)
        self.last_action = None

    def delete_forward(self) -> None:
        if self.cursor >= len(self.text):
            return
        start = self.line_start()
        end_line = self.line_end()
        if self.cursor == end_line:
            end = self.cursor + 1
        else:
            end = start + et.next_unit(self.text[start:end_line], self.cursor - start, self.pastes)
        self.snapshot()
        self._replace(self.cursor, end, "", self.cursor)
        self.last_action = None

    def _kill(self, start: int, end: int, *, backward: bool) -> None:
        if start >= end:
            return
        killed = self.text[start:end]
        self.snapshot()
        self.kill_ring.push(killed, prepend=backward, accumulate=self.last_action == "kill")
        self._replace(start, end, "", start)
        self.last_action = "kill"

    def kill_word_backward(self) -> None:
        start = self.line_start()
        col = self.cursor - start
        if col == 0:
            if self.cursor > 0:
                self._kill(self.cursor - 1, self.cursor, backward=True)
            return
        line = self.text[start : self.line_end()]
        self._kill(start + et.word_left(line, col, self.pastes), self.cursor, backward=True)

    def kill_word_forward(self) -> None:
        start = self.line_start()
        end_line = self.line_end()
        if self.cursor == end_line:
            if self.cursor < len(self.text):
                self._kill(self.cursor, self.cursor + 1, backward=False)
            return
        line = self.text[start:end_line]
        self._kill(self.cursor, start + et.word_right(line, self.cursor - start, self.pastes), backward=False)

    def kill_to_line_start(self) -> None:
        start = self.line_start()
        if self.cursor == start:
            if self.cursor > 0:
                self._kill(self.cursor - 1, self.cursor, backward=True)
            return
        self._kill(start, self.cursor, backward=True)

    def kill_to_line_end(self) -> None:
        end = self.line_end()
        if self.cursor == end:
            if self.cursor < len(self.text):
                self._kill(self.cursor, self.cursor + 1, backward=False)
            return
        self._kill(self.cursor, end, backward=False)

    # -- yank --------------------------------------------------------------------------
    def yank(self) -> None:
        text = self.kill_ring.peek()
        if text is None:
            return
        self._yank_start = self.cursor
        self.insert(text, action="yank")

    def yank_pop(self) -> None:
        """Replace the text just yanked with the next older kill-ring entry."""
        if self.last_action != "yank" or len(self.kill_ring) < 2:
            return
        text = self.kill_ring.rotate()
        if text is None:
            return
        self.snapshot()
        self._replace(self._yank_start, self.cursor, text, self._yank_start + len(text))
        self.last_action = "yank"

    # -- cursor movement ---------------------------------------------------------------
    def move_to(self, pos: int) -> None:
        """Put the cursor at text offset ``pos`` (clamped)."""
        self.cursor = max(0, min(pos, len(self.text)))
        self.last_action = None
        self.version += 1

    def move_left(self) -> None:
        start = self.line_start()
        col = self.cursor - start
        if col == 0:
            self.move_to(self.cursor - 1)
        else:
            self.move_to(start + et.prev_unit(self.text[start : self.line_end()], col, self.pastes))

    def move_right(self) -> None:
        start = self.line_start()
        end = self.line_end()
        if self.cursor == end:
            self.move_to(self.cursor + 1)
        else:
            self.move_to(start + et.next_unit(self.text[start:end], self.cursor - start, self.pastes))

    def move_line_start(self) -> None:
        self.move_to(self.line_start())

    def move_line_end(self) -> None:
        self.move_to(self.line_end())

    def move_word_left(self) -> None:
        start = self.line_start()
        col = self.cursor - start
        if col == 0:
            self.move_to(self.cursor - 1)
            return
        self.move_to(start + et.word_left(self.text[start : self.line_end()], col, self.pastes))

    def move_word_right(self) -> None:
        start = self.line_start()
        end = self.line_end()
        if self.cursor == end:
            self.move_to(self.cursor + 1)
            return
        self.move_to(start + et.word_right(self.text[start:end], self.cursor - start, self.pastes))

    def jump_to_char(self, ch: str, *, forward: bool) -> bool:
        """Move to the next (or previous) occurrence of ``ch``; False when there is none."""
        pos = self.text.find(ch, self.cursor + 1) if forward else self.text.rfind(ch, 0, self.cursor)
        if pos == -1:
            return False
        self.move_to(pos)
        return True
