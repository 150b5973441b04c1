"""Everything an agent run is configured with, apart from the conversation itself.

Callbacks are asked afresh on every turn (an OAuth token may expire mid-run, a queue may fill while a
tool runs), so the config holds functions rather than values where a value can change during a run.
Every callback may be a plain function or a coroutine function.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from msgspec import Struct

from pi.agent.hooks import AfterToolCall, BeforeToolCall
from pi.agent.messages import AgentMessage
from pi.ai.abort import AbortSignal
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.options import OnPayload, StreamOptions, ThinkingBudgets
from pi.ai.types import Context, Message, Model, ThinkingLevel

if TYPE_CHECKING:
    from pi.agent.tool import AgentTool

ToolExecutionMode: TypeAlias = Literal["parallel", "sequential"]


class GetApiKey(Protocol):
    """The key for a provider right now; None falls back to the config's `api_key`."""

    def __call__(self, provider: str) -> Awaitable[str | None] | str | None: ...


class GetStreamOptions(Protocol):
    """Request options for one request to `model` (headers, session id, ...), resolved when it is sent.

    Asked per request, never cached: after a model switch the next request must carry only the new
    model's headers and credentials.
    """

    def __call__(self, model: Model) -> Awaitable[StreamOptions | None] | StreamOptions | None: ...


class TransformContext(Protocol):
    """Prunes, compacts or injects transcript entries before each request; sees application roles."""

    def __call__(
        self, messages: list[AgentMessage], signal: AbortSignal | None
    ) -> Awaitable[list[AgentMessage]] | list[AgentMessage]: ...


class ConvertToLlm(Protocol):
    """Maps the transcript to what the model may see: application roles become LLM roles or are dropped."""

    def __call__(self, messages: list[AgentMessage]) -> Awaitable[Sequence[Message]] | Sequence[Message]: ...


class GetQueuedMessages(Protocol):
    """Takes messages from a queue (steering or follow-up); an empty list means none are waiting."""

    def __call__(self) -> Awaitable[list[AgentMessage]] | list[AgentMessage]: ...


class AgentStreamFn(Protocol):
    """How the loop asks the model; `pi.ai.stream_simple` by default."""

    def __call__(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AssistantMessageEventStream | Awaitable[AssistantMessageEventStream]: ...


class AgentLoopConfig(Struct):
    """The settings of one `agent_loop` run; `Agent` builds a fresh one for each run from its current state."""

    model: Model
    reasoning: ThinkingLevel | None = None
    session_id: str | None = None
    api_key: str | None = None
    get_api_key: GetApiKey | None = None
    transform_context: TransformContext | None = None
    convert_to_llm: ConvertToLlm | None = None
    """Defaults to keeping user, assistant and toolResult messages."""
    before_tool_call: BeforeToolCall | None = None
    after_tool_call: AfterToolCall | None = None
    tool_execution: ToolExecutionMode = "parallel"
    get_steering_messages: GetQueuedMessages | None = None
    """Polled after each turn; its messages go to the model before it is asked again."""
    get_follow_up_messages: GetQueuedMessages | None = None
    """Polled when the agent would otherwise stop; its messages start another turn."""
    on_payload: OnPayload | None = None
    thinking_budgets: ThinkingBudgets | None = None
    max_retry_delay_ms: int | None = None
    stream_options: StreamOptions | None = None
    """Further request options (temperature, max_tokens, headers, provider extras, ...)."""
    get_stream_options: GetStreamOptions | None = None
    """Per-request options; fields it sets win over `stream_options`."""
    get_tools: Callable[[], Sequence[AgentTool[Any]]] | None = None
    """Read before each request: tools activated during a run are offered from the next turn on."""


__all__ = [
    "AgentLoopConfig",
    "AgentStreamFn",
    "ConvertToLlm",
    "GetApiKey",
    "GetQueuedMessages",
    "GetStreamOptions",
    "ToolExecutionMode",
    "TransformContext",
]
