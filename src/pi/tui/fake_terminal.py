"""An in-memory terminal backed by the `pyte` emulator, for tests of renderers and components.

Everything written is kept (for byte-level assertions) and fed to a pyte screen (for what a user
would see). pyte has no alternate screen, so the fake keeps two screens and switches on
`CSI ?1049h/l`; sequences pyte does not understand (kitty keyboard, modifyOtherKeys, APC) are
removed before they reach it. pyte is a test dependency, imported only when a fake is created.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pi.tui.terminal import Terminal

__all__ = ["FakeTerminal"]

_UNSUPPORTED_RE = re.compile(r"\x1b\[[<>=][0-9;:]*[a-zA-Z~]|\x1b[_P^X][^\x07\x1b]*(?:\x07|\x1b\\)")
_ALT_RE = re.compile(r"(\x1b\[\?1049[hl])")


class FakeTerminal(Terminal):
    """A terminal of `columns` × `rows` whose screen can be read back."""

    def __init__(
        self, columns: int = 80, rows: int = 24, environ: Mapping[str, str] | None = None, history: int = 5000
    ) -> None:
        import pyte

        super().__init__(environ if environ is not None else {})
        self._columns = columns
        self._rows = rows
        self._pyte = pyte
        self.main = pyte.HistoryScreen(columns, rows, history=history, ratio=0.5)
        self.alt = pyte.Screen(columns, rows)
        self._main_stream = pyte.Stream(self.main)
        self._alt_stream = pyte.Stream(self.alt)
        self.in_alt = False
        self.writes: list[str] = []
        self.raw = False
        self.raw_changes: list[bool] = []
        self.suspended = 0
        self.on_suspend_process: Any = None

    @property
    def columns(self) -> int:
        return self._columns

    @property
    def rows(self) -> int:
        return self._rows

    @property
    def output(self) -> str:
        return "".join(self.writes)

    def clear_output(self) -> None:
        self.writes.clear()

    def write(self, data: str) -> None:
        if not data:
            return
        self.writes.append(data)
        for piece in _ALT_RE.split(data):
            if piece == "\x1b[?1049h":
                if not self.in_alt:
                    self.in_alt = True
                    self.alt.reset()
                continue
            if piece == "\x1b[?1049l":
                self.in_alt = False
                continue
            if piece:
                cleaned = _UNSUPPORTED_RE.sub("", piece)
                (self._alt_stream if self.in_alt else self._main_stream).feed(cleaned)

    def set_raw(self, raw: bool) -> None:
        self.raw = raw
        self.raw_changes.append(raw)

    def suspend_process(self) -> None:
        self.suspended += 1
        if self.on_suspend_process is not None:
            self.on_suspend_process()

    def resize(self, columns: int, rows: int) -> None:
        """Change the size (as a window resize would) and tell the TUI."""
        self._columns = columns
        self._rows = rows
        self.main.resize(rows, columns)
        self.alt.resize(rows, columns)
        if self.on_resize is not None:
            self.on_resize()

    @property
    def screen(self) -> Any:
        """The pyte screen currently shown."""
        return self.alt if self.in_alt else self.main

    def display(self) -> list[str]:
        """The visible rows, right-trimmed."""
        return [line.rstrip() for line in self.screen.display]

    def scrollback(self) -> list[str]:
        """Rows that scrolled off the top of the main screen, oldest first, right-trimmed."""
        rows = []
        for line in self.main.history.top:
            rows.append("".join(line[x].data for x in range(self._columns)).rstrip())
        return rows

    def cursor(self) -> tuple[int, int]:
        """(row, column) of the cursor, 0-based."""
        return (self.screen.cursor.y, self.screen.cursor.x)

    def cell(self, row: int, col: int) -> Any:
        """The pyte character (data, fg, bg, bold, ...) at a cell of the current screen."""
        return self.screen.buffer[row][col]
