"""The streaming event protocol of one assistant reply.

Grammar: ``start, (X_start, X_delta*, X_end)*, (done | error)`` with exactly one terminal event; an
``error`` may come without ``start`` when the request failed before any output. Events are msgspec
Structs rather than pydantic models because a reply produces thousands of them.

`partial` is the provider's live message, mutated in place as the reply grows: the same object on
every event. A consumer that keeps it past the event must copy it.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from msgspec import Struct

from pi.ai.types import AssistantMessage, ToolCall


class StartEvent(Struct):
    """Opens a reply: `partial` has no content yet, only the api, provider and model that answer."""

    partial: AssistantMessage
    type: Literal["start"] = "start"


class TextStartEvent(Struct):
    """A text block opens at `content_index` of ``partial.content``."""

    content_index: int
    partial: AssistantMessage
    type: Literal["text_start"] = "text_start"


class TextDeltaEvent(Struct):
    """More text for the block at `content_index`; `delta` is only the new piece."""

    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["text_delta"] = "text_delta"


class TextEndEvent(Struct):
    """The text block at `content_index` is complete; `content` is its whole text."""

    content_index: int
    content: str
    partial: AssistantMessage
    type: Literal["text_end"] = "text_end"


class ThinkingStartEvent(Struct):
    """A reasoning block opens at `content_index` of ``partial.content``."""

    content_index: int
    partial: AssistantMessage
    type: Literal["thinking_start"] = "thinking_start"


class ThinkingDeltaEvent(Struct):
    """More reasoning for the block at `content_index`; `delta` is only the new piece."""

    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["thinking_delta"] = "thinking_delta"


class ThinkingEndEvent(Struct):
    """The reasoning block at `content_index` is complete; `content` is its whole text."""

    content_index: int
    content: str
    partial: AssistantMessage
    type: Literal["thinking_end"] = "thinking_end"


class ToolCallStartEvent(Struct):
    """A tool call opens at `content_index` with its id and name; the arguments follow as deltas."""

    content_index: int
    partial: AssistantMessage
    type: Literal["toolcall_start"] = "toolcall_start"


class ToolCallDeltaEvent(Struct):
    """A fragment of the tool call's raw argument JSON.

    The call in `partial` already holds the arguments parsed so far, so a consumer need not join the
    fragments itself.
    """

    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["toolcall_delta"] = "toolcall_delta"


class ToolCallEndEvent(Struct):
    """The tool call at `content_index` is complete; `tool_call` holds the arguments parsed from the whole JSON.

    When that JSON could not be read, ``tool_call.arguments_error`` says why.
    """

    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage
    type: Literal["toolcall_end"] = "toolcall_end"


class DoneEvent(Struct):
    """The reply ended normally: `message` is final, usage and cost included.

    `reason` is ``"toolUse"`` when the model wants tools run, ``"length"`` when it hit the token limit.
    """

    reason: Literal["stop", "length", "toolUse"]
    message: AssistantMessage
    type: Literal["done"] = "done"


class ErrorEvent(Struct):
    """The reply failed or was aborted; `error` is the message so far, with its ``error_message`` set.

    It may be the only event of a stream when the request failed before any output.
    """

    reason: Literal["error", "aborted"]
    error: AssistantMessage
    type: Literal["error"] = "error"


AssistantMessageEvent: TypeAlias = (
    StartEvent
    | TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | DoneEvent
    | ErrorEvent
)

_CAMEL = {
    "content_index": "contentIndex",
    "tool_call": "toolCall",
}


_PAYLOAD_FIELDS: dict[type, tuple[str, ...]] = {}


def _payload_fields(cls: Any) -> tuple[str, ...]:
    names = _PAYLOAD_FIELDS.get(cls)
    if names is None:
        names = _PAYLOAD_FIELDS[cls] = tuple(name for name in cls.__struct_fields__ if name != "type")
    return names


def event_to_json_dict(event: AssistantMessageEvent) -> dict[str, Any]:
    """The event in pi's JSON shape (camelCase keys, messages in their JSON form)."""
    out: dict[str, Any] = {"type": event.type}
    for name in _payload_fields(type(event)):
        value = getattr(event, name)
        if hasattr(value, "to_json_dict"):
            value = value.to_json_dict()
        out[_CAMEL.get(name, name)] = value
    return out


__all__ = [
    "AssistantMessageEvent",
    "DoneEvent",
    "ErrorEvent",
    "StartEvent",
    "TextDeltaEvent",
    "TextEndEvent",
    "TextStartEvent",
    "ThinkingDeltaEvent",
    "ThinkingEndEvent",
    "ThinkingStartEvent",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "event_to_json_dict",
]
