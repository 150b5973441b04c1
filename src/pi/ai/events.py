"""The streaming event protocol of one assistant reply.

Grammar: ``start, (X_start, X_delta*, X_end)*, (done | error)`` with exactly one terminal event; an
``error`` may come without ``start`` when the request failed before any output. Events are slotted
dataclasses rather than pydantic models because a reply produces thousands of them.

`partial` is the provider's live message, mutated in place as the reply grows: the same object on
every event. A consumer that keeps it past the event must copy it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal, TypeAlias

from pi.ai.types import AssistantMessage, ToolCall


@dataclass(slots=True)
class StartEvent:
    partial: AssistantMessage
    type: Literal["start"] = "start"


@dataclass(slots=True)
class TextStartEvent:
    content_index: int
    partial: AssistantMessage
    type: Literal["text_start"] = "text_start"


@dataclass(slots=True)
class TextDeltaEvent:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["text_delta"] = "text_delta"


@dataclass(slots=True)
class TextEndEvent:
    content_index: int
    content: str
    partial: AssistantMessage
    type: Literal["text_end"] = "text_end"


@dataclass(slots=True)
class ThinkingStartEvent:
    content_index: int
    partial: AssistantMessage
    type: Literal["thinking_start"] = "thinking_start"


@dataclass(slots=True)
class ThinkingDeltaEvent:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclass(slots=True)
class ThinkingEndEvent:
    content_index: int
    content: str
    partial: AssistantMessage
    type: Literal["thinking_end"] = "thinking_end"


@dataclass(slots=True)
class ToolCallStartEvent:
    content_index: int
    partial: AssistantMessage
    type: Literal["toolcall_start"] = "toolcall_start"


@dataclass(slots=True)
class ToolCallDeltaEvent:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["toolcall_delta"] = "toolcall_delta"


@dataclass(slots=True)
class ToolCallEndEvent:
    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage
    type: Literal["toolcall_end"] = "toolcall_end"


@dataclass(slots=True)
class DoneEvent:
    reason: Literal["stop", "length", "toolUse"]
    message: AssistantMessage
    type: Literal["done"] = "done"


@dataclass(slots=True)
class ErrorEvent:
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
        names = _PAYLOAD_FIELDS[cls] = tuple(f.name for f in fields(cls) if f.name != "type")
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
