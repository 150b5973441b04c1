"""The data shapes of the LLM layer.

Every stored or wire type is a pydantic model whose JSON uses pi's camelCase field names, so that
messages written by `pi` and by the TypeScript pi are the same JSON and round-trip through each
other's session files. Python code uses snake_case attributes; `to_json_dict()` gives the JSON form.
Unknown fields are kept (``extra="allow"``) so that a newer file read and written again loses nothing.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

Api: TypeAlias = str
"""The wire protocol a model speaks, e.g. ``"anthropic-messages"``; open, so extensions can add more."""

Provider: TypeAlias = str
"""Who serves a model, e.g. ``"anthropic"`` or ``"openrouter"``; open for custom providers."""

ThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
"""How hard a model thinks before answering, from none ("off") to its maximum ("max").

One list for every layer: settings, the CLI's ``--thinking``, a session's thinking-level entries and
the `reasoning` option of `stream_simple` (where ``"off"`` and no value both mean no reasoning).
"""

THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
"""Every thinking level, weakest first."""

ReasoningLevel: TypeAlias = Literal["minimal", "low", "medium", "high", "xhigh", "max"]
"""A thinking level that turns reasoning on: every level but ``"off"``."""

REASONING_LEVELS: tuple[ReasoningLevel, ...] = ("minimal", "low", "medium", "high", "xhigh", "max")

StopReason: TypeAlias = Literal["stop", "length", "toolUse", "error", "aborted"]
CacheRetention: TypeAlias = Literal["none", "short", "long"]


def now_ms() -> int:
    """Unix time in milliseconds, the unit of every `timestamp` field."""
    return int(time.time() * 1000)


class PiModel(BaseModel):
    """Base of every JSON shape: camelCase aliases, population by either name, unknown keys kept."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        ser_json_inf_nan="null",
    )

    def to_json_dict(self) -> dict[str, Any]:
        """The pi JSON form: camelCase keys, unset optional fields left out."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


# --- content blocks -------------------------------------------------------------------------------


class TextContent(PiModel):
    type: Literal["text"] = "text"
    text: str
    text_signature: str | None = None


class ThinkingContent(PiModel):
    type: Literal["thinking"] = "thinking"
    thinking: str
    thinking_signature: str | None = None
    redacted: bool | None = None


class ImageContent(PiModel):
    type: Literal["image"] = "image"
    data: str
    """Base64 of the image bytes."""
    mime_type: str


class ToolCall(PiModel):
    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    thought_signature: str | None = None


UserContent: TypeAlias = Annotated[TextContent | ImageContent, Field(discriminator="type")]
AssistantContent: TypeAlias = Annotated[TextContent | ThinkingContent | ToolCall, Field(discriminator="type")]
ToolResultContent: TypeAlias = UserContent


# --- usage ----------------------------------------------------------------------------------------


class Cost(PiModel):
    """Money spent, in US dollars."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0


class Usage(PiModel):
    """Token counts of one reply. `input` excludes cached tokens; `cache_read` counts them."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)


# --- messages -------------------------------------------------------------------------------------


class UserMessage(PiModel):
    role: Literal["user"] = "user"
    content: str | list[UserContent]
    timestamp: int = Field(default_factory=now_ms)


class AssistantMessage(PiModel):
    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent] = Field(default_factory=list)
    api: Api
    provider: Provider
    model: str
    usage: Usage = Field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    timestamp: int = Field(default_factory=now_ms)


class ToolResultMessage(PiModel):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[ToolResultContent] = Field(default_factory=list)
    details: Any = None
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)


Message: TypeAlias = Annotated[UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")]


# --- tools and context ----------------------------------------------------------------------------


class Tool(PiModel):
    """What a model is told about a tool; `parameters` is a JSON Schema object."""

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Context(PiModel):
    system_prompt: str | None = None
    messages: list[Message] = Field(default_factory=list)
    tools: list[Tool] | None = None


# --- models ---------------------------------------------------------------------------------------


class ModelCost(PiModel):
    """Prices in US dollars per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


class RoutingPreferences(PiModel):
    only: list[str] | None = None
    order: list[str] | None = None


class ModelCompat(PiModel):
    """Per-model overrides of what an OpenAI-compatible server accepts.

    Every field is optional: unset fields fall back to what the provider module detects from the
    provider name and base URL. Keys of other APIs' compat objects are kept as extra fields.
    """

    supports_store: bool | None = None
    supports_developer_role: bool | None = None
    supports_reasoning_effort: bool | None = None
    reasoning_effort_map: dict[str, str] | None = None
    supports_usage_in_streaming: bool | None = None
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] | None = None
    requires_tool_result_name: bool | None = None
    requires_assistant_after_tool_result: bool | None = None
    requires_thinking_as_text: bool | None = None
    thinking_format: str | None = None
    open_router_routing: RoutingPreferences | None = None
    vercel_gateway_routing: RoutingPreferences | None = None
    supports_strict_mode: bool | None = None


class Model(PiModel):
    id: str
    name: str
    api: Api
    provider: Provider
    base_url: str
    reasoning: bool = False
    input: list[Literal["text", "image"]] = Field(default_factory=lambda: list[Literal["text", "image"]](["text"]))
    cost: ModelCost = Field(default_factory=ModelCost)
    context_window: int = 128000
    max_tokens: int = 16384
    headers: dict[str, str] | None = None
    compat: ModelCompat | None = None


__all__ = [
    "REASONING_LEVELS",
    "THINKING_LEVELS",
    "Api",
    "AssistantContent",
    "AssistantMessage",
    "CacheRetention",
    "Context",
    "Cost",
    "ImageContent",
    "Message",
    "Model",
    "ModelCompat",
    "ModelCost",
    "PiModel",
    "Provider",
    "ReasoningLevel",
    "RoutingPreferences",
    "StopReason",
    "TextContent",
    "ThinkingContent",
    "ThinkingLevel",
    "Tool",
    "ToolCall",
    "ToolResultContent",
    "ToolResultMessage",
    "Usage",
    "UserContent",
    "UserMessage",
    "now_ms",
]
