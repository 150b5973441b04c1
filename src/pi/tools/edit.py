"""The `edit` tool: targeted text replacements in one file.

The model names text it saw in the file and what should stand there instead; the engine
(`edit_engine`) finds each piece, checks it is unique and that pieces do not overlap, and applies
them all against the original. The file's BOM, line endings and every byte the edit does not
touch survive, invalid UTF-8 included. The whole read-change-write runs inside the file-mutation
queue so parallel edits of one file apply one after the other instead of overwriting each other.
"""

from __future__ import annotations

import asyncio
import errno
import os
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from pi.agent.tool import JSON_SCHEMA_PREFERRED, AgentTool, AgentToolResult, OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.sanitize import replace_surrogates
from pi.ai.types import TextContent
from pi.atomic_file import write_file_atomically
from pi.tools.edit_arguments import prepare_edit_arguments
from pi.tools.fs_errors import FileToolError, checked_mutation_key, error_code, raise_if_aborted
from pi.tools.mutation_queue import FileMutationQueue, with_file_mutation_queue
from pi.tools.paths import PathArgumentError, resolve_to_cwd
from pi.tools.schema import ToolParams

if TYPE_CHECKING:
    # The matching engine and the diff are imported when an edit runs: a session that never edits
    # (most print-mode runs) does not pay for loading them.
    from pi.tools.diff import DiffResult
    from pi.tools.edit_engine import Replacement


class ReplaceEdit(ToolParams):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    old_text: str = Field(description="Exact text from the file, unique in it")
    new_text: str = Field(description="Replacement text")


class EditParams(ToolParams):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    path: str = Field(description="File to edit (relative or absolute)")
    edits: list[ReplaceEdit] = Field(description="Replacements, all matched against the original file")


class EditToolDetails(BaseModel):
    """For the UI and logs: the change as a numbered diff and as a unified patch."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True, defer_build=True)

    diff: str
    patch: str
    first_changed_line: int | None


# --- operations -----------------------------------------------------------------------------------


class EditOperations(Protocol):
    """How `edit` touches the filesystem; swap it to edit over SSH, in a container, or a fake.

    Failures are OSError with `errno` set.
    """

    async def access(self, path: str) -> None:
        """Raise unless `path` exists and may be read and written."""
        ...

    async def read_file(self, path: str) -> bytes: ...

    async def write_file(self, path: str, data: bytes) -> None: ...


def _check_access(path: str) -> None:
    os.stat(path)
    if not os.access(path, os.R_OK | os.W_OK):
        raise PermissionError(errno.EACCES, "Permission denied", path)


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


class LocalEditOperations:
    async def access(self, path: str) -> None:
        await asyncio.to_thread(_check_access, path)

    async def read_file(self, path: str) -> bytes:
        return await asyncio.to_thread(_read_bytes, path)

    async def write_file(self, path: str, data: bytes) -> None:
        await asyncio.to_thread(write_file_atomically, path, data)


# --- shared flow ----------------------------------------------------------------------------------

EMPTY_EDITS_MESSAGE = (
    "Edit tool input is invalid. edits must contain at least one replacement. "
    'Pass edits as a list of {"oldText": ..., "newText": ...} objects.'
)


_NEXT_STEPS = {
    errno.ENOENT: "The file does not exist: check the path with ls, or create the file with write.",
    errno.EISDIR: "The path is a directory: list it with ls and edit a file inside it.",
    errno.EACCES: "The file is not writable: check its permissions with ls -l.",
    errno.EPERM: "The file is not writable: check its permissions with ls -l.",
    errno.ENOTDIR: "A part of the path is a file, not a directory: check the path with ls.",
    errno.EROFS: "The file system is read-only: the file cannot be edited here.",
}


def _cannot_edit(path: str, exc: OSError) -> FileToolError:
    message = f"Could not edit file: {path}. Error code: {error_code(exc)}."
    next_step = _NEXT_STEPS.get(exc.errno or 0)
    return FileToolError(f"{message}\n{next_step}" if next_step else message)


def _printable(text: str) -> str:
    """Bytes that were not UTF-8 are carried as lone surrogates; show them as U+FFFD in diffs."""
    return replace_surrogates(text)


def _replacements(edits: list[ReplaceEdit]) -> list[Replacement]:
    from pi.tools.edit_engine import Replacement

    # A lone surrogate from the model's JSON would be confused with the escapes of invalid file bytes.
    return [Replacement(_printable(e.old_text), _printable(e.new_text)) for e in edits]


async def _load(ops: EditOperations, absolute: str, path: str, signal: AbortSignal | None) -> str:
    try:
        await ops.access(absolute)
    except OSError as exc:
        raise _cannot_edit(path, exc) from exc
    raise_if_aborted(signal)
    try:
        raw = await ops.read_file(absolute)
    except OSError as exc:
        raise _cannot_edit(path, exc) from exc
    raise_if_aborted(signal)
    # surrogateescape keeps bytes that are not UTF-8 intact through the edit and back to disk.
    return raw.decode("utf-8", "surrogateescape")


async def compute_edits_diff(
    path: str,
    edits: list[ReplaceEdit],
    cwd: str,
    operations: EditOperations | None = None,
    *,
    collapse_whitespace: bool = False,
) -> DiffResult | str:
    """Preview of an edit without writing it (for a confirmation UI): the diff, or the error text."""
    from pi.tools.diff import DiffResult, generate_diff_string
    from pi.tools.edit_engine import EditError, apply_edits

    ops = operations or LocalEditOperations()
    try:
        absolute = resolve_to_cwd(path, cwd)
        text = await _load(ops, absolute, path, None)
        outcome = apply_edits(text, _replacements(edits), path, collapse_whitespace=collapse_whitespace)
    except (FileToolError, EditError, PathArgumentError) as exc:
        return str(exc)
    result = generate_diff_string(outcome.base_content, outcome.new_content)
    return DiffResult(_printable(result.diff), result.first_changed_line)


# --- tool -----------------------------------------------------------------------------------------

DESCRIPTION = (
    "Replace exact text in one file. Each edits[].oldText must match one unique part of the original "
    "file, not overlapping another edit. Merge changes to nearby lines into one edit; keep oldText short."
)

PROMPT_SNIPPET = "Make precise file edits with exact text replacement, including multiple disjoint edits in one call"

PROMPT_GUIDELINES = [
    "Use edit for targeted changes. Batch changes to one file in a single call.",
    "Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and "
    "non-overlapping; merge nearby changes without including large unchanged regions.",
]


class EditToolOptions(Struct):
    """How `create_edit_tool` edits files; with no `operations` it works on the local file system."""

    operations: EditOperations | None = None
    mutation_queue: FileMutationQueue | None = None
    """Defaults to the process-wide queue shared with `write` and extension tools."""
    collapse_whitespace: bool = False
    """Also let runs of blanks inside a line match a single space (indentation still must match)."""


def create_edit_tool(cwd: str, options: EditToolOptions | None = None) -> AgentTool[EditParams]:
    opts = options or EditToolOptions()
    ops: EditOperations = opts.operations or LocalEditOperations()

    async def execute(
        tool_call_id: str, params: EditParams, signal: AbortSignal | None, on_update: OnToolUpdate | None
    ) -> AgentToolResult:
        if not params.edits:
            raise FileToolError(EMPTY_EDITS_MESSAGE)
        absolute = resolve_to_cwd(params.path, cwd)

        async def mutate() -> AgentToolResult:
            from pi.tools.diff import diff_lines, generate_diff_string, generate_unified_patch
            from pi.tools.edit_engine import apply_edits

            raise_if_aborted(signal)
            text = await _load(ops, absolute, params.path, signal)
            outcome = apply_edits(
                text, _replacements(params.edits), params.path, collapse_whitespace=opts.collapse_whitespace
            )
            # The diff is made before writing, so a failure there can never follow a changed file.
            parts = diff_lines(outcome.base_content, outcome.new_content)
            display = generate_diff_string(outcome.base_content, outcome.new_content, parts=parts)
            patch = generate_unified_patch(params.path, outcome.base_content, outcome.new_content, parts=parts)
            data = outcome.final_text.encode("utf-8", "surrogateescape")
            try:
                await ops.write_file(absolute, data)
            except OSError as exc:
                raise _cannot_edit(params.path, exc) from exc
            raise_if_aborted(signal)
            return AgentToolResult(
                content=[TextContent(text=f"Successfully replaced {len(params.edits)} block(s) in {params.path}.")],
                details=EditToolDetails(
                    diff=_printable(display.diff),
                    patch=_printable(patch),
                    first_changed_line=display.first_changed_line,
                ),
            )

        checked_mutation_key(absolute)  # a symlink loop or a name too long fails here, with a next step
        return await with_file_mutation_queue(absolute, mutate, opts.mutation_queue)

    return AgentTool(
        name="edit",
        label="edit",
        description=DESCRIPTION,
        parameters=EditParams,
        execute=execute,
        prepare_arguments=prepare_edit_arguments,
        prompt_snippet=PROMPT_SNIPPET,
        prompt_guidelines=list(PROMPT_GUIDELINES),
        constrained_sampling=JSON_SCHEMA_PREFERRED,
    )


__all__ = [
    "EMPTY_EDITS_MESSAGE",
    "EditOperations",
    "EditParams",
    "EditToolDetails",
    "EditToolOptions",
    "LocalEditOperations",
    "ReplaceEdit",
    "compute_edits_diff",
    "create_edit_tool",
]
