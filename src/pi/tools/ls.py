"""The `ls` tool: one directory's entries, for read-only agents that have no shell.

Names are sorted the way people (and pi) expect, case-insensitively with punctuation first and
accented letters beside their base letter, directories end in ``/``, dotfiles are included, and
broken symlinks are left out because nothing could be done with them.
"""

from __future__ import annotations

import asyncio
import os
import stat
import unicodedata
from typing import Protocol

from msgspec import Struct
from pydantic import Field

from pi.agent.tool import AgentTool, AgentToolResult, OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.types import PiModel, TextContent
from pi.tools.paths import resolve_to_cwd
from pi.tools.schema import FlooredInt, ToolParams
from pi.tools.truncate import DEFAULT_MAX_BYTES, TruncationResult, format_size, truncate_head

DEFAULT_LS_LIMIT = 500


class LsParams(ToolParams):
    path: str | None = Field(default=None, description="Directory to list (default: working directory)")
    limit: FlooredInt | None = Field(default=None, description=f"Maximum entries (default {DEFAULT_LS_LIMIT})")


class LsToolDetails(PiModel):
    entry_limit_reached: int | None = None
    truncation: TruncationResult | None = None


class LsError(Exception):
    """The directory could not be listed; the message says why."""


# --- the Operations protocol ------------------------------------------------------------------------------


class LsOperations(Protocol):
    async def exists(self, path: str) -> bool: ...

    async def is_directory(self, path: str) -> bool:
        """Following symlinks; raises when the entry cannot be resolved (e.g. a broken link)."""
        ...

    async def readdir(self, path: str) -> list[str]: ...


class LocalLsOperations:
    async def exists(self, path: str) -> bool:
        return os.path.exists(path)

    async def is_directory(self, path: str) -> bool:
        return stat.S_ISDIR(os.stat(path).st_mode)

    async def readdir(self, path: str) -> list[str]:
        return await asyncio.to_thread(os.listdir, path)


class LsToolOptions(Struct):
    operations: LsOperations | None = None


# --- ordering --------------------------------------------------------------------------------------------

_PUNCTUATION_ORDER = "\t\n\x0b\x0c\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
"""ASCII whitespace, punctuation and symbols in the order of the Unicode root collation."""
_PUNCTUATION_RANK = {char: rank for rank, char in enumerate(_PUNCTUATION_ORDER)}


def collation_key(name: str) -> tuple[tuple[tuple[int, int], ...], tuple[str, ...]]:
    """Approximates ICU root collation of the lower-cased name (what pi's `localeCompare` gives).

    Primary: punctuation and symbols, then digits, then letters, accents ignored; secondary:
    accents, so ``e`` sorts before ``é`` and both before ``f``.
    """
    primary: list[tuple[int, int]] = []
    secondary: list[str] = []
    for char in name.lower():
        if unicodedata.combining(char):
            if secondary:
                secondary[-1] += char
            continue
        decomposed = unicodedata.normalize("NFD", char)
        base, accents = decomposed[0], decomposed[1:]
        if base in _PUNCTUATION_RANK:
            weight = (0, _PUNCTUATION_RANK[base])
        elif base.isdigit():
            weight = (2, unicodedata.digit(base, 0))
        elif base.isalpha():
            weight = (3 if base.isascii() else 4, ord(base))
        else:
            weight = (1, ord(base))
        primary.append(weight)
        secondary.append(accents)
    return tuple(primary), tuple(secondary)


# --- the tool ------------------------------------------------------------------------------------------

DESCRIPTION = (
    "List a directory: sorted entries, directories ending in '/', dotfiles included. "
    f"At most {DEFAULT_LS_LIMIT} entries by default and {DEFAULT_MAX_BYTES // 1024}KB."
)


def _result(entries: list[str], limit: int, limit_reached: bool) -> AgentToolResult:
    if not entries:
        return AgentToolResult(content=[TextContent(text="(empty directory)")])
    truncation = truncate_head("\n".join(entries), max_lines=float("inf"))
    text = truncation.content
    notices: list[str] = []
    details = LsToolDetails()
    if limit_reached:
        notices.append(f"{limit} entries limit reached. Use limit={limit * 2} for more")
        details.entry_limit_reached = limit
    if truncation.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details.truncation = truncation
    if notices:
        text += f"\n\n[{'. '.join(notices)}]"
    has_details = details.entry_limit_reached is not None or details.truncation is not None
    return AgentToolResult(content=[TextContent(text=text)], details=details if has_details else None)


def create_ls_tool(cwd: str, options: LsToolOptions | None = None) -> AgentTool[LsParams]:
    opts = options or LsToolOptions()
    operations: LsOperations = opts.operations or LocalLsOperations()

    async def execute(
        tool_call_id: str,
        params: LsParams,
        signal: AbortSignal | None,
        on_update: OnToolUpdate | None,
    ) -> AgentToolResult:
        if signal is not None and signal.aborted:
            raise LsError("Operation aborted")
        directory = resolve_to_cwd(params.path or ".", cwd)
        limit = max(1, params.limit if params.limit is not None else DEFAULT_LS_LIMIT)
        missing = f"Path not found: {directory}\nList its parent directory to see what is there."
        if not await operations.exists(directory):
            raise LsError(missing)
        try:
            is_directory = await operations.is_directory(directory)
        except OSError as error:
            raise LsError(missing) from error
        if not is_directory:
            raise LsError(f"Not a directory: {directory}\nIt is a file: read it with read.")
        try:
            names = await operations.readdir(directory)
        except OSError as error:
            raise LsError(
                f"Cannot read directory: {error.strerror or error}\nCheck its permissions by listing its parent."
            ) from error

        names = sorted((name for name in names if name not in (".", "..")), key=collation_key)
        entries: list[str] = []
        limit_reached = False
        for index, name in enumerate(names):
            if signal is not None and signal.aborted:
                raise LsError("Operation aborted")
            if len(entries) >= limit:
                limit_reached = index < len(names)
                break
            try:
                entry_is_dir = await operations.is_directory(os.path.join(directory, name))
            except OSError:
                continue  # a broken symlink or an entry that vanished
            entries.append(f"{name}/" if entry_is_dir else name)

        return _result(entries, limit, limit_reached)

    return AgentTool(
        name="ls",
        label="ls",
        description=DESCRIPTION,
        parameters=LsParams,
        execute=execute,
        prompt_snippet="List directory contents",
    )


__all__ = [
    "DEFAULT_LS_LIMIT",
    "LocalLsOperations",
    "LsError",
    "LsOperations",
    "LsParams",
    "LsToolDetails",
    "LsToolOptions",
    "collation_key",
    "create_ls_tool",
]
