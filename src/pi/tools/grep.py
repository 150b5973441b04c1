"""The `grep` tool: search file contents, for read-only agents that have no shell.

Results are ``path:line: text`` lines (context lines use ``-``), capped by a match limit and the
byte limit; every cap is announced with what to do about it, so the model can widen the search
or narrow the pattern instead of trusting a partial answer.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from pi.agent.tool import AgentTool, AgentToolResult, OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.types import PiModel, TextContent
from pi.tools import ripgrep
from pi.tools.paths import resolve_to_cwd
from pi.tools.truncate import DEFAULT_MAX_BYTES, TruncationResult, format_size, truncate_head, truncate_line

DEFAULT_GREP_LIMIT = 100


class GrepParams(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    pattern: str = Field(description="Regular expression to search for (or plain text with literal=true).")
    path: str | None = Field(
        default=None, description="Directory or file to search, relative or absolute (default: working directory)."
    )
    glob: str | None = Field(
        default=None, description="Only search files matching this glob, e.g. '*.ts' or '**/*.spec.ts'."
    )
    ignore_case: bool | None = Field(default=None, alias="ignoreCase", description="Match case-insensitively.")
    literal: bool | None = Field(default=None, description="Treat the pattern as plain text, not a regex.")
    context: int | None = Field(default=None, description="Lines to show before and after each match (default 0).")
    limit: int | None = Field(default=None, description=f"Maximum number of matches (default {DEFAULT_GREP_LIMIT}).")


class GrepToolDetails(PiModel):
    match_limit_reached: int | None = None
    truncation: TruncationResult | None = None
    lines_truncated: bool | None = None
    unreadable_files: list[str] | None = None


class GrepError(Exception):
    """The search could not be done; the message says what to change."""


# --- the Operations protocol: where files are looked at ----------------------------------------------------


class GrepOperations(Protocol):
    """How grep looks at the filesystem around the search (the search itself runs locally)."""

    async def is_directory(self, path: str) -> bool:
        """True for a directory, False for a file; raises if nothing is there."""
        ...

    async def read_file(self, path: str) -> str: ...


class LocalGrepOperations:
    async def is_directory(self, path: str) -> bool:
        return os.stat(path).st_mode & 0o170000 == 0o040000

    async def read_file(self, path: str) -> str:
        return await asyncio.to_thread(_read_text, path)


def _read_text(path: str) -> str:
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", "replace")


@dataclass(slots=True)
class GrepToolOptions:
    operations: GrepOperations | None = None


# --- formatting ------------------------------------------------------------------------------------------


def _display_path(path: str, search_path: str, is_directory: bool) -> str:
    if not is_directory:
        return os.path.basename(path)
    relative = os.path.relpath(path, search_path).replace(os.sep, "/")
    if not relative or relative.startswith(".."):
        return os.path.basename(path)
    return relative


def _split_lines(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


class _Formatter:
    def __init__(self, operations: GrepOperations, search_path: str, is_directory: bool, context: int) -> None:
        self.operations = operations
        self.search_path = search_path
        self.is_directory = is_directory
        self.context = context
        self.files: dict[str, list[str] | None] = {}
        self.lines_truncated = False

    def _cut(self, line: str) -> str:
        """Only the file's text is cut, so the path and line number always survive."""
        text, cut = truncate_line(line)
        self.lines_truncated = self.lines_truncated or cut
        return text

    async def _lines(self, path: str) -> list[str] | None:
        if path not in self.files:
            try:
                self.files[path] = _split_lines(await self.operations.read_file(path))
            except OSError:
                self.files[path] = None
        return self.files[path]

    async def format(self, match: ripgrep.GrepMatch) -> list[str]:
        shown = _display_path(match.path, self.search_path, self.is_directory)
        if self.context == 0 and match.text is not None:
            return [f"{shown}:{match.line_number}: {self._cut(match.text)}"]
        lines = await self._lines(match.path)
        if lines is None:
            return [f"{shown}:{match.line_number}: (unable to read file)"]
        first = max(1, match.line_number - self.context)
        last = min(len(lines), match.line_number + self.context)
        out: list[str] = []
        for number in range(first, last + 1):
            separator = ":" if number == match.line_number else "-"
            out.append(f"{shown}{separator}{number}{separator} {self._cut(lines[number - 1])}")
        if not out:
            out.append(f"{shown}:{match.line_number}: {self._cut(match.text or '')}")
        return out


# --- the tool ------------------------------------------------------------------------------------------

DESCRIPTION = (
    "Search the contents of files for a regular expression (or plain text with literal=true) and get the "
    "matching lines as path:line: text. Respects .gitignore; hidden files are searched. Returns at most "
    f"{DEFAULT_GREP_LIMIT} matches by default and {DEFAULT_MAX_BYTES // 1024}KB of output; lines longer than "
    "500 characters are cut. Use glob to narrow the files and context for surrounding lines."
)


def create_grep_tool(cwd: str, options: GrepToolOptions | None = None) -> AgentTool[GrepParams]:
    opts = options or GrepToolOptions()
    operations: GrepOperations = opts.operations or LocalGrepOperations()

    async def execute(
        tool_call_id: str,
        params: GrepParams,
        signal: AbortSignal | None,
        on_update: OnToolUpdate | None,
    ) -> AgentToolResult:
        if signal is not None and signal.aborted:
            raise GrepError("Operation aborted")
        search_path = resolve_to_cwd(params.path or ".", cwd)
        try:
            is_directory = await operations.is_directory(search_path)
        except OSError as error:
            raise GrepError(f"Path not found: {search_path}") from error
        context = params.context if params.context and params.context > 0 else 0
        limit = max(1, params.limit if params.limit is not None else DEFAULT_GREP_LIMIT)
        query = ripgrep.GrepQuery(
            pattern=params.pattern,
            search_path=search_path,
            ignore_case=bool(params.ignore_case),
            literal=bool(params.literal),
            glob=params.glob or None,
            limit=limit,
        )
        try:
            outcome = await ripgrep.search(query, signal)
        except ripgrep.SearchAborted as error:
            raise GrepError("Operation aborted") from error
        except ripgrep.SearchError as error:
            raise GrepError(str(error)) from error

        notices: list[str] = []
        details = GrepToolDetails()
        if not outcome.matches:
            text = "No matches found"
        else:
            formatter = _Formatter(operations, search_path, is_directory, context)
            lines: list[str] = []
            for match in outcome.matches:
                if signal is not None and signal.aborted:
                    raise GrepError("Operation aborted")
                lines.extend(await formatter.format(match))
            truncation = truncate_head("\n".join(lines), max_lines=float("inf"))
            text = truncation.content
            if outcome.limit_reached:
                notices.append(f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern")
                details.match_limit_reached = limit
            if truncation.truncated:
                notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
                details.truncation = truncation
            if formatter.lines_truncated:
                notices.append("Some lines truncated to 500 chars. Use read tool to see full lines")
                details.lines_truncated = True
        if outcome.unreadable:
            notices.append(
                f"{len(outcome.unreadable)} file(s) could not be read and were skipped ({outcome.unreadable[0]})"
            )
            details.unreadable_files = outcome.unreadable
        if notices:
            text += f"\n\n[{'. '.join(notices)}]"
        has_details = any(
            value is not None
            for value in (
                details.match_limit_reached,
                details.truncation,
                details.lines_truncated,
                details.unreadable_files,
            )
        )
        return AgentToolResult(content=[TextContent(text=text)], details=details if has_details else None)

    return AgentTool(
        name="grep",
        label="grep",
        description=DESCRIPTION,
        parameters=GrepParams,
        execute=execute,
        prompt_snippet="Search file contents for patterns (respects .gitignore)",
    )


__all__ = [
    "DEFAULT_GREP_LIMIT",
    "GrepError",
    "GrepOperations",
    "GrepParams",
    "GrepToolDetails",
    "GrepToolOptions",
    "LocalGrepOperations",
    "create_grep_tool",
]
