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
from pi.tools.mutation_queue import mutation_key

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


# What to do when the real path of a file to change cannot be found (the file-mutation queue needs it).
_UNRESOLVABLE_NEXT_STEPS = {
    errno.ELOOP: "The path is a symlink loop: inspect the links with ls -l, then fix or remove them.",
    errno.ENAMETOOLONG: "The path, or one name in it, is too long: use a shorter name.",
    errno.EACCES: (
        "A directory on the path cannot be entered (permission denied): check its permissions with ls -l, "
        "or use a path elsewhere."
    ),
    errno.EPERM: (
        "A directory on the path cannot be entered (operation not permitted): check its permissions with ls -l, "
        "or use a path elsewhere."
    ),
}


def unresolvable_path_error(exc: OSError, absolute: str) -> FileToolError:
    """The error for a file whose real path cannot be resolved (symlink loop, name too long, no access).

    Raised before a mutation is queued; Python's ``[Errno 40] ...`` alone would not tell the model
    which path is at fault or what to try next.
    """
    message = describe_os_error(exc, "realpath", absolute)
    next_step = _UNRESOLVABLE_NEXT_STEPS.get(exc.errno or 0, "Check the path with ls -l, or use a path elsewhere.")
    return FileToolError(f"{message}\n{next_step}")


def checked_mutation_key(absolute: str) -> str:
    """`mutation_key(absolute)`, with a failure turned into a FileToolError the model can act on."""
    try:
        return mutation_key(absolute)
    except OSError as exc:
        raise unresolvable_path_error(exc, absolute) from exc


__all__ = [
    "ABORTED_MESSAGE",
    "FileToolError",
    "ToolAbortedError",
    "checked_mutation_key",
    "describe_os_error",
    "error_code",
    "raise_if_aborted",
    "unresolvable_path_error",
]
