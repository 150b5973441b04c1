"""The agent loop: ask the model, run the tools it calls, repeat until it answers without calling any.

The loop is a pure function of a context and a config that yields events; it keeps no state between
runs. The `Agent` class holds the transcript and the queues around it, and the modes only render the
events. Because it is an async generator, the consumer's processing of each event finishes before the
loop goes on: a listener that persists a message to disk has done so before the next request.

Order of one run::

    agent_start, turn_start, (message_start, message_end) per prompt
    per turn: [turn_start after the first], queued messages, the assistant message
              (message_start, message_update*, message_end), the tool phase, turn_end
    agent_end

Steering messages are taken after each turn and sent before the next request; follow-up messages
are taken only when the model is done, and start a new turn. An error or abort ends the run after the
turn's `turn_end`. A failure while preparing a request (a hook, the key lookup, the stream function)
becomes an assistant message with stopReason "error", never an exception out of the iterator.

An abort during the tool phase still ends that turn normally (every call answered), and then, as pi
does, one more turn records the abort itself: an empty assistant message with stopReason "aborted".
The transcript so ends on the assistant's side, with the tools' results (their output so far) before it.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from typing import Literal

from msgspec.structs import replace

from pi.agent.config import AgentLoopConfig, AgentStreamFn, GetQueuedMessages
from pi.agent.context import AgentContext
from pi.agent.events import (
    AgentEndEvent,
    AgentEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi.agent.messages import AgentMessage, default_convert_to_llm
from pi.agent.tool_execution import LoopAborted, ToolPhase, error_text, race_abort, resolve
from pi.ai.abort import AbortSignal
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.events import AssistantMessageEvent, DoneEvent, ErrorEvent, TextEndEvent, ThinkingEndEvent
from pi.ai.options import StreamOptions
from pi.ai.stream import stream_simple
from pi.ai.types import (
    AssistantMessage,
    Context,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    now_ms,
)

REQUEST_ABORTED_TEXT = "This operation was aborted"
"""The error of a request never sent because the run was aborted first (pi's text for it)."""
STREAM_ABORTED_TEXT = "Request was aborted"
"""The error of a reply cut short by an abort while it streamed (pi's text for it)."""


def agent_loop(
    prompts: Sequence[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: AgentStreamFn | None = None,
) -> AsyncIterator[AgentEvent]:
    """Add `prompts` to a copy of the context and run until the model is done."""
    current = AgentContext(context.system_prompt, [*context.messages, *prompts], list(context.tools))
    return _prompted(list(prompts), current, config, signal, stream_fn)


def agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: AgentStreamFn | None = None,
) -> AsyncIterator[AgentEvent]:
    """Run from the context as it is (after an error, or with a user message already appended).

    Raises at once, before any event, if the context cannot be continued: it is empty, or it ends
    with an assistant message (the model would be asked to answer itself).
    """
    if not context.messages:
        raise ValueError("Cannot continue: no messages in context")
    role = getattr(context.messages[-1], "role", None)
    if role == "assistant":
        raise ValueError("Cannot continue from message role: assistant")
    current = AgentContext(context.system_prompt, list(context.messages), list(context.tools))
    return _continued(current, config, signal, stream_fn)


async def _prompted(
    prompts: list[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    stream_fn: AgentStreamFn | None,
) -> AsyncIterator[AgentEvent]:
    yield AgentStartEvent()
    yield TurnStartEvent()
    for prompt in prompts:
        yield MessageStartEvent(prompt)
        yield MessageEndEvent(prompt)
    async for event in _turns(context, list(prompts), config, signal, stream_fn):
        yield event


async def _continued(
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    stream_fn: AgentStreamFn | None,
) -> AsyncIterator[AgentEvent]:
    yield AgentStartEvent()
    yield TurnStartEvent()
    async for event in _turns(context, [], config, signal, stream_fn):
        yield event


async def _poll(source: GetQueuedMessages | None) -> list[AgentMessage]:
    if source is None:
        return []
    return list(await resolve(source()))


def _aborted(signal: AbortSignal | None) -> bool:
    return signal is not None and signal.aborted


async def _turns(
    context: AgentContext,
    new_messages: list[AgentMessage],
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    stream_fn: AgentStreamFn | None,
) -> AsyncIterator[AgentEvent]:
    first_turn = True
    pending = await _poll(config.get_steering_messages)
    while True:
        more_tool_calls = True
        while more_tool_calls or pending:
            if first_turn:
                first_turn = False
            else:
                yield TurnStartEvent()
            for message in pending:
                yield MessageStartEvent(message)
                yield MessageEndEvent(message)
                context.messages.append(message)
                new_messages.append(message)
            pending = []

            if config.get_tools is not None:
                context.tools = list(config.get_tools())
            request = _Request(context, config, signal, stream_fn)
            async for event in request.run():
                yield event
            reply = request.message
            assert reply is not None
            context.messages.append(reply)
            new_messages.append(reply)
            if reply.stop_reason in ("error", "aborted"):
                yield TurnEndEvent(reply, [])
                yield AgentEndEvent(new_messages)
                return

            calls = [block for block in reply.content if isinstance(block, ToolCall)]
            more_tool_calls = bool(calls)
            results: list[ToolResultMessage] = []
            stop = False
            if calls:
                phase = ToolPhase(context, reply, calls, config, signal)
                async for event in phase.run():
                    yield event
                results = phase.batch.results
                context.messages.extend(results)
                new_messages.extend(results)
                stop = phase.batch.terminate
            yield TurnEndEvent(reply, results)
            if stop:
                yield AgentEndEvent(new_messages)
                return
            pending = await _poll(config.get_steering_messages)

        pending = await _poll(config.get_follow_up_messages)
        if not pending:
            break
    yield AgentEndEvent(new_messages)


def failure_message(model: Model, reason: Literal["error", "aborted"], text: str) -> AssistantMessage:
    """The assistant message that stands for a request that never produced one."""
    return AssistantMessage(
        content=[],
        api=model.api,
        provider=model.provider,
        model=model.id,
        stop_reason=reason,
        error_message=text,
    )


_DEFAULT_OPTIONS = StreamOptions()


def _overlay(base: StreamOptions, top: StreamOptions) -> StreamOptions:
    """`base` with every field `top` sets (differs from the default) taken from `top`; extras merged."""
    changes: dict[str, object] = {}
    for name in StreamOptions.__struct_fields__:
        value = getattr(top, name)
        if name == "extra":
            if value:
                changes["extra"] = {**base.extra, **value}
        elif value != getattr(_DEFAULT_OPTIONS, name):
            changes[name] = value
    return replace(base, **changes) if changes else base


_UNKNOWN_AT_OPENING: dict[str, object] = {
    "stop_reason": "pending",
    "response_id": None,
    "response_model": None,
    "raw_stop_reason": None,
    "error_message": None,
    "diagnostics": None,
    "deferred": None,
    "end_turn": None,
    "duration_ms": None,
}
"""What only the response itself tells (read after the opening), as the opening shows it."""


def _opening_snapshot(partial: AssistantMessage, at_start: bool) -> AssistantMessage:
    """The reply as `message_start` shows it: as it was when it opened, with stop reason "pending".

    The provider builds its partial in its own task and may have read well past the opening (every
    chunk of a buffered response) before the loop sees the `start` event, so the live object can
    already hold the whole reply. A reply opens empty, by the stream's grammar: the snapshot gets its
    own empty content and zero usage, none of what the response told after its first frame (its id,
    the answering model, the raw stop reason), and later deltas cannot reach it however late it is
    serialized. A stream that skips `start` gets a deep copy of what it has built so far, taken once
    per reply.
    """
    if at_start:
        return partial.model_copy(update={**_UNKNOWN_AT_OPENING, "content": [], "usage": Usage()})
    snapshot = partial.model_copy(deep=True)
    snapshot.stop_reason = "pending"
    return snapshot


def _aborted_copy(partial: AssistantMessage) -> AssistantMessage:
    """The reply as far as it got; unfinished tool calls are dropped since none of them will run."""
    content = [block for block in partial.content if not isinstance(block, ToolCall)]
    return partial.model_copy(
        update={"content": content, "stop_reason": "aborted", "error_message": STREAM_ABORTED_TEXT}
    )


def _closing_event(event: AssistantMessageEvent, partial: AssistantMessage) -> AssistantMessageEvent | None:
    """The end event of the text or reasoning block `event` left open, for a reply cut by an abort.

    A client that assembles replies from the deltas then sees every block it was shown open closed,
    with its text so far, as a finished stream would have closed it.
    """
    index = getattr(event, "content_index", None)
    if event.type not in ("text_start", "text_delta", "thinking_start", "thinking_delta") or index is None:
        return None
    if index >= len(partial.content):
        return None
    block = partial.content[index]
    if isinstance(block, TextContent):
        return TextEndEvent(index, block.text, partial)
    if isinstance(block, ThinkingContent):
        return ThinkingEndEvent(index, block.thinking, partial)
    return None


class _Request:
    """One model request of a turn: build the LLM context, stream the reply, report it as events."""

    __slots__ = ("config", "context", "message", "signal", "stream_fn")

    def __init__(
        self,
        context: AgentContext,
        config: AgentLoopConfig,
        signal: AbortSignal | None,
        stream_fn: AgentStreamFn | None,
    ) -> None:
        self.context = context
        self.config = config
        self.signal = signal
        self.stream_fn = stream_fn
        self.message: AssistantMessage | None = None

    async def run(self) -> AsyncIterator[AgentEvent]:
        model = self.config.model
        started, started_wall = time.monotonic(), now_ms()
        try:
            response = await self._open()
        except LoopAborted:
            self.message = failure_message(model, "aborted", REQUEST_ABORTED_TEXT)
        except Exception as exc:
            self.message = failure_message(model, "error", error_text(exc))
        else:
            async for event in self._stream(response, started, started_wall):
                yield event
            return
        self._stamp(self.message, started, started_wall)
        yield MessageStartEvent(self.message)
        yield MessageEndEvent(self.message)

    def _stamp(self, message: AssistantMessage, started: float, started_wall: int) -> None:
        """Record on the reply the thinking level it was asked with and how long it took, as pi does.

        Both are left as the stream function set them (a router that picked another level knows it
        better); the duration is also not set on a message older than the request (a replayed one).
        """
        if message.thinking_level is None:
            message.thinking_level = self.config.reasoning or "off"
        if message.duration_ms is None and message.timestamp >= started_wall:
            message.duration_ms = max(0, round((time.monotonic() - started) * 1000))

    async def _open(self) -> AssistantMessageEventStream:
        config, signal = self.config, self.signal
        if _aborted(signal):
            raise LoopAborted
        messages = self.context.messages
        if config.transform_context is not None:
            messages = await race_abort(config.transform_context(list(messages), signal), signal)
        convert = config.convert_to_llm or default_convert_to_llm
        llm_messages = await race_abort(convert(list(messages)), signal)
        tools = [tool.to_tool() for tool in self.context.tools]
        llm_context = Context.model_construct(
            system_prompt=self.context.system_prompt or None,
            messages=list(llm_messages),
            tools=tools or None,
        )
        api_key: str | None = None
        if config.get_api_key is not None:
            api_key = await race_abort(config.get_api_key(config.model.provider), signal)
        per_request: StreamOptions | None = None
        if config.get_stream_options is not None:
            per_request = await race_abort(config.get_stream_options(config.model), signal)
        options = self._options(api_key or config.api_key, per_request)
        stream_fn: AgentStreamFn = self.stream_fn or stream_simple
        return await race_abort(stream_fn(config.model, llm_context, options), signal)

    def _options(self, api_key: str | None, per_request: StreamOptions | None) -> StreamOptions:
        """Static options, overlaid by this request's (headers, key), then the run's own settings."""
        config = self.config
        base = config.stream_options or StreamOptions()
        if per_request is not None:
            base = _overlay(base, per_request)
        return replace(
            base,
            signal=self.signal,
            api_key=api_key or base.api_key,
            reasoning=config.reasoning,
            session_id=config.session_id or base.session_id,
            on_payload=config.on_payload or base.on_payload,
            thinking_budgets=config.thinking_budgets or base.thinking_budgets,
            max_retry_delay_ms=(
                config.max_retry_delay_ms if config.max_retry_delay_ms is not None else base.max_retry_delay_ms
            ),
        )

    async def _stream(
        self, response: AssistantMessageEventStream, started: float, started_wall: int
    ) -> AsyncIterator[AgentEvent]:
        signal = self.signal
        # On abort, stop reading at once: the provider may take a moment to notice, the run must not.
        remove = signal.add_listener(response.end) if signal is not None else None
        partial: AssistantMessage | None = None
        final: AssistantMessage | None = None
        last: AssistantMessageEvent | None = None
        try:
            async for event in response:
                if isinstance(event, DoneEvent):
                    final = event.message
                    break
                if isinstance(event, ErrorEvent):
                    final = event.error
                    if final.stop_reason == "aborted":
                        final = _aborted_copy(final)
                    break
                if partial is None:
                    partial = event.partial
                    yield MessageStartEvent(_opening_snapshot(partial, event.type == "start"))
                    if event.type == "start":
                        continue
                last = event
                yield MessageUpdateEvent(event.partial, event)
        except Exception as exc:
            base = partial or failure_message(self.config.model, "error", "")
            final = base.model_copy(update={"stop_reason": "error", "error_message": error_text(exc)})
        finally:
            if remove is not None:
                remove()
        if final is None:
            if _aborted(signal):
                final = _aborted_copy(partial) if partial is not None else None
                final = final or failure_message(self.config.model, "aborted", STREAM_ABORTED_TEXT)
            else:
                final = failure_message(self.config.model, "error", "The model's reply ended without a result")
                if partial is not None:
                    final = partial.model_copy(update={"stop_reason": "error", "error_message": final.error_message})
        self._stamp(final, started, started_wall)
        if final.stop_reason == "aborted" and partial is not None and last is not None:
            closing = _closing_event(last, partial)
            if closing is not None:
                yield MessageUpdateEvent(partial, closing)
        if partial is None:
            yield MessageStartEvent(final)
        self.message = final
        yield MessageEndEvent(final)


__all__ = ["REQUEST_ABORTED_TEXT", "STREAM_ABORTED_TEXT", "agent_loop", "agent_loop_continue", "failure_message"]
