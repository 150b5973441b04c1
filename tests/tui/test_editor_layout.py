"""Word wrap of editor lines: the fast ASCII path agrees with the general one."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from pi.tui.editor_layout import cursor_row, layout, wrap_ascii, wrap_line, wrap_units


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab ", max_size=60), st.integers(min_value=1, max_value=12))
def test_fast_ascii_wrap_matches_general_wrap(text: str, width: int) -> None:
    assert wrap_ascii(text, width) == wrap_units(text, width, ())


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab 日é\u0301", max_size=40), st.integers(min_value=2, max_value=12))
def test_spans_cover_the_line_in_order(text: str, width: int) -> None:
    spans = wrap_line(text, width, ())
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in pairwise(spans))


def test_words_wrap_at_spaces_and_markers_stay_whole() -> None:
    text = "hello world this is a test"
    assert [text[a:b] for a, b in wrap_line(text, 10, ())] == ["hello ", "world this ", "is a test"]
    marked = "see [paste #1 +16 lines] ok"
    assert [marked[a:b] for a, b in wrap_line(marked, 22, {1})] == ["see ", "[paste #1 +16 lines] ", "ok"]
    wide = "日本語のテキスト"
    assert [wide[a:b] for a, b in wrap_line(wide, 5, ())] == ["日本", "語の", "テキ", "スト"]


def test_cursor_at_a_wrap_point_belongs_to_the_next_line() -> None:
    lines = layout("aaaa bbbb\ncc", 5, ())
    assert [(vl.line, vl.start, vl.end) for vl in lines] == [(0, 0, 5), (0, 5, 9), (1, 0, 2)]
    assert cursor_row(lines, 5) == 1
    assert cursor_row(lines, 9) == 1
    assert cursor_row(lines, 10) == 2
