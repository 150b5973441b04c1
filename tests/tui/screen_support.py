"""Helpers for renderer tests: compare what a terminal emulator shows with a full re-render."""

from __future__ import annotations

from typing import Any

import pyte

from pi.tui.component import Container
from pi.tui.fake_terminal import FakeTerminal
from pi.tui.render_regular import line_out
from pi.tui.tui import TUI


def cells(screen: Any) -> list[list[tuple[object, ...]]]:
    """Every cell of a pyte screen as (data, fg, bg, bold, italics, underscore, reverse)."""
    out: list[list[tuple[object, ...]]] = []
    for y in range(screen.lines):
        row = screen.buffer[y]
        out.append(
            [
                (c.data, c.fg, c.bg, c.bold, c.italics, c.underscore, c.reverse)
                for c in (row[x] for x in range(screen.columns))
            ]
        )
    return out


def painted(rows: list[str], columns: int, lines: int) -> Any:
    """A fresh pyte screen with `rows` written one per row by absolute positioning."""
    screen = pyte.Screen(columns, lines)
    stream = pyte.Stream(screen)
    stream.feed("\x1b[?7l")
    for i, row in enumerate(rows[:lines]):
        stream.feed(f"\x1b[{i + 1};1H" + line_out(row))
    return screen


def _diff(actual: Any, expected: Any) -> str:
    a, e = actual.display, expected.display
    lines = [f"row {i}: got {a[i]!r}\n        want {e[i]!r}" for i in range(len(a)) if a[i] != e[i]]
    return "\n".join(lines) or "(same text, different attributes)"


def assert_screen_matches_full_render(tui: TUI, term: FakeTerminal) -> None:
    """The emulator screen must equal a from-scratch render of the same component tree.

    Fullscreen: a brand-new TUI on a brand-new terminal with the same tree and scroll position.
    Regular: the content lines that belong on screen (the last rows of everything written so far).
    """
    if tui.mode == "fullscreen":
        fresh_term = FakeTerminal(term.columns, term.rows)
        fresh = TUI(
            fresh_term,
            tui.document,
            tui.dock,
            mode="fullscreen",
            theme=tui.theme,
            scrollbar=tui.scrollbar,
            clock=tui.clock,
        )
        fresh.overlays = list(tui.overlays)
        fresh.dock_min_rows = dict(tui.dock_min_rows)
        fresh.scroll.following = tui.scroll.following
        fresh.scroll.offset = tui.scroll.offset
        for shown in ("moves", "bar_seen_moves", "bar_until", "bar_active"):  # an `auto` bar shown now
            setattr(fresh.scroll, shown, getattr(tui.scroll, shown))
        fresh.start()
        expected = fresh_term.screen
        actual = term.screen
    else:
        width = term.columns
        lines = tui.document.render(width) + [line for c in tui.dock.children for line in c.render(width)]
        top = max(0, tui.regular.max_lines - term.rows)
        expected = painted(lines[top:], term.columns, term.rows)
        actual = term.screen
    assert cells(actual) == cells(expected), _diff(actual, expected)


def make_tui(
    columns: int = 40, rows: int = 10, mode: str = "regular", **kwargs: Any
) -> tuple[TUI, FakeTerminal, Container, Container]:
    term = FakeTerminal(columns, rows)
    document = Container()
    dock = Container()
    tui = TUI(term, document, dock, mode=mode, **kwargs)  # type: ignore[arg-type]
    return tui, term, document, dock
