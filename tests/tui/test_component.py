from __future__ import annotations

from pi.tui.component import Box, Component, Container, Focusable, HStack, Spacer, Text, TruncatedText, VStack
from pi.tui.text_width import strip_ansi, visible_width
from pi.tui.theme import builtin_theme


class Counting:
    """A component that counts how often it is rendered."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.renders = 0

    def render(self, width: int) -> list[str]:
        self.renders += 1
        return self.lines

    def invalidate(self) -> None:
        return None


def test_protocols_are_structural() -> None:
    assert isinstance(Text("x"), Component)
    assert not isinstance(Text("x"), Focusable)


def test_text_wraps_pads_and_caches() -> None:
    text = Text("hello wonderful world", padding_x=1, padding_y=1)
    lines = text.render(12)
    assert lines == ["", " hello ", " wonderful ", " world ", ""]
    assert text.render(12) is lines  # cached while unchanged
    text.set_text("other")
    assert text.render(12) is not lines
    assert all(visible_width(line) <= 12 for line in text.render(12))
    assert Text("   ").render(10) == []


def test_text_style_fills_the_line() -> None:
    theme = builtin_theme("dark")
    text = Text("hi", style=lambda line: theme.bg("userMessageBg", line))
    (line,) = text.render(6)
    assert strip_ansi(line) == "hi    "
    assert line.startswith(theme.bg_code("userMessageBg"))


def test_truncated_text() -> None:
    assert strip_ansi(TruncatedText("a very long line of text\nsecond").render(10)[0]) == "a very ..."
    assert TruncatedText("short", padding_x=1).render(10) == [" short "]


def test_container_reuses_lines_of_unchanged_children() -> None:
    a, b = Counting(["a"]), Counting(["b1", "b2"])
    box = Container([a, b])
    first = box.render(10)
    assert first == ["a", "b1", "b2"]
    assert box.render(10) is first
    b.lines = ["b3"]
    assert box.render(10) == ["a", "b3"]
    box.remove(a)
    assert box.render(10) == ["b3"]
    box.insert(0, Spacer(2))
    assert box.render(10) == ["", "", "b3"]
    box.clear()
    assert box.render(10) == []


def test_vstack_gap_between_non_empty_children() -> None:
    stack = VStack([Text("a"), Text(""), Text("b")], gap=1)
    assert stack.render(10) == ["a", "", "b"]


def test_hstack_columns() -> None:
    row = HStack([Text("left"), Text("right side text")], widths=[6, None], gap=1)
    lines = row.render(20)
    assert [strip_ansi(line) for line in lines] == ["left   right side", "       text"]
    assert all(visible_width(line) <= 20 for line in lines)
    assert row.column_widths(20) == [6, 13]
    assert sum(HStack([Text("x")] * 3).column_widths(10)) == 8


def test_box_padding_and_background() -> None:
    theme = builtin_theme("dark")
    inner = Counting(["content"])
    box = Box([inner], padding_x=1, padding_y=1, style=lambda line: theme.bg("toolSuccessBg", line))
    lines = box.render(12)
    assert [strip_ansi(line) for line in lines] == [" " * 12, " content    ", " " * 12]
    assert all(line.startswith("\x1b[48;2;37;65;49m") for line in lines)
    assert box.render(12) is lines
    box.set_style(None)
    assert box.render(12)[1] == " content    "
