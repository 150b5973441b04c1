"""The `grep` tool: search file contents, for read-only agents that have no shell.

Results are ``path:line: text`` lines (context lines use ``-``), capped by a match limit and the
byte limit; every cap is announced with what to do about it, so the model can widen the search
or narrow the pattern instead of trusting a partial answer.
"""

from __future__ import annotations

import os
from typing import Protocol

from msgspec import Struct
from pydantic import ConfigDict, Field

from pi.agent.tool import AgentTool, AgentToolResult, OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.types import PiModel, TextContent
from pi.tools import ripgrep
from pi.tools.paths import resolve_to_cwd
from pi.tools.schema import FlooredInt, ToolParams
from pi.tools.truncate import DEFAULT_MAX_BYTES, TruncationResult, format_size, truncate_head, truncate_line

DEFAULT_GREP_LIMIT = 100


class GrepParams(ToolParams):
    model_config = ConfigDict(populate_by_name=True)

    pattern: str = Field(description="Regex (or plain text with literal=true)")
    path: str | None = Field(default=None, description="Directory or file to search (default: working directory)")
    glob: str | None = Field(
        default=None,
        description="Only files matching this glob, relative to path; without '/' it matches names at any depth",
    )
    ignore_case: bool | None = Field(default=None, alias="ignoreCase", description="Case-insensitive match")
    literal: bool | None = Field(default=None, description="Pattern is plain text")
    context: FlooredInt | None = Field(default=None, description="Lines of context around each match")
    limit: FlooredInt | None = Field(default=None, description=f"Maximum matches (default {DEFAULT_GREP_LIMIT})")


class GrepToolDetails(PiModel):
    match_limit_reached: int | None = None
    truncation: TruncationResult | None = None
    lines_truncated: bool | None = None
    unreadable_files: list[str] | None = None


class GrepError(Exception):
    """The search could not be done; the message says what to change."""


# --- the Operations protocol: where files are looked at ----------------------------------------------------


class GrepOperations(Protocol):
    """How grep checks the search path (the search itself runs locally, with rg or in Python)."""

    async def is_directory(self, path: str) -> bool:
        """True for a directory, False for a file; raises if nothing is there."""
        ...


class LocalGrepOperations:
    async def is_directory(self, path: str) -> bool:
        return os.stat(path).st_mode & 0o170000 == 0o040000


class GrepToolOptions(Struct):
    operations: GrepOperations | None = None


# --- formatting ------------------------------------------------------------------------------------------


def _display_path(path: str, search_path: str, is_directory: bool) -> str:
    if not is_directory:
        return os.path.basename(path)
    relative = os.path.relpath(path, search_path).replace(os.sep, "/")
    if not relative or relative.startswith(".."):
        return os.path.basename(path)
    return relative


def _format(lines: list[ripgrep.GrepLine], search_path: str, is_directory: bool) -> tuple[list[str], bool]:
    """``path:N: text`` for matches and ``path-N- text`` for context; whether any line had to be cut."""
    out: list[str] = []
    cut_any = False
    shown_paths: dict[str, str] = {}
    for line in lines:
        shown = shown_paths.get(line.path)
        if shown is None:
            shown = shown_paths[line.path] = _display_path(line.path, search_path, is_directory)
        text, cut = truncate_line(line.text)
        cut_any = cut_any or cut
        separator = ":" if line.is_match else "-"
        out.append(f"{shown}{separator}{line.line_number}{separator} {text}")
    return out, cut_any


def _search_error(error: ripgrep.SearchError) -> GrepError:
    message = str(error)
    if message.startswith("regex parse error"):
        message += (
            "\nThe pattern is not a valid regular expression: pass literal=true to search for the text as written, "
            "or escape the special characters (e.g. \\( or \\[)."
        )
    return GrepError(message)


# --- the tool ------------------------------------------------------------------------------------------

DESCRIPTION = (
    "Search file contents for a regex; matching lines come back as path:line: text. Respects .gitignore, "
    f"includes hidden files. At most {DEFAULT_GREP_LIMIT} matches by default and {DEFAULT_MAX_BYTES // 1024}KB; "
    "lines over 500 characters are cut."
)


def _result(outcome: ripgrep.SearchOutcome, query: ripgrep.GrepQuery, is_directory: bool) -> AgentToolResult:
    notices: list[str] = []
    details = GrepToolDetails()
    if not outcome.lines:
        text = "No matches found"
    else:
        lines, cut = _format(outcome.lines, query.search_path, is_directory)
        truncation = truncate_head("\n".join(lines), max_lines=float("inf"))
        text = truncation.content
        if outcome.limit_reached:
            limit = query.limit
            notices.append(f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern")
            details.match_limit_reached = limit
        if truncation.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details.truncation = truncation
        if cut:
            notices.append("Some lines truncated to 500 chars. Use read tool to see full lines")
            details.lines_truncated = True
    if outcome.unreadable:
        notices.append(
            f"{len(outcome.unreadable)} file(s) could not be read and were skipped ({outcome.unreadable[0]})"
        )
        details.unreadable_files = outcome.unreadable
    if notices:
        text += f"\n\n[{'. '.join(notices)}]"
    values = (details.match_limit_reached, details.truncation, details.lines_truncated, details.unreadable_files)
    has_details = any(value is not None for value in values)
    return AgentToolResult(content=[TextContent(text=text)], details=details if has_details else None)


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
            raise GrepError(
                f"Path not found: {search_path}\n"
                "Check the path with ls, or leave path out to search the working directory."
            ) from error
        query = ripgrep.GrepQuery(
            pattern=params.pattern,
            search_path=search_path,
            ignore_case=bool(params.ignore_case),
            literal=bool(params.literal),
            glob=params.glob or None,
            limit=max(1, params.limit if params.limit is not None else DEFAULT_GREP_LIMIT),
            context=max(0, params.context or 0),
        )
        try:
            outcome = await ripgrep.search(query, signal)
        except ripgrep.SearchAborted as error:
            raise GrepError("Operation aborted") from error
        except ripgrep.SearchError as error:
            raise _search_error(error) from error
        return _result(outcome, query, is_directory)

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
