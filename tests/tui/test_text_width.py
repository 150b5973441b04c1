from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi.tui.component import CURSOR_MARKER
from pi.tui.text_width import (
    SgrState,
    pad_to_width,
    slice_columns,
    strip_ansi,
    truncate_to_width,
    visible_width,
    wrap_text_with_ansi,
)

RED = "\x1b[31m"
BOLD = "\x1b[1m"
RESET = "\x1b[0m"
LINK = "\x1b]8;;https://example.com\x1b\\"


def test_ascii_and_escapes_take_no_cells() -> None:
    assert visible_width("hello") == 5
    assert visible_width(f"{RED}hello{RESET}") == 5
    assert visible_width(f"{LINK}docs\x1b]8;;\x1b\\") == 4
    assert visible_width(f"a{CURSOR_MARKER}b") == 2
    assert visible_width("") == 0


def test_wide_characters_emoji_and_combining_marks() -> None:
    assert visible_width("中文") == 4
    assert visible_width("👍") == 2
    assert visible_width("👨\u200d👩\u200d👧") == 2  # one ZWJ family
    assert visible_width("❤\ufe0f") == 2  # VS16 makes it wide
    assert visible_width("e\u0301") == 1  # combining acute
    assert visible_width(f"{RED}中{RESET}x") == 3


def test_tab_counts_three_and_controls_zero() -> None:
    assert visible_width("a\tb") == 5
    assert visible_width("a\x07b") == 2


def test_truncate_keeps_codes_and_appends_ellipsis_and_reset() -> None:
    assert truncate_to_width("short", 10) == "short"
    cut = truncate_to_width(f"{RED}hello world{RESET}", 8)
    assert cut == f"{RED}hello{RESET}...{RESET}"
    assert visible_width(cut) == 8


def test_truncate_never_splits_a_wide_character() -> None:
    cut = truncate_to_width("中文中文中文", 7)
    assert strip_ansi(cut) == "中文..."
    assert visible_width(cut) <= 7
    assert strip_ansi(truncate_to_width("中文", 1, "")) == ""


def test_truncate_with_custom_and_oversized_ellipsis() -> None:
    assert strip_ansi(truncate_to_width("abcdefgh", 5, "…")) == "abcd…"
    assert strip_ansi(truncate_to_width("abcdefgh", 2, "...")) == "ab"


def test_pad_to_width() -> None:
    assert pad_to_width("ab", 5) == "ab   "
    assert visible_width(pad_to_width("中文中文", 5)) == 5
    assert pad_to_width(f"{RED}x{RESET}", 3) == f"{RED}x{RESET}  "


def test_wrap_words_and_long_words() -> None:
    assert wrap_text_with_ansi("hello world foo", 11) == ["hello world", "foo"]
    assert wrap_text_with_ansi("abcdefghijklmnopqrstuvwxyz", 10) == ["abcdefghij", "klmnopqrst", "uvwxyz"]
    assert wrap_text_with_ansi("", 10) == [""]
    assert wrap_text_with_ansi("a\n\nb", 10) == ["a", "", "b"]


def test_wrap_reopens_active_styles_on_continued_lines() -> None:
    lines = wrap_text_with_ansi(f"{BOLD}{RED}one two three{RESET} four", 7)
    assert [strip_ansi(line) for line in lines] == ["one two", "three", "four"]
    assert lines[1].startswith("\x1b[1;31m")
    assert not lines[2].startswith("\x1b[")  # the reset closed everything before "four"


def test_wrap_keeps_styles_across_newlines() -> None:
    lines = wrap_text_with_ansi(f"{RED}a\nb{RESET}", 10)
    assert lines == [f"{RED}a", f"\x1b[31mb{RESET}"]


def test_wrap_closes_and_reopens_hyperlinks() -> None:
    lines = wrap_text_with_ansi(f"{LINK}alpha beta\x1b]8;;\x1b\\", 5)
    assert lines[0].endswith("\x1b]8;;\x1b\\")
    assert lines[1].startswith(LINK)


def test_slice_columns_reopens_style_and_pads_cut_wide_chars() -> None:
    assert slice_columns(f"{RED}ab中cd{RESET}ef", 3, 7) == f"{RED} cd{RESET}e"
    assert slice_columns("abcdef", 2, 4) == "cd"
    assert slice_columns("a中b", 0, 2) == "a "
    assert slice_columns("abc", 5, 8) == ""


def test_sgr_state_tracks_colours_and_resets() -> None:
    state = SgrState()
    for seq in ("\x1b[1m", "\x1b[38;2;1;2;3m", "\x1b[48;5;4m", "\x1b[22m", "\x1b[3m"):
        state.apply(seq)
    assert state.open() == "\x1b[3;38;2;1;2;3;48;5;4m"
    state.apply("\x1b[39;49m")
    assert state.open() == "\x1b[3m"
    state.apply("\x1b[m")
    assert state.open() == ""


_pieces = st.one_of(
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=12),
    st.sampled_from(["中文", "👍", "👨\u200d👩\u200d👧", "e\u0301", " ", "  ", "\t", "❤\ufe0f", "ｱｲｳ"]),
    st.sampled_from([RED, BOLD, RESET, "\x1b[38;2;10;20;30m", "\x1b[48;5;200m", LINK, "\x1b]8;;\x1b\\"]),
)
_styled_text = st.lists(_pieces, max_size=20).map("".join)


@settings(max_examples=300, deadline=None)
@given(_styled_text, st.integers(min_value=1, max_value=40))
def test_property_wrap_lines_never_exceed_width(text: str, width: int) -> None:
    for line in wrap_text_with_ansi(text, width):
        assert visible_width(line) <= width, (line, width)


@settings(max_examples=300, deadline=None)
@given(_styled_text, st.integers(min_value=0, max_value=40))
def test_property_truncate_and_pad_fit(text: str, width: int) -> None:
    assert visible_width(truncate_to_width(text, width)) <= width
    if width > 0:
        assert visible_width(pad_to_width(text, width)) == width


@settings(max_examples=200, deadline=None)
@given(_styled_text, st.integers(min_value=0, max_value=30), st.integers(min_value=0, max_value=30))
def test_property_slice_width(text: str, start: int, length: int) -> None:
    piece = slice_columns(text, start, start + length)
    assert visible_width(piece) <= length


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=60), st.integers(1, 30))
def test_property_wrap_keeps_all_non_space_text(text: str, width: int) -> None:
    joined = "".join(strip_ansi(line) for line in wrap_text_with_ansi(text, width))
    assert joined.replace(" ", "") == text.replace(" ", "")


def test_a_zero_width_joiner_outside_an_emoji_does_not_swallow_the_next_cell() -> None:
    # Found by the property above: wcswidth over "\u200d " says 0, the terminal shows the space.
    assert visible_width("\u200d ") == 1
    assert visible_width("a\u200db") == 2
    assert visible_width(pad_to_width("\u200d", 1)) == 1
    assert visible_width("\U0001f468\u200d\U0001f469\u200d\U0001f467") == 2  # one family emoji, two cells
