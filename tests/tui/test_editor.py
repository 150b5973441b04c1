"""The prompt editor: keys, submit, history, kill ring, paste markers, scrolling and drawing."""

from __future__ import annotations

import pyte
from hypothesis import given, settings
from hypothesis import strategies as st

from pi.tui.component import CURSOR_MARKER
from pi.tui.editor import Editor
from pi.tui.keybindings import KeybindingsManager
from pi.tui.text_width import strip_ansi, visible_width
from pi.tui.theme import Theme, builtin_theme

DARK = builtin_theme("dark")
RULE = "─" * 110

CTRL_A, CTRL_W, CTRL_Y, CTRL_UNDO, CTRL_D, CTRL_K, CTRL_J = "\x01", "\x17", "\x19", "\x1f", "\x04", "\x0b", "\n"
UP, DOWN, LEFT, RIGHT = "\x1b[A", "\x1b[B", "\x1b[D", "\x1b[C"
ENTER, ESC, ALT_Y = "\r", "\x1b", "\x1by"


def type_text(editor: Editor, text: str) -> None:
    for ch in text:
        assert editor.handle_input(ch)


def paste(text: str) -> str:
    return "\x1b[200~" + text + "\x1b[201~"


def plain(lines: list[str]) -> list[str]:
    return [strip_ansi(line.replace(CURSOR_MARKER, "")).rstrip() for line in lines]


def make(rows: int = 35) -> tuple[Editor, list[str]]:
    submitted: list[str] = []
    editor = Editor(Theme.plain(), terminal_rows=rows, on_submit=submitted.append)
    return editor, submitted


def three_lines(editor: Editor) -> None:
    type_text(editor, "line one")
    editor.handle_input("\x1b\r")
    type_text(editor, "line two")
    editor.handle_input(CTRL_J)
    type_text(editor, "line three")


def test_kill_yank_undo_as_observed() -> None:
    editor, _ = make()
    three_lines(editor)
    assert plain(editor.render(110)) == [RULE, "line one", "line two", "line three", RULE]
    editor.handle_input(CTRL_W)
    assert plain(editor.render(110))[3] == "line"
    editor.handle_input(CTRL_A)
    editor.handle_input(CTRL_Y)
    assert plain(editor.render(110))[3] == "threeline"
    editor.handle_input(CTRL_UNDO)
    assert editor.get_text() == "line one\nline two\nline "


def test_yank_pop_rotates_after_yank() -> None:
    editor, _ = make()
    type_text(editor, "aa bb")
    editor.handle_input(CTRL_W)
    editor.handle_input(CTRL_A)
    editor.handle_input(CTRL_K)
    editor.handle_input(CTRL_Y)
    assert editor.get_text() == "aa "
    editor.handle_input(ALT_Y)
    assert editor.get_text() == "bb"


def test_paste_markers_as_observed_and_expanded_on_submit() -> None:
    editor, submitted = make()
    fifteen = "".join(f"row {i}\r\n" for i in range(15))
    type_text(editor, "before ")
    editor.handle_input(paste(fifteen))
    type_text(editor, " after")
    editor.handle_input(paste("c" * 1500))
    editor.handle_input(paste(fifteen))
    line = "before [paste #1 +16 lines] after[paste #2 1500 chars][paste #3 +16 lines]"
    assert plain(editor.render(110))[1] == line
    rows = fifteen.replace("\r\n", "\n")
    assert editor.get_expanded_text() == "before " + rows + " after" + "c" * 1500 + rows
    editor.handle_input(ENTER)
    assert submitted == [("before " + rows + " after" + "c" * 1500 + rows).strip()]
    assert editor.is_empty()
    editor.handle_input(paste("d" * 1200))
    assert editor.get_text() == "[paste #4 1200 chars]"


def test_paste_normalises_tabs_and_control_bytes() -> None:
    editor, _ = make()
    editor.handle_input(paste("a\tb\x07c\rd\x1b[106;5ue"))
    assert editor.get_text() == "a    bc\nd\ne"


def test_enter_submits_trimmed_text_and_ignores_empty() -> None:
    editor, submitted = make()
    editor.handle_input(ENTER)
    type_text(editor, "   ")
    editor.handle_input(ENTER)
    assert submitted == []
    type_text(editor, "hi  ")
    editor.handle_input(ENTER)
    assert submitted == ["hi"]
    assert editor.get_text() == ""


def test_backslash_enter_and_newline_sequences() -> None:
    editor, submitted = make()
    type_text(editor, "a\\")
    editor.handle_input(ENTER)
    for seq in ("\x1b[13;2~", "\x1b[13;2u", CTRL_J, "\x1b\r"):
        type_text(editor, "x")
        assert editor.handle_input(seq)
    assert editor.get_text() == "a\nx\nx\nx\nx\n"
    assert submitted == []


def test_history_browsing() -> None:
    editor, submitted = make()
    for text in ("first", "second", "second"):
        type_text(editor, text)
        editor.handle_input(ENTER)
        editor.add_to_history(submitted[-1])
    assert editor.history == ["first", "second"]
    type_text(editor, "draft")
    editor.handle_input(UP)  # not at column 0: go to the start first
    assert editor.get_text() == "draft" and editor.buffer.cursor == 0
    editor.handle_input(UP)
    assert editor.get_text() == "second" and editor.buffer.cursor == 0
    editor.handle_input(UP)
    assert editor.get_text() == "first"
    editor.handle_input(UP)
    assert editor.get_text() == "first"
    editor.handle_input(DOWN)
    assert editor.get_text() == "second"
    editor.handle_input(DOWN)
    assert editor.get_text() == "draft"


def test_history_is_capped() -> None:
    editor, _ = make()
    for n in range(120):
        editor.add_to_history(f"p{n}")
    assert len(editor.history) == 100 and editor.history[0] == "p20"


def test_unbound_history_actions_can_be_bound() -> None:
    keys = KeybindingsManager(user_overrides={"tui.editor.historyPrevious": ["ctrl+o"]})
    editor = Editor(Theme.plain(), keys)
    editor.add_to_history("old")
    type_text(editor, "abc")
    editor.handle_input("\x0f")
    assert editor.get_text() == "old"


def test_scrolled_editor_as_observed() -> None:
    editor, _ = make(rows=35)
    editor.set_text("\n".join([*(f"editor line {i}" for i in range(1, 15)), "last line"]))
    lines = plain(editor.render(110))
    assert lines[0] == "─" * 50 + " ↑ 5 more " + "─" * 50
    assert lines[1:11] == [*(f"editor line {i}" for i in range(6, 15)), "last line"]
    assert lines[11] == RULE
    for _ in range(10):
        editor.handle_input(UP)
    lines = plain(editor.render(110))
    assert lines[0] == "─" * 50 + " ↑ 4 more " + "─" * 50
    assert lines[-1] == "─" * 50 + " ↓ 1 more " + "─" * 50
    assert lines[1] == "editor line 5"


def test_working_label_in_top_rule_and_rule_colours() -> None:
    editor = Editor(DARK)
    editor.working_label = "⠸ Working"
    top = editor.render(40)[0]
    assert strip_ansi(top) == "── ⠸ Working " + "─" * 27
    editor.thinking_level = "medium"
    assert editor.render(40)[0].startswith(DARK.fg_code("thinkingMedium"))
    type_text(editor, "  !ls")
    assert editor.render(40)[-1] == DARK.fg("bashMode", "─" * 40)
    editor.working_label = "⠸ " + "x" * 60
    assert strip_ansi(editor.render(40)[0]) == "── ⠸ " + "─" * 35


def test_cursor_is_reverse_video_with_marker() -> None:
    editor, _ = make()
    type_text(editor, "abc")
    editor.handle_input(LEFT)
    assert editor.render(20)[1].startswith("ab" + CURSOR_MARKER + "\x1b[7mc\x1b[0m")
    editor.focused = False
    assert CURSOR_MARKER not in "".join(editor.render(20))


def test_wrap_keeps_a_free_column_and_vertical_moves_keep_the_column() -> None:
    editor, _ = make()
    type_text(editor, "x" * 9)
    assert plain(editor.render(10))[1:3] == ["x" * 9, "─" * 10]
    type_text(editor, "y")
    assert plain(editor.render(10))[1:3] == ["x" * 9, "y"]
    editor.set_text("abcdef ghijklmnop")
    editor.render(10)
    editor.handle_input(CTRL_A)
    for _ in range(3):
        editor.handle_input(RIGHT)
    editor.handle_input(DOWN)
    assert editor.buffer.cursor == len("abcdef ") + 3
    editor.handle_input(UP)
    assert editor.buffer.cursor == 3


def test_lines_never_exceed_the_width() -> None:
    editor, _ = make()
    editor.set_text("日本語 " * 20 + "\n" + "word " * 30 + "\n" + "z" * 50)
    for width in (3, 7, 20, 41):
        for line in editor.render(width):
            assert visible_width(line) <= width


def test_ctrl_d_and_escape_are_left_to_the_app() -> None:
    editor, _ = make()
    assert not editor.handle_input(CTRL_D)
    assert not editor.handle_input(ESC)
    type_text(editor, "ab")
    editor.handle_input(CTRL_A)
    assert editor.handle_input(CTRL_D)
    assert editor.get_text() == "b"
    assert not editor.handle_input("\x1b[Z")  # shift+tab


def test_jump_to_character() -> None:
    editor, _ = make()
    type_text(editor, "one two three")
    editor.handle_input(CTRL_A)
    editor.handle_input("\x1d")
    editor.handle_input("t")
    assert editor.buffer.cursor == 4
    editor.handle_input("\x1d")
    editor.handle_input("h")
    assert editor.buffer.cursor == 9
    editor.handle_input("\x1b\x1d")
    editor.handle_input("o")
    assert editor.buffer.cursor == 6
    editor.handle_input("\x1d")
    editor.handle_input("q")  # no such character: the cursor stays
    assert editor.buffer.cursor == 6


def test_page_keys_move_by_the_visible_budget() -> None:
    editor, _ = make(rows=20)
    editor.set_text("\n".join(str(i) for i in range(30)))
    editor.render(20)
    editor.handle_input("\x1b[5~")
    assert editor.buffer.line_col()[0] == 29 - 6


def test_render_is_cached_until_state_changes() -> None:
    editor, _ = make()
    first = editor.render(30)
    assert editor.render(30) is first
    type_text(editor, "a")
    assert editor.render(30) is not first


def test_screen_shows_the_editor_like_the_terminal() -> None:
    editor = Editor(DARK, terminal_rows=10)
    three_lines(editor)
    screen = pyte.Screen(30, 6)
    stream = pyte.Stream(screen)
    stream.feed("\r\n".join(line.replace(CURSOR_MARKER, "") for line in editor.render(30)))
    assert [row.rstrip() for row in screen.display[:5]] == ["─" * 30, "line one", "line two", "line three", "─" * 30]
    assert screen.buffer[3][10].reverse


def test_padding_adds_inner_space_and_uses_the_full_inner_width() -> None:
    editor = Editor(Theme.plain())
    editor.padding_x = 2
    type_text(editor, "abcdefgh")
    lines = editor.render(10)
    assert plain(lines)[1:3] == ["  abcdef", "  gh"]
    assert all(visible_width(line) == 10 for line in lines[1:3])


def test_label_and_scroll_indicator_share_the_top_rule() -> None:
    editor, _ = make(rows=10)
    editor.set_text("\n".join(str(i) for i in range(8)))
    editor.working_label = "⠸ Working"
    top = plain(editor.render(40))[0]
    assert top == "── ⠸ Working ──" + " ↑ 3 more " + "─" * 15


def test_insert_set_text_and_change_listener() -> None:
    seen: list[str] = []
    editor = Editor(Theme.plain(), on_change=seen.append)
    editor.insert_text("queued one\n\nqueued two")
    editor.buffer.move_to(0)
    editor.insert_text("x")
    assert editor.get_text() == "xqueued one\n\nqueued two"
    editor.set_text("new")
    editor.clear()
    assert seen == ["queued one\n\nqueued two", "xqueued one\n\nqueued two", "new", ""]
    editor.handle_input(CTRL_UNDO)
    assert editor.get_text() == "new"


KEYS = [
    "a",
    " ",
    "é",
    "日",
    "👍🏽",
    "\x7f",
    "\x1b[3~",
    CTRL_W,
    CTRL_K,
    "\x15",
    CTRL_Y,
    ALT_Y,
    CTRL_UNDO,
    UP,
    DOWN,
    LEFT,
    RIGHT,
    "\x1bb",
    "\x1bf",
    CTRL_A,
    "\x05",
    CTRL_J,
    "\x1b[5~",
    "\x1b[6~",
    "\x1d",
    paste("x" * 1001),
    paste("p\nq"),
    "\x1bd",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(KEYS), max_size=40), st.integers(min_value=2, max_value=30))
def test_any_key_sequence_keeps_lines_within_width(keys: list[str], width: int) -> None:
    editor = Editor(Theme.plain(), terminal_rows=12)
    for key in keys:
        editor.handle_input(key)
        assert 0 <= editor.buffer.cursor <= len(editor.get_text())
        for line in editor.render(width):
            assert visible_width(line) <= width
