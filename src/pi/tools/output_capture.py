"""Holding what a command prints: all of it on disk, a bounded part in memory.

A command may print gigabytes; the model is shown only the tail, so only the tail (and the start,
for programs that want an excerpt) is kept in memory, while totals are counted over everything
and a temp file receives every byte once the output passes a limit. The model's text has control
characters and carriage returns removed; the file keeps the raw bytes.
"""

from __future__ import annotations

import codecs
import os
import re
import secrets
import tempfile

from msgspec import Struct

from pi.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult, truncate_tail

_UNPRINTABLE = "[\x00-\x08\x0b-\x1f\ufff9-\ufffb]"
"""C0 controls except TAB and LF (so CR too), and the interlinear annotation marks: noise to a model."""


def sanitize_output(text: str) -> str:
    """The text a model is shown: control characters and carriage returns removed (spec decision D4)."""
    return re.sub(_UNPRINTABLE, "", text)


class OutputSnapshot(Struct, frozen=True):
    text: str
    """The tail of the output, cut to the limits, without any notice."""
    truncation: TruncationResult
    full_output_path: str | None
    last_line_bytes: int
    """UTF-8 length of the output's last line, for the notice when that line alone is over the limit."""


_CONTROL_BYTES = bytes(code for code in range(0x20) if code not in (0x09, 0x0A))
"""The bytes `sanitize_output` removes from ASCII text, for deleting them without decoding."""

KEPT_HEAD_BYTES = 512 * 1024
"""How much of the start (and, at least, of the end) of the output `excerpt` can show."""


class OutputCapture:
    """Bounded memory for unbounded output.

    Only the sanitised first `KEPT_HEAD_BYTES` and a rolling tail (between 512 KiB and 1 MiB, at
    least 2x the byte limit) stay in memory, as UTF-8 bytes, while totals are counted over
    everything. Once the output passes a limit, a temp file is created with everything received so
    far, and every later chunk is appended to it raw, so the file always holds the complete output
    and its path can be given to the model.

    Most output is ASCII: such a chunk is sanitised by deleting control bytes, with no decoding
    and re-encoding; text is decoded only when a snapshot is taken, and only its last part.
    """

    def __init__(
        self,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        temp_dir: str | None = None,
    ) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._temp_dir = temp_dir
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._keep = max(2 * max_bytes, KEPT_HEAD_BYTES)
        self._head = bytearray()
        self._tail = bytearray()
        self.raw_bytes = 0
        self.total_bytes = 0
        """UTF-8 size of the sanitised output (what the model's text is cut from)."""
        self.completed_lines = 0
        self._open_line_bytes = 0
        self._last_completed_line_bytes = 0
        self._pending_raw: bytearray | None = bytearray()
        self._file_fd: int | None = None
        self.full_output_path: str | None = None
        self.version = 0
        """Bumped on every chunk that changed the text, so streaming can skip identical updates."""

    @property
    def total_lines(self) -> int:
        return self.completed_lines + (1 if self._open_line_bytes else 0)

    @property
    def retained_bytes(self) -> int:
        """Bytes of output held in memory, however much was printed."""
        return len(self._head) + len(self._tail)

    def feed(self, chunk: bytes) -> None:
        self.raw_bytes += len(chunk)
        self._store_raw(chunk)
        if chunk.isascii() and not self._decoder.getstate()[0]:
            clean = chunk.translate(None, _CONTROL_BYTES)
        else:
            clean = sanitize_output(self._decoder.decode(chunk)).encode("utf-8")
        self._add(clean)

    def finish(self) -> None:
        """Flush an incomplete character at the very end (it becomes U+FFFD) and close the file."""
        self._add(sanitize_output(self._decoder.decode(b"", final=True)).encode("utf-8"))
        self.close()

    def close(self) -> None:
        if self._file_fd is not None:
            os.close(self._file_fd)
            self._file_fd = None

    def _store_raw(self, chunk: bytes) -> None:
        if self._file_fd is not None:
            _write_all(self._file_fd, chunk)
        elif self._pending_raw is not None:
            self._pending_raw += chunk

    def _add(self, clean: bytes) -> None:
        if clean:
            self.version += 1
            size = len(clean)
            self.total_bytes += size
            newline = clean.rfind(b"\n")
            if newline == -1:
                self._open_line_bytes += size
            else:
                self.completed_lines += clean.count(b"\n")
                previous = clean.rfind(b"\n", 0, newline)
                if previous == -1:
                    self._last_completed_line_bytes = self._open_line_bytes + newline
                else:
                    self._last_completed_line_bytes = newline - previous - 1
                self._open_line_bytes = size - newline - 1
            if len(self._head) < KEPT_HEAD_BYTES:
                self._head += clean[: KEPT_HEAD_BYTES - len(self._head)]
            if size >= self._keep and len(self._tail) + size > 2 * self._keep:
                self._tail = bytearray(clean[_char_start(clean, size - self._keep) :])
            else:
                self._tail += clean
                if len(self._tail) > 2 * self._keep:
                    del self._tail[: _char_start(self._tail, len(self._tail) - self._keep)]
        if self._file_fd is None and self._over_limits():
            self._open_file()

    def _over_limits(self) -> bool:
        return self.raw_bytes > self.max_bytes or self.total_bytes > self.max_bytes or self.total_lines > self.max_lines

    def _open_file(self) -> None:
        directory = self._temp_dir or tempfile.gettempdir()
        while True:
            path = os.path.join(directory, f"pi-bash-{secrets.token_hex(8)}.log")
            try:
                self._file_fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
                break
            except FileExistsError:
                continue
        self.full_output_path = path
        pending, self._pending_raw = self._pending_raw, None
        if pending:
            _write_all(self._file_fd, bytes(pending))

    def snapshot(self) -> OutputSnapshot:
        # With at least twice the byte limit kept, cutting the tail on a character boundary never
        # changes what `truncate_tail` keeps, unless the cut line is also the (partial) last one.
        window = len(self._tail) - 4 * self.max_bytes
        tail = self._tail[_char_start(self._tail, window) :] if window > 0 else self._tail
        result = truncate_tail(tail.decode("utf-8"), self.max_lines, self.max_bytes)
        if result.total_bytes != self.total_bytes or result.total_lines != self.total_lines:
            result = result.model_copy(update={"total_bytes": self.total_bytes, "total_lines": self.total_lines})
        last_line = self._open_line_bytes if self._open_line_bytes else self._last_completed_line_bytes
        return OutputSnapshot(result.content, result, self.full_output_path, last_line)

    def excerpt(self) -> str:
        """All the output when it is at most twice `KEPT_HEAD_BYTES`; else its start and end with a gap marker."""
        if self.total_bytes <= 2 * KEPT_HEAD_BYTES:
            whole = self._head if self.total_bytes == len(self._head) else self._tail
            return bytes(whole).decode("utf-8", "replace")
        end = self._tail[_char_start(self._tail, len(self._tail) - KEPT_HEAD_BYTES) :]
        omitted = self.total_bytes - len(self._head) - len(end)
        head = bytes(self._head).decode("utf-8", "ignore")
        return f"{head}\n\n[... {omitted} bytes omitted ...]\n\n{end.decode('utf-8')}"


def _char_start(data: bytes | bytearray, index: int) -> int:
    """The first index at or after `index` where a UTF-8 character starts."""
    index = max(0, index)
    while index < len(data) and (data[index] & 0xC0) == 0x80:
        index += 1
    return index


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


__all__ = ["KEPT_HEAD_BYTES", "OutputCapture", "OutputSnapshot", "sanitize_output"]
