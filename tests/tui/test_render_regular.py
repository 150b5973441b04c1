from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi.tui.component import CURSOR_MARKER, Text
from pi.tui.render_regular import FULL_CLEAR, RegularRenderer, first_difference
from pi.tui.text_width import visible_width
from pi.tui.tui import TUIStopped
from tests.tui.screen_support import assert_screen_matches_full_render, make_tui


def _frames(output: str) -> list[str]:
    return [chunk.split("\x1b[?2026l")[0] for chunk in output.split("\x1b[?2026h")[1:]]


def test_first_frame_starts_at_the_cursor_and_history_goes_to_scrollback() -> None:
    tui, term, doc, dock = make_tui(20, 5)
    dock.add(Text("> prompt"))
    tui.start()
    for i in range(8):
        doc.add(Text(f"line {i}"))
        tui.render_now()
        assert_screen_matches_full_render(tui, term)
    assert term.display()[-1] == "> prompt"
    assert term.scrollback()[:4] == ["line 0", "line 1", "line 2", "line 3"]


def test_only_changed_lines_are_rewritten() -> None:
    tui, term, doc, _dock = make_tui(30, 10)
    first = Text("unchanged first line")
    last = Text("streaming")
    doc.add(first)
    doc.add(last)
    tui.start()
    term.clear_output()
    last.set_text("streaming more")
    tui.render_now()
    frame = _frames(term.output)[-1]
    assert "unchanged first line" not in frame
    assert "streaming more" in frame
    assert FULL_CLEAR not in frame
    assert_screen_matches_full_render(tui, term)


def test_unchanged_tree_writes_nothing_new() -> None:
    tui, term, doc, _ = make_tui(30, 10)
    doc.add(Text("static"))
    tui.start()
    term.clear_output()
    tui.render_now()
    assert "static" not in term.output


def test_width_change_clears_everything_and_rewraps() -> None:
    tui, term, doc, dock = make_tui(40, 8)
    doc.add(Text("the quick brown fox jumps over the lazy dog " * 2))
    dock.add(Text("footer"))
    tui.start()
    term.clear_output()
    term.resize(20, 8)
    tui.render_now()
    assert _frames(term.output)[-1].startswith(FULL_CLEAR)
    assert all(visible_width(row) <= 20 for row in term.display())
    assert_screen_matches_full_render(tui, term)


def test_change_above_the_viewport_repaints_fully() -> None:
    tui, term, doc, _ = make_tui(20, 4)
    head = Text("head")
    doc.add(head)
    for i in range(6):
        doc.add(Text(f"row {i}"))
    tui.start()
    term.clear_output()
    head.set_text("HEAD")
    tui.render_now()
    assert _frames(term.output)[-1].startswith(FULL_CLEAR)
    assert_screen_matches_full_render(tui, term)


def test_shrinking_content_clears_stale_rows() -> None:
    tui, term, doc, dock = make_tui(20, 10)
    items = [Text(f"item {i}") for i in range(5)]
    for item in items:
        doc.add(item)
    dock.add(Text("dock"))
    tui.start()
    doc.remove(items[1])
    doc.remove(items[3])
    tui.render_now()
    assert_screen_matches_full_render(tui, term)
    assert term.display()[:5] == ["item 0", "item 2", "item 4", "dock", ""]
    doc.clear()
    dock.clear()
    tui.render_now()
    assert term.display() == [""] * 10


def test_clear_on_shrink_repaints() -> None:
    tui, term, doc, _ = make_tui(20, 10, clear_on_shrink=True)
    items = [Text(f"item {i}") for i in range(4)]
    for item in items:
        doc.add(item)
    tui.start()
    term.clear_output()
    doc.remove(items[3])
    tui.render_now()
    assert _frames(term.output)[-1].startswith(FULL_CLEAR)
    assert_screen_matches_full_render(tui, term)


def test_hardware_cursor_goes_to_the_marker() -> None:
    tui, term, doc, dock = make_tui(20, 6, show_hardware_cursor=True)
    doc.add(Text("history"))
    dock.add(Text(f"> ab{CURSOR_MARKER}c"))
    dock.add(Text("footer"))
    tui.start()
    assert term.cursor() == (1, 4)
    assert "\x1b[?25h" in term.output
    assert "pi:c" not in "".join(term.display())


def test_too_wide_line_writes_the_crash_log_and_stops(tmp_path: Path) -> None:
    class Wide:
        def render(self, width: int) -> list[str]:
            return ["ok", "x" * (width + 3)]

        def invalidate(self) -> None:
            return None

    log = tmp_path / "agent" / "pi-tui-crash.log"
    tui, term, doc, _ = make_tui(20, 6, crash_log_path=log)
    tui.start()
    doc.add(Wide())
    with pytest.raises(TUIStopped, match=r"Rendered line 1 exceeds terminal width \(23 > 20\)\."):
        tui.render_now()
    assert log.read_text().startswith("Rendered line 1 exceeds terminal width (23 > 20).")
    assert not tui.running
    assert not term.raw


def test_stop_moves_below_the_content() -> None:
    tui, term, doc, dock = make_tui(20, 6)
    doc.add(Text("a"))
    dock.add(Text("b"))
    tui.start()
    tui.stop()
    term.write("$ ")
    assert term.display()[:3] == ["a", "b", "$"]


def test_first_difference() -> None:
    old = [str(i) for i in range(1000)]
    new = [*old[:700], "x", *old[701:]]
    assert first_difference(old, new) == 700
    assert first_difference(old, old[:10]) == 10
    assert first_difference(old, list(old)) == 1000


def test_renderer_without_tui_paints_then_diffs() -> None:
    renderer = RegularRenderer()
    assert renderer.frame(["a", "b"], 10, 5).startswith("a\r\nb")
    out = renderer.frame(["a", "c"], 10, 5)
    assert "c" in out and "a" not in out.replace("\x1b[", "")


_line = st.text(alphabet=st.sampled_from(list("abc  中👍é\x1b")), max_size=30).map(
    lambda s: s.replace("\x1b", "\x1b[1m")
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["add", "edit", "remove", "resize"]), _line, st.integers(0, 20)),
        min_size=1,
        max_size=12,
    )
)
def test_property_every_frame_equals_a_full_render(ops: list[tuple[str, str, int]]) -> None:
    tui, term, doc, dock = make_tui(24, 8)
    dock.add(Text("── editor ──"))
    texts: list[Text] = []
    tui.start()
    for op, text, n in ops:
        if op == "add" or not texts:
            texts.append(Text(text))
            doc.add(texts[-1])
        elif op == "edit":
            texts[n % len(texts)].set_text(text)
        elif op == "remove":
            doc.remove(texts.pop(n % len(texts)))
        else:
            term.resize(10 + n, 4 + n % 6)
        tui.render_now()
        assert all(visible_width(row) <= term.columns for row in term.display())
        assert_screen_matches_full_render(tui, term)


def test_overlay_in_regular_mode_covers_the_visible_rows_only() -> None:
    tui, term, doc, dock = make_tui(30, 6)
    for i in range(10):
        doc.add(Text(f"history {i}"))
    dock.add(Text("editor"))
    tui.start()
    overlay = tui.show_overlay(Text("[ dialog ]"), anchor="center", width=10, focus=False)
    tui.render_now()
    rows = term.display()
    assert any("[ dialog ]" in row for row in rows)
    assert "[ dialog ]" not in "".join(term.scrollback())
    tui.close_overlay(overlay)
    tui.render_now()
    assert not any("dialog" in row for row in term.display())
    assert_screen_matches_full_render(tui, term)
