"""The editor's text model: word moves, kills, yank, undo and paste markers."""

from __future__ import annotations

from pi.tui.editor_buffer import EditorBuffer
from pi.tui.fuzzy import fuzzy_filter, fuzzy_match


def typed(text: str) -> EditorBuffer:
    buf = EditorBuffer()
    for ch in text:
        if ch == "\n":
            buf.insert("\n")
        else:
            buf.type_char(ch)
    return buf


def test_ctrl_w_then_yank_at_line_start_then_undo() -> None:
    buf = typed("line one\nline two\nline three")
    buf.kill_word_backward()
    assert buf.text == "line one\nline two\nline "
    buf.move_line_start()
    buf.yank()
    assert buf.text.split("\n")[-1] == "threeline "
    buf.undo()
    assert buf.text.split("\n")[-1] == "line "


def test_consecutive_kills_accumulate_and_yank_pop_rotates() -> None:
    buf = typed("alpha beta gamma")
    buf.kill_word_backward()
    buf.kill_word_backward()
    assert buf.text == "alpha "
    assert buf.kill_ring.peek() == "beta gamma"
    buf.move_line_start()
    buf.kill_to_line_end()  # a new kill after a move starts a new entry
    assert buf.kill_ring.peek() == "alpha "
    buf.yank()
    assert buf.text == "alpha "
    buf.yank_pop()
    assert buf.text == "beta gamma"
    buf.yank_pop()
    assert buf.text == "alpha "


def test_yank_pop_needs_a_yank_right_before() -> None:
    buf = typed("one two")
    buf.kill_word_backward()
    buf.move_left()
    buf.move_right()
    buf.kill_to_line_start()
    assert len(buf.kill_ring) == 2
    buf.yank()
    buf.move_left()
    buf.yank_pop()
    assert buf.text == "one "


def test_word_moves_use_character_classes() -> None:
    buf = typed("foo.bar(baz)  qux")
    buf.move_word_left()
    assert buf.cursor == len("foo.bar(baz)  ")
    buf.move_word_left()
    assert buf.cursor == len("foo.bar(baz")
    buf.move_word_left()
    assert buf.cursor == len("foo.bar(")
    buf.move_line_start()
    buf.move_word_right()
    assert buf.cursor == 3
    buf.kill_word_forward()
    assert buf.text == "foobar(baz)  qux"


def test_unicode_words_and_graphemes() -> None:
    buf = typed("héllo wörld 👍🏽")
    buf.backspace()
    assert buf.text == "héllo wörld "
    buf.kill_word_backward()
    assert buf.text == "héllo "
    buf.type_char("e\u0301")
    buf.move_left()
    assert buf.cursor == len("héllo ")


def test_undo_groups_typing_by_words() -> None:
    buf = typed("hello world")
    buf.undo()
    assert buf.text == "hello"
    buf.undo()
    assert buf.text == ""
    assert not buf.undo()


def test_kill_at_line_edges_joins_lines() -> None:
    buf = typed("ab\ncd")
    buf.move_line_start()
    buf.kill_to_line_start()
    assert buf.text == "abcd"
    buf.move_line_start()
    buf.kill_to_line_end()
    assert buf.text == ""
    buf.yank()
    assert buf.text == "abcd"


def test_paste_markers_numbered_and_expanded() -> None:
    buf = typed("before ")
    fifteen = "".join(f"l{i}\n" for i in range(15))
    buf.paste(fifteen)
    buf.insert(" after")
    buf.paste("x" * 1500)
    buf.paste(fifteen)
    assert buf.text == "before [paste #1 +16 lines] after[paste #2 1500 chars][paste #3 +16 lines]"
    assert buf.expanded_text() == "before " + fifteen + " after" + "x" * 1500 + fifteen


def test_paste_marker_is_one_unit() -> None:
    buf = EditorBuffer()
    buf.paste("y" * 1200)
    assert buf.text == "[paste #1 1200 chars]"
    buf.move_left()
    assert buf.cursor == 0
    buf.move_right()
    assert buf.cursor == len(buf.text)
    buf.backspace()
    assert buf.text == ""
    buf.paste("z" * 1001)
    buf.type_char("!")
    buf.move_word_left()
    buf.move_word_left()
    assert buf.cursor == 0


def test_small_paste_and_leading_space_after_word() -> None:
    buf = typed("see")
    buf.paste("/tmp/x")
    assert buf.text == "see /tmp/x"
    buf.paste("abc")
    assert buf.text == "see /tmp/xabc"


def test_jump_to_char() -> None:
    buf = typed("a-b-c")
    buf.move_line_start()
    assert buf.jump_to_char("-", forward=True)
    assert buf.cursor == 1
    assert buf.jump_to_char("-", forward=True)
    assert buf.cursor == 3
    assert not buf.jump_to_char("z", forward=True)
    assert buf.jump_to_char("-", forward=False)
    assert buf.cursor == 1


def test_fuzzy_ranks_prefix_then_word_start_then_scattered() -> None:
    names = ["settings", "import", "scoped-models", "model", "tree"]
    assert fuzzy_filter(names, "mo", key=lambda s: s) == ["model", "scoped-models", "import"]
    assert fuzzy_match("xyz", "model") is None
    match = fuzzy_match("md", "model")
    assert match is not None and match.positions == (0, 2)
    assert fuzzy_filter(names, "", key=lambda s: s) == names
    assert fuzzy_filter(["fake-model", "fake-claude"], "fake cl", key=lambda s: s) == ["fake-claude"]
