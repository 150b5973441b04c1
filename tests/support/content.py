"""Narrowing for tests: a message or content block the test expects to be of one kind, as that kind."""

from __future__ import annotations

from typing import TypeVar

from pi.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage

T = TypeVar("T")


def expect(value: object, kind: type[T]) -> T:
    """`value` as a `kind`, failing the test (and showing the value) when it is something else."""
    assert isinstance(value, kind), value
    return value


def text_of(block: object) -> str:
    """The text of a content block the test expects to be text."""
    return expect(block, TextContent).text


def as_tool_call(block: object) -> ToolCall:
    return expect(block, ToolCall)


def as_user(message: object) -> UserMessage:
    return expect(message, UserMessage)


def as_assistant(message: object) -> AssistantMessage:
    return expect(message, AssistantMessage)


def as_tool_result(message: object) -> ToolResultMessage:
    return expect(message, ToolResultMessage)
