"""Edits that do not match as sent but mean one place unambiguously: other indentation, escaped newlines.

The TypeScript pi refuses these; we apply them, and refuse whenever two places fit equally well.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pi.tools.edit import EditParams, create_edit_tool
from pi.tools.edit_engine import EditError, Replacement, apply_edits

PY = "def f(x):\n    if x:\n        return 1\n    return 2\n"


def applied(content: str, old: str, new: str) -> str:
    return apply_edits(content, [Replacement(old, new)], "m.py").final_text


@pytest.mark.parametrize(
    ("content", "old", "new", "expected"),
    [
        pytest.param(  # the block copied out of context, dedented
            PY,
            "if x:\n    return 1",
            "if x:\n    return 10",
            "def f(x):\n    if x:\n        return 10\n    return 2\n",
            id="dedented",
        ),
        pytest.param(  # over-indented
            PY,
            "            if x:\n                return 1\n",
            "            if not x:\n                return 1\n",
            "def f(x):\n    if not x:\n        return 1\n    return 2\n",
            id="over-indented",
        ),
        pytest.param(  # spaces sent, the file uses tabs
            "def f(x):\n\tif x:\n\t\treturn 1\n",
            "    if x:\n        return 1",
            "    if x:\n        log(x)\n        return 1",
            "def f(x):\n\tif x:\n\t\tlog(x)\n\t\treturn 1\n",
            id="spaces-for-tabs",
        ),
        pytest.param(  # tabs sent, the file uses two spaces
            "a:\n  b:\n    c\n",
            "\tb:\n\t\tc",
            "\tb:\n\t\tc\n\t\td",
            "a:\n  b:\n    c\n    d\n",
            id="tabs-for-spaces",
        ),
        pytest.param(  # blank lines inside the block need not carry the file's trailing blanks
            "x\n    a\n    \n    b\n",
            "a\n\nb",
            "a\n\nB",
            "x\n    a\n\n    B\n",
            id="blank-lines",
        ),
    ],
)
def test_indentation_only_differences_are_applied_reindented(content: str, old: str, new: str, expected: str) -> None:
    assert applied(content, old, new) == expected


def test_indentation_match_keeps_crlf() -> None:
    content = PY.replace("\n", "\r\n")
    assert applied(content, "if x:\n    return 1", "if x:\n    return 3") == PY.replace("return 1", "return 3").replace(
        "\n", "\r\n"
    )


def test_two_places_matching_apart_from_indentation_are_refused() -> None:
    content = "class A:\n    def run(self):\n        go()\n\n\ndef run(self):\n    go()\n"
    with pytest.raises(EditError) as caught:
        applied(content, "  def run(self):\n      go()", "  def run(self):\n      stop()")
    assert str(caught.value).startswith(
        "Found 2 places in m.py that match the text apart from indentation (starting at lines 2, 6)."
    )


def test_indentation_that_follows_no_single_rule_is_not_guessed() -> None:
    content = "a\n    b\n  c\n"
    with pytest.raises(EditError, match=r"^Could not find the exact text in m\.py"):
        applied(content, "a\n b\n c", "x")


def test_escaped_newlines_are_matched_against_real_ones() -> None:
    content = "first\nsecond\nthird\n"
    assert applied(content, "first\\nsecond", "one\\ntwo") == "one\ntwo\nthird\n"


def test_escaped_newlines_keep_escapes_in_new_text_that_has_real_newlines() -> None:
    content = 'print("a")\nprint("b")\n'
    result = applied(content, 'print(\\"a\\")\\nprint(\\"b\\")', 'print("a\\\\n")\nprint("b")')
    assert result == 'print("a\\\\n")\nprint("b")\n'


def test_literal_backslash_n_in_the_file_is_matched_as_is() -> None:
    content = 'msg = "a\\nb"\n'
    assert applied(content, 'msg = "a\\nb"', 'msg = "c"') == 'msg = "c"\n'


async def test_single_edit_object_through_the_tool(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("alpha\n")
    tool = create_edit_tool(str(tmp_path))
    assert tool.prepare_arguments is not None
    raw = tool.prepare_arguments({"path": "f.txt", "edits": {"oldText": "alpha", "newText": "beta", "note": "x"}})
    await tool.execute("c", EditParams.model_validate(raw), None, None)
    assert target.read_text() == "beta\n"


# --- properties ---------------------------------------------------------------------------------------------

word = st.text(alphabet="abcxyz(){}=:", min_size=1, max_size=6)
body_line = st.tuples(st.integers(min_value=0, max_value=3), word)
indent_style = st.sampled_from(["\t", "  ", "    "])


def render(lines: list[tuple[int, str]], unit: str, base: int = 0) -> list[str]:
    return [unit * (base + level) + text for level, text in lines]


@settings(max_examples=200, deadline=None)
@given(
    before=st.lists(word, max_size=4),
    block=st.lists(body_line, min_size=1, max_size=4),
    after=st.lists(word, max_size=4),
    file_unit=indent_style,
    sent_unit=indent_style,
    file_base=st.integers(min_value=0, max_value=2),
    sent_base=st.integers(min_value=0, max_value=2),
    replacement=word,
)
def test_applied_fuzzy_edit_changes_only_the_matched_region(
    before: list[str],
    block: list[tuple[int, str]],
    after: list[str],
    file_unit: str,
    sent_unit: str,
    file_base: int,
    sent_base: int,
    replacement: str,
) -> None:
    file_block = render(block, file_unit, file_base)
    sent_block = render(block, sent_unit, sent_base)
    content = "\n".join([*before, *file_block, *after]) + "\n"
    old = "\n".join(sent_block)
    keys = [text for _, text in block]
    # The block must be findable in one place only (no other run of lines with the same words).
    lines = [line.strip() for line in content.split("\n")]
    runs = sum(1 for i in range(len(lines)) if lines[i : i + len(keys)] == keys)
    assume(runs == 1)
    assume(old not in content)  # an exact match is the ordinary engine's business, tested elsewhere
    new = "\n".join([*sent_block[:-1], sent_block[-1] + replacement])
    try:
        result = applied(content, old, new)
    except EditError:
        # Refusing is always allowed (e.g. an indentation rule that does not fit); a wrong edit never is.
        return
    result_lines = result.split("\n")
    prefix = len(before)
    suffix = len(after) + 1
    assert result_lines[:prefix] == content.split("\n")[:prefix]
    assert result_lines[len(result_lines) - suffix :] == content.split("\n")[len(content.split("\n")) - suffix :]
    changed = result_lines[prefix : len(result_lines) - suffix]
    assert [line.strip() for line in changed] == [*keys[:-1], keys[-1] + replacement]


@settings(max_examples=200, deadline=None)
@given(
    block=st.lists(body_line, min_size=1, max_size=3),
    middle=st.lists(word, min_size=1, max_size=3),
    first_base=st.integers(min_value=0, max_value=2),
    second_base=st.integers(min_value=0, max_value=2),
    sent_base=st.integers(min_value=0, max_value=3),
    unit=indent_style,
)
def test_never_applies_when_two_regions_match_equally(
    block: list[tuple[int, str]], middle: list[str], first_base: int, second_base: int, sent_base: int, unit: str
) -> None:
    assume(sent_base not in (first_base, second_base))  # neither place is an exact match, so both fit equally
    content = "\n".join([*render(block, unit, first_base), *middle, *render(block, unit, second_base)]) + "\n"
    old = "\n".join(render(block, unit, sent_base))
    assume(old not in content)
    with pytest.raises(EditError):
        applied(content, old, "REPLACED")


@settings(max_examples=50, deadline=None)
@given(block=st.lists(body_line, min_size=1, max_size=3), unit=indent_style, base=st.integers(0, 2))
def test_the_file_on_disk_is_unchanged_when_refused(block: list[tuple[int, str]], unit: str, base: int) -> None:
    content = "\n".join(render(block, unit, base) * 2) + "\n"
    with tempfile.TemporaryDirectory() as directory:
        target = Path(directory) / "f.txt"
        target.write_text(content)
        tool = create_edit_tool(directory)
        params = EditParams.model_validate(
            {"path": "f.txt", "edits": [{"oldText": "\n".join(render(block, unit, base + 1)), "newText": "Z"}]}
        )

        async def edit() -> None:
            await tool.execute("c", params, None, None)

        with pytest.raises(EditError):
            asyncio.run(edit())
        assert target.read_text() == content


def test_new_text_that_could_be_reindented_two_ways_is_refused() -> None:
    # A 4-space oldText over a 2-space file: removing 2 spaces from every line would put the new
    # body at 6 spaces, above the existing body at 4 (broken code); halving the levels would not.
    content = "def f(b):\n  if b:\n    print('c')\n"
    with pytest.raises(EditError) as caught:
        applied(content, "    if b:", "    if b:\n        print('d')")
    message = str(caught.value)
    assert message.startswith("The indentation of the text does not match m.py")
    assert "could be re-indented more than one way" in message
    assert "Copy oldText exactly as the file has it" in message
    assert "the block starts at line 2" in message


def test_dedented_copy_of_a_deep_block_keeps_the_files_unit() -> None:
    # The matched lines all sit at 8 spaces (which alone would suggest a unit of 8); the file's
    # other lines show it indents by 4, so the nested new line goes 4 deeper, as the prefix rule says.
    content = "class A:\n    def f(self):\n        a = 1\n        b = 2\n"
    result = applied(content, "a = 1\nb = 2", "a = 1\nif a:\n    b = 2")
    assert result == "class A:\n    def f(self):\n        a = 1\n        if a:\n            b = 2\n"


@st.composite
def nested_block(draw: st.DrawFn) -> list[tuple[int, str]]:
    """Lines whose levels start at 0 and grow by at most one level at a time, as code nests."""
    words = draw(st.lists(word, min_size=1, max_size=4))
    levels = [0]
    for _ in words[1:]:
        levels.append(draw(st.integers(min_value=0, max_value=levels[-1] + 1)))
    return list(zip(levels, words, strict=True))


@settings(max_examples=300, deadline=None)
@given(
    block=nested_block(),
    added=word,
    at=st.integers(min_value=0, max_value=3),
    deeper=st.booleans(),
    file_unit=indent_style,
    sent_unit=indent_style,
    file_base=st.integers(min_value=0, max_value=2),
    sent_base=st.integers(min_value=0, max_value=2),
)
def test_applied_reindented_edit_keeps_the_new_lines_levels_in_the_files_unit(
    block: list[tuple[int, str]],
    added: str,
    at: int,
    deeper: bool,
    file_unit: str,
    sent_unit: str,
    file_base: int,
    sent_base: int,
) -> None:
    # A preamble that shows the file's unit, then the block; the model sends the block in its own
    # unit and depth, with one line added after line `at` (nested one level deeper, or not).
    preamble = ["p0:", file_unit + "p1:", file_unit * 2 + "p2"]
    content = "\n".join([*preamble, *render(block, file_unit, file_base), "end"]) + "\n"
    at = min(at, len(block) - 1)
    new_block = [*block[: at + 1], (block[at][0] + int(deeper), "ADDED" + added), *block[at + 1 :]]
    old = "\n".join(render(block, sent_unit, sent_base))
    new = "\n".join(render(new_block, sent_unit, sent_base))
    assume(old not in content)
    stripped = [line.strip() for line in content.split("\n")]
    keys = [text for _, text in block]
    assume(sum(1 for i in range(len(stripped)) if stripped[i : i + len(keys)] == keys) == 1)
    try:
        result = applied(content, old, new)
    except EditError:
        return  # refusing is allowed; re-indenting the new lines to other relative levels is not
    expected = "\n".join([*preamble, *render(new_block, file_unit, file_base), "end"]) + "\n"
    assert result == expected
