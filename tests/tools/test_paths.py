"""Path handling (tools.md §3.2) at the function level; cases 13-21 through read, write and edit: test_tool_sets.py."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pi.tools import ToolName, create_tool
from pi.tools.paths import (
    PathArgumentError,
    expand_path,
    normalize_path_argument,
    read_path_variants,
    resolve_read_path,
    resolve_to_cwd,
)


@pytest.mark.parametrize("space", ["\u00a0", "\u2000", "\u2005", "\u200a", "\u202f", "\u205f", "\u3000"])
def test_unicode_spaces_become_ascii(space: str) -> None:
    assert normalize_path_argument(f"my{space}file.txt") == "my file.txt"


def test_one_leading_at_is_stripped() -> None:
    assert normalize_path_argument("@notes.txt") == "notes.txt"
    assert normalize_path_argument("@@x.txt") == "@x.txt"
    assert normalize_path_argument("a@b") == "a@b"


def test_spaces_are_normalised_before_the_at() -> None:
    assert normalize_path_argument("@a\u00a0b") == "a b"


def test_home_expansion() -> None:
    home = os.path.expanduser("~")
    assert expand_path("~") == home
    assert expand_path("~/pi-spec-x.txt") == os.path.join(home, "pi-spec-x.txt")
    assert expand_path("@~/x") == os.path.join(home, "x")
    assert expand_path("~other/x") == "~other/x"


def test_file_url() -> None:
    assert expand_path("file:///tmp/a%20b.txt") == "/tmp/a b.txt"
    assert expand_path("file://localhost/tmp/x") == "/tmp/x"


def test_case_20_resolution(tmp_path: Path) -> None:
    assert resolve_to_cwd("sub/a.txt", str(tmp_path)) == str(tmp_path / "sub" / "a.txt")
    assert resolve_to_cwd("/etc/hosts", str(tmp_path)) == "/etc/hosts"
    assert resolve_to_cwd("/a/b/../c", str(tmp_path)) == "/a/c"
    assert resolve_to_cwd("./x/../y", str(tmp_path)) == str(tmp_path / "y")


def test_case_16_am_pm_variant(tmp_path: Path) -> None:
    real = tmp_path / "Screenshot 2024-01-01 at 10.00.00\u202fAM.png"
    real.write_bytes(b"x")
    assert resolve_read_path("Screenshot 2024-01-01 at 10.00.00 AM.png", str(tmp_path)) == str(real)


def test_am_pm_is_case_insensitive() -> None:
    assert read_path_variants("/d/shot 1 pm.png")[0] == "/d/shot 1\u202fpm.png"


def test_case_17_nfd_variant(tmp_path: Path) -> None:
    real = tmp_path / "cafe\u0301.txt"
    real.write_text("x")
    resolved = resolve_read_path("caf\u00e9.txt", str(tmp_path))
    assert resolved == str(real)


def test_case_18_nfd_and_curly_quote(tmp_path: Path) -> None:
    real = tmp_path / "Capture d\u2019e\u0301cran.png"
    real.write_bytes(b"x")
    assert resolve_read_path("Capture d'\u00e9cran.png", str(tmp_path)) == str(real)


def test_curly_quote_alone(tmp_path: Path) -> None:
    real = tmp_path / "it\u2019s.txt"
    real.write_text("x")
    assert resolve_read_path("it's.txt", str(tmp_path)) == str(real)


def test_existing_path_wins_and_missing_falls_back_to_plain(tmp_path: Path) -> None:
    (tmp_path / "a AM.png").write_text("x")
    assert resolve_read_path("a AM.png", str(tmp_path)) == str(tmp_path / "a AM.png")
    assert resolve_read_path("nope AM.png", str(tmp_path)) == str(tmp_path / "nope AM.png")


def test_exists_is_replaceable() -> None:
    seen: list[str] = []

    def exists(path: str) -> bool:
        seen.append(path)
        return path.endswith("\u202fPM.png")

    assert resolve_read_path("/r/x PM.png", "/", exists=exists) == "/r/x\u202fPM.png"
    assert seen[0] == "/r/x PM.png"


def test_case_21_double_at(tmp_path: Path) -> None:
    assert resolve_to_cwd("@@x.txt", str(tmp_path)) == str(tmp_path / "@x.txt")


NUL_MESSAGE = (
    "The path 'a\\0b' contains a NUL character (shown as \\0), which no file name can hold. Pass the path without it."
)


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("read", {"path": "a\0b"}),
        ("edit", {"path": "a\0b", "edits": [{"oldText": "a", "newText": "b"}]}),
        ("write", {"path": "a\0b", "content": "x"}),
        ("grep", {"pattern": "a", "path": "a\0b"}),
        ("find", {"pattern": "*", "path": "a\0b"}),
        ("ls", {"path": "a\0b"}),
    ],
)
async def test_nul_character_in_a_path_is_explained(tmp_path: Path, name: ToolName, arguments: dict[str, Any]) -> None:
    tool = create_tool(name, str(tmp_path))
    params = tool.parameters.model_validate(arguments)
    with pytest.raises(PathArgumentError) as caught:
        await tool.execute("c", params, None, None)
    assert str(caught.value) == NUL_MESSAGE
    assert os.listdir(tmp_path) == []


def test_nul_from_a_file_url_is_refused_too(tmp_path: Path) -> None:
    with pytest.raises(PathArgumentError, match="contains a NUL character"):
        resolve_to_cwd("file:///tmp/a%00b", str(tmp_path))
