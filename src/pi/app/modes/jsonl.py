"""JSON Lines over stdio, framed strictly on LF.

Only ``\\n`` ends a record (one trailing ``\\r`` is dropped): U+2028 and U+2029 are legal inside JSON
strings and must not split a command the way line readers that follow Unicode line breaks do.
Output is one ``json.dumps`` per line, flushed at once so a client sees each event as it happens.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from typing import IO, Any


class JsonlWriter:
    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = stream or sys.stdout

    def write(self, obj: Any) -> None:
        self._stream.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._stream.flush()


async def stdin_lines(limit: int = 64 * 1024 * 1024) -> AsyncIterator[str]:
    """Records from stdin, split on LF only, decoded as UTF-8; ends at EOF."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
    await loop.connect_read_pipe(lambda: protocol, sys.stdin.buffer)
    while True:
        raw = await reader.readline()
        if not raw:
            return
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        yield raw.decode("utf-8", errors="replace")


__all__ = ["JsonlWriter", "stdin_lines"]
