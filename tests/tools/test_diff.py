"""Display diff and unified patch (tools.md §3.8, conformance §8.8)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi.tools.diff import TextLines, diff_lines, generate_diff_string, generate_unified_patch, split_line_tokens

TWELVE = "".join(f"line{n}\n" for n in range(1, 13))


def test_single_line_change() -> None:
    result = generate_diff_string("Hello, world!", "Hello, testing!")
    assert result.diff == "-1 Hello, world!\n+1 Hello, testing!"
    assert result.first_changed_line == 1


def test_c109_twelve_line_file_shows_four_lines_of_context_and_elisions() -> None:
    result = generate_diff_string(TWELVE, TWELVE.replace("line6\n", "LINE6\n"))
    expected = [
        "    ...",
        "  2 line2",
        "  3 line3",
        "  4 line4",
        "  5 line5",
        "- 6 line6",
        "+ 6 LINE6",
        "  7 line7",
        "  8 line8",
        "  9 line9",
        " 10 line10",
        "    ...",
    ]
    assert result.diff == "\n".join(expected)
    assert result.first_changed_line == 6
    patch = generate_unified_patch("f.txt", TWELVE, TWELVE.replace("line6\n", "LINE6\n"))
    assert patch.split("\n")[2] == "@@ -2,9 +2,9 @@"


def test_c110_removed_line() -> None:
    result = generate_diff_string("a\nb\nc\n", "a\nc\n")
    assert result.diff == " 1 a\n-2 b\n 3 c"
    assert result.first_changed_line == 2


def test_c111_two_distant_changes_form_two_groups() -> None:
    old = "".join(f"row {n}\n" for n in range(1, 41))
    new = old.replace("row 5\n", "ROW 5\n").replace("row 30\n", "ROW 30\n")
    result = generate_diff_string(old, new)
    lines = result.diff.split("\n")
    assert result.first_changed_line == 5
    changes = [n for n, line in enumerate(lines) if line[0] in "+-"]
    between = lines[changes[1] + 1 : changes[2]]
    assert "    ..." in between
    assert between == [f" {n:>2} row {n}" for n in range(6, 10)] + ["    ..."] + [
        f" {n:>2} row {n}" for n in range(26, 30)
    ]
    # at most four lines of context on either side; nothing was skipped before line 1
    assert lines[0:4] == [f" {n:>2} row {n}" for n in range(1, 5)]
    assert lines[-5:] == [f" {n:>2} row {n}" for n in range(31, 35)] + ["    ..."]


def test_short_gap_between_changes_is_shown_whole() -> None:
    old = "".join(f"{n}\n" for n in range(1, 12))
    new = old.replace("1\n", "X\n", 1).replace("10\n", "Y\n")
    result = generate_diff_string(old, new)
    # eight unchanged lines between the changes (2..9) are all shown; nothing is elided
    assert "..." not in result.diff
    assert [line[1:3].strip() for line in result.diff.split("\n") if line[0] == " "] == [
        str(n) for n in range(2, 10)
    ] + ["11"]


def test_c67_patch_format_with_missing_final_newlines() -> None:
    assert generate_unified_patch("f.txt", "Hello, world!", "Hello, testing!") == (
        "--- f.txt\n+++ f.txt\n@@ -1,1 +1,1 @@\n-Hello, world!\n\\ No newline at end of file\n"
        "+Hello, testing!\n\\ No newline at end of file\n"
    )


def test_c112_identical_texts_and_insertion_into_empty_text() -> None:
    assert generate_unified_patch("p.txt", "same\n", "same\n") == "--- p.txt\n+++ p.txt\n"
    patch = generate_unified_patch("p.txt", "", "new\n")
    assert patch == "--- p.txt\n+++ p.txt\n@@ -0,0 +1,1 @@\n+new\n"


def test_patch_marks_a_final_newline_gained() -> None:
    patch = generate_unified_patch("p", "a\nb", "a\nb\n")
    assert patch == "--- p\n+++ p\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"


def test_patch_of_deleting_everything() -> None:
    assert generate_unified_patch("p", "a\nb\n", "") == "--- p\n+++ p\n@@ -1,2 +0,0 @@\n-a\n-b\n"


def test_patch_splits_hunks_when_the_gap_exceeds_twice_the_context() -> None:
    old = "".join(f"{n}\n" for n in range(1, 31))
    new = old.replace("\n2\n", "\nB\n").replace("\n20\n", "\nT\n")
    headers = [line for line in generate_unified_patch("p", old, new).split("\n") if line.startswith("@@")]
    assert headers == ["@@ -1,6 +1,6 @@", "@@ -16,9 +16,9 @@"]


def test_tokens_keep_newlines() -> None:
    assert split_line_tokens("") == []
    assert split_line_tokens("a\nb") == ["a\n", "b"]
    assert split_line_tokens("a\n\n") == ["a\n", "\n"]


@pytest.mark.parametrize(
    ("old", "new"),
    [(a, b) for a, b in itertools.product(["", "a", "a\nb\n", "b\na\nb", "x\ny\nz\n"], repeat=2)],
)
def test_diff_parts_reassemble_both_texts(old: str, new: str) -> None:
    parts = diff_lines(old, new)
    assert "".join(t for p in parts if p.op != "+" for t in p.tokens) == old
    assert "".join(t for p in parts if p.op != "-" for t in p.tokens) == new


def test_diff_is_minimal() -> None:
    old = "a\nb\nc\nd\ne\n"
    new = "a\nc\nd\nX\ne\n"
    parts = diff_lines(old, new)
    assert sum(len(p.tokens) for p in parts if p.op != " ") == 2


def apply_patch(old: str, patch: str) -> str:
    """Minimal unified-patch applier, to check that a patch turns the old text into the new one."""
    old_tokens = split_line_tokens(old)
    result: list[str] = []
    cursor = 0
    lines = patch.split("\n")[2:-1]
    index = 0
    while index < len(lines):
        header = lines[index]
        old_start = int(header.split()[1][1:].split(",")[0])
        start = old_start - 1 if old_start else 0
        result.extend(old_tokens[cursor:start])
        cursor = start
        index += 1
        while index < len(lines) and not lines[index].startswith("@@"):
            op, text = lines[index][0], lines[index][1:]
            no_newline = index + 1 < len(lines) and lines[index + 1] == "\\ No newline at end of file"
            token = text if no_newline else text + "\n"
            if op == " ":
                assert old_tokens[cursor] == token
                result.append(token)
                cursor += 1
            elif op == "-":
                assert old_tokens[cursor] == token
                cursor += 1
            else:
                result.append(token)
            index += 2 if no_newline else 1
    result.extend(old_tokens[cursor:])
    return "".join(result)


@settings(max_examples=400, deadline=None)
@given(
    old=st.lists(st.sampled_from(["a", "b", "c", "", "dd"]), max_size=30).map("\n".join),
    new=st.lists(st.sampled_from(["a", "b", "c", "", "e"]), max_size=30).map("\n".join),
    old_newline=st.booleans(),
    new_newline=st.booleans(),
)
def test_patch_and_parts_reproduce_the_new_text(old: str, new: str, old_newline: bool, new_newline: bool) -> None:
    old += "\n" if old_newline else ""
    new += "\n" if new_newline else ""
    parts = diff_lines(old, new)
    assert "".join(t for p in parts if p.op != "+" for t in p.tokens) == old
    assert "".join(t for p in parts if p.op != "-" for t in p.tokens) == new
    assert apply_patch(old, generate_unified_patch("p", old, new)) == new
    # Minimal: the unchanged lines are a longest common subsequence.
    a, b = split_line_tokens(old), split_line_tokens(new)
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    assert sum(len(p.tokens) for p in parts if p.op == " ") == table[-1][-1]


@given(text=st.lists(st.sampled_from(["x", "yy", ""]), max_size=12).map("\n".join), final=st.booleans())
def test_text_lines_slices_like_a_list(text: str, final: bool) -> None:
    text += "\n" if final and text else ""
    lazy, eager = TextLines(text), split_line_tokens(text)
    assert len(lazy) == len(eager)
    for start in range(-1, len(eager) + 2):
        for stop in range(-1, len(eager) + 2):
            assert lazy[start:stop] == eager[start:stop]
    assert list(lazy) == eager


@pytest.mark.parametrize("position", [0, 1, 65535, 65536, 65537, 150_000, 199_999])
def test_common_ends_are_found_across_scan_blocks(position: int) -> None:
    from pi.tools.diff import _common_prefix_length, _common_suffix_length

    a = "x" * 200_000
    b = a[:position] + "y" + a[position + 1 :]
    assert _common_prefix_length(a, b) == position
    assert _common_suffix_length(a, b, 0) == 200_000 - position - 1
    assert _common_prefix_length(a, a + "z") == 200_000
    assert _common_suffix_length(a, "z" + a, 0) == 200_000


def test_large_file_diff_touches_only_the_changed_region() -> None:
    old = "".join(f"line {n}\n" for n in range(100_000))
    new = old.replace("line 50000\n", "LINE 50000\n")
    result = generate_diff_string(old, new)
    assert result.first_changed_line == 50001
    assert result.diff.count("\n") == 11  # elision, 4 context, -, +, 4 context, elision
