"""The `read` tool: a window of a text file, or an image as an attachment.

Files can be far larger than a context window, so the text is streamed: lines before `offset` are
only counted, the lines returned are kept up to the output limits, and everything after is only
counted again. Memory stays proportional to what is returned, yet the notices still carry the
file's total line count, because the model needs it to page on (``Use offset=2001 to continue``).

Line counting follows the truncation rules: a final newline ends the last line, it does not
start an empty one, so a file of 2500 newline-terminated lines has 2500 lines.
"""

from __future__ import annotations

import asyncio
import errno
import os
import shlex
import stat
from collections.abc import AsyncIterator, Callable
from typing import Protocol, runtime_checkable

from msgspec import Struct
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from pi.agent.tool import JSON_SCHEMA_PREFERRED, AgentTool, AgentToolResult, OnToolUpdate, ToolContent
from pi.ai.abort import AbortSignal
from pi.ai.types import ImageContent, ImageResize, TextContent
from pi.tools.fs_errors import FileToolError, describe_os_error, raise_if_aborted
from pi.tools.images import (
    IMAGE_SNIFF_BYTES,
    ImageProcessor,
    detect_image_mime_type,
    detect_unsupported_image,
    process_image_async,
    unsupported_image_note,
)
from pi.tools.paths import resolve_read_path
from pi.tools.schema import ToolParams
from pi.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult, format_size, truncate_head


class ReadParams(ToolParams):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    path: str = Field(description="File to read (relative or absolute)")
    offset: int | None = Field(default=None, description="First line to return, 1-based")
    limit: int | None = Field(default=None, description="Maximum number of lines")


class ReadToolDetails(BaseModel):
    """The `details` of a read result (camelCase aliases in JSON).

    Present only when the text was cut to the output limits or an image went to a model without image input;
    a result needing neither note has no details.
    """

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True, defer_build=True)

    truncation: TruncationResult | None = None
    image_unsupported_by_model: str | None = None
    """Id of the current model when it takes no images: the image is replaced by a placeholder per request."""


BINARY_SNIFF_BYTES = 8192
"""A NUL byte this early means a binary file; showing it as text would only waste context."""

CHUNK_SIZE = 1 << 20

SMALL_FILE_BYTES = CHUNK_SIZE
"""A regular file up to this size is checked and read in a single trip to a worker thread.

Each trip costs about a tenth of a millisecond, and reading a source file the streaming way takes
five of them (check, head, open, chunk, end of file): for the files a model reads all day, that
was most of the tool's time.
"""


# --- operations -----------------------------------------------------------------------------------


class ReadOperations(Protocol):
    """How `read` touches the filesystem; swap it to read over SSH, from a container, or a fake.

    Failures are OSError with `errno` set.
    """

    def exists(self, path: str) -> bool:
        """Used to try the spellings macOS gives some names; must be cheap."""
        ...

    async def access(self, path: str) -> None:
        """Raise unless `path` exists and may be read."""
        ...

    async def read_head(self, path: str, size: int) -> bytes:
        """Up to `size` bytes from the start of the file (to recognise images and binary files)."""
        ...

    async def read_file(self, path: str) -> bytes:
        """The whole file; only used for images, which are bounded by what a model accepts anyway."""
        ...

    def read_chunks(self, path: str, chunk_size: int) -> AsyncIterator[bytes]:
        """The file as consecutive chunks, so text files of any size can be read in bounded memory."""
        ...


@runtime_checkable
class SmallFileReader(Protocol):
    """What read operations may also offer: `access`'s checks and a small file's whole content in one call.

    `read` uses it where the operations have it (`LocalReadOperations` does). The checks raise as
    `access` does; None means "not a regular file of at most `limit` bytes", and the tool then
    reads the streaming way.
    """

    async def read_small(self, path: str, limit: int) -> bytes | None: ...


def _read_prefix(path: str, size: int) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(size)


def _check_readable(path: str) -> os.stat_result:
    info = os.stat(path)
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
    if not os.access(path, os.R_OK):
        raise PermissionError(errno.EACCES, "Permission denied", path)
    return info


def _read_small(path: str, limit: int) -> bytes | None:
    info = _check_readable(path)
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        return None  # large, or a pipe or device that must not be opened twice
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    return data if len(data) <= limit else None  # it grew while being read: stream it instead


def _read_all(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


class LocalReadOperations:
    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    async def access(self, path: str) -> None:
        await asyncio.to_thread(_check_readable, path)

    async def read_head(self, path: str, size: int) -> bytes:
        return await asyncio.to_thread(_read_prefix, path, size)

    async def read_small(self, path: str, limit: int) -> bytes | None:
        return await asyncio.to_thread(_read_small, path, limit)

    async def read_file(self, path: str) -> bytes:
        return await asyncio.to_thread(_read_all, path)

    async def read_chunks(self, path: str, chunk_size: int) -> AsyncIterator[bytes]:
        handle = await asyncio.to_thread(open, path, "rb")
        try:
            while chunk := await asyncio.to_thread(handle.read, chunk_size):
                yield chunk
        finally:
            handle.close()


# --- streaming line window ------------------------------------------------------------------------


class LineWindow:
    """Counts every line of a byte stream and keeps only those a read will show.

    Lines `start` .. `stop - 1` (0-based; `stop` None = to the end) form the selection. Of those,
    lines are kept until more than `max_lines` lines or more than `max_bytes` bytes are held, which
    is exactly enough for `truncate_head` to cut at the same place as it would on the whole
    selection; a kept line longer than `max_bytes` holds only its first bytes. Lines are split on
    the LF byte, which never occurs inside a multi-byte UTF-8 character.
    """

    def __init__(self, start: int, stop: int | None, max_lines: int, max_bytes: int) -> None:
        self.start = start
        self.stop = stop
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.line = 0
        """Index of the line the next byte belongs to."""
        self.consumed = 0
        self.ends_with_newline = False
        self.kept: list[bytes] = []
        self.kept_bytes = 0
        self.keeping = True
        self.first_line_bytes: int | None = None
        """True size of the first selected line (kept content may be cut short)."""
        self.selection_start_byte: int | None = None
        self.selection_end_byte: int | None = None
        self._current = bytearray()
        self._current_size = 0
        self._in_line = False

    def _collecting(self) -> bool:
        return self.keeping and self.line >= self.start and (self.stop is None or self.line < self.stop)

    def _advance_to(self, chunk: bytes, pos: int, target: int) -> int | None:
        """Skip whole lines until line `target` starts; the position after its preceding LF, or None."""
        needed = target - self.line
        available = chunk.count(b"\n", pos)
        if available < needed:
            self.line += available
            return None
        index = pos - 1
        for _ in range(needed):
            index = chunk.index(b"\n", index + 1)
        self.line = target
        return index + 1

    def _mark_line_end(self, absolute_newline: int) -> None:
        """Called as line `self.line` ends at the LF at `absolute_newline` (before incrementing)."""
        if self.stop is not None and self.line == self.stop - 1:
            self.selection_end_byte = absolute_newline

    def feed(self, chunk: bytes) -> None:
        if not chunk:
            return
        base = self.consumed
        self.consumed += len(chunk)
        self.ends_with_newline = chunk[-1] == 0x0A
        pos = 0
        size = len(chunk)
        while pos < size:
            if self.selection_start_byte is None and self.line >= self.start:
                self.selection_start_byte = base + pos
            if self._collecting():
                newline = chunk.find(b"\n", pos)
                end = size if newline == -1 else newline
                self._append(chunk, pos, end)
                if newline == -1:
                    return
                self._mark_line_end(base + newline)
                self._finish_line()
                self.line += 1
                pos = newline + 1
                continue
            if self.line < self.start:
                target = self.start
            elif self.stop is not None and self.line < self.stop:
                target = self.stop
            else:
                self.line += chunk.count(b"\n", pos)
                return
            advanced = self._advance_to(chunk, pos, target)
            if advanced is None:
                return
            if target == self.stop:
                self.selection_end_byte = base + advanced - 1
            pos = advanced
        if self.selection_start_byte is None and self.line >= self.start:
            self.selection_start_byte = self.consumed

    def _append(self, chunk: bytes, pos: int, end: int) -> None:
        self._in_line = True
        length = end - pos
        room = self.max_bytes + 4 - len(self._current)
        if room > 0:
            self._current += chunk[pos : pos + min(length, room)]
        self._current_size += length

    def _finish_line(self) -> None:
        if self.first_line_bytes is None:
            self.first_line_bytes = self._current_size
        self.kept_bytes += self._current_size + (1 if self.kept else 0)
        self.kept.append(bytes(self._current))
        self._current = bytearray()
        self._current_size = 0
        self._in_line = False
        if len(self.kept) > self.max_lines or self.kept_bytes > self.max_bytes:
            self.keeping = False

    def finish(self) -> None:
        """End of input: close an unterminated last line."""
        if self.consumed and not self.ends_with_newline:
            if self._collecting():
                self._in_line = True
            if self._in_line:
                self._finish_line()
            self.line += 1

    @property
    def total_lines(self) -> int:
        return self.line

    def selection(self) -> tuple[str, bool]:
        """The kept text, and whether it is the whole selection (nothing dropped for size)."""
        if not self.keeping:
            # The last kept line is past the cut and never shown. Marking it non-empty keeps a trailing
            # empty line from being read as the end of the previous one, which would hide the cut.
            text = b"\n".join([*self.kept[:-1], self.kept[-1] + b"~"]).decode("utf-8", "replace")
            return text, False
        text = b"\n".join(self.kept).decode("utf-8", "replace")
        reaches_end = self.stop is None or self.stop >= self.total_lines
        if reaches_end and self.ends_with_newline and self.kept:
            text += "\n"
        return text, True

    def selection_bytes(self) -> int:
        start = self.selection_start_byte if self.selection_start_byte is not None else self.consumed
        reaches_end = self.stop is None or self.stop >= self.total_lines
        end = self.consumed if reaches_end or self.selection_end_byte is None else self.selection_end_byte
        return max(0, end - start)


# --- tool -----------------------------------------------------------------------------------------

DESCRIPTION = (
    "Read a text file or an image (jpg, png, gif, webp, bmp; sent as an attachment). Text stops after "
    f"{DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB with a note giving the offset to continue from; "
    "use offset and limit for large files."
)


class ReadToolOptions(Struct):
    """How `create_read_tool` reads files and handles images; with no `operations` it reads the local file system."""

    operations: ReadOperations | None = None
    auto_resize_images: bool = True
    image_processor: ImageProcessor | None = None
    """Replaces the built-in image conversion and resizing (Pillow when installed)."""
    unsupported_image_model: Callable[[], str | None] | None = None
    """The current model's id when it accepts no images (None when it does); recorded in the details."""
    image_resize: Callable[[], ImageResize | None] | None = None
    """The resize profile of the model the result goes to (its ``inputLimits.images.resize``), asked at
    each read so a model switch applies at once; None, or no callable, means the default limits."""


_NEXT_STEPS = {
    errno.ENOENT: "Check the path: list the directory with ls, or search for the file name.",
    errno.EACCES: "The file is not readable: check its permissions with ls -l.",
    errno.EPERM: "The file is not readable: check its permissions with ls -l.",
    errno.ENOTDIR: "A part of the path is a file, not a directory: check the path with ls.",
    errno.ELOOP: "The path is a symlink loop: inspect it with ls -l.",
}


def _display_error(exc: OSError, absolute: str) -> str:
    if exc.errno == errno.EISDIR:
        return describe_os_error(exc, "read") + "\nThe path is a directory: list it with ls instead."
    message = describe_os_error(exc, "access" if exc.errno != errno.EIO else "read", absolute)
    next_step = _NEXT_STEPS.get(exc.errno or 0)
    return f"{message}\n{next_step}" if next_step else message


def _text_result(text: str, details: ReadToolDetails | None = None) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=text)], details=details, structured_content=text)


async def _read_image(
    ops: ReadOperations,
    opts: ReadToolOptions,
    processor: ImageProcessor,
    absolute: str,
    mime_type: str,
    content: bytes | None = None,
) -> AgentToolResult:
    """The image at `absolute` as the model sees it; `content` is the file when it was already read whole."""
    data = content if content is not None else await ops.read_file(absolute)
    profile = opts.image_resize() if opts.image_resize is not None else None
    if profile is not None:
        processed = await processor(data, mime_type, auto_resize=opts.auto_resize_images, profile=profile)
    else:  # a replacement processor written before profiles existed keeps working
        processed = await processor(data, mime_type, auto_resize=opts.auto_resize_images)
    if not processed.ok:  # no image goes to the model, so there is nothing it could not take
        return _text_result(f"Read image file [{mime_type}]\n{processed.message}")
    model = opts.unsupported_image_model() if opts.unsupported_image_model is not None else None
    details = ReadToolDetails(image_unsupported_by_model=model) if model else None
    note = "\n".join([f"Read image file [{processed.mime_type}]", *processed.hints])
    blocks: list[ToolContent] = [
        TextContent(text=note),
        ImageContent(data=processed.data, mime_type=processed.mime_type),
    ]
    structured = {"type": "image", "data": processed.data, "mimeType": processed.mime_type, "note": note}
    return AgentToolResult(content=blocks, details=details, structured_content=structured)


async def _scan(
    ops: ReadOperations,
    absolute: str,
    start: int,
    stop: int | None,
    signal: AbortSignal | None,
    content: bytes | None = None,
) -> LineWindow:
    window = LineWindow(start, stop, DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES)
    if content is not None:
        window.feed(content)
        window.finish()
        return window
    chunks = ops.read_chunks(absolute, CHUNK_SIZE)
    try:
        async for chunk in chunks:
            raise_if_aborted(signal)
            window.feed(chunk)
    finally:
        close = getattr(chunks, "aclose", None)
        if close is not None:  # release the file now, not when the generator is collected
            await close()
    window.finish()
    return window


async def _read_text(
    ops: ReadOperations,
    path: str,
    absolute: str,
    offset: int | None,
    limit: int | None,
    signal: AbortSignal | None,
    content: bytes | None = None,
) -> AgentToolResult:
    if limit is not None and limit < 1:
        # pi would quietly show one line; a model that sent 0 or -1 most likely meant "no limit".
        raise FileToolError(
            f"Invalid limit {limit}: limit must be at least 1 (the number of lines to return). "
            "Leave limit out to read to the end of the file (output is cut at "
            f"{DEFAULT_MAX_LINES} lines or {format_size(DEFAULT_MAX_BYTES)}), or pass a positive number."
        )
    start = max(0, offset - 1) if offset else 0
    stop = start + limit if limit is not None else None
    window = await _scan(ops, absolute, start, stop, signal, content)
    total = window.total_lines
    if start >= total and not (start == 0 and total == 0):
        raise FileToolError(
            f"Offset {offset} is beyond end of file ({total} lines total)\n"
            + (f"Use an offset from 1 to {total}." if total else "The file is empty.")
        )

    text, complete = window.selection()
    truncation = truncate_head(text, DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES)
    selected_lines = (min(total, stop) if stop is not None else total) - start
    if complete and truncation.truncated and truncation.output_lines >= selected_lines:
        # Every selected line fits; only the newline ending the last one is past the byte limit.
        # There is nothing to page on to, so the text goes out whole, without a notice.
        truncation = truncation.model_copy(update={"content": text, "truncated": False, "truncated_by": None})
    if not complete or truncation.truncated:
        truncation = truncation.model_copy(
            update={"total_lines": selected_lines, "total_bytes": window.selection_bytes()}
        )
    first = start + 1
    if truncation.first_line_exceeds_limit:
        size = format_size(window.first_line_bytes or 0)
        message = (
            f"[Line {first} is {size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
            f"Use bash: sed -n '{first}p' {shlex.quote(path)} | head -c {DEFAULT_MAX_BYTES}]"
        )
        return _text_result(message, ReadToolDetails(truncation=truncation))
    if truncation.truncated:
        last = first + truncation.output_lines - 1
        limit_note = "" if truncation.truncated_by == "lines" else f" ({format_size(DEFAULT_MAX_BYTES)} limit)"
        notice = f"[Showing lines {first}-{last} of {total}{limit_note}. Use offset={last + 1} to continue.]"
        return _text_result(f"{truncation.content}\n\n{notice}", ReadToolDetails(truncation=truncation))
    if stop is not None and stop < total:
        notice = f"[{total - stop} more lines in file. Use offset={stop + 1} to continue.]"
        return _text_result(f"{text}\n\n{notice}")
    return _text_result(text)


_LOCAL_STEPS = ("access", "read_head", "read_chunks")


def _small_file_reader(ops: ReadOperations) -> SmallFileReader | None:
    """`ops` where it can read a small file in one call, unless it is local operations with a step changed.

    A subclass of `LocalReadOperations` that changes how files are checked or read (to count
    chunks, or to stop after one) inherits `read_small`, which would go around its changes.
    """
    if not isinstance(ops, SmallFileReader):
        return None
    if isinstance(ops, LocalReadOperations):
        kind = type(ops)
        if any(getattr(kind, step) is not getattr(LocalReadOperations, step) for step in _LOCAL_STEPS):
            return None
    return ops


def create_read_tool(cwd: str, options: ReadToolOptions | None = None) -> AgentTool[ReadParams]:
    opts = options or ReadToolOptions()
    ops: ReadOperations = opts.operations or LocalReadOperations()
    processor: ImageProcessor = opts.image_processor or process_image_async
    small = _small_file_reader(ops)

    async def execute(
        tool_call_id: str, params: ReadParams, signal: AbortSignal | None, on_update: OnToolUpdate | None
    ) -> AgentToolResult:
        raise_if_aborted(signal)
        absolute = resolve_read_path(params.path, cwd, ops.exists)
        try:
            content: bytes | None = None
            if small is not None:
                content = await small.read_small(absolute, SMALL_FILE_BYTES)
            else:
                await ops.access(absolute)
            raise_if_aborted(signal)
            if content is not None:
                head = content[: max(IMAGE_SNIFF_BYTES, BINARY_SNIFF_BYTES)]
            else:
                head = await ops.read_head(absolute, max(IMAGE_SNIFF_BYTES, BINARY_SNIFF_BYTES))
            raise_if_aborted(signal)
            mime_type = detect_image_mime_type(head)
            if mime_type is not None:
                result = await _read_image(ops, opts, processor, absolute, mime_type, content)
                raise_if_aborted(signal)
                return result
            unsupported = detect_unsupported_image(head)
            if unsupported is not None:
                note = unsupported_image_note(unsupported)
                return _text_result(f"Read image file [{unsupported}]\n{note}")
            if b"\x00" in head[:BINARY_SNIFF_BYTES]:
                return _text_result(_binary_notice(params.path))
            return await _read_text(ops, params.path, absolute, params.offset, params.limit, signal, content)
        except OSError as exc:
            raise FileToolError(_display_error(exc, absolute)) from exc

    return AgentTool(
        name="read",
        label="read",
        description=DESCRIPTION,
        parameters=ReadParams,
        execute=execute,
        prompt_snippet="Read file contents",
        prompt_guidelines=["Use read to examine files instead of cat or sed."],
        constrained_sampling=JSON_SCHEMA_PREFERRED,
    )


def _binary_notice(path: str) -> str:
    return (
        f"[{path} looks like a binary file (it contains NUL bytes), so it is not shown as text. "
        f"Inspect it with bash, e.g. file {shlex.quote(path)}, xxd or strings.]"
    )


__all__ = [
    "BINARY_SNIFF_BYTES",
    "LineWindow",
    "LocalReadOperations",
    "ReadOperations",
    "ReadParams",
    "ReadToolDetails",
    "ReadToolOptions",
    "SmallFileReader",
    "create_read_tool",
]
