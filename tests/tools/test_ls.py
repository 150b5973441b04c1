"""ls tool: conformance cases 180-187 (tools.md §8.14)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pi.agent.tool import AgentToolResult
from pi.ai.abort import AbortController, AbortSignal
from pi.tools.ls import LsError, LsParams, LsToolDetails, LsToolOptions, collation_key, create_ls_tool


def text_of(result: AgentToolResult) -> str:
    block = result.content[0]
    assert block.type == "text"
    return block.text


async def ls(
    cwd: Path, options: LsToolOptions | None = None, signal: AbortSignal | None = None, **arguments: Any
) -> AgentToolResult:
    tool = create_ls_tool(str(cwd), options)
    return await tool.execute("c", LsParams.model_validate(arguments), signal, None)


async def test_case_180_dotfiles_listed(tmp_path: Path) -> None:
    (tmp_path / ".hidden-file").write_text("x")
    (tmp_path / ".hidden-dir").mkdir()
    lines = text_of(await ls(tmp_path)).split("\n")
    assert ".hidden-file" in lines
    assert ".hidden-dir/" in lines


async def test_case_181_case_insensitive_order(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("x")
    (tmp_path / "A.txt").write_text("x")
    (tmp_path / "c").mkdir()
    result = await ls(tmp_path)
    assert text_of(result) == "A.txt\nb.txt\nc/"
    assert result.details is None


async def test_case_182_empty_directory(tmp_path: Path) -> None:
    assert text_of(await ls(tmp_path)) == "(empty directory)"


async def test_case_183_missing_and_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "A.txt").write_text("x")
    with pytest.raises(LsError) as caught:
        await ls(tmp_path, path="nope")
    assert str(caught.value) == f"Path not found: {tmp_path}/nope\nList its parent directory to see what is there."
    with pytest.raises(LsError) as caught:
        await ls(tmp_path, path="A.txt")
    assert str(caught.value) == f"Not a directory: {tmp_path}/A.txt\nIt is a file: read it with read."


async def test_case_184_limit(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        (tmp_path / name).write_text("x")
    result = await ls(tmp_path, limit=2)
    assert text_of(result) == "a\nb\n\n[2 entries limit reached. Use limit=4 for more]"
    assert isinstance(result.details, LsToolDetails)
    assert result.details.entry_limit_reached == 2
    (tmp_path / "c").unlink()
    exact = await ls(tmp_path, limit=2)
    assert text_of(exact) == "a\nb"
    assert exact.details is None


async def test_limit_below_one_is_clamped(tmp_path: Path) -> None:
    # 1.6.0 (and decision D16): limit = max(1, limit), so limit 0 lists one entry.
    for name in ("a", "b"):
        (tmp_path / name).write_text("x")
    assert text_of(await ls(tmp_path, limit=0)) == "a\n\n[1 entries limit reached. Use limit=2 for more]"


async def test_case_185_symlinks(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    os.symlink(tmp_path / "missing", tmp_path / "broken")
    assert text_of(await ls(tmp_path)) == "link/\nreal/"


async def test_case_186_default_path_is_cwd(tmp_path: Path) -> None:
    (tmp_path / "here.txt").write_text("x")
    assert text_of(await ls(tmp_path)) == "here.txt"


async def test_case_187_byte_limit(tmp_path: Path) -> None:
    for i in range(600):
        (tmp_path / f"{i:03d}{'n' * 97}").write_text("x")
    result = await ls(tmp_path, limit=1000)
    body, notice = text_of(result).rsplit("\n\n", 1)
    assert len(body.split("\n")) == 506
    assert notice == "[50.0KB limit reached]"
    assert isinstance(result.details, LsToolDetails)
    assert result.details.truncation is not None


def test_collation_matches_icu_root_order() -> None:
    names = ["b", "A", "a", ".x", "_u", "1z", "Z", "-d", "é", "e", "B10", "b2", "~t"]
    ordered = sorted(names, key=collation_key)
    # "A"/"a" tie on the lower-cased key and keep their input order.
    assert ordered == ["_u", "-d", ".x", "~t", "1z", "A", "a", "b", "B10", "b2", "e", "é", "Z"]
    assert sorted(["cafe\u0301", "cafe", "cafd"], key=collation_key) == ["cafd", "cafe", "cafe\u0301"]


async def test_custom_operations(tmp_path: Path) -> None:
    class Remote:
        async def exists(self, path: str) -> bool:
            return True

        async def is_directory(self, path: str) -> bool:
            if path.endswith("gone"):
                raise FileNotFoundError(path)
            return path == "/srv" or path.endswith("dir")

        async def readdir(self, path: str) -> list[str]:
            return ["file", "dir", "gone"]

    assert text_of(await ls(tmp_path, LsToolOptions(operations=Remote()), path="/srv")) == "dir/\nfile"


async def test_abort(tmp_path: Path) -> None:
    controller = AbortController()
    controller.abort()
    with pytest.raises(LsError, match=r"^Operation aborted$"):
        await ls(tmp_path, signal=controller.signal)


def test_snippet(tmp_path: Path) -> None:
    tool = create_ls_tool(str(tmp_path))
    assert tool.prompt_snippet == "List directory contents"
    assert tool.prompt_guidelines == []


def test_fractional_limit_is_floored() -> None:
    from pi.ai.validation import validate_model_arguments

    params = validate_model_arguments("ls", LsParams, {"limit": 2.5})
    assert isinstance(params, LsParams) and params.limit == 2
    assert LsParams.model_json_schema()["properties"]["limit"]["type"] == "integer"
