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
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

TOOL_RESULT_MAX_CHARS = 2000


def utf16_length(text: str) -> int:
    """Length in UTF-16 code units, the unit pi counts characters in (a character beyond U+FFFF counts 2)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF) if not text.isascii() else len(text)


def utf16_prefix(text: str, max_units: int) -> str:
    """The longest prefix of `text` within `max_units` UTF-16 units; never half of a surrogate pair."""
    if text.isascii():
        return text[:max_units]
    units = 0
    for index, ch in enumerate(text):
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > max_units:
            return text[:index]
    return text


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """`text` cut to `max_chars` (UTF-16 units) with a note of how much was left out."""
    total = utf16_length(text)
    if total <= max_chars:
        return text
    kept = utf16_prefix(text, max_chars)
    return f"{kept}\n\n[... {total - utf16_length(kept)} more characters truncated]"


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
    """One labelled paragraph per part: ``[User]``, ``[Assistant]``, ``[Assistant tool calls]``
    (``read(path="foo.ts"); …``) and ``[Tool result]``. Thinking is left out: it is the model's
    scratch work, long, and what it concluded is in the text and the calls."""
    parts: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            text = _text(message.content)
            if text:
                parts.append(f"[User]: {text}")
        elif isinstance(message, AssistantMessage):
            texts = [b.text for b in message.content if isinstance(b, TextContent)]
            calls = [_call(b) for b in message.content if isinstance(b, ToolCall)]
            if texts:
                parts.append("[Assistant]: " + "\n".join(texts))
            if calls:
                parts.append("[Assistant tool calls]: " + "; ".join(calls))
        elif isinstance(message, ToolResultMessage):
            text = _text(message.content)
            if text:
                parts.append(f"[Tool result]: {truncate_for_summary(text)}")
    return "\n\n".join(parts)


__all__ = ["TOOL_RESULT_MAX_CHARS", "serialize_conversation", "truncate_for_summary", "utf16_length", "utf16_prefix"]
