"""The edit engine on its own: normalisation, matching, line endings, diagnostics, argument repair."""

from __future__ import annotations

import json

import pytest

from pi.tools.edit_arguments import prepare_edit_arguments
from pi.tools.edit_engine import (
    EditError,
    Replacement,
    apply_edits,
    apply_edits_to_normalized_content,
    closest_match_hint,
    detect_line_ending,
    normalize_for_fuzzy_match,
    normalize_to_lf,
    strip_bom,
)


def test_strip_bom_splits_off_only_a_leading_bom() -> None:
    assert strip_bom("\ufeffabc") == ("\ufeff", "abc")
    assert strip_bom("a\ufeffbc") == ("", "a\ufeffbc")


@pytest.mark.parametrize(
    ("text", "ending"),
    [
        ("a\r\nb\n", "\r\n"),
        ("a\nb\r\n", "\n"),
        ("no newline", "\n"),
        ("\nfirst", "\n"),
        ("lone\rcr\n", "\n"),
    ],
)
def test_first_newline_decides_the_line_ending(text: str, ending: str) -> None:
    assert detect_line_ending(text) == ending


def test_normalize_to_lf() -> None:
    assert normalize_to_lf("a\r\nb\rc\n") == "a\nb\nc\n"


# --- line endings of untouched text (1.6.0) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "old", "new", "expected"),
    [
        ("a\r\nb\nc\r\n", "b", "B\nB2", "a\r\nB\nB2\nc\r\n"),  # delta §8.3, verified against 1.6.0
        ("a\rb\rc", "b", "B", "a\rB\rc"),
        ("a\rb\rc", "b", "B\nC", "a\rB\rC\rc"),  # no LF at all: CR is the line break
        ("a\r\nb\r\nc\n", "b\r\nc", "x\ny", "a\r\nx\r\ny\n"),  # breaks take the starting line's
        ("x\ry\nz\n", "y", "Y", "x\rY\nz\n"),  # a lone CR in an LF file is content, kept
        ("a\r\nlast", "last", "l1\nl2", "a\r\nl1\r\nl2"),  # last line has no break: the one before
    ],
)
def test_line_endings_of_untouched_text_are_preserved(raw: str, old: str, new: str, expected: str) -> None:
    assert apply_edits(raw, [Replacement(old, new)], "f").final_text == expected


def test_mixed_endings_survive_a_multi_edit_and_a_fuzzy_edit() -> None:
    raw = "one\r\ntwo \u201cq\u201d\nthree\r\nfour\n"
    outcome = apply_edits(raw, [Replacement("one", "1"), Replacement('two "q"', "2")], "f")
    assert outcome.final_text == "1\r\n2\nthree\r\nfour\n"
    assert outcome.used_fuzzy_match


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\u2018q\u2019 \u201a\u201b", "'q' ''"),
        ("\u201cq\u201d \u201e\u201f", '"q" ""'),
        ("a\u2010b\u2011c\u2012d\u2013e\u2014f\u2015g\u2212h", "a-b-c-d-e-f-g-h"),
        ("a\u00a0b\u2002c\u2009d\u202fe\u205ff\u3000g", "a b c d e f g"),
        ("ＡＢＣ１２３", "ABC123"),
        ("cafe\u0301", "caf\u00e9"),
        ("trail \t\u00a0\ufeff\nnext  ", "trail\nnext"),
        ("    indented  inner  runs", "    indented  inner  runs"),
    ],
)
def test_fuzzy_normalisation(text: str, expected: str) -> None:
    assert normalize_for_fuzzy_match(text) == expected


def test_fuzzy_normalisation_keeps_characters_javascript_does_not_trim() -> None:
    # U+0085 and U+001C..U+001F are whitespace to Python but not to JavaScript's trimEnd.
    assert normalize_for_fuzzy_match("a\x85") == "a\x85"
    assert normalize_for_fuzzy_match("a\x1c\x1f") == "a\x1c\x1f"


def test_fuzzy_normalisation_keeps_the_line_count() -> None:
    text = "x  \n\u2014\n\n  \nＡ\n"
    assert normalize_for_fuzzy_match(text).count("\n") == text.count("\n")


def test_collapse_whitespace_option_folds_interior_runs_only() -> None:
    assert normalize_for_fuzzy_match("    a  \t b   ", collapse_whitespace=True) == "    a b"


def test_edits_are_matched_against_the_original() -> None:
    applied = apply_edits_to_normalized_content("a b\n", [Replacement("a", "b"), Replacement("b", "c")], "f")
    assert applied.new_content == "b c\n"


def test_interior_whitespace_matches_only_with_the_option() -> None:
    with pytest.raises(EditError, match="Could not find"):
        apply_edits_to_normalized_content("a  b\n", [Replacement("a b", "X")], "f")
    applied = apply_edits_to_normalized_content("a  b\n", [Replacement("a b", "X")], "f", collapse_whitespace=True)
    assert applied.new_content == "X\n"


def test_collapse_option_keeps_the_uniqueness_guard() -> None:
    with pytest.raises(EditError, match="Found 2 occurrences"):
        apply_edits_to_normalized_content("a  b\na b\n", [Replacement("a b", "X")], "f", collapse_whitespace=True)


def test_fuzzy_edits_sharing_a_line_are_applied_together() -> None:
    applied = apply_edits_to_normalized_content(
        "keep   \n\u201ca\u201d and \u201cb\u201d   \nkeep   \n",
        [Replacement('"a"', "A"), Replacement('"b"', "B")],
        "f",
    )
    assert applied.new_content == "keep   \nA and B\nkeep   \n"


def test_apply_edits_restores_bom_and_crlf() -> None:
    outcome = apply_edits("\ufeffx\r\ny\r\n", [Replacement("y", "z")], "f")
    assert outcome.final_text == "\ufeffx\r\nz\r\n"
    assert outcome.base_content == "x\ny\n"
    assert outcome.new_content == "x\nz\n"
    assert outcome.bom == "\ufeff" and outcome.line_ending == "\r\n"


# --- not-found diagnostics ------------------------------------------------------------------------


def test_not_found_keeps_the_first_sentence_and_points_at_the_closest_match() -> None:
    content = "".join(f"line {n}\n" for n in range(1, 21)) + "def compute_total(items):\n    return sum(items)\n"
    with pytest.raises(EditError) as caught:
        apply_edits_to_normalized_content(content, [Replacement("def compute_total(values):\n    pass", "x")], "m.py")
    lines = str(caught.value).split("\n")
    assert lines[0] == (
        "Could not find the exact text in m.py. The old text must match exactly including all whitespace and newlines."
    )
    assert lines[1] == "Closest match is around line 21:"
    assert "  21: def compute_total(items):" in lines
    assert "  19: line 19" in lines
    assert "  22:     return sum(items)" in lines


def test_closest_match_falls_back_to_the_file_start_and_reports_empty_files() -> None:
    assert closest_match_hint("", "anything") == "File is empty."
    hint = closest_match_hint("a\nb\nc\nd\ne\nf\n", "zzz")
    assert hint == "File starts with:\n  1: a\n  2: b\n  3: c\n  4: d\n  5: e"


def test_multi_edit_not_found_names_the_edit() -> None:
    with pytest.raises(EditError) as caught:
        apply_edits_to_normalized_content("abc\n", [Replacement("abc", "x"), Replacement("nope", "y")], "f")
    assert str(caught.value).startswith(
        "Could not find edits[1] in f. The oldText must match exactly including all whitespace and newlines.\n"
    )


# --- argument repair ------------------------------------------------------------------------------


def test_prepare_parses_edits_sent_as_a_json_string() -> None:
    raw = {"path": "f", "edits": json.dumps([{"oldText": "a", "newText": "b"}])}
    assert prepare_edit_arguments(raw) == {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]}


def test_prepare_wraps_a_single_edit_object() -> None:
    edit = {"oldText": "a", "newText": "b"}
    assert prepare_edit_arguments({"path": "f", "edits": edit}) == {"path": "f", "edits": [edit]}
    assert prepare_edit_arguments({"path": "f", "edits": json.dumps(edit)}) == {"path": "f", "edits": [edit]}


@pytest.mark.parametrize(
    "edits",
    ["[{", '"just text"', '[{"oldText": "a"}]', "[1]"],
    ids=["invalid-json", "not-an-edit", "missing-newText", "not-objects"],
)
def test_prepare_leaves_unusable_strings_for_validation(edits: str) -> None:
    assert prepare_edit_arguments({"path": "f", "edits": edits}) == {"path": "f", "edits": edits}


@pytest.mark.parametrize(
    ("old_key", "new_key"), [("oldText", "newText"), ("old_text", "new_text"), ("old_string", "new_string")]
)
def test_prepare_folds_flat_fields_into_edits(old_key: str, new_key: str) -> None:
    repaired = prepare_edit_arguments({"path": "f", old_key: "a", new_key: "b"})
    assert repaired == {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]}


def test_prepare_appends_flat_fields_after_existing_edits() -> None:
    repaired = prepare_edit_arguments(
        {"path": "f", "edits": [{"oldText": "a", "newText": "A"}], "oldText": "b", "newText": "B"}
    )
    assert repaired["edits"] == [{"oldText": "a", "newText": "A"}, {"oldText": "b", "newText": "B"}]


def test_prepare_drops_a_non_array_edits_when_flat_fields_are_given() -> None:
    repaired = prepare_edit_arguments({"path": "f", "edits": 7, "oldText": "b", "newText": "B"})
    assert repaired == {"path": "f", "edits": [{"oldText": "b", "newText": "B"}]}


def test_prepare_passes_non_objects_and_incomplete_flat_fields_through() -> None:
    assert prepare_edit_arguments("text") == "text"
    assert prepare_edit_arguments({"path": "f", "oldText": "a"}) == {"path": "f", "oldText": "a"}


def test_prepare_does_not_mutate_its_input() -> None:
    raw = {"path": "f", "oldText": "a", "newText": "b"}
    prepare_edit_arguments(raw)
    assert raw == {"path": "f", "oldText": "a", "newText": "b"}


def test_overlapping_occurrences_count_as_ambiguous() -> None:
    with pytest.raises(EditError, match=r"^Found 2 occurrences of the text in f"):
        apply_edits_to_normalized_content("aXaXa\n", [Replacement("aXa", "b")], "f")


def test_ambiguous_text_names_the_lines_where_it_occurs() -> None:
    with pytest.raises(EditError) as caught:
        apply_edits_to_normalized_content("x = 1\ny = 2\nx = 1\n", [Replacement("x = 1", "x = 3")], "f")
    assert str(caught.value).endswith(
        "\nThey start at lines 1, 3; include a neighbouring line that differs between them."
    )
