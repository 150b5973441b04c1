"""Properties of the edit engine over generated files: it changes what was asked and nothing else."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pi.tools.edit import EditParams, ReplaceEdit, create_edit_tool
from pi.tools.edit_engine import EditError, Replacement, apply_edits, normalize_for_fuzzy_match

# Characters that matter to the engine: blanks, quotes and dashes it folds, a BOM-like character,
# a full-width letter, a combining accent, plus plain text.
ALPHABET = "ab c\t'\"-\u2019\u201c\u2014\u00a0Ａe\u0301\ufeffx"

line_text = st.text(alphabet=ALPHABET, max_size=12)
lines_strategy = st.lists(line_text, min_size=1, max_size=8)
new_text_strategy = st.text(alphabet=ALPHABET + "\n", max_size=15)


def occurrences(text: str, part: str) -> int:
    return sum(1 for n in range(len(text)) if text.startswith(part, n))


def build_raw(lines: list[str], final_newline: bool, crlf: bool, bom: bool) -> tuple[str, str]:
    """(text on disk, its LF/BOM-less form as the engine matches it)."""
    lf = "\n".join(lines) + ("\n" if final_newline else "")
    raw = lf.replace("\n", "\r\n") if crlf else lf
    return ("\ufeff" if bom else "") + raw, lf


@settings(max_examples=300, deadline=None)
@given(
    lines=lines_strategy,
    final_newline=st.booleans(),
    crlf=st.booleans(),
    bom=st.booleans(),
    bounds=st.tuples(st.integers(min_value=0, max_value=200), st.integers(min_value=1, max_value=30)),
    new_text=new_text_strategy,
)
def test_exact_edit_changes_only_the_replaced_range(
    lines: list[str], final_newline: bool, crlf: bool, bom: bool, bounds: tuple[int, int], new_text: str
) -> None:
    raw, lf = build_raw(lines, final_newline, crlf, bom)
    assume(len(lf) > 0 and not lf.startswith("\ufeff"))
    start = bounds[0] % len(lf)
    old_text = lf[start : start + bounds[1]]
    assume(old_text and occurrences(lf, old_text) == 1)
    assume(occurrences(normalize_for_fuzzy_match(lf), normalize_for_fuzzy_match(old_text)) == 1)
    assume(new_text != old_text)
    # A model may send either newline style; it must not matter.
    sent_old = old_text.replace("\n", "\r\n") if crlf else old_text
    outcome = apply_edits(raw, [Replacement(sent_old, new_text)], "f")
    expected_lf = lf[:start] + new_text + lf[start + len(old_text) :]
    # A file without any newline has no style to keep; it counts as LF.
    is_crlf = crlf and "\n" in lf
    ending = "\r\n" if is_crlf else "\n"
    expected = ("\ufeff" if bom else "") + expected_lf.replace("\n", ending)
    assert outcome.final_text == expected
    if is_crlf:
        assert "\n" not in outcome.final_text.replace("\r\n", "")


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.text(alphabet="ab c'\"-", max_size=10), min_size=2, max_size=8),
    trailing=st.lists(st.sampled_from(["", " ", "  \t", "\u00a0"]), min_size=8, max_size=8),
    span=st.tuples(st.integers(min_value=0, max_value=7), st.integers(min_value=1, max_value=3)),
    new_text=st.text(alphabet="xyz\n", max_size=10),
    crlf=st.booleans(),
    bom=st.booleans(),
)
def test_fuzzy_edit_rewrites_only_the_lines_it_touches(
    lines: list[str], trailing: list[str], span: tuple[int, int], new_text: str, crlf: bool, bom: bool
) -> None:
    padded = [line + trailing[n] for n, line in enumerate(lines)]
    raw, lf = build_raw(padded, True, crlf, bom)
    first = span[0] % len(lines)
    last = min(len(lines), first + span[1]) - 1
    old_text = "\n".join(line.rstrip(" \t\u00a0") for line in padded[first : last + 1])
    # A leading newline would belong to the line before the range; that line is then touched too.
    assume(old_text.strip() and not old_text.startswith("\n"))
    try:
        outcome = apply_edits(raw, [Replacement(old_text, new_text)], "f")
    except EditError:
        return  # ambiguous or a no-op: covered by the failure property below
    result_lines = outcome.new_content.split("\n")
    original_lines = lf.split("\n")
    # Lines before the touched range are copied byte for byte; so are those after it.
    assert result_lines[:first] == original_lines[:first]
    after = len(original_lines) - (last + 1)
    assert result_lines[len(result_lines) - after :] == original_lines[last + 1 :]
    assert outcome.final_text.startswith("\ufeff") == bom
    if crlf:
        assert "\n" not in outcome.final_text.replace("\r\n", "")


@settings(max_examples=150, deadline=None)
@given(
    content=st.binary(max_size=60).map(lambda b: b.replace(b"\x00", b"")) | st.text(ALPHABET + "\n\r").map(str.encode),
    old_texts=st.lists(st.text(alphabet=ALPHABET + "\n", max_size=6), min_size=1, max_size=3),
    new_text=st.text(alphabet="XY\n", max_size=4),
)
def test_failed_edit_leaves_the_file_byte_identical(content: bytes, old_texts: list[str], new_text: str) -> None:
    async def scenario(directory: str) -> None:
        target = Path(directory) / "f.txt"
        target.write_bytes(content)
        tool = create_edit_tool(directory)
        params = EditParams(path="f.txt", edits=[ReplaceEdit(old_text=old, new_text=new_text) for old in old_texts])
        try:
            await tool.execute("id", params, None, None)
        except Exception:
            assert target.read_bytes() == content
            assert [p.name for p in Path(directory).iterdir()] == ["f.txt"]

    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(scenario(directory))


@settings(max_examples=500, deadline=None)
@given(text=st.text(alphabet=ALPHABET + "\n\x0b\x0c\x85\u2028\u3000\uff01", max_size=40), collapse=st.booleans())
def test_whole_text_normalisation_equals_the_per_line_definition(text: str, collapse: bool) -> None:
    from pi.tools.edit_engine import normalize_fuzzy_line as _normalize_line

    per_line = "\n".join(_normalize_line(line, collapse) for line in text.split("\n"))
    assert normalize_for_fuzzy_match(text, collapse_whitespace=collapse) == per_line
