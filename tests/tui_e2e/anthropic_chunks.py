"""Anthropic Messages streaming replies (SSE with event names), for the scripted `fakea` provider."""

from __future__ import annotations

from typing import Any

from tests.support.http_server import ScriptedResponse, named_sse


def anthropic_reply(
    text: str,
    *,
    thinking: str = "",
    input_tokens: int = 300,
    output_tokens: int = 30,
    chunk_delay: float = 0.0,
    pieces: int = 7,
) -> ScriptedResponse:
    """Optional thinking, then `text` in deltas of `pieces` characters."""
    events: list[tuple[str, Any]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": "fake-claude",
                    "content": [],
                    "stop_reason": None,
                    "usage": {"input_tokens": input_tokens, "output_tokens": 1},
                },
            },
        )
    ]
    index = 0
    if thinking:
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
            )
        )
        for i in range(0, len(thinking), pieces):
            delta = {"type": "thinking_delta", "thinking": thinking[i : i + pieces]}
            events.append(("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}))
        sig = {"type": "signature_delta", "signature": "sig"}
        events.append(("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": sig}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
        index = 1
    events.append(
        (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
        )
    )
    for i in range(0, len(text), pieces):
        delta = {"type": "text_delta", "text": text[i : i + pieces]}
        events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": output_tokens},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return ScriptedResponse(chunks=named_sse(*events), chunk_delay=chunk_delay)


def anthropic_tool_reply(
    name: str, args: dict[str, Any], *, call_id: str = "toolu_1", text: str = ""
) -> ScriptedResponse:
    """One tool call (optionally after some text)."""
    return anthropic_tool_calls([(name, args)], text=text, first_id=call_id)


def anthropic_tool_calls(
    calls: list[tuple[str, dict[str, Any]]], *, text: str = "", first_id: str = "toolu_1"
) -> ScriptedResponse:
    """Tool calls in one reply, each with its JSON arguments in two deltas."""
    import json

    message: dict[str, Any] = {
        "id": "msg_t",
        "type": "message",
        "role": "assistant",
        "model": "fake-claude",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 200, "output_tokens": 1},
    }
    events: list[tuple[str, Any]] = [("message_start", {"type": "message_start", "message": message})]
    index = 0
    if text:
        block: dict[str, Any] = {"type": "text", "text": ""}
        events.append(("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}))
        delta = {"type": "text_delta", "text": text}
        events.append(("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
        index = 1
    for n, (name, args) in enumerate(calls):
        raw = json.dumps(args)
        half = len(raw) // 2
        call_id = first_id if n == 0 else f"{first_id}_{n}"
        block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": block}))
        for part in (raw[:half], raw[half:]):
            delta = {"type": "input_json_delta", "partial_json": part}
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    events.append(
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}},
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return ScriptedResponse(chunks=named_sse(*events))


__all__ = ["anthropic_reply", "anthropic_tool_calls", "anthropic_tool_reply"]
