"""How full the context is: exact counts from the provider where there are any, a chars/4 estimate elsewhere.

The last assistant reply's usage counts everything the model was sent plus what it wrote, which is
the best measure of the context; only messages after it (tool results, a new prompt) are estimated.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any, Protocol

from msgspec import Struct

from pi.agent.messages import AgentMessage
from pi.ai.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi.session.messages import BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage

CHARS_PER_TOKEN = 4
IMAGE_CHARS = 4800
"""An image counts as 4800 characters, about 1200 tokens, whatever its size."""


class CompactionSettingsLike(Protocol):
    """The ``compaction`` settings; the application's settings object fits as it is."""

    @property
    def enabled(self) -> bool: ...

    @property
    def reserve_tokens(self) -> int: ...

    @property
    def keep_recent_tokens(self) -> int: ...


class CompactionSettings(Struct, frozen=True):
    """The ``compaction`` settings, budgets in tokens; the field defaults are pi's defaults."""

    enabled: bool = True
    reserve_tokens: int = 16384
    """Room left for the summary and the next reply: compaction starts at window − reserve."""
    keep_recent_tokens: int = 20000
    """How much of the most recent conversation is kept verbatim."""


DEFAULT_COMPACTION_SETTINGS = CompactionSettings()


def _content_chars(content: str | Sequence[Any]) -> int:
    if isinstance(content, str):
        return len(content)
    chars = 0
    for block in content:
        if isinstance(block, TextContent):
            chars += len(block.text)
        elif isinstance(block, ImageContent):
            chars += IMAGE_CHARS
    return chars


def message_chars(message: AgentMessage) -> int:
    if isinstance(message, UserMessage | ToolResultMessage | CustomMessage):
        return _content_chars(message.content)
    if isinstance(message, AssistantMessage):
        chars = 0
        for block in message.content:
            if isinstance(block, TextContent):
                chars += len(block.text)
            elif isinstance(block, ThinkingContent):
                chars += len(block.thinking)
            elif isinstance(block, ToolCall):
                chars += len(block.name) + len(json.dumps(block.arguments, ensure_ascii=False))
        return chars
    if isinstance(message, BashExecutionMessage):
        return len(message.command) + len(message.output)
    if isinstance(message, BranchSummaryMessage | CompactionSummaryMessage):
        return len(message.summary)
    return 0


def estimate_tokens(message: AgentMessage) -> int:
    """``ceil(chars / 4)``: rough, but never below the truth by much for prose or code."""
    return math.ceil(message_chars(message) / CHARS_PER_TOKEN)


def calculate_context_tokens(usage: Usage) -> int:
    """Tokens the context held at a reply: the provider's total, or the sum of its parts."""
    return usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write


class ContextTokenEstimate(Struct, frozen=True):
    """How many tokens a list of messages fills: `tokens` is `usage_tokens` plus `trailing_tokens`.

    `last_usage_index` is the index of the reply whose usage was used, None when every message was estimated.
    """

    tokens: int
    usage_tokens: int
    """From the last usable reply's usage (0 when there is none)."""
    trailing_tokens: int
    """Estimated for the messages after that reply."""
    last_usage_index: int | None


def last_usage_index(messages: Sequence[AgentMessage]) -> int | None:
    """The last assistant reply whose usage can be trusted (not aborted, not an error, not all zeros).

    A server that reports no usage leaves zeros; taken at its word, that reply would say the whole
    context before it is empty and compaction would never start.
    """
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if (
            isinstance(message, AssistantMessage)
            and message.stop_reason not in ("aborted", "error")
            and calculate_context_tokens(message.usage) > 0
        ):
            return index
    return None


def estimate_context_tokens(messages: Sequence[AgentMessage]) -> ContextTokenEstimate:
    index = last_usage_index(messages)
    if index is None:
        total = sum(estimate_tokens(m) for m in messages)
        return ContextTokenEstimate(total, 0, total, None)
    reply = messages[index]
    assert isinstance(reply, AssistantMessage)
    usage_tokens = calculate_context_tokens(reply.usage)
    trailing = sum(estimate_tokens(m) for m in messages[index + 1 :])
    return ContextTokenEstimate(usage_tokens + trailing, usage_tokens, trailing, index)


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettingsLike) -> bool:
    """True once the context leaves less than `reserve_tokens` of the window free."""
    return settings.enabled and context_tokens > context_window - settings.reserve_tokens


__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_COMPACTION_SETTINGS",
    "IMAGE_CHARS",
    "CompactionSettings",
    "CompactionSettingsLike",
    "ContextTokenEstimate",
    "calculate_context_tokens",
    "estimate_context_tokens",
    "estimate_tokens",
    "last_usage_index",
    "message_chars",
    "should_compact",
]
