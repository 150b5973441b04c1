"""Reading and appending JSONL session files so that a crash or a second writer never costs a whole session.

Appends: every call is a single `os.write` of whole lines on a descriptor opened with ``O_APPEND``, so
the kernel places each write at the current end of the file and two processes appending to the same
session never interleave inside a line. Nothing is fsynced by default (pi does not either): data handed
to `os.write` survives the process being killed, and only a machine crash can lose the last lines; the
reader skips a line torn that way. Pass ``fsync=True`` to trade an fsync per append for that guarantee.

Reads: each line is parsed on its own. A malformed line (torn by a crash, or edited by hand) is skipped
with a warning, never fatal. When the last line has no newline, the next append starts with one, so a
new entry is never glued onto a torn one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Generic, TypeAlias, TypeVar

from msgspec import DecodeError, Raw, Struct, field
from msgspec.json import Decoder

from pi.atomic_file import write_file_atomically
from pi.session.entries import MessageText, SessionHeader
from pi.session.json_line import BLANK, loads_bytes


class SessionFileError(ValueError):
    """A file that cannot be used as a session (its first line is not a session header)."""


def invalid_session_file(path: str | Path) -> SessionFileError:
    """The error for a non-empty file that is not a session: it is left alone, never overwritten."""
    return SessionFileError(f"Session file is not a valid pi session: {path}")


class _Envelope(Struct, forbid_unknown_fields=True, rename="camel"):
    """A ``message`` line read as far as its envelope; the message is skipped, its extent kept."""

    type: str
    id: str
    parent_id: str | None
    timestamp: str
    message: Raw


_ENVELOPE = Decoder(_Envelope)


class LazyMessageLine(Struct, gc=False):
    """A ``message`` line whose message is still JSON text (`text`, a span of the file's bytes).

    Decoding a message into dicts and lists is most of what reading a session costs, and resuming
    a long one needs only a few of them at once (the tree needs the envelopes, the transcript is
    parsed when first read), so each is decoded when something first asks for it.
    """

    id: str
    parent_id: str | None
    timestamp: str
    text: MessageText

    def as_dict(self) -> dict[str, Any]:
        """The line as `json.loads` gives it."""
        return {
            "type": "message",
            "id": self.id,
            "parentId": self.parent_id,
            "timestamp": self.timestamp,
            "message": self.text.decoded(),
        }


_MESSAGE_STARTS = (b'{"type":"message","id":"', b'{"type": "message", "id": "')
"""How a message line begins as pi writes it (compact) and as Python's `json.dumps` does."""

_MESSAGE_KEY = b'"message"'


def _message_key(data: bytes, start: int, end: int) -> int:
    """Where the line at `data[start:end]` names its ``message`` key, when it names its keys in pi's order
    (parentId, timestamp, message); -1 otherwise.

    The first occurrence of each key after the line's ``"type":"message"`` is compared: in a line of
    another order one of them is first found later (or inside the message), so such a line is never
    taken for one in pi's order. Lines that fail go the general way, which keeps their order.
    """
    after = start + 20  # past the "message" that is the type's value
    parent = data.find(b'"parentId"', after, end)
    stamp = data.find(b'"timestamp"', after, end)
    message = data.find(_MESSAGE_KEY, after, end)
    return message if 0 <= parent < stamp < message else -1


def _lazy_line(data: bytes, view: memoryview, start: int, end: int) -> LazyMessageLine | None:
    """The message line at `data[start:end]` with its message left as text, or None if it is not in pi's shape.

    The envelope decoder checks the line and measures the message; the message's text is then found
    in `data` itself: an object right after the key's colon, followed only by the line's closing brace.
    """
    key = _message_key(data, start, end)
    if key < 0:
        return None
    try:
        envelope = _ENVELOPE.decode(view[start:end])
    except DecodeError:
        return None  # an unusual line: decoded whole, as any other
    first = data.find(b"{", key + len(_MESSAGE_KEY), end)
    if first < 0 or data[key + len(_MESSAGE_KEY) : first].strip() != b":":
        return None  # the message is not an object
    stop = first + len(envelope.message)
    if data[stop - 1 : stop] != b"}" or data[stop:end].strip() != b"}":
        return None
    return LazyMessageLine(envelope.id, envelope.parent_id, envelope.timestamp, MessageText(data, first, stop))


LineT = TypeVar("LineT")


class SessionFileLines(Struct, Generic[LineT]):
    """The parsed lines of a file, before migration and typing."""

    lines: list[LineT] = field(default_factory=list)
    """Every readable line, header first."""
    warnings: list[str] = field(default_factory=list)
    needs_newline: bool = False
    """The file does not end with a newline: the next append must start with one."""


RawSessionFile: TypeAlias = SessionFileLines[dict[str, Any]]
"""Every line as the JSON object it holds."""

LazySessionFile: TypeAlias = SessionFileLines[dict[str, Any] | LazyMessageLine]
"""Message lines in pi's usual shape still as `LazyMessageLine`, every other line as its JSON object."""


def encode_cwd(cwd: str) -> str:
    """The directory name of a project's sessions: ``/home/u/proj`` becomes ``--home-u-proj--``."""
    trimmed = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    return "--" + trimmed.replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def default_agent_dir() -> Path:
    """``PI_CODING_AGENT_DIR``, else ``~/.pi/agent`` (the application may pass its own)."""
    override = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(os.path.expanduser(override)) if override else Path.home() / ".pi" / "agent"


def sessions_root(agent_dir: str | Path | None = None) -> Path:
    return Path(agent_dir) if agent_dir is not None else default_agent_dir()


def default_session_dir(cwd: str, agent_dir: str | Path | None = None) -> Path:
    return sessions_root(agent_dir) / "sessions" / encode_cwd(cwd)


def session_file_name(timestamp: str, session_id: str) -> str:
    """``2024-12-03T14-00-00-000Z_<id>.jsonl`` from an ISO timestamp."""
    return timestamp.replace(":", "-").replace(".", "-") + f"_{session_id}.jsonl"


def dumps_line(data: dict[str, Any]) -> str:
    """One JSONL line as pi writes it (compact, non-ASCII kept as is).

    A lone surrogate (half of a broken emoji from a model) cannot be encoded as UTF-8; such a line is
    written with ASCII escapes instead, which every JSON reader decodes back to the same string.
    """
    line = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(data, separators=(",", ":"))
    return line


def _parse(data: bytes, source: str, lines: list[Any], warnings: list[str], lazy_messages: bool) -> None:
    """Each line of `data` into `lines`, or a warning; found by position, so no line is copied until needed."""
    view = memoryview(data)
    size = len(data)
    start = 0
    number = 0
    while start < size:
        end = data.find(b"\n", start)
        if end < 0:
            end = size
        number += 1
        if end == start:
            start = end + 1
            continue
        if lazy_messages and data.startswith(_MESSAGE_STARTS, start, end):
            line = _lazy_line(data, view, start, end)
            if line is not None:
                lines.append(line)
                start = end + 1
                continue
        value = loads_bytes(data[start:end])
        if type(value) is dict:
            lines.append(value)
        elif value is not BLANK:
            torn = end == size  # the last line, with no newline after it
            reason = "incomplete last line (interrupted write?)" if torn else "not a JSON object"
            warnings.append(f"{source}:{number}: skipped {reason}")
        start = end + 1


def _lines_of(data: bytes, source: str, *, lazy_messages: bool) -> SessionFileLines[Any]:
    result: SessionFileLines[Any] = SessionFileLines(needs_newline=bool(data) and not data.endswith(b"\n"))
    _parse(data, source, result.lines, result.warnings, lazy_messages)
    return result


def parse_lines(data: bytes, source: str = "session") -> RawSessionFile:
    """The JSON objects of a file's lines (UTF-8); blank lines are ignored, unreadable ones reported."""
    return _lines_of(data, source, lazy_messages=False)


def read_session_file(path: str | Path) -> RawSessionFile:
    """All readable lines of `path`; an unreadable UTF-8 sequence is replaced rather than failing the load."""
    return parse_lines(Path(path).read_bytes(), str(path))


def read_session_file_lazily(path: str | Path) -> LazySessionFile:
    """`read_session_file` with message lines in pi's usual shape left as `LazyMessageLine`."""
    return _lines_of(Path(path).read_bytes(), str(path), lazy_messages=True)


def read_header(path: str | Path) -> SessionHeader | None:
    """The header of `path`, reading only its first line; None when it has none."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline()
    except OSError:
        return None
    try:
        data = json.loads(first)
    except ValueError:
        return None
    return SessionHeader.from_dict(data) if isinstance(data, dict) else None


def append_lines(path: Path, lines: Iterable[str], *, leading_newline: bool = False, fsync: bool = False) -> None:
    """Append whole lines with one write call (see the module docstring for why one)."""
    payload = ("\n" if leading_newline else "") + "".join(line + "\n" for line in lines)
    data = payload.encode("utf-8")
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    try:
        fd = os.open(path, flags, 0o600)
    except FileNotFoundError:  # the session directory went away (or never existed): make it, once
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, flags, 0o600)
    try:
        _write_all(fd, data, fsync=fsync)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes, *, fsync: bool) -> None:
    written = os.write(fd, data)
    # A regular file takes the whole buffer unless the disk is full or a fatal signal arrives;
    # finishing a short write keeps the line whole in every other case.
    while written < len(data):
        written += os.write(fd, data[written:])
    if fsync:
        os.fsync(fd)


def create_exclusive(path: Path, lines: Iterable[str], *, fsync: bool = False) -> None:
    """Create `path` holding `lines`, failing with FileExistsError if it exists (never clobbers a file).

    A write that fails part-way removes the file again, so the next attempt starts from nothing.
    """
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        fd = os.open(path, flags, 0o600)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, flags, 0o600)
    try:
        try:
            _write_all(fd, data, fsync=fsync)
        finally:
            os.close(fd)
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def write_file_atomic(path: Path, lines: Iterable[str], *, fsync: bool = False) -> None:
    """Replace `path` with `lines` so a reader sees the old file or the new one, never a mix."""
    write_file_atomically(path, "".join(line + "\n" for line in lines), fsync=fsync)


__all__ = [
    "LazyMessageLine",
    "LazySessionFile",
    "RawSessionFile",
    "SessionFileError",
    "SessionFileLines",
    "append_lines",
    "create_exclusive",
    "default_agent_dir",
    "default_session_dir",
    "dumps_line",
    "encode_cwd",
    "invalid_session_file",
    "parse_lines",
    "read_header",
    "read_session_file",
    "read_session_file_lazily",
    "session_file_name",
    "sessions_root",
    "write_file_atomic",
]
