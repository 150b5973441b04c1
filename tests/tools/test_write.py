"""The `write` tool: conformance cases of tools.md §8.5 and the atomic local back-end."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from pi.agent.tool import AgentTool, AgentToolResult
from pi.ai.abort import AbortController
from pi.ai.types import TextContent
from pi.tools.fs_errors import FileToolError
from pi.tools.write import WriteParams, create_write_tool, encode_utf8, write_file_atomically


def text_of(result: AgentToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


@pytest.fixture
def tool(tmp_path: Path) -> AgentTool[WriteParams]:
    return create_write_tool(str(tmp_path))


async def run(tool: AgentTool[WriteParams], path: str, content: str, signal: object = None) -> str:
    result = await tool.execute("id", WriteParams(path=path, content=content), signal, None)  # type: ignore[arg-type]
    assert result.details is None
    return text_of(result)


async def test_c57_writes_and_reports_bytes(tool: AgentTool[WriteParams], tmp_path: Path) -> None:
    assert await run(tool, "w.txt", "Test content") == "Successfully wrote 12 bytes to w.txt"
    assert (tmp_path / "w.txt").read_bytes() == b"Test content"


async def test_c58_creates_parent_directories(tool: AgentTool[WriteParams], tmp_path: Path) -> None:
    assert await run(tool, "nested/dir/t.txt", "x") == "Successfully wrote 1 bytes to nested/dir/t.txt"
    assert (tmp_path / "nested/dir/t.txt").read_text() == "x"


async def test_c59_overwrite_leaves_no_old_bytes(tool: AgentTool[WriteParams], tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a much longer original content\n")
    await run(tool, "f.txt", "short")
    assert (tmp_path / "f.txt").read_bytes() == b"short"


@pytest.mark.parametrize(
    ("content", "reported"),
    [
        # D2: the real UTF-8 byte count (pi itself reports UTF-16 code units: 2, 2 and 1).
        pytest.param("你好", 6, id="c60"),
        pytest.param("😀", 4, id="c61-emoji"),
        pytest.param("é", 2, id="c61-accent"),
        pytest.param("", 0, id="c61-empty"),
    ],
)
async def test_c60_c61_byte_counts(tool: AgentTool[WriteParams], tmp_path: Path, content: str, reported: int) -> None:
    assert await run(tool, "u.txt", content) == f"Successfully wrote {reported} bytes to u.txt"
    assert (tmp_path / "u.txt").read_bytes() == content.encode()


async def test_c62_directory_path(tool: AgentTool[WriteParams], tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(FileToolError) as caught:
        await run(tool, "d", "x")
    assert str(caught.value) == (
        f"EISDIR: illegal operation on a directory, open '{tmp_path / 'd'}'\n"
        "The path is a directory: give the path of a file inside it."
    )


async def test_c63_parent_is_a_file(tool: AgentTool[WriteParams], tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(FileToolError, match=r"^(ENOTDIR|EEXIST): ") as caught:
        await run(tool, "f.txt/child.txt", "x")
    assert str(caught.value).endswith("\nA part of the path is a file, not a directory: check the path with ls.")


async def test_c64_at_prefix_is_dropped(tool: AgentTool[WriteParams], tmp_path: Path) -> None:
    assert await run(tool, "@out.txt", "x") == "Successfully wrote 1 bytes to @out.txt"
    assert (tmp_path / "out.txt").read_text() == "x"


async def test_c65_content_written_verbatim(tool: AgentTool[WriteParams], tmp_path: Path) -> None:
    await run(tool, "crlf.txt", "a\r\nb\r\n")
    assert (tmp_path / "crlf.txt").read_bytes() == b"a\r\nb\r\n"


async def test_c66_aborted_before_start(tool: AgentTool[WriteParams], tmp_path: Path) -> None:
    controller = AbortController()
    controller.abort()
    with pytest.raises(FileToolError, match=r"^Operation aborted$"):
        await run(tool, "never.txt", "x", controller.signal)
    assert not (tmp_path / "never.txt").exists()


async def test_nbsp_in_path_becomes_a_space(tool: AgentTool[WriteParams], tmp_path: Path) -> None:
    await run(tool, "my\u00a0file.txt", "x")
    assert (tmp_path / "my file.txt").read_text() == "x"


# --- atomic replacement ---------------------------------------------------------------------------


def test_replacement_keeps_mode_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_text("old")
    target.chmod(0o751)
    write_file_atomically(str(target), b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert os.listdir(tmp_path) == ["script.sh"]


def test_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    previous = os.umask(0o027)
    try:
        write_file_atomically(str(tmp_path / "n.txt"), b"x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "n.txt").stat().st_mode) == 0o640


def test_symlink_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_file_atomically(str(link), b"new")
    assert link.is_symlink()
    assert real.read_bytes() == b"new"


def test_hard_linked_file_is_updated_in_place(tmp_path: Path) -> None:
    first = tmp_path / "a.txt"
    first.write_text("old")
    os.link(first, tmp_path / "b.txt")
    write_file_atomically(str(first), b"new")
    assert (tmp_path / "b.txt").read_bytes() == b"new"


def test_failed_write_keeps_the_original(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f.txt"
    target.write_text("original")

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError):
        write_file_atomically(str(target), b"replacement")
    assert target.read_text() == "original"
    assert os.listdir(tmp_path) == ["f.txt"]


async def test_write_failure_is_reported_in_node_form(
    tool: AgentTool[WriteParams], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(FileToolError) as caught:
        await run(tool, "f.txt", "x")
    assert str(caught.value) == (
        f"ENOSPC: no space left on device, open '{tmp_path / 'f.txt'}'\n"
        "The disk is full: free some space or write somewhere else."
    )


def test_lone_surrogates_are_replaced() -> None:
    assert encode_utf8("a\ud800b") == "a\ufffdb".encode()


def test_prompt_lines(tool: AgentTool[WriteParams]) -> None:
    assert tool.prompt_snippet == "Create or overwrite files"
    assert tool.prompt_guidelines == ["Use write only for new files or complete rewrites."]


def symlink_loop(directory: Path) -> str:
    os.symlink("b", directory / "a")
    os.symlink("a", directory / "b")
    return "a"


@pytest.mark.parametrize(
    ("make", "message", "next_step"),
    [
        pytest.param(
            symlink_loop,
            "ELOOP: too many symbolic links encountered, realpath '{d}/a'",
            "The path is a symlink loop: inspect the links with ls -l, then fix or remove them.",
            id="symlink-loop",
        ),
        pytest.param(
            lambda _: "x" * 300,
            "ENAMETOOLONG: name too long, realpath '{d}/" + "x" * 300 + "'",
            "The path, or one name in it, is too long: use a shorter name.",
            id="name-too-long",
        ),
    ],
)
async def test_unresolvable_path_is_reported_with_the_path_and_a_next_step(
    tool: AgentTool[WriteParams], tmp_path: Path, make: Callable[[Path], str], message: str, next_step: str
) -> None:
    path = make(tmp_path)
    with pytest.raises(FileToolError) as caught:
        await run(tool, path, "x")
    assert str(caught.value) == message.format(d=tmp_path) + "\n" + next_step


async def test_path_through_a_directory_that_cannot_be_entered(
    tool: AgentTool[WriteParams], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests run as root, for whom permission bits do not apply: fail realpath as a user would see it.
    def denied(path: str, strict: bool = False) -> str:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr("pi.tools.mutation_queue.os.path.realpath", denied)
    with pytest.raises(FileToolError) as caught:
        await run(tool, "locked/f.txt", "x")
    assert str(caught.value) == (
        f"EACCES: permission denied, realpath '{tmp_path}/locked/f.txt'\n"
        "A directory on the path cannot be entered (permission denied): check its permissions with ls -l, "
        "or use a path elsewhere."
    )
