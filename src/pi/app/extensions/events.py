"""The payloads of the 41 extension events, one pydantic model per event.

A model is named `<PascalCase(event)>Event` and has a `type` literal; attributes are snake_case, the
JSON form pi's camelCase (`continue_` is `"continue"`). Fields a handler may edit in place (the
`tool_call` input, provider headers, the system prompt options, context messages) hold the host's
own objects, never copies. Results handlers may return have `<...>EventResult` models; plain dicts
with either spelling of the keys are accepted too.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pi.ai.field_defaults import empty_list
from pi.app.extensions.event_base import EventModel, ResultModel, Shared
from pi.app.extensions.events_session import (
    McpServersChangeEvent,
    ProjectTrustEvent,
    ProjectTrustEventResult,
    ResourcesDiscoverEvent,
    ResourcesDiscoverEventResult,
    SessionBeforeCompactEvent,
    SessionBeforeCompactEventResult,
    SessionBeforeForkEvent,
    SessionBeforeForkEventResult,
    SessionBeforeSwitchEvent,
    SessionBeforeSwitchEventResult,
    SessionBeforeTreeEvent,
    SessionBeforeTreeEventResult,
    SessionCompactEvent,
    SessionCompactFailedEvent,
    SessionInfoChangedEvent,
    SessionShutdownEvent,
    SessionStartEvent,
    SessionTreeEvent,
)

# -- input and run lifecycle ------------------------------------------------------------------------


class InputEvent(EventModel):
    type: Literal["input"] = "input"
    text: str
    images: Shared = None
    source: Literal["interactive", "rpc", "extension", "sdk"]
    streaming_behavior: Literal["steer", "followUp"] | None = None


class InputEventResult(ResultModel):
    action: Literal["continue", "transform", "handled"] = "continue"
    text: str | None = None
    images: Shared = None


class BeforeAgentStartEvent(EventModel):
    """Base of the two shapes, told apart by `message_type`."""

    type: Literal["before_agent_start"] = "before_agent_start"
    message_type: Literal["user", "custom"]
    system_prompt: str
    system_prompt_options: Shared
    """The mutable prompt inputs (`custom_prompt`, `force_system_prompt`, `selected_tools`, ...)."""


class BeforeAgentStartUserEvent(BeforeAgentStartEvent):
    message_type: Literal["user"] = "user"
    prompt: str
    images: Shared = None


class BeforeAgentStartCustomEvent(BeforeAgentStartEvent):
    message_type: Literal["custom"] = "custom"
    message: Shared


class BeforeAgentStartEventResult(ResultModel):
    message: dict[str, Any] | None = None
    system_prompt: str | None = None


class AgentStartEvent(EventModel):
    type: Literal["agent_start"] = "agent_start"


class AgentEndEvent(EventModel):
    type: Literal["agent_end"] = "agent_end"
    messages: Shared


class BoundaryFields(EventModel):
    entries: Shared
    """Drafts proposed so far (`custom`, `custom_message`, `context_edit`, `compaction`)."""
    continue_: bool = Field(default=False, alias="continue")
    context: Shared = None
    outcome: Literal["completed", "aborted", "error"] = "completed"


class AgentBeforeSettleEvent(BoundaryFields):
    type: Literal["agent_before_settle"] = "agent_before_settle"


class BoundaryEventResult(ResultModel):
    entries: list[dict[str, Any]] | None = None
    continue_: bool | None = Field(default=None, alias="continue")


class AgentSettledEvent(EventModel):
    type: Literal["agent_settled"] = "agent_settled"
    aborted: bool


class UiPromptStartEvent(EventModel):
    type: Literal["ui_prompt_start"] = "ui_prompt_start"
    reason: Literal["ui_prompt"] = "ui_prompt"
    kind: Literal["select", "confirm", "input", "editor", "custom"]
    title: str | None = None


class UiPromptEndEvent(EventModel):
    type: Literal["ui_prompt_end"] = "ui_prompt_end"
    reason: Literal["ui_prompt"] = "ui_prompt"
    kind: Literal["select", "confirm", "input", "editor", "custom"]
    title: str | None = None


class TurnStartEvent(EventModel):
    type: Literal["turn_start"] = "turn_start"
    turn_index: int
    timestamp: int


class TurnEndEvent(BoundaryFields):
    type: Literal["turn_end"] = "turn_end"
    turn_index: int
    message: Shared
    tool_results: Shared
    message_entry_id: str | None = None
    tool_result_entry_ids: list[str] = Field(default_factory=empty_list)


class MessageStartEvent(EventModel):
    type: Literal["message_start"] = "message_start"
    message: Shared


class MessageUpdateEvent(EventModel):
    type: Literal["message_update"] = "message_update"
    message: Shared
    assistant_message_event: Shared


class MessageEndEvent(EventModel):
    type: Literal["message_end"] = "message_end"
    message: Shared


class MessageEndEventResult(ResultModel):
    message: Shared = None


# -- tools ------------------------------------------------------------------------------------------


class ToolExecutionStartEvent(EventModel):
    type: Literal["tool_execution_start"] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: Shared
    parent_tool_call_id: str | None = None


class ToolExecutionUpdateEvent(EventModel):
    type: Literal["tool_execution_update"] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    args: Shared
    partial_result: Shared
    parent_tool_call_id: str | None = None


class ToolExecutionEndEvent(EventModel):
    type: Literal["tool_execution_end"] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    args: Shared = None
    result: Shared
    is_error: bool
    duration_ms: int | None = None
    parent_tool_call_id: str | None = None


class ToolCallEvent(EventModel):
    type: Literal["tool_call"] = "tool_call"
    tool_call_id: str
    tool_name: str
    input: Shared
    """The arguments dict; edits in place apply to the call and later handlers see them."""
    parent_tool_call_id: str | None = None


class ToolCallEventResult(ResultModel):
    block: bool | None = None
    reason: str | None = None
    terminate: bool | None = None


class ToolResultEvent(EventModel):
    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    tool_name: str
    input: Shared
    content: Shared
    details: Shared = None
    structured_content: Shared = None
    is_error: bool = False
    usage: Shared = None
    parent_tool_call_id: str | None = None


class ToolResultEventResult(ResultModel):
    content: Shared = None
    details: Shared = None
    structured_content: Shared = None
    is_error: bool | None = None
    usage: Shared = None


# -- model requests ---------------------------------------------------------------------------------


class ContextEvent(EventModel):
    type: Literal["context"] = "context"
    messages: Shared


class ContextEventResult(ResultModel):
    messages: Shared = None


class ContextWithSystemEvent(EventModel):
    type: Literal["context_with_system"] = "context_with_system"
    messages: Shared


class BeforeProviderHeadersEvent(EventModel):
    type: Literal["before_provider_headers"] = "before_provider_headers"
    headers: Shared
    """The request headers, edited in place (set a value to None to delete the header)."""


class BeforeProviderRequestEvent(EventModel):
    type: Literal["before_provider_request"] = "before_provider_request"
    payload: Shared
    model: Shared = None


class AfterProviderResponseEvent(EventModel):
    type: Literal["after_provider_response"] = "after_provider_response"
    status: int
    headers: dict[str, str]


class ProviderStreamEventEvent(EventModel):
    type: Literal["provider_stream_event"] = "provider_stream_event"
    provider: str
    api: str
    model: str
    data: Shared


ProviderStreamEvent = ProviderStreamEventEvent


class CacheWarmingDecisionEvent(EventModel):
    """Before each cache-warming refresh: pi's estimate and its own `action`; a handler may return another."""

    type: Literal["cache_warming_decision"] = "cache_warming_decision"
    warm_cost: float
    miss_cost: float
    continuation_probability: float
    action: Literal["warm", "stop"]
    mode: Literal["off", "streaming", "idle"] = "idle"
    phase: Literal["streaming", "idle"] = "idle"
    """``streaming`` while the run that made the request still works, ``idle`` after it settled."""
    model: Shared = None
    """``{"provider", "id"}`` of the request's model."""
    ttl_ms: int | None = None
    prompt_tokens: int = 0
    spent_cost: float = 0.0
    """What refreshes of this request have cost so far."""


class CacheWarmingDecisionEventResult(ResultModel):
    action: Literal["warm", "stop"] | None = None


class ModelSelectEvent(EventModel):
    type: Literal["model_select"] = "model_select"
    model: Shared
    previous_model: Shared = None
    source: Literal["set", "cycle", "restore"]


class ThinkingLevelSelectEvent(EventModel):
    type: Literal["thinking_level_select"] = "thinking_level_select"
    level: str
    previous_level: str | None = None


class UserBashEvent(EventModel):
    type: Literal["user_bash"] = "user_bash"
    command: str
    exclude_from_context: bool = False
    cwd: str


class UserBashEventResult(ResultModel):
    operations: Shared = None
    result: Shared = None


EVENT_MODELS: dict[str, type[EventModel]] = {
    "project_trust": ProjectTrustEvent,
    "resources_discover": ResourcesDiscoverEvent,
    "mcp_servers_change": McpServersChangeEvent,
    "session_start": SessionStartEvent,
    "session_info_changed": SessionInfoChangedEvent,
    "session_before_switch": SessionBeforeSwitchEvent,
    "session_before_fork": SessionBeforeForkEvent,
    "session_before_compact": SessionBeforeCompactEvent,
    "session_compact": SessionCompactEvent,
    "session_compact_failed": SessionCompactFailedEvent,
    "session_before_tree": SessionBeforeTreeEvent,
    "session_tree": SessionTreeEvent,
    "session_shutdown": SessionShutdownEvent,
    "input": InputEvent,
    "before_agent_start": BeforeAgentStartEvent,
    "agent_start": AgentStartEvent,
    "agent_end": AgentEndEvent,
    "agent_before_settle": AgentBeforeSettleEvent,
    "agent_settled": AgentSettledEvent,
    "ui_prompt_start": UiPromptStartEvent,
    "ui_prompt_end": UiPromptEndEvent,
    "turn_start": TurnStartEvent,
    "turn_end": TurnEndEvent,
    "message_start": MessageStartEvent,
    "message_update": MessageUpdateEvent,
    "message_end": MessageEndEvent,
    "tool_execution_start": ToolExecutionStartEvent,
    "tool_execution_update": ToolExecutionUpdateEvent,
    "tool_execution_end": ToolExecutionEndEvent,
    "tool_call": ToolCallEvent,
    "tool_result": ToolResultEvent,
    "context": ContextEvent,
    "context_with_system": ContextWithSystemEvent,
    "before_provider_headers": BeforeProviderHeadersEvent,
    "before_provider_request": BeforeProviderRequestEvent,
    "after_provider_response": AfterProviderResponseEvent,
    "provider_stream_event": ProviderStreamEventEvent,
    "cache_warming_decision": CacheWarmingDecisionEvent,
    "model_select": ModelSelectEvent,
    "thinking_level_select": ThinkingLevelSelectEvent,
    "user_bash": UserBashEvent,
}
EVENT_NAMES = tuple(EVENT_MODELS)

__all__ = [
    "EVENT_MODELS",
    "EVENT_NAMES",
    "AfterProviderResponseEvent",
    "AgentBeforeSettleEvent",
    "AgentEndEvent",
    "AgentSettledEvent",
    "AgentStartEvent",
    "BeforeAgentStartCustomEvent",
    "BeforeAgentStartEvent",
    "BeforeAgentStartEventResult",
    "BeforeAgentStartUserEvent",
    "BeforeProviderHeadersEvent",
    "BeforeProviderRequestEvent",
    "BoundaryEventResult",
    "BoundaryFields",
    "CacheWarmingDecisionEvent",
    "CacheWarmingDecisionEventResult",
    "ContextEvent",
    "ContextEventResult",
    "ContextWithSystemEvent",
    "EventModel",
    "InputEvent",
    "InputEventResult",
    "McpServersChangeEvent",
    "MessageEndEvent",
    "MessageEndEventResult",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "ModelSelectEvent",
    "ProjectTrustEvent",
    "ProjectTrustEventResult",
    "ProviderStreamEvent",
    "ProviderStreamEventEvent",
    "ResourcesDiscoverEvent",
    "ResourcesDiscoverEventResult",
    "ResultModel",
    "SessionBeforeCompactEvent",
    "SessionBeforeCompactEventResult",
    "SessionBeforeForkEvent",
    "SessionBeforeForkEventResult",
    "SessionBeforeSwitchEvent",
    "SessionBeforeSwitchEventResult",
    "SessionBeforeTreeEvent",
    "SessionBeforeTreeEventResult",
    "SessionCompactEvent",
    "SessionCompactFailedEvent",
    "SessionInfoChangedEvent",
    "SessionShutdownEvent",
    "SessionStartEvent",
    "SessionTreeEvent",
    "Shared",
    "ThinkingLevelSelectEvent",
    "ToolCallEvent",
    "ToolCallEventResult",
    "ToolExecutionEndEvent",
    "ToolExecutionStartEvent",
    "ToolExecutionUpdateEvent",
    "ToolResultEvent",
    "ToolResultEventResult",
    "TurnEndEvent",
    "TurnStartEvent",
    "UiPromptEndEvent",
    "UiPromptStartEvent",
    "UserBashEvent",
    "UserBashEventResult",
]
