"""`<agent dir>/mcp.log`: the servers' `notifications/message` lines, rotated past 5 MB.

Logging must never disturb a session, so every write error is ignored.
"""

from __future__ import annotations

import contextlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

MAX_LOG_BYTES = 5 * 1024 * 1024


def format_entry(server: str, level: str, logger: str | None, data: Any, now: datetime | None = None) -> str:
    stamp = (now or datetime.now(UTC)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    text = data if isinstance(data, str) else json.dumps(data)
    prefix = f"{stamp} [{server}] {level}" + (f" {logger}:" if logger else "")
    lines = text.split("\n")
    return "\n".join([f"{prefix} {lines[0]}", *("    " + line for line in lines[1:])]) + "\n"


def append_log(path: Path, entry: str) -> None:
    """Append one entry; rotate to `mcp.log.1` first when the file is past the limit."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > MAX_LOG_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
        with path.open("a", encoding="utf-8") as handle:
            handle.write(entry)


__all__ = ["MAX_LOG_BYTES", "append_log", "format_entry"]
