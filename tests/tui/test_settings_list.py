"""The settings panel: rows, counter, description, hint, search, cycling and submenus."""

from __future__ import annotations

from collections.abc import Callable

from pi.tui.component import CURSOR_MARKER
from pi.tui.select_list import SelectItem, SelectList
from pi.tui.settings_list import SettingItem, SettingsList
from pi.tui.text_width import strip_ansi
from pi.tui.theme import Theme, builtin_theme

DARK = builtin_theme("dark")


def items() -> list[SettingItem]:
    rows = [
        ("autocompact", "Auto-compact", "true", "Automatically compact context when it gets too large"),
        ("resize", "Auto-resize images", "true", ""),
        ("block", "Block images", "false", ""),
        ("skills", "Skill commands", "true", ""),
        ("cursor", "Show hardware cursor", "false", ""),
        ("padding", "Editor padding", "0", ""),
        ("outpad", "Output padding", "1", ""),
        ("acmax", "Autocomplete max items", "5", ""),
        ("shrink", "Clear on shrink", "false", ""),
        ("progress", "Terminal progress", "false", ""),
        ("per-model", "Default thinking level per model", "", ""),
    ]
    result = [SettingItem(i, label, value, desc, values=["true", "false"]) for i, label, value, desc in rows]
    result[5].values = ["0", "1", "2", "3"]
    result.append(
        SettingItem(
            "tui", "TUI mode", "fullscreen", "Interface layout; regular mode uses the terminal's normal scrollback"
        )
    )
    return result


def plain(lines: list[str]) -> list[str]:
    return [strip_ansi(line.replace(CURSOR_MARKER, "")).rstrip() for line in lines]


def test_layout_as_observed() -> None:
    panel = SettingsList(items(), Theme.plain())
    lines = plain(panel.render(110))
    assert lines[:3] == [">", "", "→ Auto-compact                      true"]
    assert lines[3] == "  Auto-resize images                true"
    assert lines[12:] == [
        "  (1/12)",
        "",
        "  Automatically compact context when it gets too large",
        "",
        "  Type to search · Enter/Space to change · Esc to cancel",
    ]


def test_colours_of_rows_and_footer() -> None:
    panel = SettingsList(items(), DARK)
    lines = panel.render(110)
    assert lines[2] == DARK.fg("accent", "→ Auto-compact" + " " * 20) + "  " + DARK.fg("accent", "true")
    assert lines[3] == "  Auto-resize images" + " " * 14 + "  " + DARK.fg("muted", "true")
    assert lines[-1] == DARK.fg("dim", "  Type to search · Enter/Space to change · Esc to cancel")


def test_search_filters_and_enter_cycles_values() -> None:
    changes: list[tuple[str, str]] = []
    panel = SettingsList(items(), Theme.plain(), on_change=lambda i, v: changes.append((i, v)))
    for ch in "padd":
        panel.handle_input(ch)
    lines = plain(panel.render(110))
    assert lines[0] == "> padd"
    assert lines[2:4] == ["→ Editor padding                    0", "  Output padding                    1"]
    assert lines[4] == ""
    panel.handle_input("\r")
    panel.handle_input("\r")
    assert changes == [("padding", "1"), ("padding", "2")]
    assert plain(panel.render(110))[2].endswith("2")


def test_space_changes_the_setting_only_while_the_search_is_empty() -> None:
    """As in pi: with a query typed, Space is part of the query (`auto c`), not a change."""
    changes: list[tuple[str, str]] = []
    panel = SettingsList(items(), Theme.plain(), on_change=lambda i, v: changes.append((i, v)))
    panel.handle_input(" ")
    assert changes == [("autocompact", "false")]
    for ch in "auto c":
        panel.handle_input(ch)
    lines = plain(panel.render(110))
    assert lines[0] == "> auto c"
    assert changes == [("autocompact", "false")]
    assert lines[2].startswith("→ Auto-compact")
    panel.handle_input("\x1b[32u")  # Space as the kitty keyboard protocol reports it
    assert panel.search.value == "auto c "
    assert len(changes) == 1


def test_submenu_replaces_the_panel_until_done() -> None:
    def submenu(current: str, done: Callable[[str | None], None]) -> SelectList:
        options = [SelectItem("regular", "regular"), SelectItem("fullscreen", "fullscreen")]
        return SelectList(options, Theme.plain(), on_select=lambda item: done(item.value), on_cancel=lambda: done(None))

    data = items()
    data[-1].submenu = submenu
    changes: list[tuple[str, str]] = []
    panel = SettingsList(data, Theme.plain(), on_change=lambda i, v: changes.append((i, v)))
    for ch in "tui":
        panel.handle_input(ch)
    panel.handle_input("\r")
    assert plain(panel.render(40)) == ["→ regular", "  fullscreen"]
    panel.handle_input("\r")
    assert changes == [("tui", "regular")]
    assert plain(panel.render(110))[2] == "→ TUI mode                          regular"


def test_escape_cancels_and_navigation_wraps() -> None:
    cancelled: list[bool] = []
    panel = SettingsList(items(), Theme.plain(), on_cancel=lambda: cancelled.append(True))
    panel.handle_input("\x1b[A")
    selected = panel.selected_item()
    assert selected is not None and selected.id == "tui"
    assert plain(panel.render(110))[-5] == "  (12/12)"
    panel.handle_input("\x1b")
    assert cancelled == [True]
