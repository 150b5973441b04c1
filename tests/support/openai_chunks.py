"""Chat Completions streaming replies, frame by frame as an OpenAI-compatible server sends them.

Used by end-to-end tests that point `pi` at the loopback server through models.json.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.http_server import ScriptedResponse, sse


def _chunk(delta: dict[str, Any], finish: str | None = None, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "fake-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if usage is not None:
        chunk["usage"] = usage
    return chunk


def _usage(prompt: int, completion: int) -> dict[str, Any]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def text_reply(text: str, prompt_tokens: int = 100, completion_tokens: int = 10) -> ScriptedResponse:
    """A streamed assistant text reply, split into a few deltas."""
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)] or [""]
    frames = [_chunk({"role": "assistant", "content": ""})]
    frames += [_chunk({"content": piece}) for piece in pieces]
    frames.append(_chunk({}, "stop"))
    frames.append({**_chunk({}), "choices": [], "usage": _usage(prompt_tokens, completion_tokens)})
    return ScriptedResponse(chunks=sse(*frames, "[DONE]"))


def tool_reply(
    calls: list[tuple[str, dict[str, Any]]], prompt_tokens: int = 100, completion_tokens: int = 20
) -> ScriptedResponse:
    """A reply that calls each (tool name, arguments) in turn, arguments split across frames."""
    frames: list[Any] = [_chunk({"role": "assistant", "content": None})]
    for index, (name, args) in enumerate(calls):
        raw = json.dumps(args)
        half = len(raw) // 2
        call_id = f"call_{index}_{name}"
        frames.append(
            _chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": raw[:half]},
                        }
                    ]
                }
            )
        )
        frames.append(_chunk({"tool_calls": [{"index": index, "function": {"arguments": raw[half:]}}]}))
    frames.append(_chunk({}, "tool_calls"))
    frames.append({**_chunk({}), "choices": [], "usage": _usage(prompt_tokens, completion_tokens)})
    return ScriptedResponse(chunks=sse(*frames, "[DONE]"))


__all__ = ["text_reply", "tool_reply"]
