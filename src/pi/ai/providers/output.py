"""Building one assistant reply from wire events, and driving a provider's request to one terminal event.

Every wire API differs in how it frames text, thinking and tool calls, but all of them must emit
the same grammar (``start, (X_start, X_delta*, X_end)*, done|error``) over one mutable partial
message. `OutputBuilder` owns that grammar so a provider module only translates its wire events
into calls like `text_delta` or `tool_call_delta`; `run_provider` owns the terminal handling (abort,
errors, cost) so that failures are always events and never exceptions out of the iterator.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from pi.ai.abort import AbortSignal
from pi.ai.cost import calculate_cost
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.events import (
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from pi.ai.json_parse import parse_partial_json, parse_tool_call_arguments
from pi.ai.options import StreamOptions
from pi.ai.types import AssistantMessage, Model, TextContent, ThinkingContent, ToolCall

ABORTED_MESSAGE = "Request was aborted"


class OutputBuilder:
    """The partial reply plus the block currently open; one block is open at a time."""

    def __init__(self, model: Model, stream: AssistantMessageEventStream) -> None:
        self.model = model
        self.stream = stream
        self.output = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        self.started = False
        self._open: TextContent | ThinkingContent | ToolCall | None = None
        self._tool_json = ""

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> None:
        if not self.started:
            self.started = True
            self.stream.push(StartEvent(partial=self.output))

    @property
    def index(self) -> int:
        return len(self.output.content) - 1

    @property
    def open_block(self) -> TextContent | ThinkingContent | ToolCall | None:
        return self._open

    def end_block(self) -> None:
        """Close the open block, emitting its end event."""
        block = self._open
        if block is None:
            return
        self._open = None
        partial = self.output
        if isinstance(block, TextContent):
            self.stream.push(TextEndEvent(content_index=self.index, content=block.text, partial=partial))
        elif isinstance(block, ThinkingContent):
            self.stream.push(ThinkingEndEvent(content_index=self.index, content=block.thinking, partial=partial))
        else:
            if self._tool_json.strip():
                block.arguments, block.arguments_error = parse_tool_call_arguments(self._tool_json)
            self._tool_json = ""
            self.stream.push(ToolCallEndEvent(content_index=self.index, tool_call=block, partial=partial))

    # -- text ------------------------------------------------------------------------------------

    def text_delta(self, delta: str, signature: str | None = None) -> None:
        block = self._open
        if not isinstance(block, TextContent):
            block = self.start_text()
        block.text += delta
        if signature is not None:
            block.text_signature = signature
        self.stream.push(TextDeltaEvent(content_index=self.index, delta=delta, partial=self.output))

    def start_text(self) -> TextContent:
        self.start()
        self.end_block()
        block = TextContent(text="")
        self.output.content.append(block)
        self._open = block
        self.stream.push(TextStartEvent(content_index=self.index, partial=self.output))
        return block

    # -- thinking --------------------------------------------------------------------------------

    def start_thinking(self, signature: str | None = None, redacted: bool | None = None) -> ThinkingContent:
        self.start()
        self.end_block()
        block = ThinkingContent(thinking="", thinking_signature=signature, redacted=redacted)
        self.output.content.append(block)
        self._open = block
        self.stream.push(ThinkingStartEvent(content_index=self.index, partial=self.output))
        return block

    def thinking_delta(self, delta: str, signature_field: str | None = None) -> None:
        """Append thinking text; `signature_field` starts a new block when it differs from the open one's."""
        block = self._open
        if not isinstance(block, ThinkingContent):
            block = self.start_thinking(signature_field)
        block.thinking += delta
        self.stream.push(ThinkingDeltaEvent(content_index=self.index, delta=delta, partial=self.output))

    def append_thinking_signature(self, signature: str) -> None:
        """Anthropic sends the signature in pieces after the text; no event is emitted for it."""
        block = self._open
        if isinstance(block, ThinkingContent):
            block.thinking_signature = (block.thinking_signature or "") + signature

    # -- tool calls ------------------------------------------------------------------------------

    def start_tool_call(self, tool_call_id: str, name: str, arguments: dict[str, Any] | None = None) -> ToolCall:
        self.start()
        self.end_block()
        block = ToolCall(id=tool_call_id, name=name, arguments=dict(arguments or {}))
        self.output.content.append(block)
        self._open = block
        self._tool_json = ""
        self.stream.push(ToolCallStartEvent(content_index=self.index, partial=self.output))
        return block

    def tool_call_delta(self, fragment: str) -> None:
        """Append raw argument JSON; `arguments` is re-read after every fragment, so it grows as text arrives.

        A prefix that does not read as an object (the model wrote something that is not JSON) leaves
        the last readable arguments in place; the final text is parsed in full when the block ends.
        """
        block = self._open
        if not isinstance(block, ToolCall):
            raise ValueError("tool-call arguments arrived with no tool call open")
        self._tool_json += fragment
        if fragment:
            parsed = parse_partial_json(self._tool_json)
            if parsed is not None:
                block.arguments = parsed
        self.stream.push(ToolCallDeltaEvent(content_index=self.index, delta=fragment, partial=self.output))

    def tool_call_known_delta(self, fragment: str, arguments: dict[str, Any]) -> None:
        """Report `fragment` of argument JSON whose parsed `arguments` the caller already has.

        For inputs that arrive as raw text and are turned into JSON by the provider: nothing is
        re-parsed, so a long input costs time in proportion to its length.
        """
        block = self._open
        if not isinstance(block, ToolCall):
            raise ValueError("tool-call arguments arrived with no tool call open")
        block.arguments = arguments
        self.stream.push(ToolCallDeltaEvent(content_index=self.index, delta=fragment, partial=self.output))

    def replace_tool_arguments(self, raw_json: str) -> None:
        """Some APIs send the complete arguments at the end; they replace what streamed."""
        self._tool_json = raw_json

    def finish_usage(self) -> None:
        calculate_cost(self.model, self.output.usage)


def _error_text(exc: BaseException) -> str:
    text = str(exc)
    if text:
        return text
    if exc.args:
        return json.dumps(exc.args[0], default=str)
    return type(exc).__name__


def run_provider(
    model: Model,
    options: StreamOptions,
    body: Callable[[OutputBuilder], Awaitable[None]],
    *,
    builder_type: type[OutputBuilder] = OutputBuilder,
) -> AssistantMessageEventStream:
    """Start `body` as a task that fills an OutputBuilder; return the stream it feeds.

    `body` sets ``output.stop_reason`` and usage; it may raise to report failure. Abort cancels the
    task at once (closing the HTTP response through the provider's ``async with``) and ends the
    stream with stopReason "aborted". `builder_type` lets an API whose server bills the reply keep
    that cost instead of the catalog estimate (it overrides `finish_usage`).
    """
    stream = AssistantMessageEventStream()
    builder = builder_type(model, stream)
    signal = options.signal
    stream.task = asyncio.get_running_loop().create_task(_drive(builder, body, signal))
    return stream


async def _drive(
    builder: OutputBuilder,
    body: Callable[[OutputBuilder], Awaitable[None]],
    signal: AbortSignal | None,
) -> None:
    task = asyncio.current_task()
    remove = signal.add_listener(lambda: _cancel(task)) if signal is not None and task is not None else None
    output = builder.output
    try:
        if signal is not None and signal.aborted:
            raise asyncio.CancelledError
        await body(builder)
        if signal is not None and signal.aborted:
            raise asyncio.CancelledError
        if output.stop_reason in ("error", "aborted"):
            raise RuntimeError(output.error_message or "An unknown error occurred")
        builder.end_block()
        builder.finish_usage()
        stop = output.stop_reason
        assert stop in ("stop", "length", "toolUse")
        builder.stream.push(DoneEvent(reason=stop, message=output))
    except asyncio.CancelledError:
        if signal is None or not signal.aborted:
            _fail(builder, "error", "Request was cancelled")
            raise
        _fail(builder, "aborted", ABORTED_MESSAGE)
    except Exception as exc:
        aborted = signal is not None and signal.aborted
        _fail(builder, "aborted" if aborted else "error", ABORTED_MESSAGE if aborted else _error_text(exc))
    finally:
        if remove is not None:
            remove()
        builder.stream.end()


def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()


def _fail(builder: OutputBuilder, reason: Literal["error", "aborted"], message: str) -> None:
    output = builder.output
    output.stop_reason = reason
    output.error_message = message
    builder.finish_usage()
    builder.stream.push(ErrorEvent(reason=reason, error=output))


__all__ = ["ABORTED_MESSAGE", "OutputBuilder", "run_provider"]
