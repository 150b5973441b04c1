"""The `find` tool: list files by glob, for read-only agents that have no shell.

A pattern without ``/`` matches names at any depth (``*.ts`` finds ``src/a/b.ts``); a pattern with
``/`` matches paths relative to the search directory (``**/`` in front for any depth). Directories
match too and end in ``/``. Results are sorted, so the same tree always gives the same answer and limits cut the same
place every time.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Protocol

from msgspec import Struct
from pydantic import Field

from pi.agent.tool import AgentTool, AgentToolResult, OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.types import PiModel, TextContent
from pi.tools import ripgrep
from pi.tools.file_walk import compile_glob
from pi.tools.paths import resolve_to_cwd
from pi.tools.schema import FlooredInt, ToolParams
from pi.tools.truncate import DEFAULT_MAX_BYTES, TruncationResult, format_size, truncate_head

DEFAULT_FIND_LIMIT = 1000
DEFAULT_IGNORE = ("**/node_modules/**", "**/.git/**")


class FindParams(ToolParams):
    pattern: str = Field(
        description="Glob: '*.ts' matches names at any depth; 'src/**/*.ts' paths relative to path; '**/x/*' any depth"
    )
    path: str | None = Field(default=None, description="Directory to search (default: working directory)")
    limit: FlooredInt | None = Field(default=None, description=f"Maximum results (default {DEFAULT_FIND_LIMIT})")


class FindToolDetails(PiModel):
    result_limit_reached: int | None = None
    truncation: TruncationResult | None = None


class FindError(Exception):
    """The listing could not be done; the message says what to change."""


# --- the Operations protocol ----------------------------------------------------------------------------


class FindGlob(Protocol):
    async def __call__(self, pattern: str, search_path: str, *, ignore: Sequence[str], limit: int) -> list[str]: ...


class FindOperations(Protocol):
    """A remote backend supplies `glob` (absolute or relative paths back); the local one lists with rg."""

    async def exists(self, path: str) -> bool: ...

    @property
    def glob(self) -> FindGlob | None: ...


class LocalFindOperations:
    async def exists(self, path: str) -> bool:
        return os.path.exists(path)

    @property
    def glob(self) -> FindGlob | None:
        return None


class FindToolOptions(Struct):
    operations: FindOperations | None = None


# --- matching ----------------------------------------------------------------------------------------------


class PatternMatcher:
    """fd's glob rules: names for slash-free patterns, else paths anchored at the search directory; smart case.

    ``src/*.ts`` finds ``src/a.ts`` but not ``pkg/src/a.ts``; ``**/src/*.ts`` matches at any depth; an
    absolute pattern is matched against absolute paths; a leading ``./`` is dropped.
    """

    def __init__(self, pattern: str) -> None:
        while pattern.startswith("./"):
            pattern = pattern[2:]
        self.absolute = pattern.startswith("/")
        self.full_path = "/" in pattern
        self.ignore_case = pattern == pattern.lower()
        self.regex = compile_glob(pattern, self.ignore_case)

    def matches(self, absolute: str, relative: str) -> bool:
        if not self.full_path:
            subject = os.path.basename(absolute.rstrip(os.sep))
        else:
            subject = absolute.replace(os.sep, "/") if self.absolute else relative
        return self.regex.match(subject) is not None


def matching_entries(files: Sequence[str], search_path: str, matcher: PatternMatcher) -> list[str]:
    """Relative paths of the matching files and of directories (suffixed ``/``) that contain listed files."""
    results: set[str] = set()
    seen_dirs: set[str] = set()
    root = os.path.abspath(search_path)
    for path in files:
        relative = _relative(path, root)
        if matcher.matches(path, relative):
            results.add(relative)
        parent = os.path.dirname(path)
        while parent != root and parent not in seen_dirs and _inside(parent, root):
            seen_dirs.add(parent)
            relative = _relative(parent, root)
            if matcher.matches(parent, relative):
                results.add(relative + "/")
            parent = os.path.dirname(parent)
    return sorted(results, key=lambda item: item.encode("utf-8", "surrogateescape"))


def _inside(path: str, root: str) -> bool:
    return path.startswith(root.rstrip(os.sep) + os.sep)


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def _normalise_custom(paths: Sequence[str], root: str) -> list[str]:
    out: list[str] = []
    for raw in paths:
        line = raw.rstrip("\r").strip()
        if not line:
            continue
        trailing = line.endswith("/")
        relative = _relative(line, root) if os.path.isabs(line) else line.replace(os.sep, "/")
        if trailing and not relative.endswith("/"):
            relative += "/"
        out.append(relative)
    return out


# --- the tool ------------------------------------------------------------------------------------------

DESCRIPTION = (
    "Find files and directories by glob; paths come back relative to the search directory, sorted, "
    f"directories ending in '/'. Respects .gitignore, includes hidden files. At most {DEFAULT_FIND_LIMIT} results "
    f"by default and {DEFAULT_MAX_BYTES // 1024}KB."
)


async def _local_entries(pattern: str, search_path: str, signal: AbortSignal | None) -> list[str]:
    if not os.path.isdir(search_path):
        raise FindError(
            f"Search path '{search_path}' is not a directory. "
            "Give an existing directory (check with ls), or leave path out to search the working directory."
        )
    matcher = PatternMatcher(pattern)
    try:
        files = await ripgrep.list_files(ripgrep.ListQuery(search_path), signal)
    except ripgrep.SearchAborted as error:
        raise FindError("Operation aborted") from error
    except ripgrep.SearchError as error:
        raise FindError(str(error)) from error
    return matching_entries(files, search_path, matcher)


def _result(entries: list[str], limit: int, short_notice: bool) -> AgentToolResult:
    """The first `limit` entries; the limit notice only when more than `limit` exist."""
    if not entries:
        return AgentToolResult(content=[TextContent(text="No files found matching pattern")])
    truncation = truncate_head("\n".join(entries[:limit]), max_lines=float("inf"))
    text = truncation.content
    notices: list[str] = []
    details = FindToolDetails()
    if len(entries) > limit:
        notices.append(
            f"{limit} results limit reached"
            if short_notice
            else f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
        )
        details.result_limit_reached = limit
    if truncation.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details.truncation = truncation
    if notices:
        text += f"\n\n[{'. '.join(notices)}]"
    has_details = details.result_limit_reached is not None or details.truncation is not None
    return AgentToolResult(content=[TextContent(text=text)], details=details if has_details else None)


def create_find_tool(cwd: str, options: FindToolOptions | None = None) -> AgentTool[FindParams]:
    opts = options or FindToolOptions()
    operations: FindOperations = opts.operations or LocalFindOperations()

    async def execute(
        tool_call_id: str,
        params: FindParams,
        signal: AbortSignal | None,
        on_update: OnToolUpdate | None,
    ) -> AgentToolResult:
        if signal is not None and signal.aborted:
            raise FindError("Operation aborted")
        search_path = resolve_to_cwd(params.path or ".", cwd)
        limit = max(1, params.limit if params.limit is not None else DEFAULT_FIND_LIMIT)
        custom_glob = operations.glob
        if custom_glob is not None:
            if not await operations.exists(search_path):
                raise FindError(
                    f"Path not found: {search_path}\nCheck the path, or leave path out to search the working directory."
                )
            found = await custom_glob(params.pattern, search_path, ignore=DEFAULT_IGNORE, limit=limit + 1)
            entries = _normalise_custom(found, search_path)
            short_notice = True
        else:
            entries = await _local_entries(params.pattern, search_path, signal)
            short_notice = False
        if signal is not None and signal.aborted:
            raise FindError("Operation aborted")
        return _result(entries, limit, short_notice)

    return AgentTool(
        name="find",
        label="find",
        description=DESCRIPTION,
        parameters=FindParams,
        execute=execute,
        prompt_snippet="Find files by glob pattern (respects .gitignore)",
    )


__all__ = [
    "DEFAULT_FIND_LIMIT",
    "FindError",
    "FindGlob",
    "FindOperations",
    "FindParams",
    "FindToolDetails",
    "FindToolOptions",
    "LocalFindOperations",
    "PatternMatcher",
    "create_find_tool",
    "matching_entries",
]
