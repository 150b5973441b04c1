"""pi 1.6.0's message fields: typed, camelCase, left out when unset, and session lines round-trip unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from pi.ai.types import (
    AssistantMessage,
    Message,
    NestedToolCalls,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    Usage,
)

FIXTURES = Path(__file__).parents[1] / "session" / "fixtures" / "ts16"
ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)


def _stored_messages() -> list[dict[str, Any]]:
    out = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") in ("user", "assistant", "toolResult", "system"):
                out.append(message)
    return out


def test_every_message_of_the_pi_16_fixtures_round_trips_unchanged() -> None:
    messages = _stored_messages()
    roles = {message["role"] for message in messages}
    assert roles == {"user", "assistant", "toolResult", "system"}
    for data in messages:
        assert ADAPTER.validate_python(data).to_json_dict() == data


def test_new_assistant_fields_are_typed_under_snake_case_names() -> None:
    data = {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "c", "name": "read", "arguments": {}, "namespace": "functions"}],
        "api": "openai-responses",
        "provider": "openai",
        "model": "gpt-6.2-sol",
        "responseModel": "gpt-6.2-sol-2026",
        "responseId": "resp_1",
        "providerThinkingLevel": "medium",
        "thinkingLevel": "medium",
        "diagnostics": [{"type": "retry", "timestamp": 1, "error": {"message": "x"}}],
        "usage": {"input": 1, "output": 2, "reasoning": 1, "cacheWrite1h": 0, "cost": {"totalFromProvider": True}},
        "stopReason": "deferred",
        "deferred": {"provider": "openai", "modelId": "gpt-6.2-sol", "api": "openai-responses", "id": "batch_1"},
        "rawStopReason": "completed",
        "endTurn": True,
        "timestamp": 5,
        "durationMs": 40,
    }
    message = AssistantMessage.model_validate(data)
    assert (message.response_model, message.response_id, message.duration_ms) == ("gpt-6.2-sol-2026", "resp_1", 40)
    assert (message.provider_thinking_level, message.thinking_level) == ("medium", "medium")
    assert message.raw_stop_reason == "completed" and message.end_turn is True
    assert message.deferred is not None and message.deferred.model_id == "gpt-6.2-sol"
    assert message.diagnostics is not None and message.diagnostics[0].type == "retry"
    assert message.usage.reasoning == 1 and message.usage.cache_write_1h == 0
    assert message.usage.cost.total_from_provider is True
    call = message.content[0]
    assert isinstance(call, ToolCall) and call.namespace == "functions"
    dumped = message.to_json_dict()
    assert dumped["stopReason"] == "deferred" and dumped["usage"]["cacheWrite1h"] == 0
    assert dumped["deferred"] == data["deferred"]


def test_unset_new_fields_are_left_out() -> None:
    plain = AssistantMessage(api="a", provider="p", model="m", stop_reason="pending").to_json_dict()
    for key in ("responseModel", "responseId", "thinkingLevel", "diagnostics", "deferred", "durationMs", "endTurn"):
        assert key not in plain
    assert "reasoning" not in plain["usage"] and "cacheWrite1h" not in plain["usage"]
    result = ToolResultMessage(tool_call_id="c", tool_name="t").to_json_dict()
    assert not {"usage", "nestedCalls", "durationMs"} & set(result)


def test_tool_result_usage_and_nested_calls() -> None:
    data = {
        "role": "toolResult",
        "toolCallId": "c",
        "toolName": "code",
        "content": [],
        "usage": {"input": 3, "output": 1},
        "nestedCalls": {"calls": [{"id": "n1", "name": "read", "status": "ok", "durationMs": 2}], "complete": True},
        "isError": False,
        "timestamp": 1,
        "durationMs": 9,
    }
    result = ToolResultMessage.model_validate(data)
    assert isinstance(result.usage, Usage) and result.usage.input == 3
    assert isinstance(result.nested_calls, NestedToolCalls) and result.nested_calls.calls[0].duration_ms == 2
    assert result.duration_ms == 9


def test_system_messages_are_llm_messages_with_tools() -> None:
    data = {
        "role": "system",
        "content": "Base.",
        "sections": {"a": "A", "b": None},
        "toolsAdded": [{"name": "read", "description": "Read.", "parameters": {"type": "object"}}],
        "toolsRemoved": [{"name": "ls"}],
        "timestamp": 3,
    }
    message = ADAPTER.validate_python(data)
    assert isinstance(message, SystemMessage)
    assert message.tools_added is not None and message.tools_added[0].name == "read"
    assert message.to_json_dict() == data
