"""Replies as the subscription backends stream them, and tokens shaped like theirs, for loopback stubs."""

from __future__ import annotations

import base64
import json
from typing import Any

from tests.support.http_server import ScriptedResponse, named_sse, sse


def make_jwt(payload: dict[str, Any]) -> str:
    """An unsigned JWT carrying `payload` (the Codex backend's account id is a claim of it)."""

    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(payload)}.sig"


def codex_jwt(account: str = "acc") -> str:
    return make_jwt({"https://api.openai.com/auth": {"chatgpt_account_id": account}, "exp": 9_999_999_999})


def anthropic_reply(text: str) -> ScriptedResponse:
    """An Anthropic Messages stream with one text block."""
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        },
    }
    frames = [
        ("message_start", start),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return ScriptedResponse(chunks=named_sse(*frames))


def codex_reply(text: str, *, end_event: str = "response.completed", status: str = "completed") -> ScriptedResponse:
    """A Codex backend stream: one message item, then the terminal event (`response.done` is Codex's own)."""
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": []}
    done = {**item, "content": [{"type": "output_text", "text": text, "annotations": []}]}
    usage = {"input_tokens": 12, "output_tokens": 3, "total_tokens": 15, "input_tokens_details": {"cached_tokens": 2}}
    events: list[Any] = [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": text},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": end_event, "response": {"id": "resp_1", "status": status, "usage": usage}},
    ]
    return ScriptedResponse(chunks=sse(*events))


def codex_events(*events: Any) -> ScriptedResponse:
    return ScriptedResponse(chunks=sse(*events))


__all__ = ["anthropic_reply", "codex_events", "codex_jwt", "codex_reply", "make_jwt"]
