"""`pi` end to end against loopback servers of both wire protocols (a tool turn each); the JSON stream's shape."""

from __future__ import annotations

import json
from typing import Any

from tests.support.cli_env import MODEL, Env
from tests.support.http_server import ScriptedResponse, named_sse
from tests.support.openai_chunks import text_reply, tool_reply


def _message_start() -> tuple[str, Any]:
    message: dict[str, Any] = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-local-1",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 12,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 1,
        },
    }
    return ("message_start", {"type": "message_start", "message": message})


def _end(stop_reason: str) -> list[tuple[str, Any]]:
    return [
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": stop_reason}, "usage": {"output_tokens": 7}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def _anthropic_tool_call(call_id: str, command: str) -> ScriptedResponse:
    raw = json.dumps({"command": command})
    frames = [
        _message_start(),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": call_id, "name": "bash", "input": {}},
            },
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": raw[:9]}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": raw[9:]}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        *_end("tool_use"),
    ]
    return ScriptedResponse(chunks=named_sse(*frames))


def _anthropic_text(*pieces: str) -> ScriptedResponse:
    frames = [
        _message_start(),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        *(
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}},
            )
            for p in pieces
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        *_end("end_turn"),
    ]
    return ScriptedResponse(chunks=named_sse(*frames))


def test_anthropic_messages_tool_turn_end_to_end(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["claude-local"] = {
        "baseUrl": env.server.url,
        "api": "anthropic-messages",
        "apiKey": "anthropic-test-key",
        "models": [{"id": "claude-local-1", "contextWindow": 200000, "maxTokens": 8192}],
    }
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    env.server.queue(_anthropic_tool_call("toolu_01", "echo from-anthropic-tool"), _anthropic_text("All ", "done."))
    done = env.run("-p", "--provider", "claude-local", "--model", "claude-local-1", "run it")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "All done.\n"
    first, second = env.server.requests
    assert first.path.endswith("/v1/messages") and first.headers["x-api-key"] == "anthropic-test-key"
    assert any(tool["name"] == "bash" for tool in first.json()["tools"])
    results = [b for m in second.json()["messages"] for b in (m["content"] if isinstance(m["content"], list) else [])]
    tool_result = next(b for b in results if b.get("type") == "tool_result")
    assert tool_result["tool_use_id"] == "toolu_01" and "from-anthropic-tool" in json.dumps(tool_result)


def test_openai_completions_tool_turn_end_to_end(env: Env) -> None:
    env.server.queue(tool_reply([("bash", {"command": "echo from-openai-tool"})]), text_reply("Finished."))
    done = env.run("-p", *MODEL, "run it")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Finished.\n"
    tool_message = next(m for m in env.server.requests[1].json()["messages"] if m["role"] == "tool")
    assert "from-openai-tool" in json.dumps(tool_message)


# A tool's structured output follows the tool's own output schema (pi's bash writes `exit_code`,
# `wall_time_seconds`), not pi's wire naming.
_TOOL_DEFINED = frozenset({"structuredContent"})


def _keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [k for k, v in value.items() for k in [k, *([] if k in _TOOL_DEFINED else _keys(v))]]
    if isinstance(value, list):
        return [k for item in value for k in _keys(item)]
    return []


def test_json_events_use_camel_case_keys_and_stream_deltas_only(env: Env) -> None:
    pieces = [f"chunk{i:04d} " for i in range(1500)]
    text = "".join(pieces)
    env.server.queue(
        tool_reply([("bash", {"command": "echo hi"})]),
        ScriptedResponse(chunks=text_reply(text).chunks),
    )
    done = env.run("--mode", "json", *MODEL, "go")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()[1:]]
    offending = sorted({k for event in events for k in _keys(event) if "_" in k})
    assert offending == []
    updates = [e for e in events if e["type"] == "message_update"]
    assert updates and all("message" not in e and "partial" not in e["assistantMessageEvent"] for e in updates)
    call_start = next(
        e["assistantMessageEvent"] for e in updates if e["assistantMessageEvent"]["type"] == "toolcall_start"
    )
    assert call_start["toolName"] == "bash" and call_start["id"]
    deltas = [e for e in updates if e["assistantMessageEvent"]["type"] == "text_delta"]
    assert "".join(e["assistantMessageEvent"]["delta"] for e in deltas) == text
    # Output grows with the reply, not with its square: about 2100 deltas of 7 characters take some
    # 300 bytes a line; repeating the message so far in each would take over 15 MB.
    assert len(done.stdout) < 100 * len(text)
    assert max(len(json.dumps(e)) for e in deltas) < 1024
