"""Edit diffs: numbered lines, colours, elided context and word changes."""

from __future__ import annotations

from pi.tui.diff_view import DiffView, diff_from_texts, diff_from_unified, render_diff
from pi.tui.text_width import strip_ansi, visible_width
from pi.tui.theme import builtin_theme

DARK = builtin_theme("dark")

CAPTURE_DIFF = "\n".join(
    [
        "  1 def add(a, b):",
        '+ 2     """Add two numbers."""',
        "  2     return a + b",
        "  3 ",
        "  4 ",
        "  5 def sub(a, b):",
        "  6     return a - b",
        "+ 8 ",
        "+ 9 ",
        "+10 def mul(a, b):",
        "+11     return a * b",
    ]
)


def test_capture_diff_lines_and_colours() -> None:
    lines = render_diff(CAPTURE_DIFF, DARK)
    assert [strip_ansi(line) for line in lines] == CAPTURE_DIFF.split("\n")
    assert lines[0] == DARK.fg("toolDiffContext", "  1 def add(a, b):")
    assert lines[1] == DARK.fg("toolDiffAdded", '+ 2     """Add two numbers."""')


def test_numbers_right_aligned_and_context_elided() -> None:
    old = "\n".join(f"line {i}" for i in range(1, 21))
    new = old.replace("line 10", "line ten")
    assert diff_from_texts(old, new).split("\n") == [
        "    ...",
        "  6 line 6",
        "  7 line 7",
        "  8 line 8",
        "  9 line 9",
        "-10 line 10",
        "+10 line ten",
        " 11 line 11",
        " 12 line 12",
        " 13 line 13",
        " 14 line 14",
        "    ...",
    ]


def test_single_line_change_gets_word_diff_without_shared_indent() -> None:
    diff = diff_from_texts("    return a + b", "    return a * b")
    removed, added = render_diff(diff, DARK)
    inv = DARK.inverse
    assert removed == DARK.fg("toolDiffRemoved", f"-1     return a {inv('+')} b")
    assert added == DARK.fg("toolDiffAdded", f"+1     return a {inv('*')} b")


def test_longer_runs_list_removed_then_added_without_word_diff() -> None:
    diff = diff_from_texts("a\nb\nc", "x\ny\nc")
    lines = render_diff(diff, DARK)
    assert [strip_ansi(line) for line in lines] == ["-1 a", "-2 b", "+1 x", "+2 y", " 3 c"]
    assert all("\x1b[7m" not in line for line in lines)


def test_unified_patch_is_numbered_like_the_edit_diff() -> None:
    patch = "--- a/f\n+++ b/f\n@@ -3,3 +3,3 @@\n keep\n-old\n+new\n tail\n@@ -20,1 +20,2 @@\n z\n+added"
    assert diff_from_unified(patch).split("\n") == [
        "  3 keep",
        "- 4 old",
        "+ 4 new",
        "  5 tail",
        "    ...",
        " 20 z",
        "+21 added",
    ]


def test_component_wraps_to_width_and_caches() -> None:
    view = DiffView.from_texts("short", "a much longer replacement line that wraps", DARK)
    lines = view.render(20)
    assert all(visible_width(line) <= 20 for line in lines)
    assert view.render(20) is lines
    assert "".join(strip_ansi(line) for line in lines).replace(" ", "").startswith("-1short+1")
