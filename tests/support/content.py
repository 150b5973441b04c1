"""Narrowing for tests: a message or content block the test expects to be of one kind, as that kind."""

from __future__ import annotations

from pi.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage


def text_of(block: object) -> str:
    """The text of a content block the test expects to be text."""
    assert isinstance(block, TextContent), block
    return block.text


def as_tool_call(block: object) -> ToolCall:
    """The content block, which the test expects to be a tool call."""
    assert isinstance(block, ToolCall), block
    return block


def as_user(message: object) -> UserMessage:
    """The message, which the test expects to be a user message."""
    assert isinstance(message, UserMessage), message
    return message


def as_assistant(message: object) -> AssistantMessage:
    """The message, which the test expects to be an assistant reply."""
    assert isinstance(message, AssistantMessage), message
    return message


def as_tool_result(message: object) -> ToolResultMessage:
    """The message, which the test expects to be a tool result."""
    assert isinstance(message, ToolResultMessage), message
    return message
