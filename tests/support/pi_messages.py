"""Frames of the pi-messages protocol (the Radius gateway's), as a server sends them.

Each frame is an SSE ``data:`` line holding one of pi's reply events with its ``contentIndex``;
a reply ends with ``done`` or ``error``. `reply` builds a whole reply from blocks.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.http_server import ScriptedResponse, sse

USAGE = {
    "input": 120,
    "output": 30,
    "cacheRead": 40,
    "cacheWrite": 0,
    "totalTokens": 190,
    "cost": {"input": 0.00036, "output": 0.00045, "cacheRead": 0.000012, "cacheWrite": 0, "total": 0.000822},
}


def text_frames(index: int, chunks: list[str], signature: str | None = None) -> list[dict[str, Any]]:
    end: dict[str, Any] = {"type": "text_end", "contentIndex": index, "content": "".join(chunks)}
    if signature is not None:
        end["contentSignature"] = signature
    deltas = [{"type": "text_delta", "contentIndex": index, "delta": chunk} for chunk in chunks]
    return [{"type": "text_start", "contentIndex": index}, *deltas, end]


def thinking_frames(index: int, chunks: list[str], signature: str) -> list[dict[str, Any]]:
    deltas = [{"type": "thinking_delta", "contentIndex": index, "delta": chunk} for chunk in chunks]
    end = {"type": "thinking_end", "contentIndex": index, "content": "".join(chunks), "contentSignature": signature}
    return [{"type": "thinking_start", "contentIndex": index}, *deltas, end]


def tool_frames(index: int, call_id: str, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    text = json.dumps(arguments)
    half = len(text) // 2
    return [
        {"type": "toolcall_start", "contentIndex": index, "id": call_id, "toolName": name},
        {"type": "toolcall_delta", "contentIndex": index, "delta": text[:half]},
        {"type": "toolcall_delta", "contentIndex": index, "delta": text[half:]},
        {
            "type": "toolcall_end",
            "contentIndex": index,
            "toolCall": {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments},
        },
    ]


def done(reason: str = "stop", usage: dict[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    return {"type": "done", "reason": reason, "usage": usage or USAGE, "responseId": "resp_radius_1", **more}


def error(message: str, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "error", "reason": "error", "errorMessage": message, "usage": usage or USAGE}


def stream(*frames: dict[str, Any]) -> ScriptedResponse:
    """A 200 event stream of `frames` after the ``start`` frame."""
    return ScriptedResponse(chunks=sse({"type": "start"}, *frames))


def text_reply(text: str, reason: str = "stop") -> ScriptedResponse:
    return stream(*text_frames(0, [text]), done(reason))


__all__ = ["USAGE", "done", "error", "stream", "text_frames", "text_reply", "thinking_frames", "tool_frames"]
