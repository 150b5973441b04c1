"""find tool: conformance cases 170-179 (tools.md §8.13), each with `rg` and with the Python fallback."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pi.agent.tool import AgentToolResult
from pi.ai.abort import AbortController, AbortSignal
from pi.tools import ripgrep
from pi.tools.find import FindError, FindGlob, FindParams, FindToolDetails, FindToolOptions, create_find_tool


@pytest.fixture(params=["rg", "python"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(ripgrep, "find_rg", lambda: None)
    return str(request.param)


def text_of(result: AgentToolResult) -> str:
    block = result.content[0]
    assert block.type == "text"
    return block.text


def make(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x\n")


async def find(
    cwd: Path, options: FindToolOptions | None = None, signal: AbortSignal | None = None, **arguments: Any
) -> AgentToolResult:
    tool = create_find_tool(str(cwd), options)
    return await tool.execute("c", FindParams.model_validate(arguments), signal, None)


async def test_case_170_hidden_files_included(tmp_path: Path, engine: str) -> None:
    make(tmp_path, "visible.txt", ".secret/hidden.txt")
    lines = text_of(await find(tmp_path, pattern="**/*.txt")).split("\n")
    assert "visible.txt" in lines
    assert ".secret/hidden.txt" in lines


async def test_case_171_gitignore_without_repository(tmp_path: Path, engine: str) -> None:
    make(tmp_path, "ignored.txt", "kept.txt")
    (tmp_path / ".gitignore").write_text("ignored.txt\n")
    assert text_of(await find(tmp_path, pattern="*.txt")) == "kept.txt"


async def test_case_172_no_match(tmp_path: Path, engine: str) -> None:
    make(tmp_path, "a.txt")
    result = await find(tmp_path, pattern="*.rs")
    assert text_of(result) == "No files found matching pattern"
    assert result.details is None


async def test_case_173_name_pattern_matches_at_any_depth(tmp_path: Path, engine: str) -> None:
    make(tmp_path, "src/a/b.ts", "top.ts", "c.js")
    assert text_of(await find(tmp_path, pattern="*.ts")) == "src/a/b.ts\ntop.ts"


async def test_case_174_path_pattern_is_anchored_at_the_search_directory(tmp_path: Path, engine: str) -> None:
    make(tmp_path, "src/x/y.spec.ts", "pkg/src/z.spec.ts", "src/x/y.ts", "src/a.ts", "pkg/src/a.ts")
    assert text_of(await find(tmp_path, pattern="src/**/*.spec.ts")) == "src/x/y.spec.ts"
    assert text_of(await find(tmp_path, pattern="src/*.ts")) == "src/a.ts"
    assert text_of(await find(tmp_path, pattern="**/src/*.ts")) == "pkg/src/a.ts\npkg/src/z.spec.ts\nsrc/a.ts"
    assert text_of(await find(tmp_path, pattern="./src/*.ts")) == "src/a.ts"
    assert text_of(await find(tmp_path, pattern=f"{tmp_path}/pkg/**/*.ts")) == "pkg/src/a.ts\npkg/src/z.spec.ts"


async def test_case_175_directories_end_with_slash(tmp_path: Path, engine: str) -> None:
    make(tmp_path, "sub/file.txt", "other/sub/inner.txt")
    assert text_of(await find(tmp_path, pattern="sub")) == "other/sub/\nsub/"


async def test_case_176_exactly_limit_results_have_no_notice(tmp_path: Path, engine: str) -> None:
    make(tmp_path, "a.txt", "b.txt")
    result = await find(tmp_path, pattern="*.txt", limit=2)
    assert text_of(result) == "a.txt\nb.txt"
    assert result.details is None


async def test_case_176_limit(tmp_path: Path, engine: str) -> None:
    make(tmp_path, "a.txt", "b.txt", "c.txt")
    result = await find(tmp_path, pattern="*.txt", limit=2)
    assert text_of(result) == "a.txt\nb.txt\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]"
    assert isinstance(result.details, FindToolDetails)
    assert result.details.result_limit_reached == 2


async def test_limit_below_one_is_clamped(tmp_path: Path, engine: str) -> None:
    # 1.6.0 (and decision D16): limit = max(1, limit).
    make(tmp_path, "a.txt", "b.txt")
    assert text_of(await find(tmp_path, pattern="*.txt", limit=0)).startswith("a.txt\n\n[1 results limit reached.")


async def test_case_177_custom_glob_operations(tmp_path: Path, engine: str) -> None:
    seen: list[tuple[str, str, Sequence[str], int]] = []

    class Remote:
        async def exists(self, path: str) -> bool:
            return path == "/remote/root"

        @property
        def glob(self) -> FindGlob:
            async def run(pattern: str, search_path: str, *, ignore: Sequence[str], limit: int) -> list[str]:
                seen.append((pattern, search_path, ignore, limit))
                return ["/remote/root/a.ts", "/remote/root/lib/b.ts", "/remote/root/dir/"][:limit]

            return run

    options = FindToolOptions(operations=Remote())
    result = await find(tmp_path, options, pattern="*.ts", path="/remote/root")
    assert text_of(result) == "a.ts\nlib/b.ts\ndir/"
    assert seen[0][:2] == ("*.ts", "/remote/root")
    assert list(seen[0][2]) == ["**/node_modules/**", "**/.git/**"]
    limited = await find(tmp_path, options, pattern="*.ts", path="/remote/root", limit=2)
    assert text_of(limited) == "a.ts\nlib/b.ts\n\n[2 results limit reached]"
    assert seen[-1][3] == 3  # asked for one more than the limit, to know whether there are more
    with pytest.raises(FindError) as caught:
        await find(tmp_path, options, pattern="*.ts", path="/elsewhere")
    assert str(caught.value) == (
        "Path not found: /elsewhere\nCheck the path, or leave path out to search the working directory."
    )


async def test_case_178_missing_path(tmp_path: Path, engine: str) -> None:
    with pytest.raises(FindError, match="is not a directory"):
        await find(tmp_path, pattern="*", path="nope")


async def test_case_179_works_without_rg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Decision D13: no download, no error; the Python walk gives the same output.
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(ripgrep, "find_rg", lambda: None)
    make(tmp_path, "a.txt")
    assert text_of(await find(tmp_path, pattern="*.txt")) == "a.txt"


async def test_git_internals_are_excluded(tmp_path: Path, engine: str) -> None:
    # Decision D12.
    make(tmp_path, ".git/config.txt", "a.txt")
    assert text_of(await find(tmp_path, pattern="*.txt")) == "a.txt"


async def test_smart_case(tmp_path: Path, engine: str) -> None:
    make(tmp_path, "README.md", "notes.MD")
    assert text_of(await find(tmp_path, pattern="readme*")) == "README.md"
    assert text_of(await find(tmp_path, pattern="*.MD")) == "notes.MD"


async def test_byte_limit(tmp_path: Path, engine: str) -> None:
    make(tmp_path, *(f"{'n' * 90}{i:04d}.txt" for i in range(600)))
    result = await find(tmp_path, pattern="*.txt")
    body, notice = text_of(result).rsplit("\n\n", 1)
    assert notice == "[50.0KB limit reached]"
    assert len(body.encode()) <= 51200
    assert isinstance(result.details, FindToolDetails)
    assert result.details.truncation is not None


async def test_abort(tmp_path: Path, engine: str) -> None:
    controller = AbortController()
    controller.abort()
    with pytest.raises(FindError, match=r"^Operation aborted$"):
        await find(tmp_path, signal=controller.signal, pattern="*")


async def test_abort_during_python_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ripgrep, "find_rg", lambda: None)
    for i in range(40):
        make(tmp_path, *(f"d{i}/s{j}/f.txt" for j in range(40)))
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.01, controller.abort)
    with pytest.raises(FindError, match=r"^Operation aborted$"):
        await find(tmp_path, signal=controller.signal, pattern="*.txt")


async def test_rg_and_python_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make(
        tmp_path,
        "src/a.py",
        "src/b/c.py",
        "src/b/c.PY",
        "lib/src/d.py",
        "node_modules/m/index.js",
        "docs/x.md",
        ".cfg/y.toml",
        "a b/c{d}.txt",
        "build/out.py",
        "empty/",
    )
    (tmp_path / ".gitignore").write_text("build\n")
    (tmp_path / "src" / ".ignore").write_text("c.PY\n")
    patterns = ["*.py", "src/**", "**/*.py", "src", "*", "**", "*.{md,toml}", "[ab]*", "a b/*", "*/b/*.py"]
    with_rg = [text_of(await find(tmp_path, pattern=p)) for p in patterns]
    monkeypatch.setattr(ripgrep, "find_rg", lambda: None)
    without_rg = [text_of(await find(tmp_path, pattern=p)) for p in patterns]
    assert with_rg == without_rg
    assert with_rg[0] == "lib/src/d.py\nsrc/a.py\nsrc/b/c.py"
    assert "empty/" not in with_rg[4]  # directories are known from the files under them


def test_snippet(tmp_path: Path) -> None:
    tool = create_find_tool(str(tmp_path))
    assert tool.prompt_snippet == "Find files by glob pattern (respects .gitignore)"
    assert tool.prompt_guidelines == []
    assert os.path.isdir(tmp_path)


async def test_gitignore_above_a_repository_does_not_apply_inside_it(tmp_path: Path, engine: str) -> None:
    # --no-require-git only outside a repository: inside one, git's own rules decide what is ignored.
    (tmp_path / ".gitignore").write_text("*.log\n")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    make(repo, "a.log", "b.txt")
    assert text_of(await find(repo, pattern="*.log")) == "a.log"
    make(tmp_path, "outside/c.log")
    assert text_of(await find(tmp_path / "outside", pattern="*.log")) == "No files found matching pattern"


async def test_directory_that_cannot_be_entered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests run as root, who may enter any directory: fail the spawn as subprocess does for a failed chdir.
    async def spawn(*args: Any, cwd: str | None = None, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied", cwd)

    (tmp_path / "locked").mkdir()
    monkeypatch.setattr("pi.tools.ripgrep.asyncio.create_subprocess_exec", spawn)
    with pytest.raises(FindError) as caught:
        await find(tmp_path, pattern="*", path="locked")
    assert str(caught.value) == (
        f"Cannot enter directory {tmp_path / 'locked'} (permission denied), so it cannot be searched. "
        "Check its permissions with ls -ld, or search a directory you can read."
    )


async def test_fractional_limit_is_floored(tmp_path: Path) -> None:
    from pi.ai.validation import validate_model_arguments

    make(tmp_path, "a.txt", "b.txt", "c.txt")
    params = validate_model_arguments("find", FindParams, {"pattern": "*.txt", "limit": 2.5})
    assert isinstance(params, FindParams) and params.limit == 2
    assert FindParams.model_json_schema()["properties"]["limit"]["type"] == "integer"
