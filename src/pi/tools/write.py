"""The `write` tool: create a file or replace it whole.

New files and complete rewrites go through here; small changes belong to `edit`. The content is
written as given (UTF-8, no BOM, no newline conversion), parent directories are created, and a
symlink is written through so the link stays a link. The local back-end writes to a temporary
file beside the target and renames it over, so a crash or a full disk never leaves a half-written
file; the target's permission bits are kept.
"""

from __future__ import annotations

import asyncio
import errno
import os
from typing import Protocol

from msgspec import Struct
from pydantic import ConfigDict, Field
from pydantic.alias_generators import to_camel

from pi.agent.tool import JSON_SCHEMA_PREFERRED, AgentTool, AgentToolResult, OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.sanitize import replace_surrogates
from pi.ai.types import TextContent
from pi.atomic_file import write_file_atomically
from pi.tools.fs_errors import FileToolError, checked_mutation_key, describe_os_error, raise_if_aborted
from pi.tools.mutation_queue import FileMutationQueue, with_file_mutation_queue
from pi.tools.paths import resolve_to_cwd
from pi.tools.schema import ToolParams


class WriteParams(ToolParams):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    path: str = Field(description="File to write (relative or absolute)")
    content: str = Field(description="Complete file content")


# --- operations -----------------------------------------------------------------------------------


class WriteOperations(Protocol):
    """How `write` touches the filesystem; swap it to write over SSH, into a container, or to a fake.

    Failures are OSError with `errno` and `filename` set, so the tool can report them uniformly.
    """

    async def mkdir(self, path: str) -> None:
        """Create `path` and its missing parents; an existing directory is fine."""
        ...

    async def write_file(self, path: str, data: bytes) -> None:
        """Replace the file's content with `data`, creating it if needed."""
        ...


def encode_utf8(text: str) -> bytes:
    """UTF-8 bytes of `text`; an unpaired surrogate (possible in JSON from a model) becomes U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return replace_surrogates(text).encode("utf-8")


class LocalWriteOperations:
    """The local filesystem, with atomic replacement."""

    async def mkdir(self, path: str) -> None:
        await asyncio.to_thread(os.makedirs, path, exist_ok=True)

    async def write_file(self, path: str, data: bytes) -> None:
        await asyncio.to_thread(write_file_atomically, path, data)


# --- tool -----------------------------------------------------------------------------------------

DESCRIPTION = (
    "Write a file: created if missing (with its parent directories), replaced whole if it exists. "
    "For changes to part of a file use edit."
)

_NEXT_STEPS = {
    errno.EACCES: "The location is not writable: check its permissions with ls -l, or write somewhere else.",
    errno.EPERM: "The location is not writable: check its permissions with ls -l, or write somewhere else.",
    errno.EISDIR: "The path is a directory: give the path of a file inside it.",
    errno.ENOTDIR: "A part of the path is a file, not a directory: check the path with ls.",
    errno.EEXIST: "A part of the path is a file, not a directory: check the path with ls.",
    errno.EROFS: "The file system is read-only: write somewhere else.",
    errno.ENOSPC: "The disk is full: free some space or write somewhere else.",
    errno.ENAMETOOLONG: "The path is too long: use a shorter name.",
}


def _write_error(exc: OSError, syscall: str, path: str) -> FileToolError:
    message = describe_os_error(exc, syscall, path)
    next_step = _NEXT_STEPS.get(exc.errno or 0)
    return FileToolError(f"{message}\n{next_step}" if next_step else message)


class WriteToolOptions(Struct):
    """How `create_write_tool` writes files; with no `operations` it works on the local file system."""

    operations: WriteOperations | None = None
    mutation_queue: FileMutationQueue | None = None
    """Defaults to the process-wide queue shared with `edit` and extension tools."""


def create_write_tool(cwd: str, options: WriteToolOptions | None = None) -> AgentTool[WriteParams]:
    opts = options or WriteToolOptions()
    ops: WriteOperations = opts.operations or LocalWriteOperations()

    async def execute(
        tool_call_id: str, params: WriteParams, signal: AbortSignal | None, on_update: OnToolUpdate | None
    ) -> AgentToolResult:
        absolute = resolve_to_cwd(params.path, cwd)

        async def mutate() -> AgentToolResult:
            raise_if_aborted(signal)
            data = encode_utf8(params.content)
            directory = os.path.dirname(absolute)
            try:
                await ops.mkdir(directory)
            except OSError as exc:
                raise _write_error(exc, "mkdir", exc.filename or directory) from exc
            try:
                await ops.write_file(absolute, data)
            except OSError as exc:
                raise _write_error(exc, "open", absolute) from exc
            raise_if_aborted(signal)
            return AgentToolResult(content=[TextContent(text=f"Successfully wrote {len(data)} bytes to {params.path}")])

        checked_mutation_key(absolute)  # a symlink loop or a name too long fails here, with a next step
        return await with_file_mutation_queue(absolute, mutate, opts.mutation_queue)

    return AgentTool(
        name="write",
        label="write",
        description=DESCRIPTION,
        parameters=WriteParams,
        execute=execute,
        prompt_snippet="Create or overwrite files",
        prompt_guidelines=["Use write only for new files or complete rewrites."],
        constrained_sampling=JSON_SCHEMA_PREFERRED,
    )


__all__ = [
    "LocalWriteOperations",
    "WriteOperations",
    "WriteParams",
    "WriteToolOptions",
    "create_write_tool",
    "encode_utf8",
    "write_file_atomically",
]
