"""The newline-delimited JSON spoken between pi and a codemode worker over its pipes.

pi → worker: `{"op":"start", ...}` once, then `{"op":"settle", "id", "ok", "value"|"error"}` per
finished tool call. Worker → pi: `{"op":"call", "id", "name", "args"}`, `{"op":"output", "item"}`
and finally `{"op":"done", "ok", "error", "storeWrites"}`. One JSON object per line, UTF-8.
"""

from __future__ import annotations

import json
from typing import Any

WORKER_MODULE = "pi.app.codemode.worker"
LINE_LIMIT = 64 * 1024 * 1024
"""Longest line either side accepts (an output item may carry a large image or text)."""


def encode(message: dict[str, Any]) -> bytes:
    """One protocol line. `ensure_ascii` keeps U+2028 and friends from splitting anything."""
    return (json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")


def decode(line: bytes | str) -> dict[str, Any]:
    """One protocol message; a line that is not a JSON object raises ValueError."""
    message = json.loads(line)
    if not isinstance(message, dict) or not isinstance(message.get("op"), str):
        raise ValueError(f"not a codemode protocol message: {str(line)[:200]!r}")
    return message


def start_message(
    code: str,
    tools: list[dict[str, Any]],
    namespaces: list[dict[str, Any]],
    store: dict[str, str],
    timeout_ms: int,
) -> dict[str, Any]:
    """What a worker needs to run one script: the source, the callable tools and the stored values."""
    return {
        "op": "start",
        "code": code,
        "tools": tools,
        "namespaces": namespaces,
        "store": store,
        "timeoutMs": timeout_ms,
    }


def settle_message(call_id: str, ok: bool, value: Any) -> dict[str, Any]:
    """A finished tool call: `value` is what the promise resolves to, or the rejection's text."""
    if ok:
        return {"op": "settle", "id": call_id, "ok": True, "value": value}
    return {"op": "settle", "id": call_id, "ok": False, "error": str(value)}


__all__ = ["LINE_LIMIT", "WORKER_MODULE", "decode", "encode", "settle_message", "start_message"]
