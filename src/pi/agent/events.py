"""What an agent run reports, in order, to every renderer (TUI, print, JSON, RPC) and to the Agent's state.

Each event knows its pi JSON form (`to_json_dict()`, camelCase keys) because the JSON and RPC modes
print events as they come and must match what pi prints. Events are msgspec Structs: a run emits
one per streamed chunk, and the assistant message they carry is the provider's live partial, shared
rather than copied (copy it if you keep it past the event).
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from msgspec import Struct, field

from pi.agent.messages import AgentMessage, to_jsonable
from pi.agent.tool import AgentToolResult
from pi.ai.events import AssistantMessageEvent
from pi.ai.types import AssistantMessage, ToolCall, ToolResultMessage

_DELTA_KEYS = {"content_index": "contentIndex", "tool_call": "toolCall"}


def delta_json(event: AssistantMessageEvent) -> dict[str, Any]:
    """pi's wire form of one streamed change: the change only, never the message so far.

    Sending the partial message with every delta would make a long reply's output grow with the
    square of its length; clients rebuild the text from the deltas. `toolcall_start` names the call.
    """
    out: dict[str, Any] = {"type": event.type}
    for name in event.__struct_fields__:
        if name in ("type", "partial"):
            continue
        value = getattr(event, name)
        out[_DELTA_KEYS.get(name, name)] = value.to_json_dict() if hasattr(value, "to_json_dict") else value
    if event.type == "toolcall_start":
        content = event.partial.content
        index = event.content_index
        block = content[index] if 0 <= index < len(content) else None
        if isinstance(block, ToolCall):
            out["id"] = block.id
            out["toolName"] = block.name
    return out


def tool_result_to_json(result: AgentToolResult) -> dict[str, Any]:
    """A tool's (partial) result as pi writes it in `tool_execution_*` events: only the keys it has.

    pi prints the object the tool returned, so unset `details` are absent rather than null, and a
    tool's `structuredContent` (bash: output, exit code, wall time) and its own `isError` come along
    for clients that drive the agent programmatically.
    """
    out: dict[str, Any] = {"content": [block.to_json_dict() for block in result.content]}
    if result.details is not None:
        out["details"] = to_jsonable(result.details)
    if result.structured_content is not None:
        out["structuredContent"] = to_jsonable(result.structured_content)
    if result.is_error:
        out["isError"] = True
    if result.terminate:
        out["terminate"] = True
    return out


class AgentStartEvent(Struct):
    """The run began; always its first event, followed by the first `turn_start`."""

    type: Literal["agent_start"] = "agent_start"

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type}


class AgentEndEvent(Struct):
    """The run is over, however it ended (completed, failed or aborted); always its last event."""

    messages: list[AgentMessage] = field(default_factory=list)
    """Every message this run added, prompts included."""
    will_retry: bool = False
    """True when automatic recovery (a retry, compaction and retry) follows; set by the application."""
    type: Literal["agent_end"] = "agent_end"

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "messages": [to_jsonable(m) for m in self.messages],
            "willRetry": self.will_retry,
        }


class TurnStartEvent(Struct):
    """A turn begins: the messages sent with it, one model request, and the tool calls of the reply."""

    type: Literal["turn_start"] = "turn_start"

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type}


class TurnEndEvent(Struct):
    """A turn is over: `message` is its assistant reply, `tool_results` the results of its calls in call order.

    Also sent when the reply failed or was aborted; then no tool ran and `tool_results` is empty.
    """

    message: AssistantMessage
    tool_results: list[ToolResultMessage] = field(default_factory=list)
    type: Literal["turn_end"] = "turn_end"

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "message": self.message.to_json_dict(),
            "toolResults": [r.to_json_dict() for r in self.tool_results],
        }


class MessageStartEvent(Struct):
    """A message joins the transcript: a prompt, a queued message, a tool result, or an assistant reply.

    A streamed reply arrives here as a snapshot whose stop reason is "pending"; `message_end` brings its final form.
    """

    message: AgentMessage
    type: Literal["message_start"] = "message_start"

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type, "message": to_jsonable(self.message)}


class MessageUpdateEvent(Struct):
    """One streamed change to the assistant message; `message` is the live partial."""

    message: AssistantMessage
    assistant_message_event: AssistantMessageEvent
    type: Literal["message_update"] = "message_update"

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "usage": self.message.usage.to_json_dict(),
            "assistantMessageEvent": delta_json(self.assistant_message_event),
        }


class MessageEndEvent(Struct):
    """A message is complete; each follows the `message_start` of the same message.

    For an assistant reply this is the final message, with its stop reason, usage and any error.
    """

    message: AgentMessage
    type: Literal["message_end"] = "message_end"

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type, "message": to_jsonable(self.message)}


class ToolExecutionStartEvent(Struct):
    """A tool call is taken up, before the tool is looked up, its arguments validated and hooks consulted.

    Exactly one `tool_execution_end` with the same `tool_call_id` follows, even when the call never runs.
    """

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    """The arguments as the model sent them, before repair and validation."""
    type: Literal["tool_execution_start"] = "tool_execution_start"

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type, "toolCallId": self.tool_call_id, "toolName": self.tool_name, "args": self.args}


class ToolExecutionUpdateEvent(Struct):
    """Partial output a running tool reported; never sent after that call's `tool_execution_end`.

    The awaitable the tool's update callback returned resolves once this event has been delivered.
    """

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    partial_result: AgentToolResult
    type: Literal["tool_execution_update"] = "tool_execution_update"

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "args": self.args,
            "partialResult": tool_result_to_json(self.partial_result),
        }


class ToolExecutionEndEvent(Struct):
    """A tool call is finished, with the result the model will see (after the `after_tool_call` hook).

    When calls run concurrently, end events come in the order the calls finish; result messages keep call order.
    """

    tool_call_id: str
    tool_name: str
    result: AgentToolResult
    is_error: bool
    duration_ms: float | None = None
    """How long the tool's execute() ran, in milliseconds (monotonic clock); None when it did not run.

    The loop measures whole milliseconds; the wire form is rounded to whole ones in any case, as pi's is.
    """
    type: Literal["tool_execution_end"] = "tool_execution_end"

    def to_json_dict(self) -> dict[str, Any]:
        out = {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "result": tool_result_to_json(self.result),
            "isError": self.is_error,
        }
        if self.duration_ms is not None:
            out["durationMs"] = round(self.duration_ms)
        return out


AgentEvent: TypeAlias = (
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
)

__all__ = [
    "AgentEndEvent",
    "AgentEvent",
    "AgentStartEvent",
    "MessageEndEvent",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "ToolExecutionEndEvent",
    "ToolExecutionStartEvent",
    "ToolExecutionUpdateEvent",
    "TurnEndEvent",
    "TurnStartEvent",
    "delta_json",
    "tool_result_to_json",
]
