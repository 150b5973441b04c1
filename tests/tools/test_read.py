"""The `read` tool on text files: conformance cases of tools.md §8.3 and the streaming window."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pi.agent.tool import AgentTool, AgentToolResult
from pi.ai.abort import AbortController
from pi.ai.types import TextContent
from pi.tools import read as read_module
from pi.tools.fs_errors import FileToolError
from pi.tools.read import (
    LineWindow,
    LocalReadOperations,
    ReadParams,
    ReadToolDetails,
    ReadToolOptions,
    create_read_tool,
)
from pi.tools.truncate import truncate_head
from tests.tools.worker_trips import count_worker_trips


def text_of(result: AgentToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


@pytest.fixture
def tool(tmp_path: Path) -> AgentTool[ReadParams]:
    return create_read_tool(str(tmp_path))


async def read(
    tool: AgentTool[ReadParams], path: str, offset: int | None = None, limit: int | None = None
) -> AgentToolResult:
    return await tool.execute("id", ReadParams(path=path, offset=offset, limit=limit), None, None)


def numbered(count: int, template: str = "Line {n}", final_newline: bool = False) -> str:
    return "\n".join(template.format(n=n) for n in range(1, count + 1)) + ("\n" if final_newline else "")


def put(tmp_path: Path, name: str, data: str | bytes) -> None:
    (tmp_path / name).write_bytes(data.encode() if isinstance(data, str) else data)


async def test_c22_small_file_verbatim(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "f.txt", "Hello, world!\nLine 2\nLine 3")
    result = await read(tool, "f.txt")
    assert text_of(result) == "Hello, world!\nLine 2\nLine 3"
    assert result.details is None


async def test_c23_missing_file(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    with pytest.raises(FileToolError) as caught:
        await read(tool, "missing.txt")
    first_line = str(caught.value).split("\n")[0]
    assert first_line == f"ENOENT: no such file or directory, access '{tmp_path / 'missing.txt'}'"


async def test_c24_truncated_by_lines(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "f.txt", numbered(2500))
    result = await read(tool, "f.txt")
    text = text_of(result)
    assert "Line 2000\n" in text and "Line 2001" not in text
    assert text.endswith("\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")
    assert isinstance(result.details, ReadToolDetails) and result.details.truncation is not None
    truncation = result.details.truncation
    assert (truncation.truncated_by, truncation.total_lines, truncation.output_lines) == ("lines", 2500, 2000)


async def test_c25_truncated_by_bytes(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "f.txt", numbered(500, "Line {n}: " + "x" * 200))
    text = text_of(await read(tool, "f.txt"))
    assert text.endswith("\n\n[Showing lines 1-243 of 500 (50.0KB limit). Use offset=244 to continue.]")


async def test_c26_offset_to_the_end(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "f.txt", numbered(100))
    text = text_of(await read(tool, "f.txt", offset=51))
    assert text.split("\n")[0] == "Line 51"
    assert text.endswith("Line 100")
    assert "[" not in text


async def test_c27_limit_notice(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "f.txt", numbered(100))
    result = await read(tool, "f.txt", limit=10)
    assert text_of(result) == numbered(10) + "\n\n[90 more lines in file. Use offset=11 to continue.]"
    assert result.details is None


async def test_c28_offset_and_limit(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "f.txt", numbered(100))
    text = text_of(await read(tool, "f.txt", offset=41, limit=20))
    expected = "\n".join(f"Line {n}" for n in range(41, 61))
    assert text == expected + "\n\n[40 more lines in file. Use offset=61 to continue.]"


async def test_c29_offset_beyond_end(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "f.txt", "a\nb\nc")
    with pytest.raises(
        FileToolError, match=r"^Offset 100 is beyond end of file \(3 lines total\)\nUse an offset from 1 to 3\.$"
    ):
        await read(tool, "f.txt", offset=100)


@pytest.mark.parametrize("offset", [0, -5])
async def test_c30_non_positive_offset_reads_from_the_start(
    tool: AgentTool[ReadParams], tmp_path: Path, offset: int
) -> None:
    put(tmp_path, "f.txt", numbered(5))
    assert text_of(await read(tool, "f.txt", offset=offset)) == text_of(await read(tool, "f.txt"))


async def test_c31_no_phantom_line_after_a_final_newline(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    # D3: "a\nb\n" has two lines (pi counts a third, empty one).
    put(tmp_path, "f.txt", "a\nb\n")
    assert text_of(await read(tool, "f.txt", limit=2)) == "a\nb\n"
    assert text_of(await read(tool, "f.txt", limit=1)) == "a\n\n[1 more lines in file. Use offset=2 to continue.]"
    assert text_of(await read(tool, "f.txt", offset=2)) == "b\n"
    with pytest.raises(
        FileToolError, match=r"^Offset 3 is beyond end of file \(2 lines total\)\nUse an offset from 1 to 2\.$"
    ):
        await read(tool, "f.txt", offset=3)
    with pytest.raises(
        FileToolError, match=r"^Offset 4 is beyond end of file \(2 lines total\)\nUse an offset from 1 to 2\.$"
    ):
        await read(tool, "f.txt", offset=4)


async def test_c31_newline_terminated_file_counts_its_real_lines(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "f.txt", numbered(2500, final_newline=True))
    text = text_of(await read(tool, "f.txt"))
    assert text.endswith("[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")


async def test_only_the_final_newline_past_the_byte_limit_is_not_a_cut(
    tool: AgentTool[ReadParams], tmp_path: Path
) -> None:
    # Every line fits in 50KB; only the newline ending the last one does not. Nothing is left to page
    # to, so a notice saying "Use offset=N to continue" would send the model into an offset error.
    for content in ("y" * 51200 + "\n", "a" * 25599 + "\n" + "b" * 25600 + "\n"):
        put(tmp_path, "f.txt", content)
        result = await read(tool, "f.txt")
        assert text_of(result) == content
        assert result.details is None
    put(tmp_path, "g.txt", "a" * 25599 + "\n" + "b" * 25600 + "\nc\n")
    assert text_of(await read(tool, "g.txt", limit=2)) == (
        "a" * 25599 + "\n" + "b" * 25600 + "\n\n[1 more lines in file. Use offset=3 to continue.]"
    )


async def test_c32_empty_file(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "empty.txt", "")
    assert text_of(await read(tool, "empty.txt")) == ""
    assert text_of(await read(tool, "empty.txt", offset=1)) == ""
    with pytest.raises(FileToolError, match=r"^Offset 2 is beyond end of file \(0 lines total\)\nThe file is empty\.$"):
        await read(tool, "empty.txt", offset=2)


async def test_c33_first_line_too_long(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "big.txt", "x" * 60000)
    result = await read(tool, "big.txt")
    assert text_of(result) == (
        "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' big.txt | head -c 51200]"
    )
    assert isinstance(result.details, ReadToolDetails) and result.details.truncation is not None
    assert result.details.truncation.first_line_exceeds_limit


async def test_c34_long_line_in_the_middle(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "mid.txt", "small1\n" + "x" * 60000 + "\nsmall3")
    assert text_of(await read(tool, "mid.txt")) == (
        "small1\n\n[Showing lines 1-1 of 3 (50.0KB limit). Use offset=2 to continue.]"
    )
    assert text_of(await read(tool, "mid.txt", offset=2)) == (
        "[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' mid.txt | head -c 51200]"
    )


async def test_c35_offset_into_a_long_file(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "f.txt", numbered(2500))
    text = text_of(await read(tool, "f.txt", offset=101))
    assert text.endswith("\n\n[Showing lines 101-2100 of 2500. Use offset=2101 to continue.]")


async def test_c36_limit_beyond_the_output_cap(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "f.txt", numbered(2500))
    text = text_of(await read(tool, "f.txt", limit=5000))
    assert text.endswith("\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")


async def test_c37_crlf_kept(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "crlf.txt", b"a\r\nb\r\n")
    assert text_of(await read(tool, "crlf.txt")) == "a\r\nb\r\n"


async def test_c38_bom_kept(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "bom.txt", "\ufeffhi")
    assert text_of(await read(tool, "bom.txt")) == "\ufeffhi"


async def test_c39_invalid_utf8(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "bad.txt", b"a\xffb")
    assert text_of(await read(tool, "bad.txt")) == "a\ufffdb"


async def test_c40_directory(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    with pytest.raises(FileToolError, match=r"^EISDIR: illegal operation on a directory, read"):
        await read(tool, "sub")


async def test_c41_sed_hint_quotes_paths_with_spaces(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    # D14: quoted because of the space (pi prints the path bare).
    put(tmp_path, "my big.txt", "y" * 60000)
    assert text_of(await read(tool, "my big.txt")).endswith("sed -n '1p' 'my big.txt' | head -c 51200]")


async def test_binary_file_gets_a_notice(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    # D15: NUL bytes near the start mean binary; its bytes would be noise to the model.
    put(tmp_path, "blob.bin", b"\x7fELF\x02\x01\x00\x00" + bytes(range(256)))
    text = text_of(await read(tool, "blob.bin"))
    assert text.startswith("[blob.bin looks like a binary file")
    assert "\x00" not in text


async def test_at_mention_and_absolute_paths(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "notes.txt", "n")
    assert text_of(await read(tool, "@notes.txt")) == "n"
    assert text_of(await read(tool, str(tmp_path / "notes.txt"))) == "n"


async def test_aborted_before_start(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    put(tmp_path, "f.txt", "x")
    controller = AbortController()
    controller.abort()
    with pytest.raises(FileToolError, match=r"^Operation aborted$"):
        await tool.execute("id", ReadParams(path="f.txt"), controller.signal, None)


def test_prompt_lines(tool: AgentTool[ReadParams]) -> None:
    assert tool.prompt_snippet == "Read file contents"
    assert tool.prompt_guidelines == ["Use read to examine files instead of cat or sed."]


def test_offset_strings_are_coerced() -> None:
    assert ReadParams.model_validate({"path": "f", "offset": "5"}).offset == 5


# --- streaming ------------------------------------------------------------------------------------


class StreamingOnly(LocalReadOperations):
    """Refuses whole-file reads and records the largest chunk it handed out."""

    def __init__(self) -> None:
        self.chunks = 0

    async def read_file(self, path: str) -> bytes:
        raise AssertionError("text reads must stream")

    async def read_chunks(self, path: str, chunk_size: int) -> AsyncIterator[bytes]:
        async for chunk in super().read_chunks(path, 4096):
            self.chunks += 1
            yield chunk


async def test_text_is_streamed_in_chunks(tmp_path: Path) -> None:
    put(tmp_path, "f.txt", numbered(20000, final_newline=True))
    ops = StreamingOnly()
    tool = create_read_tool(str(tmp_path), ReadToolOptions(operations=ops))
    result = await read(tool, "f.txt", offset=15000, limit=3)
    assert (
        text_of(result)
        == "Line 15000\nLine 15001\nLine 15002\n\n[4998 more lines in file. Use offset=15003 to continue.]"
    )
    assert ops.chunks > 10


def naive_window(data: bytes, start: int, stop: int | None) -> tuple[int, str]:
    """Reference: decode everything, split, count lines without a phantom last line."""
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    total = len(lines) if text else 0
    end = total if stop is None else min(stop, total)
    selection = "\n".join(lines[start:end])
    if end == total and text.endswith("\n") and end > start:
        selection += "\n"
    return total, selection


@pytest.mark.parametrize("seed", range(60))
def test_line_window_matches_a_naive_read(seed: int) -> None:
    rng = random.Random(seed)
    pieces = [rng.choice(["a", "bb", "\n", "\n\n", "é", "\xff", "z" * rng.randint(0, 40)]) for _ in range(60)]
    data = "".join(pieces).encode("utf-8", "surrogateescape") if seed % 2 else "".join(pieces).encode()
    start = rng.randint(0, 20)
    stop = None if rng.random() < 0.4 else start + rng.randint(1, 20)
    max_lines = rng.randint(1, 15)
    max_bytes = rng.randint(5, 200)
    window = LineWindow(start, stop, max_lines, max_bytes)
    step = rng.randint(1, 17)
    for index in range(0, len(data), step):
        window.feed(data[index : index + step])
    window.finish()
    total, selection = naive_window(data, start, stop)
    assert window.total_lines == total
    if start >= total:
        return
    kept, _ = window.selection()
    end = total if stop is None else min(stop, total)
    if end < total and selection.endswith("\n"):
        # The joined reference cannot tell a trailing empty line from none; the window can.
        return
    expected = truncate_head(selection, max_lines, max_bytes)
    got = truncate_head(kept, max_lines, max_bytes)
    assert (got.content, got.truncated, got.truncated_by, got.output_lines) == (
        expected.content,
        expected.truncated,
        expected.truncated_by,
        expected.output_lines,
    )
    assert got.first_line_exceeds_limit == expected.first_line_exceeds_limit
    if not expected.truncated:
        assert kept == selection
    assert window.selection_bytes() == len(selection.encode("utf-8", "surrogateescape")) or "\ufffd" in selection


class AbortAfterFirstChunk(LocalReadOperations):
    def __init__(self, controller: AbortController) -> None:
        self.controller = controller
        self.closed = False

    async def read_chunks(self, path: str, chunk_size: int) -> AsyncIterator[bytes]:
        try:
            async for chunk in super().read_chunks(path, 1024):
                yield chunk
                self.controller.abort()
        finally:
            self.closed = True


async def test_abort_while_streaming_stops_and_releases_the_file(tmp_path: Path) -> None:
    put(tmp_path, "f.txt", numbered(5000))
    controller = AbortController()
    ops = AbortAfterFirstChunk(controller)
    tool = create_read_tool(str(tmp_path), ReadToolOptions(operations=ops))
    with pytest.raises(FileToolError, match=r"^Operation aborted$"):
        await tool.execute("id", ReadParams(path="f.txt"), controller.signal, None)
    assert ops.closed


async def test_a_small_file_is_checked_and_read_in_one_worker_trip(
    tool: AgentTool[ReadParams], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    put(tmp_path, "f.txt", numbered(40, final_newline=True))
    trips = count_worker_trips(monkeypatch)
    result = await read(tool, "f.txt", offset=39)
    assert text_of(result) == "Line 39\nLine 40\n"
    assert trips == ["_read_small"]


async def test_a_file_over_the_small_limit_is_streamed(
    tool: AgentTool[ReadParams], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    put(tmp_path, "f.txt", numbered(40, final_newline=True))
    monkeypatch.setattr(read_module, "SMALL_FILE_BYTES", 64)
    trips = count_worker_trips(monkeypatch)
    result = await read(tool, "f.txt", offset=39)
    assert text_of(result) == "Line 39\nLine 40\n"
    assert trips[0] == "_read_small" and len(trips) > 1  # checked and sized, then read the streaming way


@pytest.mark.parametrize("limit", [0, -1])
async def test_limit_below_one_is_refused(tool: AgentTool[ReadParams], tmp_path: Path, limit: int) -> None:
    put(tmp_path, "f.txt", "a\nb\nc\n")
    with pytest.raises(FileToolError) as caught:
        await read(tool, "f.txt", limit=limit)
    assert str(caught.value) == (
        f"Invalid limit {limit}: limit must be at least 1 (the number of lines to return). Leave limit out to "
        "read to the end of the file (output is cut at 2000 lines or 50.0KB), or pass a positive number."
    )
