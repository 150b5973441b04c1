"""The `edit` tool: conformance cases of tools.md §8.6 and §8.7, plus what it keeps intact."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from pi.agent.tool import AgentTool, AgentToolResult
from pi.ai.abort import AbortController
from pi.ai.types import TextContent
from pi.ai.validation import ToolValidationError, validate_model_arguments
from pi.tools.diff import DiffResult
from pi.tools.edit import (
    EditParams,
    EditToolDetails,
    EditToolOptions,
    LocalEditOperations,
    ReplaceEdit,
    compute_edits_diff,
    create_edit_tool,
)
from pi.tools.edit_engine import EditError
from pi.tools.fs_errors import FileToolError


def text_of(result: AgentToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def call(tool: AgentTool[EditParams], raw: dict[str, Any], signal: Any = None) -> AgentToolResult:
    """What the agent loop does with a tool call: repair, validate, execute."""
    assert tool.prepare_arguments is not None
    params = validate_model_arguments(tool.name, tool.parameters, tool.prepare_arguments(raw))
    assert isinstance(params, EditParams)
    return await tool.execute("call-1", params, signal, None)


EMPTY_HINT = (
    "\nCopy the text to replace from the file; to insert text, put a neighbouring line in both oldText and newText."
)


def edits(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"oldText": old, "newText": new} for old, new in pairs]


@pytest.fixture
def tool(tmp_path: Path) -> AgentTool[EditParams]:
    return create_edit_tool(str(tmp_path))


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    target = tmp_path / name
    target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return target


# --- §8.6 results, errors, argument repair --------------------------------------------------------


async def test_c67_success_message_diff_and_patch(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    target = write(tmp_path, "f.txt", "Hello, world!")
    result = await call(tool, {"path": "f.txt", "edits": edits(("world", "testing"))})
    assert text_of(result) == "Successfully replaced 1 block(s) in f.txt."
    assert target.read_text() == "Hello, testing!"
    details = result.details
    assert isinstance(details, EditToolDetails)
    assert details.diff == "-1 Hello, world!\n+1 Hello, testing!"
    assert details.first_changed_line == 1
    assert details.patch == (
        "--- f.txt\n+++ f.txt\n@@ -1,1 +1,1 @@\n-Hello, world!\n\\ No newline at end of file\n"
        "+Hello, testing!\n\\ No newline at end of file\n"
    )


@pytest.mark.parametrize(
    ("content", "raw_edits", "message"),
    [
        pytest.param(
            "Hello, world!",
            edits(("absent", "x")),
            "Could not find the exact text in f.txt. "
            "The old text must match exactly including all whitespace and newlines.",
            id="c68",
        ),
        pytest.param(
            "foo foo foo",
            edits(("foo", "bar")),
            "Found 3 occurrences of the text in f.txt. The text must be unique. "
            "Please provide more context to make it unique.",
            id="c69",
        ),
        pytest.param(
            "alpha beta",
            edits(("alpha", "A"), ("gamma", "G")),
            "Could not find edits[1] in f.txt. The oldText must match exactly including all whitespace and newlines.",
            id="c70",
        ),
        pytest.param(
            "dup dup single",
            edits(("dup", "D"), ("single", "S")),
            "Found 2 occurrences of edits[0] in f.txt. Each oldText must be unique. "
            "Please provide more context to make it unique.",
            id="c71",
        ),
        pytest.param("abc", edits(("", "x")), "oldText must not be empty in f.txt.", id="c72-single"),
        pytest.param(
            "abc",
            edits(("zzz", "x"), ("", "y")),
            "edits[1].oldText must not be empty in f.txt.",
            id="c72-multi",
        ),
        pytest.param(
            "abcdef\n",
            edits(("abc", "X"), ("cde", "Y")),
            "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions.",
            id="c73-forward",
        ),
        pytest.param(
            "abcdef\n",
            edits(("cde", "Y"), ("abc", "X")),
            "edits[1] and edits[0] overlap in f.txt. Merge them into one edit or target disjoint regions.",
            id="c73-reverse",
        ),
        pytest.param(
            "Hello there",
            edits(("Hello", "Hello")),
            "No changes made to f.txt. The replacement produced identical content. "
            "This might indicate an issue with special characters or the text not existing as expected. "
            "Read the file again to see its current text.",
            id="c76-single",
        ),
        pytest.param(
            "Hello there",
            edits(("Hello", "Hello"), ("there", "there")),
            "No changes made to f.txt. The replacements produced identical content. "
            "Read the file again to see its current text.",
            id="c76-multi",
        ),
    ],
)
async def test_engine_errors_leave_the_file_unchanged(
    tool: AgentTool[EditParams], tmp_path: Path, content: str, raw_edits: list[dict[str, str]], message: str
) -> None:
    target = write(tmp_path, "f.txt", content)
    with pytest.raises(Exception) as caught:
        await call(tool, {"path": "f.txt", "edits": raw_edits})
    # Not-found errors carry a closest-match hint after the quoted first line (decision D9).
    assert str(caught.value).split("\n")[0] == message
    assert target.read_text() == content


async def test_empty_old_text_says_what_to_send(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "abc")
    with pytest.raises(Exception) as caught:
        await call(tool, {"path": "f.txt", "edits": edits(("", "x"))})
    assert str(caught.value) == "oldText must not be empty in f.txt." + EMPTY_HINT


async def test_c74_touching_edits(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    target = write(tmp_path, "f.txt", "abcdef\n")
    result = await call(tool, {"path": "f.txt", "edits": edits(("abc", "X"), ("def", "Y"))})
    assert text_of(result) == "Successfully replaced 2 block(s) in f.txt."
    assert target.read_text() == "XY\n"


async def test_c75_edits_apply_to_the_original(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    target = write(tmp_path, "f.txt", "a b\n")
    await call(tool, {"path": "f.txt", "edits": edits(("a", "b"), ("b", "c"))})
    assert target.read_text() == "b c\n"


async def test_c77_edits_as_a_json_string(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    target = write(tmp_path, "f.txt", "a\n")
    result = await call(tool, {"path": "f.txt", "edits": '[{"oldText":"a","newText":"b"}]'})
    assert text_of(result) == "Successfully replaced 1 block(s) in f.txt."
    assert target.read_text() == "b\n"


@pytest.mark.parametrize("raw_edits", [pytest.param("[{", id="c78"), pytest.param('[{"oldText":"a"}]', id="c79")])
async def test_unusable_edits_strings_fail_validation(
    tool: AgentTool[EditParams], tmp_path: Path, raw_edits: str
) -> None:
    write(tmp_path, "f.txt", "a\n")
    with pytest.raises(ToolValidationError) as caught:
        await call(tool, {"path": "f.txt", "edits": raw_edits})
    assert str(caught.value).split("\n")[0] == 'Validation failed for tool "edit":'


async def test_c80_legacy_flat_fields(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    target = write(tmp_path, "f.txt", "old\n")
    result = await call(tool, {"path": "f.txt", "oldText": "old", "newText": "new"})
    assert text_of(result) == "Successfully replaced 1 block(s) in f.txt."
    assert target.read_text() == "new\n"


async def test_c81_legacy_fields_plus_edits(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    target = write(tmp_path, "f.txt", "a b\n")
    result = await call(tool, {"path": "f.txt", "edits": edits(("a", "A")), "oldText": "b", "newText": "B"})
    assert text_of(result) == "Successfully replaced 2 block(s) in f.txt."
    assert target.read_text() == "A B\n"


async def test_old_string_variant_is_repaired(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    target = write(tmp_path, "f.txt", "x = 1\n")
    await call(tool, {"path": "f.txt", "old_string": "1", "new_string": "2"})
    assert target.read_text() == "x = 2\n"


async def test_c82_empty_edits(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\n")
    with pytest.raises(FileToolError, match=r"^Edit tool input is invalid\. edits must contain at least one"):
        await call(tool, {"path": "f.txt", "edits": []})


async def test_c83_missing_file(tool: AgentTool[EditParams]) -> None:
    with pytest.raises(FileToolError) as caught:
        await call(tool, {"path": "nope.txt", "edits": edits(("a", "b"))})
    assert str(caught.value) == (
        "Could not edit file: nope.txt. Error code: ENOENT.\n"
        "The file does not exist: check the path with ls, or create the file with write."
    )


class _DeniedOps(LocalEditOperations):
    """Stands in for a 0444 file: the suite runs as root, for whom permission bits do not apply."""

    async def access(self, path: str) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", path)


async def test_c84_unwritable_file(tmp_path: Path) -> None:
    target = write(tmp_path, "ro.txt", "a\n")
    tool = create_edit_tool(str(tmp_path), EditToolOptions(operations=_DeniedOps()))
    with pytest.raises(FileToolError) as caught:
        await call(tool, {"path": "ro.txt", "edits": edits(("a", "b"))})
    assert str(caught.value) == (
        "Could not edit file: ro.txt. Error code: EACCES.\nThe file is not writable: check its permissions with ls -l."
    )
    assert target.read_text() == "a\n"


async def test_c85_directory(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(FileToolError, match="EISDIR"):
        await call(tool, {"path": "dir", "edits": edits(("a", "b"))})


async def test_c86_symlink_target_changes_and_link_stays(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    target = write(tmp_path, "real.txt", "one\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    await call(tool, {"path": "link.txt", "edits": edits(("one", "two"))})
    assert link.is_symlink()
    assert target.read_text() == "two\n"


async def test_c87_aborted_before_start(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    target = write(tmp_path, "f.txt", "a\n")
    controller = AbortController()
    controller.abort()
    with pytest.raises(FileToolError, match=r"^Operation aborted$"):
        await call(tool, {"path": "f.txt", "edits": edits(("a", "b"))}, controller.signal)
    assert target.read_text() == "a\n"


# --- §8.7 line endings, BOM, fuzzy matching -------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "raw_edits", "expected"),
    [
        pytest.param(
            b"first\r\nsecond\r\nthird\r\n",
            edits(("second\n", "REPLACED\n")),
            b"first\r\nREPLACED\r\nthird\r\n",
            id="c88",
        ),
        pytest.param(
            b"first\nsecond\nthird\n", edits(("second\n", "REPLACED\n")), b"first\nREPLACED\nthird\n", id="c89"
        ),
        pytest.param(
            "\ufefffirst\r\nsecond\r\nthird\r\n".encode(),
            edits(("second\n", "REPLACED\n")),
            b"\xef\xbb\xbffirst\r\nREPLACED\r\nthird\r\n",
            id="c90",
        ),
        # 1.6.0: the line breaks of untouched lines are kept, also in files that mix them.
        pytest.param(b"a\r\nb\nc\r\n", edits(("b", "B")), b"a\r\nB\nc\r\n", id="c92-crlf-first"),
        pytest.param(b"a\nb\r\nc\n", edits(("b", "B")), b"a\nB\r\nc\n", id="c92-lf-first"),
        pytest.param(b"a\r\nb\nc\r\n", edits(("b", "B\nB2")), b"a\r\nB\nB2\nc\r\n", id="c92-new-lines"),
        pytest.param(b"a\rb\rc", edits(("b", "B")), b"a\rB\rc", id="c93"),
        pytest.param(b"first\nsecond\nthird\n", edits(("second\r\n", "2\r\n")), b"first\n2\nthird\n", id="c94"),
        pytest.param(
            b"line one   \nline two  \nline three\n",
            edits(("line one\nline two\n", "replaced\n")),
            b"replaced\nline three\n",
            id="c95",
        ),
        pytest.param(
            b"untouched   \nreplace me   \nafter\ntrailing   \n",
            edits(("replace me\nafter", "DONE\nDONE2")),
            b"untouched   \nDONE\nDONE2\ntrailing   \n",
            id="c96",
        ),
        pytest.param(
            "console.log(\u2018hello\u2019);\n".encode(),
            edits(("console.log('hello');", "console.log('world');")),
            b"console.log('world');\n",
            id="c97",
        ),
        pytest.param(
            "const msg = \u201cHello World\u201d;\n".encode(),
            edits(('const msg = "Hello World";', 'const msg = "Goodbye";')),
            b'const msg = "Goodbye";\n',
            id="c98",
        ),
        pytest.param(
            "range: 1\u20135\nbreak\u2014here\n".encode(),
            edits(("range: 1-5\nbreak-here", "range: 10-50\nbreak--here")),
            b"range: 10-50\nbreak--here\n",
            id="c99",
        ),
        pytest.param(
            "hello\u00a0world\n".encode(), edits(("hello world", "hello universe")), b"hello universe\n", id="c100"
        ),
        pytest.param(
            "你好，世界\n你好（世界）\n".encode(),
            edits(("你好,世界\n你好(世界)\n", "你好，pi\n你好(pi)\n")),
            "你好，pi\n你好(pi)\n".encode(),
            id="c101",
        ),
        pytest.param(
            "ＡＢＣ１２３\ncafe\u0301\n".encode(),
            edits(("ABC123\ncafé\n", "XYZ789\ncoffee\n")),
            b"XYZ789\ncoffee\n",
            id="c102",
        ),
        pytest.param(
            b"const x = 'exact';\nconst y = 'other';\n",
            edits(("const x = 'exact';", "const x = 'changed';")),
            b"const x = 'changed';\nconst y = 'other';\n",
            id="c103",
        ),
        pytest.param(
            "x = \u201ca\u201d\ny = 1   \nz = 2   \n".encode(),
            edits(('x = "a"', 'x = "b"'), ("y = 1", "y = 2")),
            b'x = "b"\ny = 2\nz = 2   \n',
            id="c107",
        ),
        pytest.param(
            b"hello world   \nx\n", edits(("hello world\nx", "hello world\nx")), b"hello world\nx\n", id="c108"
        ),
    ],
)
async def test_line_endings_bom_and_fuzzy_matching(
    tool: AgentTool[EditParams], tmp_path: Path, content: bytes, raw_edits: list[dict[str, str]], expected: bytes
) -> None:
    target = write(tmp_path, "f.txt", content)
    result = await call(tool, {"path": "f.txt", "edits": raw_edits})
    assert text_of(result) == f"Successfully replaced {len(raw_edits)} block(s) in f.txt."
    assert target.read_bytes() == expected


@pytest.mark.parametrize(
    ("content", "old_text", "message_start"),
    [
        pytest.param(
            "hello\r\nworld\r\n---\r\nhello\nworld\n", "hello\nworld\n", "Found 2 occurrences of the text", id="c91"
        ),
        pytest.param("hello world   \nhello world\n", "hello world", "Found 2 occurrences of the text", id="c104"),
        pytest.param(
            "completely different content\n", "this does not exist", "Could not find the exact text", id="c105"
        ),
        pytest.param("a  b\n", "a b", "Could not find the exact text", id="c106-interior"),
    ],
)
async def test_fuzzy_matching_limits(
    tool: AgentTool[EditParams], tmp_path: Path, content: str, old_text: str, message_start: str
) -> None:
    target = write(tmp_path, "f.txt", content.encode())
    with pytest.raises(Exception, match=f"^{message_start} in f.txt"):
        await call(tool, {"path": "f.txt", "edits": edits((old_text, "X"))})
    assert target.read_bytes() == content.encode()


async def test_c106_collapse_whitespace_option(tmp_path: Path) -> None:
    target = write(tmp_path, "f.txt", "a  b\n")
    tool = create_edit_tool(str(tmp_path), EditToolOptions(collapse_whitespace=True))
    await call(tool, {"path": "f.txt", "edits": edits(("a b", "X"))})
    assert target.read_text() == "X\n"


# --- what the tool keeps intact -------------------------------------------------------------------


async def test_invalid_utf8_bytes_elsewhere_survive(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    target = write(tmp_path, "f.bin", b"keep \xff\xfe bytes\nchange me\n\x80 tail\n")
    result = await call(tool, {"path": "f.bin", "edits": edits(("change me", "changed"))})
    assert target.read_bytes() == b"keep \xff\xfe bytes\nchanged\n\x80 tail\n"
    assert isinstance(result.details, EditToolDetails)
    assert "\ufffd tail" in result.details.diff


async def read_text_of(tmp_path: Path, name: str) -> str:
    from pi.tools.read import ReadParams, create_read_tool

    return text_of(await create_read_tool(str(tmp_path)).execute("r", ReadParams(path=name), None, None))


async def test_old_text_copied_from_read_matches_undecodable_bytes(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    # \xe2\x82 is one cut-off sequence (read shows one U+FFFD), \xe2\xff are two (two U+FFFD).
    target = write(tmp_path, "f.txt", b"keep \xff\nb\xe2\x82 x\xe2\xff y\nz \x80\n")
    shown = (await read_text_of(tmp_path, "f.txt")).split("\n")[1]
    assert shown == "b\ufffd x\ufffd\ufffd y"
    await call(tool, {"path": "f.txt", "edits": edits((shown, "B x y"))})
    assert target.read_bytes() == b"keep \xff\nB x y\nz \x80\n"


async def test_one_replacement_character_matches_one_undecodable_sequence_only(
    tool: AgentTool[EditParams], tmp_path: Path
) -> None:
    target = write(tmp_path, "f.txt", b"a\xe2\xffb\n")
    with pytest.raises(EditError, match="Could not find the exact text"):
        await call(tool, {"path": "f.txt", "edits": edits(("a\ufffdb", "ab"))})
    await call(tool, {"path": "f.txt", "edits": edits(("\ufffdb", "b"))})
    assert target.read_bytes() == b"a\xe2b\n"


async def test_text_with_replacement_characters_matching_two_places_is_refused(
    tool: AgentTool[EditParams], tmp_path: Path
) -> None:
    target = write(tmp_path, "f.txt", b"x\xe9\ny\nx\xff\n")
    with pytest.raises(EditError, match=r"(?s)^Found 2 occurrences of the text in f\.txt.*lines 1, 3"):
        await call(tool, {"path": "f.txt", "edits": edits(("x\ufffd", "x"))})
    assert target.read_bytes() == b"x\xe9\ny\nx\xff\n"


async def test_not_found_hint_shows_undecodable_bytes_as_read_does(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    write(tmp_path, "f.txt", b"caf\xe9 x\nz\n")
    with pytest.raises(EditError) as caught:
        await call(tool, {"path": "f.txt", "edits": edits(("nothere", "q"))})
    message = str(caught.value)
    assert "  1: caf\ufffd x\n" in message
    assert not any("\udc80" <= char <= "\udcff" for char in message)


async def test_a_lone_surrogate_from_the_model_is_written_as_a_replacement_character(
    tool: AgentTool[EditParams], tmp_path: Path
) -> None:
    # Written through surrogateescape, "\udcff" would turn into the raw byte 0xFF on disk.
    target = write(tmp_path, "f.txt", b"change me\n")
    await call(tool, {"path": "f.txt", "edits": edits(("change me", "bad \udcff here"))})
    assert target.read_bytes() == "bad \ufffd here\n".encode()


async def test_permissions_are_kept(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    target = write(tmp_path, "run.sh", "echo a\n")
    target.chmod(0o750)
    await call(tool, {"path": "run.sh", "edits": edits(("a", "b"))})
    assert target.stat().st_mode & 0o777 == 0o750
    assert sorted(os.listdir(tmp_path)) == ["run.sh"]


async def test_details_serialise_in_camel_case(tool: AgentTool[EditParams], tmp_path: Path) -> None:
    from pydantic import TypeAdapter

    write(tmp_path, "f.txt", "a\n")
    result = await call(tool, {"path": "f.txt", "edits": edits(("a", "b"))})
    dumped = TypeAdapter(EditToolDetails).dump_python(result.details, by_alias=True)
    assert dumped["firstChangedLine"] == 1


async def test_compute_edits_diff_previews_without_writing(tmp_path: Path) -> None:
    target = write(tmp_path, "f.txt", "a\nb\n")
    preview = await compute_edits_diff("f.txt", [ReplaceEdit(old_text="b", new_text="B")], str(tmp_path))
    assert preview == DiffResult(" 1 a\n-2 b\n+2 B", 2)
    assert target.read_text() == "a\nb\n"
    missing = await compute_edits_diff("gone.txt", [ReplaceEdit(old_text="b", new_text="B")], str(tmp_path))
    assert missing == (
        "Could not edit file: gone.txt. Error code: ENOENT.\n"
        "The file does not exist: check the path with ls, or create the file with write."
    )


def test_schema_is_inline_and_open() -> None:
    tool = create_edit_tool("/")
    schema = tool.to_tool().parameters
    assert "$defs" not in schema and "$ref" not in str(schema)
    item = schema["properties"]["edits"]["items"]
    assert item["required"] == ["oldText", "newText"]
    assert schema["required"] == ["path", "edits"]
    assert "additionalProperties" not in schema


def test_prompt_lines() -> None:
    tool = create_edit_tool("/")
    assert tool.prompt_snippet == (
        "Make precise file edits with exact text replacement, including multiple disjoint edits in one call"
    )
    assert tool.prompt_guidelines == [
        "Use edit for targeted changes. Batch changes to one file in a single call.",
        "Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and "
        "non-overlapping; merge nearby changes without including large unchanged regions.",
    ]


async def test_symlink_loop_is_reported_with_the_path_and_a_next_step(
    tool: AgentTool[EditParams], tmp_path: Path
) -> None:
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    with pytest.raises(FileToolError) as caught:
        await call(tool, {"path": "a", "edits": edits(("x", "y"))})
    assert str(caught.value) == (
        f"ELOOP: too many symbolic links encountered, realpath '{tmp_path}/a'\n"
        "The path is a symlink loop: inspect the links with ls -l, then fix or remove them."
    )


async def test_path_through_a_directory_that_cannot_be_entered(
    tool: AgentTool[EditParams], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests run as root, for whom permission bits do not apply: fail realpath as a user would see it.
    def denied(path: str, strict: bool = False) -> str:
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr("pi.tools.mutation_queue.os.path.realpath", denied)
    with pytest.raises(FileToolError, match=r"^EACCES: permission denied, realpath '.*/locked/f\.txt'\nA directory"):
        await call(tool, {"path": "locked/f.txt", "edits": edits(("x", "y"))})
