"""JSON Lines over stdio, framed strictly on LF.

Only ``\\n`` ends a record (one trailing ``\\r`` is dropped): U+2028 and U+2029 are legal inside JSON
strings and must not split a command the way line readers that follow Unicode line breaks do.
Output is one ``json.dumps`` per line, flushed at once so a client sees each event as it happens.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator
from typing import IO, Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


class JsonlWriter:
    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = stream or sys.stdout

    def write(self, obj: Any) -> None:
        line = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        # A lone surrogate (a client may send "\ud800") cannot be encoded as UTF-8; outside strings
        # JSON has no such characters, so escaping them keeps the line valid, as JSON.stringify does.
        line = _LONE_SURROGATE.sub(_escape_surrogate, line)
        self._stream.write(line + "\n")
        self._stream.flush()


def _strip_terminator(raw: bytes) -> str:
    if raw.endswith(b"\n"):
        raw = raw[:-1]
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    return raw.decode("utf-8", errors="replace")


async def stdin_lines(limit: int = 64 * 1024 * 1024) -> AsyncIterator[str]:
    """Records from stdin, split on LF only, decoded as UTF-8; ends at EOF."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
    try:
        await loop.connect_read_pipe(lambda: protocol, sys.stdin.buffer)
    except ValueError:
        # A regular file (`pi --mode rpc < commands.jsonl`) cannot be watched for readiness: read it
        # in a worker thread instead. Binary readline splits on LF only, as the pipe path does.
        stream = sys.stdin.buffer
        while raw := await asyncio.to_thread(stream.readline):
            yield _strip_terminator(raw)
        return
    while True:
        raw = await reader.readline()
        if not raw:
            return
        yield _strip_terminator(raw)


__all__ = ["JsonlWriter", "stdin_lines"]
