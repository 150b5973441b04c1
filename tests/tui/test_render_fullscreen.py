from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi.tui.component import CURSOR_MARKER, Container, Text
from pi.tui.fake_terminal import FakeTerminal
from pi.tui.render_fullscreen import compose_dock
from pi.tui.scroll_view import JUMP_PILL_TEXT
from pi.tui.text_width import visible_width
from pi.tui.theme import builtin_theme
from pi.tui.tui import TUI, TUIStopped
from tests.tui.screen_support import assert_screen_matches_full_render, make_tui

PAGE_UP = "\x1b[5~"
PAGE_DOWN = "\x1b[6~"
CTRL_HOME = "\x1b[1;5H"
CTRL_END = "\x1b[1;5F"
WHEEL_UP = "\x1b[<64;5;3M"
WHEEL_DOWN = "\x1b[<65;5;3M"


def _fill(doc: Container, count: int) -> None:
    for i in range(count):
        doc.add(Text(f"line {i}"))


def _started(
    count: int = 30, columns: int = 40, rows: int = 12, **kwargs: object
) -> tuple[TUI, FakeTerminal, Container]:
    tui, term, doc, dock = make_tui(columns, rows, mode="fullscreen", **kwargs)
    _fill(doc, count)
    dock.add(Text("── rule ──"))
    dock.add(Text("editor"))
    dock.add(Text("footer"))
    tui.start()
    return tui, term, doc


def test_enters_alt_screen_without_autowrap_and_with_mouse() -> None:
    tui, term, _doc, _dock = make_tui(40, 10, mode="fullscreen")
    tui.start()
    out = term.output
    for seq in ("\x1b[?1049h", "\x1b[?7l", "\x1b[?25l", "\x1b[?1000h", "\x1b[?1006h", "\x1b[?2026h"):
        assert seq in out
    assert term.in_alt


def test_follows_the_end_with_dock_fixed_at_the_bottom() -> None:
    tui, term, doc = _started()
    rows = term.display()
    assert rows[-3:] == ["── rule ──", "editor", "footer"]
    assert rows[-4].startswith("line 29")
    assert rows[0].startswith("line 21")
    doc.add(Text("line 30"))
    tui.render_now()
    assert term.display()[-4].startswith("line 30")
    assert_screen_matches_full_render(tui, term)


def test_page_up_scrolls_by_viewport_minus_four_and_shows_the_pill() -> None:
    tui, term, doc = _started()
    tui.handle_input(PAGE_UP)
    tui.render_now()
    assert tui.scroll.offset == 21 - (9 - 4)
    assert not tui.scroll.following
    rows = term.display()
    assert rows[0].startswith("line 16")
    assert JUMP_PILL_TEXT.strip() in rows[8]
    pill_col = rows[8].index("↓")
    assert pill_col == (39 - visible_width(JUMP_PILL_TEXT)) // 2 + 1
    assert_screen_matches_full_render(tui, term)
    doc.add(Text("new output"))  # not following: the view stays
    tui.render_now()
    assert term.display()[0].startswith("line 16")
    tui.handle_input(CTRL_END)
    tui.render_now()
    assert tui.scroll.following
    assert JUMP_PILL_TEXT.strip() not in "".join(term.display())
    assert term.display()[-4].startswith("new output")


def test_page_down_back_to_the_end_follows_again() -> None:
    tui, _term, _ = _started()
    tui.handle_input(PAGE_UP)
    tui.handle_input(PAGE_DOWN)
    assert tui.scroll.following


def test_ctrl_home_goes_to_top() -> None:
    tui, term, _ = _started()
    tui.handle_input(CTRL_HOME)
    tui.render_now()
    assert term.display()[0].startswith("line 0")
    assert_screen_matches_full_render(tui, term)


def test_wheel_scrolls_and_pill_click_jumps_back() -> None:
    tui, term, _ = _started()
    tui.handle_input(WHEEL_UP)
    tui.render_now()
    assert tui.scroll.offset == 20
    rows = term.display()
    col = rows[8].index("Jump")
    tui.handle_input(f"\x1b[<0;{col + 1};9M")
    assert tui.scroll.following
    tui.handle_input(WHEEL_UP)
    tui.handle_input(WHEEL_DOWN)
    tui.handle_input("\x1b[<64;5;11M")  # over the dock: ignored
    assert tui.scroll.offset == tui.scroll.max_offset


def test_wheel_lines_setting_and_alt_multiplier() -> None:
    tui, _term, _ = _started(count=80, wheel_lines=2)
    tui.handle_input(WHEEL_UP)
    assert tui.scroll.offset == tui.scroll.max_offset - 2
    tui.handle_input("\x1b[<72;5;3M")  # alt + wheel up
    assert tui.scroll.offset == tui.scroll.max_offset - 12


def test_scrollbar_in_the_last_column() -> None:
    theme = builtin_theme("dark")
    tui, term, _ = _started(theme=theme, scrollbar="always")
    rows = term.display()
    bar = [row[-1] for row in rows[:9]]
    assert set(bar) <= {"│", "┃"} and "┃" in bar and bar[-1] == "┃"
    cell = term.cell(8, 39)
    thumb, track = theme.rgb("scrollbarThumb"), theme.rgb("scrollbarTrack")
    assert thumb is not None and track is not None
    assert cell.data == "┃" and cell.fg == "{:02x}{:02x}{:02x}".format(*thumb)
    assert term.cell(0, 39).fg == "{:02x}{:02x}{:02x}".format(*track)
    assert_screen_matches_full_render(tui, term)


def test_scrollbar_auto_only_when_overflowing_and_hidden_mode() -> None:
    _, term, _ = _started(count=3)
    assert all("│" not in row and "┃" not in row for row in term.display())
    _, term, _ = _started(count=3, scrollbar="always")
    assert term.display()[0].endswith("┃")
    _, term, _ = _started(count=50, scrollbar="hidden")
    assert all("│" not in row and "┃" not in row for row in term.display())


class _Clock:
    """A clock the test moves by hand (the TUI reads it to time the `auto` scrollbar)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _bar_column(term: FakeTerminal, rows: int = 9) -> str:
    return "".join(row.ljust(term.columns)[-1] for row in term.display()[:rows])


def test_auto_scrollbar_keeps_the_full_width_and_shows_only_after_scrolling() -> None:
    """pi 1.6.0: `auto` never narrows the transcript; the bar appears over its last column for a
    second after the view moves, then goes."""
    clock = _Clock()
    tui, term, doc = _started(count=3, clock=clock)
    doc.add(Text("x" * 40))  # exactly the terminal width: one row, not wrapped
    tui.render_now()
    assert tui.document_width == 40 and "x" * 40 in term.display()
    _fill(doc, 30)
    tui.render_now()
    assert tui.scroll.overflows and tui.document_width == 40
    assert set(_bar_column(term)) <= {" ", *"0123456789"}  # the transcript's own text, no bar
    tui.handle_input(PAGE_UP)
    tui.render_now()
    bar = _bar_column(term)
    assert set(bar) <= {"│", "┃"} and "┃" in bar
    assert tui.document_width == 40
    assert_screen_matches_full_render(tui, term)
    clock.now += 0.5
    tui.render_now()
    assert "┃" in _bar_column(term)
    clock.now += 0.6
    tui.render_now()
    assert not set(_bar_column(term)) & {"│", "┃"}
    assert_screen_matches_full_render(tui, term)


def test_auto_scrollbar_gone_once_the_transcript_fits_again() -> None:
    """The transcript overflowed while the dock was tall; once the dock shrinks back it fits at the
    full width (though not one column narrower): no bar, no narrower wrapping."""
    tui, term, doc, dock = make_tui(40, 12, mode="fullscreen")
    for i in range(8):
        doc.add(Text(f"{i:<39}x"))  # 40 cells: one row at the full width, two at 39
    dock.add(Text("editor"))
    tui.start()
    dock.add(Text("tall"))
    dock.add(Text("dock"))
    dock.add(Text("rows"))
    dock.add(Text("here"))
    dock.add(Text("now"))
    tui.render_now()
    assert tui.scroll.overflows
    tui.handle_input(WHEEL_UP)
    tui.render_now()
    for _ in range(5):
        dock.children.pop()
    tui.handle_input(CTRL_END)
    tui.render_now()
    assert not tui.scroll.overflows and tui.document_width == 40
    rows = term.display()
    assert rows[:8] == [f"{i:<39}x" for i in range(8)]
    assert_screen_matches_full_render(tui, term)


def test_following_new_output_does_not_show_the_auto_scrollbar() -> None:
    tui, term, doc = _started()
    for i in range(5):
        doc.add(Text(f"more {i}"))
        tui.render_now()
    assert not set(_bar_column(term)) & {"│", "┃"}


def test_auto_scrollbar_keeps_the_background_it_covers() -> None:
    theme = builtin_theme("dark")
    tui, term, doc = _started(count=3, theme=theme)
    doc.add(Text(theme.bg("toolSuccessBg", "card".ljust(40))))
    _fill(doc, 30)
    tui.render_now()
    tui.handle_input(CTRL_HOME)
    tui.render_now()
    row = 3
    assert term.display()[row].startswith("card")
    card_bg = term.cell(row, 0).bg
    assert term.cell(row, 39).data in ("│", "┃") and term.cell(row, 39).bg == card_bg != "default"
    assert term.cell(0, 39).bg == "default"


def test_pointer_on_the_auto_scrollbar_keeps_it_shown_with_a_solid_thumb() -> None:
    clock = _Clock()
    tui, term, _ = _started(clock=clock)
    tui.handle_input("\x1b[<35;40;3M")  # pointer motion (no button) onto the last column
    tui.render_now()
    assert "█" in _bar_column(term)
    clock.now += 5
    tui.render_now()
    assert "█" in _bar_column(term)  # still hovered
    tui.handle_input("\x1b[<35;10;3M")  # moved away: the bar stays a moment longer
    tui.render_now()
    assert "┃" in _bar_column(term) and "█" not in _bar_column(term)
    clock.now += 1.1
    tui.render_now()
    assert not set(_bar_column(term)) & {"│", "┃", "█"}


@pytest.mark.asyncio
async def test_auto_scrollbar_goes_away_by_itself() -> None:
    """The TUI schedules the frame that hides the bar; nothing else has to happen."""
    import asyncio

    tui, term, _ = _started()
    tui.handle_input(PAGE_UP)
    tui.render_now()
    assert "┃" in _bar_column(term)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while "┃" in _bar_column(term):
        assert loop.time() < deadline, "the scrollbar stayed"
        await asyncio.sleep(0.02)
    tui.stop()


def test_only_changed_rows_are_rewritten() -> None:
    tui, term, _doc = _started()
    term.clear_output()
    tui.dock.children[1] = Text("editor typed")
    tui.render_now()
    out = term.output
    assert "\x1b[11;1H\x1b[2Keditor typed" in out
    assert "line 2" not in out
    assert "\x1b[2J" not in out


def test_resize_relayouts_everything() -> None:
    tui, term, doc = _started(columns=40, rows=12)
    doc.add(Text("a long paragraph that will need to wrap when the terminal gets narrow"))
    tui.render_now()
    term.resize(20, 8)
    tui.render_now()
    rows = term.display()
    assert len(rows) == 8 and rows[-1] == "footer"
    assert all(visible_width(r) <= 20 for r in rows)
    assert_screen_matches_full_render(tui, term)


def test_dock_shrinks_but_keeps_editor_rows() -> None:
    parts = [(["w1", "w2", "w3"], 0), (["top", "e1", "e2", "e3", "bottom"], 3), (["f1", "f2"], 0)]
    assert compose_dock(parts, 6) == ["top", "e1", "e2", "bottom", "f1", "f2"]
    assert compose_dock(parts, 5) == ["top", "e1", "bottom", "f1", "f2"]
    assert compose_dock(parts, 3) == ["top", "e1", "bottom"]  # the editor keeps 3 rows
    assert compose_dock(parts, 100) == ["w1", "w2", "w3", "top", "e1", "e2", "e3", "bottom", "f1", "f2"]


def test_overlay_drawn_over_the_screen_and_focus_returns() -> None:
    tui, term, _doc = _started()

    class Dialog:
        focused = False

        def __init__(self) -> None:
            self.keys: list[str] = []

        def render(self, width: int) -> list[str]:
            return ["┌" + "─" * (width - 2) + "┐", "│" + "hi".center(width - 2) + "│", "└" + "─" * (width - 2) + "┘"]

        def invalidate(self) -> None:
            return None

        def handle_input(self, data: str) -> bool:
            self.keys.append(data)
            return True

    dialog = Dialog()
    overlay = tui.show_overlay(dialog, anchor="center", width=10)
    tui.render_now()
    rows = term.display()
    assert "┌────────┐" in rows[4] and "│   hi   │" in rows[5]
    assert rows[5].startswith("line")
    assert_screen_matches_full_render(tui, term)
    tui.handle_input(PAGE_UP)  # an overlay gets the keys, no scrolling
    assert dialog.keys == [PAGE_UP] and tui.scroll.following
    tui.close_overlay(overlay)
    tui.render_now()
    assert "hi" not in "".join(term.display())
    assert tui.focused is None


def test_top_right_overlay() -> None:
    tui, term, _ = _started()
    tui.show_overlay(Text("Copied!"), anchor="top-right", width=7, focus=False)
    tui.render_now()
    row = term.display()[0]
    assert row.startswith("line 21") and row[32:] == "Copied!"


def test_hardware_cursor_in_fullscreen() -> None:
    tui, term, _doc, dock = make_tui(30, 8, mode="fullscreen", show_hardware_cursor=True)
    dock.add(Text(f"> x{CURSOR_MARKER}"))
    tui.start()
    assert term.cursor() == (7, 3)


def test_focused_component_capturing_scroll_keys_gets_page_up() -> None:
    tui, _term, _ = _started()

    class Picker:
        focused = False
        captures_scroll_keys = True

        def __init__(self) -> None:
            self.got: list[str] = []

        def render(self, width: int) -> list[str]:
            return []

        def invalidate(self) -> None:
            return None

        def handle_input(self, data: str) -> bool:
            self.got.append(data)
            return True

    picker = Picker()
    tui.set_focus(picker)
    tui.handle_input(PAGE_UP)
    assert picker.got == [PAGE_UP] and tui.scroll.following


def test_previous_and_next_prompt_marks() -> None:
    tui, term, doc, _dock = make_tui(30, 6, mode="fullscreen")
    for i in range(4):
        doc.add(Text(f"\x1b]133;A\x07prompt {i}"))
        for j in range(5):
            doc.add(Text(f"reply {i}.{j}"))
    tui.start()
    assert term.display()[0].startswith("prompt 3")  # following the end
    tui.handle_input("\x1b[1;6A")  # ctrl+shift+up
    tui.render_now()
    assert term.display()[0].startswith("prompt 2")
    tui.handle_input("\x1b[1;5A")  # ctrl+up
    tui.render_now()
    assert term.display()[0].startswith("prompt 1")
    tui.handle_input("\x1b[1;6B")
    tui.render_now()
    assert term.display()[0].startswith("prompt 2")
    assert "\x1b]133;" not in term.output  # prompt marks are not written to the terminal


_content = st.lists(st.text(alphabet=st.sampled_from(list("ab 中👍\t")), max_size=50), max_size=25)


@settings(max_examples=50, deadline=None)
@given(_content, st.lists(st.sampled_from([PAGE_UP, PAGE_DOWN, CTRL_HOME, CTRL_END, WHEEL_UP, "resize"]), max_size=8))
def test_property_fullscreen_frames_equal_full_render(texts: list[str], keys: list[str]) -> None:
    tui, term, doc, dock = make_tui(30, 10, mode="fullscreen", theme=builtin_theme("dark"))
    dock.add(Text("── editor ──"))
    tui.start()
    for text in texts:
        doc.add(Text(text))
    tui.render_now()
    assert_screen_matches_full_render(tui, term)
    for i, key in enumerate(keys):
        if key == "resize":
            term.resize(12 + 3 * i, 5 + i)
        else:
            tui.handle_input(key)
        tui.render_now()
        assert all(visible_width(row) <= term.columns for row in term.display())
        assert_screen_matches_full_render(tui, term)


def test_scrollbar_thumb_can_be_dragged() -> None:
    tui, term, _ = _started(count=100)
    tui.handle_input("\x1b[<0;40;1M")  # press on the scrollbar, top row
    assert tui.scroll.offset == 0 and not tui.scroll.following
    tui.handle_input("\x1b[<32;40;5M")  # drag down with the button held
    middle = tui.scroll.offset
    assert 0 < middle < tui.scroll.max_offset
    tui.handle_input("\x1b[<0;40;5m")  # release
    tui.handle_input("\x1b[<32;40;9M")  # motion without the button does nothing
    assert tui.scroll.offset == middle
    tui.render_now()
    assert_screen_matches_full_render(tui, term)


def test_too_wide_transcript_line_stops_even_under_the_scrollbar(tmp_path: Path) -> None:
    class Wide:
        def render(self, width: int) -> list[str]:
            return ["y" * (width + 1)]

        def invalidate(self) -> None:
            return None

    log = tmp_path / "pi-tui-crash.log"
    tui, term, doc = _started(count=40, crash_log_path=log, scrollbar="always")
    doc.add(Wide())
    with pytest.raises(TUIStopped, match=r"Rendered line 40 exceeds terminal width \(40 > 39\)\."):
        tui.render_now()
    assert log.exists()
    assert not term.in_alt
