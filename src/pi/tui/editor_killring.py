"""Kill ring and undo stack of the editor (Emacs-style yank and rotate, snapshot undo)."""

from __future__ import annotations

from msgspec import Struct


class KillRing:
    """Killed text, newest last. Consecutive kills accumulate into one entry."""

    def __init__(self, limit: int = 60) -> None:
        self._entries: list[str] = []
        self._limit = limit

    def push(self, text: str, *, prepend: bool, accumulate: bool) -> None:
        """Add killed ``text``; with ``accumulate`` it joins the newest entry (before it when ``prepend``)."""
        if not text:
            return
        if accumulate and self._entries:
            last = self._entries[-1]
            self._entries[-1] = text + last if prepend else last + text
            return
        self._entries.append(text)
        if len(self._entries) > self._limit:
            del self._entries[0]

    def peek(self) -> str | None:
        """The newest entry (what ``ctrl+y`` inserts)."""
        return self._entries[-1] if self._entries else None

    def rotate(self) -> str | None:
        """Move the newest entry to the oldest position and return the new newest (``alt+y``)."""
        if len(self._entries) < 2:
            return self.peek()
        self._entries.insert(0, self._entries.pop())
        return self._entries[-1]

    def __len__(self) -> int:
        return len(self._entries)


class Snapshot(Struct, frozen=True):
    """Editor state that undo restores."""

    text: str
    cursor: int


class UndoStack:
    """Snapshots taken before each change; ``pop`` returns the state to go back to."""

    def __init__(self, limit: int = 500) -> None:
        self._stack: list[Snapshot] = []
        self._limit = limit

    def push(self, snapshot: Snapshot) -> None:
        if self._stack and self._stack[-1] == snapshot:
            return
        self._stack.append(snapshot)
        if len(self._stack) > self._limit:
            del self._stack[0]

    def pop(self) -> Snapshot | None:
        return self._stack.pop() if self._stack else None

    def clear(self) -> None:
        self._stack.clear()

    def __len__(self) -> int:
        return len(self._stack)
