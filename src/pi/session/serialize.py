"""A conversation as plain text for a summarizing model.

Sent as messages, the history would look to the model like a conversation to continue; as a labelled
transcript inside one prompt it is material to summarize. Tool output is cut short: the summary needs
to know what a tool found, not every line of it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pi.ai.types import (
    AssistantMessage,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

TOOL_RESULT_MAX_CHARS = 2000


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    if len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}\n\n[... {len(text) - max_chars} more characters truncated]"


def _text(content: str | Sequence[Any]) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.text for b in content if isinstance(b, TextContent))


def _call(block: ToolCall) -> str:
    args = ", ".join(
        f"{key}={json.dumps(value, ensure_ascii=False, separators=(',', ':'))}"
        for key, value in block.arguments.items()
    )
    return f"{block.name}({args})"


def serialize_conversation(messages: Sequence[Message]) -> str:
    """One labelled paragraph per part: ``[User]``, ``[Assistant thinking]``, ``[Assistant]``,
    ``[Assistant tool calls]`` (``read(path="foo.ts"); …``) and ``[Tool result]``."""
    parts: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            text = _text(message.content)
            if text:
                parts.append(f"[User]: {text}")
        elif isinstance(message, AssistantMessage):
            texts = [b.text for b in message.content if isinstance(b, TextContent)]
            thinking = [b.thinking for b in message.content if isinstance(b, ThinkingContent)]
            calls = [_call(b) for b in message.content if isinstance(b, ToolCall)]
            if thinking:
                parts.append("[Assistant thinking]: " + "\n".join(thinking))
            if texts:
                parts.append("[Assistant]: " + "\n".join(texts))
            if calls:
                parts.append("[Assistant tool calls]: " + "; ".join(calls))
        elif isinstance(message, ToolResultMessage):
            text = _text(message.content)
            if text:
                parts.append(f"[Tool result]: {truncate_for_summary(text)}")
    return "\n\n".join(parts)


__all__ = ["TOOL_RESULT_MAX_CHARS", "serialize_conversation", "truncate_for_summary"]
