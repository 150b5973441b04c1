"""A scripted model that speaks the real event grammar, for tests of anything built on the LLM layer.

Agent loops, modes and extensions all consume provider event streams. Testing them against a live
API is slow, costs money and is not reproducible; testing them against hand-built event lists skips
the grammar a real provider produces. The faux provider sits in between: it registers a real
`ApiProvider` under its own api name, and replays queued replies through the same `OutputBuilder`
every wire provider uses, block by block in small chunks, yielding to the event loop between chunks
so that aborts, steering and concurrent tools interleave as they would against a network.

A queued item is either a finished `AssistantMessage` or a factory that builds one from the request
(the context it was sent, the options, the provider's state and the model), which lets a test assert
on what the caller sent and answer accordingly.

The provider needs no API key, but `pi.ai.stream_simple` (the agent's default stream function) asks
for one before any request: give the agent any `api_key`, or use `pi.ai.stream` as its `stream_fn`.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import math
import secrets
from collections import deque
from collections.abc import Awaitable, Iterable, Sequence
from typing import Any, Protocol, TypeAlias

from msgspec import Struct

from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.events import ErrorEvent
from pi.ai.options import StreamOptions
from pi.ai.providers.output import OutputBuilder, run_provider
from pi.ai.registry import ApiProvider, register_api_provider, unregister_api_providers
from pi.ai.types import (
    AssistantContent,
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    now_ms,
)

FAUX_PROVIDER = "faux"
DEFAULT_FAUX_MODEL_ID = "faux-1"
NO_MORE_RESPONSES = "No more faux responses queued"
CHARS_PER_TOKEN = 4
_CHUNK_TOKENS = (3, 4, 5)
"""Chunk sizes (in tokens) cycled through while streaming, so chunk boundaries vary but stay reproducible."""

_ids = itertools.count(1)


class FauxState(Struct):
    """What a response factory may read (and tests may inspect) about the provider so far."""

    call_count: int = 0
    """Requests received, including ones answered with the empty-queue error."""


class FauxResponseFactory(Protocol):
    """Builds the reply to one request; may be async."""

    def __call__(
        self, context: Context, options: StreamOptions, state: FauxState, model: Model
    ) -> AssistantMessage | Awaitable[AssistantMessage]: ...


FauxResponse: TypeAlias = AssistantMessage | FauxResponseFactory


def _unique_suffix() -> str:
    return f"{now_ms()}:{secrets.token_hex(3)}{next(_ids)}"


# --- building scripted replies --------------------------------------------------------------------


def faux_text(text: str) -> TextContent:
    return TextContent(text=text)


def faux_thinking(thinking: str, signature: str | None = None) -> ThinkingContent:
    return ThinkingContent(thinking=thinking, thinking_signature=signature)


def faux_tool_call(name: str, arguments: dict[str, Any] | None = None, *, id: str | None = None) -> ToolCall:
    """A tool call block; the id is unique unless given."""
    return ToolCall(id=id or f"tool:{_unique_suffix()}", name=name, arguments=dict(arguments or {}))


def faux_assistant_message(
    content: str | AssistantContent | Sequence[AssistantContent] = "",
    *,
    stop_reason: StopReason | None = None,
    error_message: str | None = None,
    timestamp: int | None = None,
) -> AssistantMessage:
    """A scripted reply. Without `stop_reason` it is "toolUse" when it calls a tool, else "stop"."""
    if isinstance(content, str):
        blocks: list[AssistantContent] = [TextContent(text=content)] if content else []
    elif isinstance(content, TextContent | ThinkingContent | ToolCall):
        blocks = [content]
    else:
        blocks = list(content)
    if stop_reason is None:
        stop_reason = "toolUse" if any(isinstance(b, ToolCall) for b in blocks) else "stop"
    message = AssistantMessage(
        content=blocks,
        api=FAUX_PROVIDER,
        provider=FAUX_PROVIDER,
        model=DEFAULT_FAUX_MODEL_ID,
        stop_reason=stop_reason,
        error_message=error_message,
    )
    if timestamp is not None:
        message.timestamp = timestamp
    return message


# --- usage estimate -------------------------------------------------------------------------------


def _content_chars(blocks: Iterable[Any]) -> int:
    total = 0
    for block in blocks:
        if isinstance(block, TextContent):
            total += len(block.text)
        elif isinstance(block, ThinkingContent):
            total += len(block.thinking)
        elif isinstance(block, ToolCall):
            total += len(block.name) + len(json.dumps(block.arguments, default=str))
        elif isinstance(block, ImageContent):
            total += 4800  # roughly what a provider bills for a small image
    return total


def context_chars(context: Context) -> int:
    """A cheap stand-in for the length of the serialized request."""
    total = len(context.system_prompt or "")
    for message in context.messages:
        if isinstance(message, UserMessage) and isinstance(message.content, str):
            total += len(message.content)
        elif isinstance(message, UserMessage | AssistantMessage | ToolResultMessage):
            total += _content_chars(message.content)
    for tool in context.tools or ():
        total += len(tool.name) + len(tool.description) + len(json.dumps(tool.parameters))
    return total


def estimate_tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


# --- the provider ---------------------------------------------------------------------------------


def _default_model(model_id: str, api: str, provider: str) -> Model:
    return Model(
        id=model_id,
        name=f"Faux {model_id}",
        api=api,
        provider=provider,
        base_url="http://faux.invalid",
        input=["text", "image"],
        context_window=128000,
        max_tokens=16384,
    )


class FauxProvider:
    """A registered scripted provider; see the module docstring."""

    def __init__(
        self,
        *,
        api: str | None = None,
        provider: str = FAUX_PROVIDER,
        models: Sequence[str | Model] = (DEFAULT_FAUX_MODEL_ID,),
        tokens_per_second: float | None = None,
    ) -> None:
        self.api = api or f"faux:{_unique_suffix()}"
        self.provider = provider
        self.tokens_per_second = tokens_per_second
        self.state = FauxState()
        self.models: list[Model] = [
            _default_model(m, self.api, provider)
            if isinstance(m, str)
            else m.model_copy(update={"api": self.api, "provider": provider})
            for m in models
        ]
        if not self.models:
            raise ValueError("a faux provider needs at least one model")
        self._queue: deque[FauxResponse] = deque()
        self._source_id = f"faux-source:{self.api}"
        self.contexts: list[Context] = []
        """Every context received, in order: what the caller actually sent."""

    # -- scripting -------------------------------------------------------------------------------

    def set_responses(self, responses: Iterable[FauxResponse]) -> None:
        """Replace whatever is still queued."""
        self._queue = deque(responses)

    def append_responses(self, responses: Iterable[FauxResponse]) -> None:
        self._queue.extend(responses)

    @property
    def pending_response_count(self) -> int:
        return len(self._queue)

    @property
    def call_count(self) -> int:
        return self.state.call_count

    @property
    def model(self) -> Model:
        return self.models[0]

    def get_model(self, model_id: str | None = None) -> Model:
        if model_id is None:
            return self.models[0]
        for model in self.models:
            if model.id == model_id:
                return model
        raise KeyError(f"faux provider {self.provider!r} has no model {model_id!r}")

    # -- registration ----------------------------------------------------------------------------

    def register(self) -> FauxProvider:
        register_api_provider(ApiProvider(api=self.api, stream=self.stream, stream_simple=self.stream), self._source_id)
        return self

    def unregister(self) -> None:
        unregister_api_providers(self._source_id)

    # -- streaming -------------------------------------------------------------------------------

    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        """The `StreamFunction` registered for this provider's api."""
        self.state.call_count += 1
        self.contexts.append(context)
        response = self._queue.popleft() if self._queue else None

        async def body(builder: OutputBuilder) -> None:
            await self._play(builder, response, context, options, model)

        return run_provider(model, options, body)

    async def _play(
        self,
        builder: OutputBuilder,
        response: FauxResponse | None,
        context: Context,
        options: StreamOptions,
        model: Model,
    ) -> None:
        if options.on_payload is not None:
            replaced = options.on_payload({"model": model.id, "context": context.to_json_dict()}, model)
            if inspect.isawaitable(replaced):
                await replaced
        if response is None:
            raise RuntimeError(NO_MORE_RESPONSES)
        if isinstance(response, AssistantMessage):
            message = response
        else:
            built = response(context, options, self.state, model)
            message = await built if inspect.isawaitable(built) else built
        output = builder.output
        output.usage.input = estimate_tokens(context_chars(context))
        builder.start()
        for block in message.content:
            await self._stream_block(builder, block)
        builder.end_block()
        output.usage.output = estimate_tokens(_content_chars(output.content))
        output.usage.total_tokens = output.usage.input + output.usage.output
        output.stop_reason = message.stop_reason
        if message.stop_reason == "aborted":
            # run_provider would report a scripted abort as an error; end it here as the script says.
            output.error_message = message.error_message or "Request was aborted"
            builder.finish_usage()
            builder.stream.push(ErrorEvent(reason="aborted", error=output))
            builder.output = output.model_copy()  # run_provider's own failure report lands on a detached copy
        elif message.stop_reason == "error":
            output.error_message = message.error_message or "An unknown error occurred"

    async def _stream_block(self, builder: OutputBuilder, block: AssistantContent) -> None:
        if isinstance(block, TextContent):
            builder.start_text()
            for chunk in self._chunks(block.text):
                builder.text_delta(chunk)
                await self._pause(chunk)
            if block.text_signature is not None and isinstance(builder.open_block, TextContent):
                builder.open_block.text_signature = block.text_signature
        elif isinstance(block, ThinkingContent):
            builder.start_thinking(block.thinking_signature, block.redacted)
            for chunk in self._chunks(block.thinking):
                builder.thinking_delta(chunk)
                await self._pause(chunk)
        else:
            call = builder.start_tool_call(block.id, block.name)
            call.thought_signature = block.thought_signature
            for chunk in self._chunks(json.dumps(block.arguments, ensure_ascii=False, default=str)):
                builder.tool_call_delta(chunk)
                await self._pause(chunk)
        builder.end_block()

    @staticmethod
    def _chunks(text: str) -> Iterable[str]:
        sizes = itertools.cycle(_CHUNK_TOKENS)
        pos = 0
        while pos < len(text):
            size = next(sizes) * CHARS_PER_TOKEN
            yield text[pos : pos + size]
            pos += size

    async def _pause(self, chunk: str) -> None:
        if self.tokens_per_second:
            await asyncio.sleep(estimate_tokens(len(chunk)) / self.tokens_per_second)
        else:
            await asyncio.sleep(0)


def register_faux_provider(
    *,
    api: str | None = None,
    provider: str = FAUX_PROVIDER,
    models: Sequence[str | Model] = (DEFAULT_FAUX_MODEL_ID,),
    tokens_per_second: float | None = None,
    responses: Iterable[FauxResponse] = (),
) -> FauxProvider:
    """Create and register a faux provider under a fresh api name; call `unregister()` when done."""
    faux = FauxProvider(api=api, provider=provider, models=models, tokens_per_second=tokens_per_second)
    faux.set_responses(responses)
    return faux.register()


__all__ = [
    "DEFAULT_FAUX_MODEL_ID",
    "FAUX_PROVIDER",
    "NO_MORE_RESPONSES",
    "FauxProvider",
    "FauxResponse",
    "FauxResponseFactory",
    "FauxState",
    "context_chars",
    "estimate_tokens",
    "faux_assistant_message",
    "faux_text",
    "faux_thinking",
    "faux_tool_call",
    "register_faux_provider",
]
