"""Transcript search in fullscreen (Ctrl+Shift+F): a box at the top right, matches highlighted.

```
┌──────────────────────────────────────────┐
│ reply                                1/1 │
└──────────────── ↑ Shift+Enter · ↓ Enter ─┘
```

Matching is case-insensitive on the plain text of each rendered transcript line (a match does not
span lines). Every match is underlined on `searchMatchBg` / `searchMatchText`, the current one is
bold inverse, and the view scrolls to keep the current match visible. Enter / Ctrl+G go to the next
match (downwards), Shift+Enter / Ctrl+Shift+G to the previous one, Esc closes the box. The key ids
are `tui.altScreen.search`, `searchNext`, `searchPrevious` and `searchClose`.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from msgspec import Struct

from pi.tui.input_buffer import PASTE_END, PASTE_START
from pi.tui.keybindings import format_key
from pi.tui.keys import decode_printable, matches_key
from pi.tui.overlay import Overlay
from pi.tui.selection import paint_span
from pi.tui.text_width import pad_to_width, strip_ansi, truncate_to_width, visible_width

if TYPE_CHECKING:
    from pi.tui.tui import TUI

__all__ = ["SEARCH_BOX_WIDTH", "Match", "SearchBox", "TranscriptSearch", "enable_search", "find_matches"]

SEARCH_BOX_WIDTH = 44
CURRENT_STYLE = "\x1b[1;7m"


class Match(Struct, frozen=True):
    """A match on document line `line`, cells [start, end)."""

    line: int
    start: int
    end: int


def find_matches(lines: list[str], query: str) -> list[Match]:
    """Every non-overlapping, case-insensitive occurrence of `query` in the plain text of `lines`."""
    needle = query.lower()
    if not needle:
        return []
    out: list[Match] = []
    for index, line in enumerate(lines):
        plain = strip_ansi(line)
        haystack = plain.lower()
        if needle not in haystack:
            continue
        pos = haystack.find(needle)
        while pos >= 0:
            start = visible_width(plain[:pos]) if not plain.isascii() else pos
            end = start + visible_width(plain[pos : pos + len(needle)])
            out.append(Match(index, start, end))
            pos = haystack.find(needle, pos + len(needle))
    return out


class SearchBox:
    """The box: the query with a cursor, `i/n`, and the key hint in the bottom border."""

    captures_scroll_keys = False

    def __init__(self, search: TranscriptSearch) -> None:
        self.search = search
        self.focused = False

    def invalidate(self) -> None:
        return None

    def _hint(self) -> str:
        kb = self.search.tui.keybindings

        def label(action: str) -> str:
            keys = kb.keys(action)
            return format_key(keys[0], capitalize=True, macos=kb.macos) if keys else ""

        return f" ↑ {label('tui.altScreen.searchPrevious')} · ↓ {label('tui.altScreen.searchNext')} "

    def render(self, width: int) -> list[str]:
        inner = max(0, width - 2)
        search = self.search
        count = ""
        if search.query:
            total = len(search.matches)
            count = f" {search.current + 1 if total else 0}/{total} "
        room = max(0, inner - 2 - visible_width(count))
        query = search.query
        while visible_width(query) > room and query:
            query = query[1:]  # keep the end of a long query in view
        cursor = "\x1b[7m \x1b[0m"
        field = " " + query + cursor
        middle = pad_to_width(field, max(0, inner - visible_width(count))) + (f"\x1b[2m{count}\x1b[0m" if count else "")
        hint = self._hint()
        if visible_width(hint) + 2 <= inner:
            bottom = "└" + "─" * (inner - visible_width(hint) - 1) + hint + "─┘"
        else:
            bottom = "└" + "─" * inner + "┘"
        lines = ["┌" + "─" * inner + "┐", "│" + middle + "│", bottom]
        return [truncate_to_width(line, width, "") for line in lines]

    def handle_input(self, data: str) -> bool:
        search = self.search
        kb = search.tui.keybindings
        if kb.matches(data, "tui.altScreen.searchClose"):
            search.close()
        elif kb.matches(data, "tui.altScreen.searchPrevious"):
            search.step(-1)
        elif kb.matches(data, "tui.altScreen.searchNext"):
            search.step(1)
        elif matches_key(data, "backspace"):
            search.set_query(search.query[:-1])
        elif matches_key(data, "ctrl+u"):
            search.set_query("")
        elif data.startswith(PASTE_START):
            pasted = data[len(PASTE_START) :].removesuffix(PASTE_END)
            search.set_query(search.query + " ".join(pasted.split()))
        else:
            typed = decode_printable(data)
            if typed is None:
                return False
            search.set_query(search.query + typed)
        return True


class TranscriptSearch:
    """Search over a TUI's document (see `enable_search`)."""

    def __init__(self, tui: TUI) -> None:
        self.tui = tui
        self.query = ""
        self.matches: list[Match] = []
        self.current = 0
        self.box = SearchBox(self)
        self.overlay: Overlay | None = None
        self._cache_key: tuple[int, int, int, str] | None = None

    @property
    def is_open(self) -> bool:
        return self.overlay is not None

    def attach(self) -> None:
        self.tui.input_listeners.append(self.handle_key)
        self.tui.row_decorators.append(self.decorate)

    def detach(self) -> None:
        self.close()
        for hooks, fn in ((self.tui.input_listeners, self.handle_key), (self.tui.row_decorators, self.decorate)):
            with contextlib.suppress(ValueError):
                hooks.remove(fn)  # type: ignore[arg-type]

    def handle_key(self, data: str) -> bool:
        """Ctrl+Shift+F opens the box (fullscreen, no dialog open); pressed again it selects it."""
        if not self.tui.keybindings.matches(data, "tui.altScreen.search"):
            return False
        if self.tui.mode != "fullscreen" or self.tui.has_active_overlays():
            return False
        self.open()
        return True

    def open(self) -> None:
        if self.overlay is not None:
            self.tui.set_focus(self.box)
            return
        width = min(SEARCH_BOX_WIDTH, max(10, self.tui.terminal.columns - 2))
        self.overlay = self.tui.show_overlay(self.box, anchor="top-right", width=width, margin=1)
        self.overlay.passive = True
        self.refresh(reveal=True)

    def close(self) -> None:
        overlay, self.overlay = self.overlay, None
        if overlay is not None:
            self.tui.close_overlay(overlay)

    def set_query(self, query: str) -> None:
        self.query = query
        self._cache_key = None
        self.refresh(reveal=True, choose=True)

    def _lines(self) -> list[str]:
        return self.tui.document.render(self.tui.document_width)

    def refresh(self, reveal: bool = False, choose: bool = False) -> None:
        """Recompute matches and ask for a frame; with `choose`, pick the match nearest the view."""
        self._update(choose)
        if reveal:
            self.reveal()
        self.tui.request_render()

    def _update(self, choose: bool = False) -> None:
        """Matches for the current document (recomputed only when the lines or the query changed)."""
        lines = self._lines()
        key = (id(lines), len(lines), self.tui.document_width, self.query)
        if key != self._cache_key:
            self._cache_key = key
            self.matches = find_matches(lines, self.query)
            if choose:
                self.current = self._nearest()
            self.current = min(self.current, max(0, len(self.matches) - 1))

    def _nearest(self) -> int:
        """The last match above the bottom of the view, else the first one."""
        bottom = self.tui.scroll.offset + max(1, self.tui.view_height)
        best = 0
        for i, m in enumerate(self.matches):
            if m.line < bottom:
                best = i
        return best

    def step(self, direction: int) -> None:
        """Next (1, downwards) or previous (-1) match, wrapping around."""
        self._update()
        if not self.matches:
            return
        self.current = (self.current + direction) % len(self.matches)
        self.reveal()
        self.tui.request_render()

    def reveal(self) -> None:
        """Scroll so that the current match is visible (centred when it was off screen)."""
        if not self.matches:
            return
        line = self.matches[self.current].line
        scroll = self.tui.scroll
        height = max(1, self.tui.view_height)
        if not scroll.offset <= line < scroll.offset + height:
            scroll.update(len(self._lines()), height)
            scroll.scroll_to_line(max(0, line - height // 2))

    def _match_style(self) -> str:
        theme = self.tui.theme
        if theme is None:
            return "\x1b[4m"
        return theme.bg_code("searchMatchBg") + theme.fg_code("searchMatchText") + "\x1b[4m"

    def decorate(self, rows: list[str], first_line: int, width: int) -> list[str]:
        if self.overlay is None or not self.query:
            return rows
        self._update()
        visible = [(i, m) for i, m in enumerate(self.matches) if first_line <= m.line < first_line + len(rows)]
        if not visible:
            return rows
        out = list(rows)
        style = self._match_style()
        for i, m in reversed(visible):  # right to left, so earlier spans keep their columns
            r = m.line - first_line
            out[r] = paint_span(out[r], m.start, min(m.end, width), CURRENT_STYLE if i == self.current else style)
        return out


def enable_search(tui: TUI) -> TranscriptSearch:
    """Give a TUI transcript search on Ctrl+Shift+F (fullscreen); returns the `TranscriptSearch`."""
    search = TranscriptSearch(tui)
    search.attach()
    return search
