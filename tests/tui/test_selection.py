from __future__ import annotations

import asyncio

from pi.tui.clipboard import ClipboardResult
from pi.tui.component import Container, Text
from pi.tui.fake_terminal import FakeTerminal
from pi.tui.selection import Selection, enable_selection, paint_span, word_span
from pi.tui.text_width import strip_ansi, visible_width
from pi.tui.tui import TUI


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def press(col: int, row: int) -> str:
    return f"\x1b[<0;{col + 1};{row + 1}M"


def drag(col: int, row: int) -> str:
    return f"\x1b[<32;{col + 1};{row + 1}M"


def release(col: int, row: int) -> str:
    return f"\x1b[<0;{col + 1};{row + 1}m"


class Setup:
    def __init__(self, lines: list[str], rows: int = 8, copy_on_select: bool = True) -> None:
        self.clock = Clock()
        self.term = FakeTerminal(40, rows)
        self.doc = Container([Text(line) for line in lines])
        dock = Container([Text("editor")])
        self.tui = TUI(self.term, self.doc, dock, mode="fullscreen", scrollbar="hidden", clock=self.clock)
        self.copied: list[str] = []
        self.selection: Selection = enable_selection(self.tui, copy_on_select=copy_on_select, copier=self._copy)
        self.tui.start()

    async def _copy(self, text: str) -> ClipboardResult:
        self.copied.append(text)
        return ClipboardResult("xclip", False)

    def send(self, *events: str) -> None:
        for e in events:
            self.tui.handle_input(e)
        self.tui.render_now()

    async def copied_text(self) -> str:
        task = self.selection.last_copy
        assert task is not None
        await asyncio.wait_for(task, 10)
        self.tui.render_now()
        return self.copied[-1]


LINES = [
    "\x1b[1mfirst\x1b[0m line of text",
    "see src/pi/tui.py now",
    "third line here",
    "fourth",
]


async def test_drag_selects_copies_plain_text_and_flashes() -> None:
    s = Setup(LINES)
    s.send(press(6, 0), drag(3, 1), drag(7, 2), release(7, 2))
    assert await s.copied_text() == "line of text\nsee src/pi/tui.py now\nthird li"
    top = s.term.display()[0]
    assert top.endswith("Copied!")
    # the selection is drawn inverse, the rest is not
    assert s.term.cell(0, 6).reverse and s.term.cell(2, 7).reverse
    assert not s.term.cell(0, 5).reverse and not s.term.cell(2, 8).reverse
    assert s.term.cell(1, 0).reverse  # a middle line is selected from its start
    s.tui.flash.hide()


async def test_drag_backwards_selects_the_same_text() -> None:
    s = Setup(LINES)
    s.send(press(7, 2), drag(6, 0), release(6, 0))
    assert await s.copied_text() == "line of text\nsee src/pi/tui.py now\nthird li"
    s.tui.flash.hide()


async def test_double_click_selects_a_word_with_path_characters() -> None:
    s = Setup(LINES)
    s.send(press(9, 1), release(9, 1))
    assert s.selection.last_copy is None  # a plain click copies nothing
    s.clock.now += 0.3
    s.send(press(9, 1), release(9, 1))
    assert await s.copied_text() == "src/pi/tui.py"
    s.tui.flash.hide()


async def test_triple_click_selects_the_line() -> None:
    s = Setup(LINES)
    for _ in range(3):
        s.send(press(2, 2), release(2, 2))
        s.clock.now += 0.1
    assert await s.copied_text() == "third line here"
    s.tui.flash.hide()


async def test_clicks_further_apart_than_500ms_are_single_clicks() -> None:
    s = Setup(LINES)
    clicks: list[tuple[int, int]] = []

    def on_click(line: int, col: int) -> bool:
        clicks.append((line, col))
        return True

    s.selection.on_click = on_click
    s.send(press(9, 1), release(9, 1))
    s.clock.now += 0.6
    s.send(press(9, 1), release(9, 1))
    assert s.selection.last_copy is None
    assert clicks == [(1, 9), (1, 9)]
    assert not s.selection.active


async def test_without_copy_on_select_ctrl_x_copies() -> None:
    s = Setup(LINES, copy_on_select=False)
    s.send(press(0, 3), drag(3, 3), release(3, 3))
    assert s.selection.last_copy is None
    assert s.term.cell(3, 0).reverse  # still shown
    s.send("\x18")  # ctrl+x
    assert await s.copied_text() == "four"
    s.tui.flash.hide()


async def test_typing_clears_the_selection_without_eating_the_key() -> None:
    s = Setup(LINES, copy_on_select=False)
    seen: list[str] = []
    s.send(press(0, 3), drag(3, 3), release(3, 3))

    def listener(data: str) -> bool:
        seen.append(data)
        return False

    s.tui.add_input_listener(listener)
    s.send("a")
    assert not s.selection.active and seen == ["a"]
    assert not s.term.cell(3, 0).reverse


async def test_focus_out_ends_the_press() -> None:
    s = Setup(LINES)
    s.send(press(0, 2), drag(4, 2))
    assert s.selection.pressing
    s.send("\x1b[O")
    assert not s.selection.pressing
    assert await s.copied_text() == "third"
    s.send(drag(10, 2))  # motion after the press ended changes nothing
    assert s.selection.text() == "third"
    s.tui.flash.hide()


async def test_selection_follows_the_document_when_scrolling() -> None:
    lines = [f"row {i}" for i in range(30)]
    s = Setup(lines, copy_on_select=False)  # 7 transcript rows, showing rows 23..29
    s.send(press(0, 1), drag(5, 1), release(5, 1))
    assert s.selection.text() == "row 24"
    s.send("\x1b[<64;1;1M")  # wheel up: the text moves down the screen, so does the highlight
    moved = s.tui.scroll.offset
    assert moved < 23
    row = 24 - moved
    assert row != 1
    assert s.term.display()[row] == "row 24" and s.term.cell(row, 0).reverse
    assert not s.term.cell(1, 0).reverse


async def test_dragging_past_the_top_edge_scrolls_and_extends() -> None:
    lines = [f"row {i}" for i in range(30)]
    s = Setup(lines, copy_on_select=False)
    s.send(press(5, 3), drag(0, 0))
    start = s.tui.scroll.offset
    assert start < 23  # the first edge motion scrolled one line
    # held at the edge, it keeps scrolling on its own
    steps: asyncio.Queue[int] = asyncio.Queue()
    original = s.tui.scroll.scroll_by

    def watched(lines: int) -> None:
        original(lines)
        steps.put_nowait(lines)

    s.tui.scroll.scroll_by = watched  # type: ignore[method-assign]
    for _ in range(3):
        assert await asyncio.wait_for(steps.get(), 10) == -1
    assert s.tui.scroll.offset == start - 3
    s.send(release(0, 0))
    text = s.selection.text()
    assert text.startswith(f"row {s.tui.scroll.offset}") and text.endswith("row 26")


async def test_a_press_on_the_dock_does_not_select() -> None:
    s = Setup(LINES)
    s.send(press(1, 7), drag(3, 7), release(3, 7))
    assert not s.selection.active and s.selection.last_copy is None


async def test_detach_removes_every_hook() -> None:
    s = Setup(LINES)
    s.selection.detach()
    assert s.tui.mouse_handlers == [] and s.tui.row_decorators == []
    assert s.tui.focus_listeners == [] and s.tui.input_listeners == []


def test_word_span_rules() -> None:
    text = "a ~/x-y+z\\w_v.t, (b)"
    assert word_span(text, 4) == (2, 15)
    assert word_span(text, 15) == (15, 16)  # punctuation on its own
    assert word_span("日本語 x", 2) == (0, 6)


def test_paint_span_keeps_width_and_outside_styles() -> None:
    row = "\x1b[31mred text\x1b[0m tail"
    painted = paint_span(row, 4, 8, "\x1b[7m")
    assert visible_width(painted) == visible_width(row)
    assert strip_ansi(painted) == strip_ansi(row)
    assert "\x1b[7mtext\x1b[0m" in painted
    assert painted.startswith("\x1b[31mred ")


def test_no_loop_copies_with_osc52() -> None:
    term = FakeTerminal(30, 5)
    tui = TUI(term, Container([Text("hello world")]), Container([Text("ed")]), mode="fullscreen")
    selection = enable_selection(tui)
    tui.start()
    for e in (press(0, 0), drag(4, 0), release(4, 0)):
        tui.handle_input(e)
    assert "\x1b]52;c;aGVsbG8=\x07" in term.output
    assert selection.text() == "hello"


async def test_with_copy_on_select_ctrl_x_is_left_to_the_application() -> None:
    s = Setup(LINES)
    s.send(press(0, 3), drag(3, 3), release(3, 3))
    assert await s.copied_text() == "four"
    seen: list[str] = []

    def listener(data: str) -> bool:
        seen.append(data)
        return True

    s.tui.add_input_listener(listener)
    s.send("\x18")
    assert seen == ["\x18"] and len(s.copied) == 1
    s.tui.flash.hide()


async def test_no_selection_under_a_dialog() -> None:
    s = Setup(LINES)
    s.tui.show_overlay(Text("dialog"))
    s.send(press(0, 3), drag(3, 3), release(3, 3))
    assert not s.selection.active and s.selection.last_copy is None


async def test_pill_and_scrollbar_clicks_are_not_selections() -> None:
    term = FakeTerminal(40, 8)
    doc = Container([Text(f"row {i}") for i in range(30)])
    tui = TUI(term, doc, Container([Text("editor")]), mode="fullscreen")
    selection = enable_selection(tui)
    tui.start()
    tui.handle_input("\x1b[5~")  # PageUp: the pill appears on the last transcript row
    tui.render_now()
    assert not tui.scroll.following
    row = tui.view_height - 1
    tui.handle_input(press(20, row))
    assert tui.scroll.following and not selection.pressing
    tui.handle_input(release(20, row))
    tui.handle_input(press(39, 0))  # the scrollbar column drags the thumb
    assert tui.dragging_scrollbar and not selection.pressing
    tui.handle_input(release(39, 0))
    assert selection.last_copy is None
