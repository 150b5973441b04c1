from __future__ import annotations

from pi.tui.component import Container, Text
from pi.tui.fake_terminal import FakeTerminal
from pi.tui.search import Match, TranscriptSearch, enable_search, find_matches
from pi.tui.theme import builtin_theme
from pi.tui.tui import TUI

CTRL_SHIFT_F = "\x1b[102;6u"
SHIFT_ENTER = "\x1b[13;2u"
CTRL_SHIFT_G = "\x1b[103;6u"
ESC = "\x1b"


def _setup(lines: list[str], columns: int = 60, rows: int = 12, mode: str = "fullscreen", **kw: object):  # type: ignore[no-untyped-def]
    term = FakeTerminal(columns, rows)
    doc = Container([Text(line) for line in lines])
    dock = Container([Text("editor")])
    tui = TUI(term, doc, dock, mode=mode, scrollbar="hidden", **kw)  # type: ignore[arg-type]
    search = enable_search(tui)
    tui.start()
    return tui, term, search


def _type(tui: TUI, text: str) -> None:
    for ch in text:
        tui.handle_input(ch)
    tui.render_now()


LINES = [f"filler {i}" for i in range(40)]
LINES[3] = "the first reply is here"
LINES[20] = "a Reply in the middle, reply twice"
LINES[38] = "hello there, final REPLY"


def test_box_at_the_top_right_like_pi() -> None:
    tui, term, _search = _setup(LINES)
    tui.handle_input(CTRL_SHIFT_F)
    _type(tui, "reply")
    shown = term.display()
    assert shown[0][15:] == "┌" + "─" * 42 + "┐"
    assert shown[1][15:] == "│ reply" + " " * 32 + "4/4 │"  # as in capture 97
    assert shown[2][15:] == "└" + "─" * 16 + " ↑ Shift+Enter · ↓ Enter ─┘"
    assert term.screen.display[0][59] == " "  # one column of margin on the right
    assert term.cell(1, 22).reverse  # the cursor after the query


def test_current_match_is_bold_inverse_and_others_underlined() -> None:
    tui, term, search = _setup(LINES, theme=builtin_theme("dark"))
    tui.handle_input(CTRL_SHIFT_F)
    _type(tui, "reply")
    assert search.matches[search.current] == Match(38, 19, 24)  # nearest the view: the last one
    row = 38 - tui.scroll.offset
    assert term.display()[row] == "hello there, final REPLY"
    cell = term.cell(row, 19)
    assert cell.bold and cell.reverse
    assert not term.cell(row, 18).reverse
    tui.handle_input(SHIFT_ENTER)
    tui.render_now()
    row = 20 - tui.scroll.offset
    current, other = term.cell(row, 23), term.cell(row, 2)
    assert current.bold and current.reverse
    assert other.underscore and not other.reverse
    assert other.bg != "default"  # searchMatchBg


def test_next_and_previous_wrap_and_scroll_to_the_match() -> None:
    tui, term, search = _setup(LINES)
    tui.handle_input(CTRL_SHIFT_F)
    _type(tui, "REPLY")
    assert search.current == 3
    tui.handle_input("\r")  # Enter: next, wraps to the first match
    tui.render_now()
    assert search.current == 0
    assert tui.scroll.offset <= 3 < tui.scroll.offset + tui.view_height
    assert "the first reply is here" in term.display()
    assert not tui.scroll.following
    tui.handle_input(SHIFT_ENTER)  # previous wraps back to the last
    assert search.current == 3
    tui.handle_input(CTRL_SHIFT_G)
    assert search.current == 2
    tui.handle_input("\x07")  # ctrl+g: next
    assert search.current == 3
    tui.render_now()
    assert "4/4" in term.display()[1]


def test_editing_the_query_and_no_match() -> None:
    tui, term, search = _setup(LINES)
    tui.handle_input(CTRL_SHIFT_F)
    _type(tui, "replyx")
    assert search.matches == []
    assert term.display()[1].endswith("0/0 │")
    tui.handle_input("\x7f")  # backspace
    tui.render_now()
    assert search.query == "reply" and len(search.matches) == 4
    tui.handle_input("\x1b[200~re\nply\x1b[201~")
    assert search.query == "replyre ply"
    tui.handle_input("\x15")  # ctrl+u clears
    tui.render_now()
    assert search.query == "" and "/" not in term.display()[1]


def test_escape_closes_and_removes_highlights() -> None:
    tui, term, search = _setup(LINES)
    tui.handle_input(CTRL_SHIFT_F)
    _type(tui, "final")
    row = 38 - tui.scroll.offset
    assert term.cell(row, 13).reverse
    tui.handle_input(ESC)
    tui.render_now()
    assert not search.is_open and tui.overlays == []
    assert not term.cell(row, 13).reverse
    assert "┌" not in term.display()[0]


def test_scroll_keys_still_work_while_searching() -> None:
    tui, _term, search = _setup(LINES)
    tui.handle_input(CTRL_SHIFT_F)
    before = tui.scroll.offset
    tui.handle_input("\x1b[5~")
    assert tui.scroll.offset < before
    assert search.is_open


def test_not_in_regular_mode_or_over_a_dialog() -> None:
    tui, _term, search = _setup(LINES, mode="regular")
    tui.handle_input(CTRL_SHIFT_F)
    assert not search.is_open
    tui2, _term2, search2 = _setup(LINES)
    tui2.show_overlay(Text("dialog"))
    tui2.handle_input(CTRL_SHIFT_F)
    assert not search2.is_open


def test_matches_follow_new_output() -> None:
    tui, term, search = _setup(LINES)
    tui.handle_input(CTRL_SHIFT_F)
    _type(tui, "reply")
    tui.document.add(Text("one more reply"))
    tui.render_now()
    assert len(search.matches) == 5
    assert "/5" in term.display()[1]


def test_find_matches_counts_cells() -> None:
    lines = ["\x1b[1m日本\x1b[0m abc ABC", "none"]
    assert find_matches(lines, "abc") == [Match(0, 5, 8), Match(0, 9, 12)]
    assert find_matches(lines, "") == []


def test_detach() -> None:
    tui, _term, search = _setup(LINES)
    assert isinstance(search, TranscriptSearch)
    search.detach()
    tui.handle_input(CTRL_SHIFT_F)
    assert not search.is_open and tui.row_decorators == []
