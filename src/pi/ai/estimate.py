"""A cheap estimate of how many tokens a request's input takes, and the output budget that fits.

The estimate trusts the usage the provider reported for the latest reply (that reply's input and
output are the prefix of the next request) and adds about one token per 3.5 characters for what
came after it. Servers count differently (OpenRouter counts prose up to ~12 % above the provider),
so the output budget leaves 15 % of the estimate spare, and never asks for more room than is left.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from pi.ai.transcript import system_message_text
from pi.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    SystemMessage,
    TextContent,
    ThinkingContent,
    Tool,
    ToolReference,
    ToolResultMessage,
    Usage,
    UserMessage,
)

CHARS_PER_TOKEN = 3.5
IMAGE_CHARS = 4800
"""What an image is counted as, in characters (about 1,400 tokens)."""
SAFETY_TOKENS = 4096
"""Room always left between the input estimate and the window."""
SAFETY_RATIO = 0.15
"""Share of the input estimate also left spare, while that still allows `MIN_OUTPUT_WITH_RATIO` tokens."""
MIN_OUTPUT_WITH_RATIO = 32_768
"""Below this much room the ratio margin is dropped and output is capped here (a nearly full window)."""


def _content_chars(content: str | Sequence[TextContent | ImageContent]) -> int:
    if isinstance(content, str):
        return len(content)
    return sum(len(block.text) if isinstance(block, TextContent) else IMAGE_CHARS for block in content)


def _tools_tokens(tools: Sequence[Tool | ToolReference] | None) -> int:
    if not tools:
        return 0
    text = json.dumps([tool.to_json_dict() for tool in tools])
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_message_tokens(message: Message) -> int:
    if isinstance(message, SystemMessage):
        text_tokens = math.ceil(len(system_message_text(message)) / CHARS_PER_TOKEN)
        return text_tokens + _tools_tokens(message.tools_added) + _tools_tokens(message.tools_removed)
    if isinstance(message, UserMessage | ToolResultMessage):
        return math.ceil(_content_chars(message.content) / CHARS_PER_TOKEN)
    chars = 0
    for block in message.content:
        if isinstance(block, TextContent):
            chars += len(block.text)
        elif isinstance(block, ThinkingContent):
            chars += len(block.thinking)
        else:
            chars += len(block.name) + len(json.dumps(block.arguments))
    return math.ceil(chars / CHARS_PER_TOKEN)


def _usage_tokens(usage: Usage) -> int:
    return usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write


def estimate_messages_tokens(messages: Sequence[Message]) -> int:
    """The latest usable reported usage plus an estimate of every message after it."""
    last_index: int | None = None
    last_tokens = 0
    latest_timestamp = -math.inf
    for index, message in enumerate(messages):
        if (
            isinstance(message, AssistantMessage)
            and message.timestamp >= latest_timestamp
            and message.stop_reason not in ("aborted", "error")
            and _usage_tokens(message.usage) > 0
        ):
            last_index, last_tokens = index, _usage_tokens(message.usage)
        latest_timestamp = max(latest_timestamp, message.timestamp)
    start = 0 if last_index is None else last_index + 1
    return last_tokens + sum(estimate_message_tokens(message) for message in messages[start:])


def estimate_context_tokens(context: Context) -> int:
    """Estimated input tokens of a request: prompt, tools and messages."""
    prompt = math.ceil(len(context.system_prompt or "") / CHARS_PER_TOKEN)
    return prompt + _tools_tokens(context.tools) + estimate_messages_tokens(context.messages)


def fit_max_tokens_to_context(model: Model, context: Context, max_tokens: int) -> int:
    """`max_tokens`, lowered so the estimated input, a 15 % margin and the output fit the window.

    When the 15 % margin would leave less than 32,768 tokens, only the fixed margin is kept and the
    output is capped at 32,768. Never below 1.
    """
    if model.context_window <= 0:
        return max(1, max_tokens)
    used = estimate_context_tokens(context)
    margin = max(SAFETY_TOKENS, math.ceil(used * SAFETY_RATIO))
    room = model.context_window - used - margin
    if room < MIN_OUTPUT_WITH_RATIO:
        room = min(MIN_OUTPUT_WITH_RATIO, model.context_window - used - SAFETY_TOKENS)
    return min(max_tokens, max(1, room))


__all__ = [
    "estimate_context_tokens",
    "estimate_message_tokens",
    "estimate_messages_tokens",
    "fit_max_tokens_to_context",
]
