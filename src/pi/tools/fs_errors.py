"""Failure messages of the file tools, in the form models and pi transcripts know.

pi reports filesystem failures the way Node does (``ENOENT: no such file or directory, open
'/x'``). Models have seen many such lines and react well to them (an ``ENOENT`` makes them look
for the right path), and tests match the error code, so Python's ``[Errno 2] ...`` is rewritten
into that shape.
"""

from __future__ import annotations

import errno
import os

from pi.ai.abort import AbortSignal

ABORTED_MESSAGE = "Operation aborted"

# libuv's wording for the codes file tools meet; anything else uses the C library's text.
_UV_MESSAGES = {
    errno.ENOENT: "no such file or directory",
    errno.EISDIR: "illegal operation on a directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOTDIR: "not a directory",
    errno.EEXIST: "file already exists",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on device",
    errno.ELOOP: "too many symbolic links encountered",
    errno.ENAMETOOLONG: "name too long",
    errno.EMFILE: "too many open files",
    errno.EBUSY: "resource busy or locked",
}


class FileToolError(Exception):
    """A failure of read, write or edit; the message is what the model sees."""


class ToolAbortedError(FileToolError):
    """The user cancelled while the tool ran."""

    def __init__(self) -> None:
        super().__init__(ABORTED_MESSAGE)


def raise_if_aborted(signal: AbortSignal | None) -> None:
    if signal is not None and signal.aborted:
        raise ToolAbortedError()


def error_code(exc: OSError) -> str:
    """`ENOENT`, `EACCES`, ... (`EIO` style name of the errno), or `UNKNOWN`."""
    return errno.errorcode.get(exc.errno or 0, "UNKNOWN")


def describe_os_error(exc: OSError, syscall: str, path: str | None = None) -> str:
    """Node's one-line form: ``CODE: message, syscall 'path'`` (path left out when None)."""
    code = error_code(exc)
    message = _UV_MESSAGES.get(exc.errno or 0) or (exc.strerror or os.strerror(exc.errno or 0)).lower()
    text = f"{code}: {message}, {syscall}"
    if path is not None:
        text += f" '{path}'"
    return text


__all__ = [
    "ABORTED_MESSAGE",
    "FileToolError",
    "ToolAbortedError",
    "describe_os_error",
    "error_code",
    "raise_if_aborted",
]
