"""Input: the one-line field with cursor, editing keys, paste, submit and scrolling."""

from __future__ import annotations

from pi.tui.component import CURSOR_MARKER
from pi.tui.input import Input
from pi.tui.text_width import strip_ansi, visible_width
from pi.tui.theme import Theme


def test_typing_cursor_and_editing() -> None:
    field = Input(Theme.plain(), prompt="> ")
    for ch in "mod":
        field.handle_input(ch)
    assert field.render(20) == ["> mod" + CURSOR_MARKER + "\x1b[7m \x1b[0m"]
    field.handle_input("\x1b[D")
    assert field.render(20) == ["> mo" + CURSOR_MARKER + "\x1b[7md\x1b[0m"]
    field.handle_input("\x7f")
    assert field.value == "md"
    field.handle_input("\x17")
    assert field.value == "d"
    field.handle_input("\x19")
    assert field.value == "md"


def test_paste_joins_lines_and_submit_escape_callbacks() -> None:
    got: list[str] = []
    escaped: list[bool] = []
    field = Input(Theme.plain(), on_submit=got.append, on_escape=lambda: escaped.append(True))
    field.handle_input("\x1b[200~one\ntwo\x1b[201~")
    field.handle_input("\r")
    field.handle_input("\x1b")
    assert got == ["one two"] and escaped == [True]
    assert not field.handle_input("\x1b[A")


def test_long_text_scrolls_to_keep_the_cursor_visible() -> None:
    field = Input(Theme.plain(), prompt="> ", value="x" * 50 + "END")
    (line,) = field.render(20)
    assert visible_width(line) <= 20
    assert strip_ansi(line.replace(CURSOR_MARKER, "")).rstrip().endswith("END")
    field.handle_input("\x01")
    (line,) = field.render(20)
    assert strip_ansi(line.replace(CURSOR_MARKER, "")).startswith("> xxxx")
    assert visible_width(line) <= 20


def test_unfocused_shows_no_cursor() -> None:
    field = Input(Theme.plain(), value="abc")
    field.focused = False
    assert field.render(10) == ["abc"]
