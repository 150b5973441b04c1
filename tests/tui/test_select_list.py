"""SelectList: rows, cursor, scrolling window, counter, fuzzy filter and the hint line."""

from __future__ import annotations

from pi.tui.component import CURSOR_MARKER
from pi.tui.select_list import SelectItem, SelectList, select_hint
from pi.tui.text_width import strip_ansi, visible_width
from pi.tui.theme import Theme, builtin_theme

DARK = builtin_theme("dark")
LEVELS = [
    SelectItem("off", "  off", "No reasoning"),
    SelectItem("minimal", "✓ minimal", "Very brief reasoning (~1k tokens)"),
    SelectItem("low", "  low", "Light reasoning (~2k tokens)"),
    SelectItem("medium", "  medium", "Moderate reasoning (~8k tokens) · default"),
    SelectItem("high", "  high", "Deep reasoning (~16k tokens)"),
]


def plain(lines: list[str]) -> list[str]:
    return [strip_ansi(line.replace(CURSOR_MARKER, "")).rstrip() for line in lines]


def test_thinking_selector_layout_as_observed() -> None:
    chosen: list[str] = []
    sl = SelectList(LEVELS, DARK, filterable=True, on_select=lambda item: chosen.append(item.value))
    sl.handle_input("\x1b[B")
    lines = sl.render(110)
    assert plain(lines) == [
        ">",
        "",
        "    off       No reasoning",
        "→ ✓ minimal   Very brief reasoning (~1k tokens)",
        "    low       Light reasoning (~2k tokens)",
        "    medium    Moderate reasoning (~8k tokens) · default",
        "    high      Deep reasoning (~16k tokens)",
    ]
    assert lines[3] == DARK.fg("accent", "→ ✓ minimal   Very brief reasoning (~1k tokens)")
    assert lines[2] == "    off" + DARK.fg("muted", "       No reasoning")
    sl.handle_input("\r")
    assert chosen == ["minimal"]


def test_filter_keeps_best_match_selected() -> None:
    sl = SelectList(LEVELS, Theme.plain(), filterable=True)
    sl.handle_input("\x1b[B")
    for ch in "mi":
        sl.handle_input(ch)
    assert plain(sl.render(110))[2:] == [
        "→ ✓ minimal   Very brief reasoning (~1k tokens)",
        "    medium    Moderate reasoning (~8k tokens) · default",
    ]
    sl.handle_input("\x1b[B")
    sl.handle_input("\x1b[D")  # moving inside the field keeps the selection
    assert sl.selected_item() == LEVELS[3]
    for ch in "zzz":
        sl.handle_input(ch)
    assert plain(sl.render(110))[2:] == ["  No matching items"]


def test_window_scrolls_and_counter_shows() -> None:
    items = [SelectItem(str(i), f"item {i}") for i in range(20)]
    sl = SelectList(items, Theme.plain(), max_visible=5)
    assert plain(sl.render(40)) == ["→ item 0", "  item 1", "  item 2", "  item 3", "  item 4", "  (1/20)"]
    for _ in range(10):
        sl.handle_input("\x1b[B")
    assert plain(sl.render(40))[0] == "  item 8" and plain(sl.render(40))[2] == "→ item 10"
    sl.handle_input("\x1b[6~")
    assert sl.selected == 15
    sl.handle_input("\x1b[6~")
    assert sl.selected == 19
    sl.handle_input("\x1b[B")
    assert sl.selected == 0


def test_narrow_width_drops_descriptions_and_truncates() -> None:
    sl = SelectList(LEVELS, Theme.plain())
    assert plain(sl.render(30))[1] == "  ✓ minimal"
    for line in sl.render(6):
        assert visible_width(line) <= 6


def test_cancel_with_escape_or_ctrl_c() -> None:
    cancelled: list[int] = []
    sl = SelectList(LEVELS, Theme.plain(), on_cancel=lambda: cancelled.append(1))
    sl.handle_input("\x1b")
    sl.handle_input("\x03")
    assert cancelled == [1, 1]
    assert not sl.handle_input("x")


def test_hint_line() -> None:
    assert strip_ansi(select_hint(DARK)) == "↑↓ navigate  enter select  escape/ctrl+c cancel"
    assert select_hint(DARK).startswith(DARK.fg("dim", "↑↓") + DARK.fg("muted", " navigate"))
