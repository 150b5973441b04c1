"""Mirroring a session's entries into its file: nothing until the conversation starts, then one line each.

A new session's setup entries (name, model, thinking level, system prompt) wait in memory until the
first user or assistant message exists; that first flush creates the file with the whole buffer in
one exclusive create, so it never overwrites a file someone else made in the meantime. After that,
every entry is one appended line. A file that was empty when opened is filled in place instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pi.session.entries import SessionEntry, SessionHeader
from pi.session.storage import append_lines, create_exclusive, dumps_line, write_file_atomic


class SessionWriter:
    """Where a session's file is and how much of it is written; the manager owns the entries."""

    def __init__(self, file: Path | None, *, fsync: bool = False) -> None:
        self.file = file
        self.fsync = fsync
        self.on_disk = False
        """The header (and `written` entries) are in the file."""
        self.written = 0
        self.needs_newline = False
        """The file does not end with a newline (a torn or hand-edited last line): repair before appending."""
        self.adopt_empty = False
        """The file exists but was empty when opened: the first flush fills it rather than creating it."""

    def reset(self, file: Path | None) -> None:
        """A new file that does not exist yet (or none, for a session kept in memory)."""
        self.file = file
        self.on_disk = False
        self.written = 0
        self.needs_newline = False
        self.adopt_empty = False

    def loaded(self, file: Path, written: int, needs_newline: bool) -> None:
        """State after reading an existing session file of `written` entries."""
        self.file = file
        self.on_disk = True
        self.written = written
        self.needs_newline = needs_newline
        self.adopt_empty = False

    def flush(self, header: SessionHeader, entries: Sequence[SessionEntry]) -> None:
        """Write what the file lacks. Raises on failure, with nothing half-written left behind as a header.

        A failed append may leave part of a line; the next write then starts on a fresh line.
        """
        if self.file is None:
            return
        if not self.on_disk:
            lines = [dumps_line(header.to_dict()), *(dumps_line(e.to_dict()) for e in entries)]
            if self.adopt_empty and self.file.exists():
                # Opened empty (or blank lines only): fill it in place.
                append_lines(self.file, lines, leading_newline=self.needs_newline, fsync=self.fsync)
            else:
                create_exclusive(self.file, lines, fsync=self.fsync)
            self.on_disk = True
            self.adopt_empty = False
            self.written = len(entries)
            self.needs_newline = False
            return
        lines = [dumps_line(e.to_dict()) for e in entries[self.written :]]
        if not lines:
            return
        try:
            append_lines(self.file, lines, leading_newline=self.needs_newline, fsync=self.fsync)
        except BaseException:
            self.needs_newline = True
            raise
        self.written = len(entries)
        self.needs_newline = False

    def rewrite(self, header: SessionHeader, entries: Sequence[SessionEntry]) -> None:
        """Replace the whole file atomically (after migrating an old format)."""
        if self.file is None:
            return
        lines = [dumps_line(header.to_dict()), *(dumps_line(e.to_dict()) for e in entries)]
        write_file_atomic(self.file, lines, fsync=self.fsync)
        self.on_disk = True
        self.written = len(entries)
        self.needs_newline = False


__all__ = ["SessionWriter"]
