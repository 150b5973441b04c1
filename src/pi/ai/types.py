"""The data shapes of the LLM layer.

Every stored or wire type is a pydantic model whose JSON uses pi's camelCase field names, so that
messages written by `pi` and by the TypeScript pi are the same JSON and round-trip through each
other's session files. Python code uses snake_case attributes; `to_json_dict()` gives the JSON form.
Unknown fields are kept (``extra="allow"``) so that a newer file read and written again loses nothing.
"""

import time
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from pi.ai.field_defaults import empty_list

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

StopReason: TypeAlias = Literal["pending", "stop", "length", "toolUse", "error", "aborted", "deferred"]
"""Why a reply ended. ``"pending"`` marks a reply still streaming (never stored); ``"deferred"`` one whose
result is fetched later through its `deferred` handle."""
CacheRetention: TypeAlias = Literal["none", "short", "long"]


def now_ms() -> int:
    """Unix time in milliseconds, the unit of every `timestamp` field."""
    return int(time.time() * 1000)


class PiModel(BaseModel):
    """Base of every JSON shape: camelCase aliases, population by either name, unknown keys kept.

    Validators and serializers are built when a class is first used, not when it is defined: a run
    uses a fraction of these shapes on its own (many only inside another), and building all of
    them was the largest single cost of importing `pi.ai`.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        ser_json_inf_nan="null",
        defer_build=True,
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
    namespace: str | None = None
    """The namespace the call was made in (OpenAI Responses), replayed with the call."""
    arguments_error: str | None = None
    """Set when the complete arguments text was not a JSON object (`arguments` is then empty): the
    parse error and the text received, reported to the model instead of running the tool."""


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
    total_from_provider: bool | None = None
    """True when `total` is what the provider billed; False or unset when it is the catalog estimate."""


class Usage(PiModel):
    """Token counts of one reply. `input` excludes cached tokens; `cache_read` counts them."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int | None = None
    """Reasoning tokens, already counted in `output`; None when the provider does not break them out."""
    cache_write_1h: int | None = Field(default=None, alias="cacheWrite1h")
    """The part of `cache_write` written for one hour (priced at twice the input price)."""
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)


class Tool(PiModel):
    """What a model is told about a tool; `parameters` is a JSON Schema object."""

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


# --- messages -------------------------------------------------------------------------------------


class UserMessage(PiModel):
    role: Literal["user"] = "user"
    content: str | list[UserContent]
    timestamp: int = Field(default_factory=now_ms)


class AssistantDiagnostic(PiModel):
    """Something noteworthy that happened while producing a reply (a recovered error, a fallback)."""

    type: str | None = None
    timestamp: int | None = None
    error: dict[str, Any] | None = None
    """``{name?, message, stack?, code?}`` of the error concerned."""
    details: dict[str, Any] | None = None


class DeferredHandle(PiModel):
    """Where to fetch a reply that the provider finishes later (``stopReason: "deferred"``)."""

    provider: str
    model_id: str
    api: str
    id: str
    expires_at: int | None = None
    poll_after_ms: int | None = None
    data: Any = None


class AssistantMessage(PiModel):
    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent] = Field(default_factory=empty_list)
    api: Api
    provider: Provider
    model: str
    response_model: str | None = None
    """The model id the server says answered, when it differs from or refines `model`."""
    response_id: str | None = None
    provider_thinking_level: str | None = None
    """The provider's own effort value sent for this reply (e.g. ``"medium"``, a token budget)."""
    thinking_level: ThinkingLevel | None = None
    """The pi thinking level requested for this reply."""
    diagnostics: list[AssistantDiagnostic] | None = None
    usage: Usage = Field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    deferred: DeferredHandle | None = None
    error_message: str | None = None
    raw_stop_reason: str | None = None
    """The stop reason exactly as the provider sent it (``"end_turn"``, ``"tool_calls"``, ...)."""
    end_turn: bool | None = None
    timestamp: int = Field(default_factory=now_ms)
    duration_ms: int | None = None
    """Milliseconds from `timestamp` to the end of the reply."""


class NestedToolCall(PiModel):
    """One call a tool made to another tool while it ran."""

    id: str
    name: str
    arguments: dict[str, Any] | None = None
    arguments_bytes: int | None = None
    status: Literal["ok", "error", "unfinished"] = "ok"
    duration_ms: int | None = None
    error: str | None = None


class NestedToolCalls(PiModel):
    calls: list[NestedToolCall] = Field(default_factory=empty_list)
    complete: bool = True
    """False when calls were dropped, their arguments left out, or some had not finished."""


class ToolResultMessage(PiModel):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[ToolResultContent] = Field(default_factory=empty_list)
    details: Any = None
    usage: Usage | None = None
    """Model usage of the tool's own work; not part of the conversation's context accounting."""
    nested_calls: NestedToolCalls | Any = None
    """Calls this tool made to other tools; kept for the record, never sent to a model. A value of
    another shape (from a newer writer) is kept as it is."""
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)
    duration_ms: int | None = None


class ToolReference(PiModel):
    name: str


class SystemMessage(PiModel):
    """The system prompt and tool declarations as of this point of the conversation.

    The first one is the prompt; later ones change it: `content` adds instructions, `sections`
    replace named sections (None removes one), `tools_added` / `tools_removed` change the tool set.
    Providers that accept system messages mid-conversation get each in place; for the others
    `pi.ai.transcript.resolve_transcript` folds them all into the leading prompt.
    """

    role: Literal["system"] = "system"
    content: str | list[TextContent] = ""
    sections: dict[str, str | None] | None = None
    tools_added: list[Tool] | None = None
    tools_removed: list[ToolReference] | None = None
    timestamp: int = Field(default_factory=now_ms)


Message: TypeAlias = Annotated[
    UserMessage | AssistantMessage | ToolResultMessage | SystemMessage, Field(discriminator="role")
]


# --- tools and context ----------------------------------------------------------------------------


class Context(PiModel):
    system_prompt: str | None = None
    messages: list[Message] = Field(default_factory=empty_list)
    tools: list[Tool] | None = None


# --- models ---------------------------------------------------------------------------------------


class CostTier(PiModel):
    """Prices that apply to the whole request once its input exceeds `input_tokens_above` tokens."""

    input_tokens_above: int
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


class ModelCost(PiModel):
    """Prices in US dollars per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    tiers: list[CostTier] | None = None
    """Higher prices for long prompts; the highest tier the input exceeds prices the whole request."""


class RoutingPreferences(PiModel):
    only: list[str] | None = None
    order: list[str] | None = None


class ModelCompat(PiModel):
    """Per-model overrides of what a server accepts on the model's wire API.

    Every field is optional: unset fields fall back to what the provider module detects from the
    provider name and base URL (see each API's compat resolver for the defaults). Keys this class
    does not name are kept as extra fields and read by the resolvers by their camelCase name.
    """

    supports_store: bool | None = None
    supports_developer_role: bool | None = None
    supports_reasoning_effort: bool | None = None
    reasoning_effort_map: dict[str, str] | None = None
    supports_usage_in_streaming: bool | None = None
    supports_finish_reason: bool | None = None
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] | None = None
    requires_tool_result_name: bool | None = None
    requires_assistant_after_tool_result: bool | None = None
    requires_thinking_as_text: bool | None = None
    thinking_format: str | None = None
    open_router_routing: RoutingPreferences | None = None
    vercel_gateway_routing: RoutingPreferences | None = None
    supports_strict_mode: bool | None = None
    requires_tools_with_tool_history: bool | None = None
    requires_non_null_assistant_content: bool | None = None
    supports_mid_convo_system_messages: bool | None = None
    cache_control_format: Literal["anthropic"] | None = None
    prompt_cache_key_mode: Literal["auto", "enabled", "disabled"] | None = None
    supports_long_cache_retention: bool | None = None
    chat_template_kwargs: dict[str, Any] | None = None
    supports_eager_tool_input_streaming: bool | None = None
    supports_cache_control_on_tools: bool | None = None
    supports_temperature: bool | None = None
    supports_max_output_tokens: bool | None = None


class ImageResize(PiModel):
    """How images are shrunk before they are sent: the largest size and encoded length a model takes."""

    max_width: int = 2000
    max_height: int = 2000
    max_bytes: int = 4_718_592
    """Largest base64 length (4.5 MiB)."""
    jpeg_quality: int = 80


class ImageInputLimits(PiModel):
    resize: ImageResize | None = None
    max_per_message: int | None = None
    max_per_request: int | None = None


class InputLimits(PiModel):
    """What a model's API accepts in one request, for the code that prepares attachments and images."""

    max_request_bytes: int | None = None
    images: ImageInputLimits | None = None


class PromptCache(PiModel):
    """How long the provider keeps a cached prompt prefix, in seconds, for each retention."""

    short: int | None = None
    long: int | None = None


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
    thinking_level_map: dict[str, str | None] | None = None
    """pi thinking level → the value sent to the provider; None marks a level the model lacks.
    ``xhigh`` and ``max`` exist only where they are mapped (see `pi.ai.thinking`)."""
    input_limits: InputLimits | None = None
    prompt_cache: PromptCache | None = None
    sampling_params: dict[str, Any] | None = None
    """Merged into every request body (OpenAI-compatible APIs only)."""
    sampling_params_by_thinking_level: dict[str, dict[str, Any]] | None = None
    """Per thinking level, merged after `sampling_params`."""


__all__ = [
    "REASONING_LEVELS",
    "THINKING_LEVELS",
    "Api",
    "AssistantContent",
    "AssistantDiagnostic",
    "AssistantMessage",
    "CacheRetention",
    "Context",
    "Cost",
    "CostTier",
    "DeferredHandle",
    "ImageContent",
    "ImageInputLimits",
    "ImageResize",
    "InputLimits",
    "Message",
    "Model",
    "ModelCompat",
    "ModelCost",
    "NestedToolCall",
    "NestedToolCalls",
    "PiModel",
    "PromptCache",
    "Provider",
    "ReasoningLevel",
    "RoutingPreferences",
    "StopReason",
    "SystemMessage",
    "TextContent",
    "ThinkingContent",
    "ThinkingLevel",
    "Tool",
    "ToolCall",
    "ToolReference",
    "ToolResultContent",
    "ToolResultMessage",
    "Usage",
    "UserContent",
    "UserMessage",
    "now_ms",
]
