"""Scripted Chat Completions replies for running whole `pi` processes against a loopback server.

The server itself is the test suite's `ScriptedServer` (real HTTP, chunked SSE, every request
recorded); this module only builds the replies an OpenAI-compatible endpoint streams and the
models.json that points a `pi` at it. Unlike the test helpers it gives every tool call its own id,
as real endpoints do, and can stream `reasoning_content` deltas, so that benchmarks and fixture runs
see the same shapes a real model produces over many turns.

Import it with the repository root on `sys.path` (`from bench.fake_openai_server import ...`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.http_server import ScriptedResponse, ScriptedServer, sse

MODEL_ID = "fake-model"
REASONING_MODEL_ID = "fake-reasoner"
PROVIDER = "fake"


def _chunk(delta: dict[str, Any], finish: str | None = None, model: str = MODEL_ID) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _usage_chunk(prompt: int, completion: int, model: str) -> dict[str, Any]:
    return {
        **_chunk({}, model=model),
        "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def _pieces(text: str, size: int = 8) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def text_reply(text: str, *, reasoning: str | None = None, model: str = MODEL_ID) -> ScriptedResponse:
    """A final answer streamed in small deltas, optionally preceded by `reasoning_content` deltas."""
    frames: list[Any] = [_chunk({"role": "assistant", "content": ""}, model=model)]
    if reasoning:
        frames += [_chunk({"reasoning_content": piece}, model=model) for piece in _pieces(reasoning)]
    frames += [_chunk({"content": piece}, model=model) for piece in _pieces(text)]
    frames.append(_chunk({}, "stop", model=model))
    frames.append(_usage_chunk(120, 12 + len(text) // 4, model))
    return ScriptedResponse(chunks=sse(*frames, "[DONE]"))


def tool_call_reply(call_id: str, name: str, arguments: dict[str, Any], *, model: str = MODEL_ID) -> ScriptedResponse:
    """One tool call, its JSON arguments split across two frames the way streaming endpoints cut them."""
    raw = json.dumps(arguments)
    half = len(raw) // 2
    first = {"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": raw[:half]}}
    frames: list[Any] = [
        _chunk({"role": "assistant", "content": None}, model=model),
        _chunk({"tool_calls": [first]}, model=model),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": raw[half:]}}]}, model=model),
        _chunk({}, "tool_calls", model=model),
        _usage_chunk(150, 20, model),
    ]
    return ScriptedResponse(chunks=sse(*frames, "[DONE]"))


def bash_loop(turns: int, final_text: str = "Done.") -> list[ScriptedResponse]:
    """`turns` replies that each run `echo <n>` through the bash tool, then a final text reply."""
    replies = [tool_call_reply(f"call_{n:04d}", "bash", {"command": f"echo {n}"}) for n in range(1, turns + 1)]
    replies.append(text_reply(final_text))
    return replies


def models_json(base_url: str) -> dict[str, Any]:
    """A `fake` provider with a plain model and a reasoning one, both free and both on `base_url`/v1."""
    return {
        "providers": {
            PROVIDER: {
                "baseUrl": f"{base_url}/v1",
                "api": "openai-completions",
                "apiKey": "test",
                "models": [
                    {"id": MODEL_ID, "name": "Fake Model", "contextWindow": 128000, "maxTokens": 16384},
                    {
                        "id": REASONING_MODEL_ID,
                        "name": "Fake Reasoner",
                        "reasoning": True,
                        "contextWindow": 128000,
                        "maxTokens": 16384,
                    },
                ],
            }
        }
    }


def write_agent_dir(agent_dir: Path, base_url: str) -> Path:
    """Prepare an agent dir (`PI_CODING_AGENT_DIR`) whose models.json points at the loopback server."""
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "models.json").write_text(json.dumps(models_json(base_url), indent=2) + "\n", encoding="utf-8")
    return agent_dir


def start_server() -> ScriptedServer:
    return ScriptedServer().start()


__all__ = [
    "MODEL_ID",
    "PROVIDER",
    "REASONING_MODEL_ID",
    "ScriptedServer",
    "bash_loop",
    "models_json",
    "start_server",
    "text_reply",
    "tool_call_reply",
    "write_agent_dir",
]
