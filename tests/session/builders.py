"""Small message builders shared by the session tests."""

from __future__ import annotations

from typing import Any

from pi.ai.types import AssistantMessage, StopReason, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage


def user(text: str) -> UserMessage:
    return UserMessage(content=text)


def assistant(
    text: str = "ok",
    *,
    calls: list[ToolCall] | None = None,
    total_tokens: int = 0,
    stop_reason: StopReason = "stop",
    provider: str = "prov",
    model: str = "m1",
) -> AssistantMessage:
    content: list[Any] = [TextContent(text=text)] if text else []
    content.extend(calls or [])
    return AssistantMessage(
        content=content,
        api="faux",
        provider=provider,
        model=model,
        usage=Usage(total_tokens=total_tokens),
        stop_reason=stop_reason,
    )


def call(name: str, call_id: str = "c1", **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments)


def result(text: str, call_id: str = "c1", tool_name: str = "read") -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name=tool_name, content=[TextContent(text=text)])
