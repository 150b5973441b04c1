"""Reading an Anthropic Messages event stream into one assistant reply.

Events arrive as ``message_start``, content blocks (``content_block_start``, ``_delta``, ``_stop``),
``message_delta`` with the stop reason and usage, and ``message_stop``, which alone marks the reply
as whole. Anthropic-compatible servers differ in small ways (a tool call's whole input at block
start, extra event types), so the reader is lenient about those and strict about the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi.ai.http import (
    Response,
    TransportError,
    connection_lost,
    finish_stream,
    iter_sse,
    parse_json_data,
    stream_cut_short,
)
from pi.ai.providers.claude_code_names import from_claude_code_name
from pi.ai.providers.output import OutputBuilder
from pi.ai.types import (
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    Usage,
)

REDACTED_THINKING_TEXT = "[Reasoning redacted]"

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "pause_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "toolUse",
    "refusal": "error",
    "sensitive": "error",
}


def _set_usage(usage: Usage, wire: dict[str, Any], *, reset: bool) -> None:
    """message_start gives the first counts; message_delta may update any of them.

    Besides the four counts, the one-hour part of the cache writes (``cache_creation``, which
    costs more) and the thinking tokens (``output_tokens_details``, already part of the output)
    are kept when the server breaks them out; message_start always sets the former, as pi does.
    """
    fields = (
        ("input", "input_tokens"),
        ("output", "output_tokens"),
        ("cache_read", "cache_read_input_tokens"),
        ("cache_write", "cache_creation_input_tokens"),
    )
    for attr, key in fields:
        value = wire.get(key)
        if isinstance(value, int):
            setattr(usage, attr, value)
        elif reset:
            setattr(usage, attr, 0)
    creation = wire.get("cache_creation")
    long_write = creation.get("ephemeral_1h_input_tokens") if isinstance(creation, dict) else None
    if isinstance(long_write, int):
        usage.cache_write_1h = long_write
    elif reset:
        usage.cache_write_1h = 0
    details = wire.get("output_tokens_details")
    thinking = details.get("thinking_tokens") if isinstance(details, dict) else None
    if isinstance(thinking, int):
        usage.reasoning = thinking
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write


def _stream_error_text(data: dict[str, Any]) -> str:
    error = data.get("error")
    if isinstance(error, dict):
        kind = error.get("type") or "error"
        message = error.get("message") or "no details given"
        return f"{kind}: {message}"
    return f"error: {error or data}"


class StreamReader:
    """Turns Anthropic stream events into OutputBuilder calls.

    Anthropic numbers blocks with its own ``index``; the builder's content index can differ (for
    example when a block type is skipped), so blocks are tracked by Anthropic's index.
    """

    def __init__(self, builder: OutputBuilder, model: Model, tools: Sequence[Tool] | None, oauth: bool) -> None:
        self.builder = builder
        self.model = model
        self.tools = tools
        self.oauth = oauth
        self.blocks: dict[int, TextContent | ThinkingContent | ToolCall] = {}
        self.stop_reason: str | None = None

    def handle(self, kind: str, data: dict[str, Any]) -> None:
        builder = self.builder
        usage = builder.output.usage
        if kind == "message_start":
            message = data.get("message") or {}
            output = builder.output
            if isinstance(message.get("id"), str) and message["id"]:
                output.response_id = message["id"]
            served = message.get("model")
            if isinstance(served, str) and served and served != self.model.id:
                output.response_model = served  # a fallback model answered
            _set_usage(usage, message.get("usage") or {}, reset=True)
        elif kind == "content_block_start":
            self._block_start(int(data.get("index", 0)), data.get("content_block") or {})
        elif kind == "content_block_delta":
            self._block_delta(int(data.get("index", 0)), data.get("delta") or {})
        elif kind == "content_block_stop":
            block = self.blocks.pop(int(data.get("index", 0)), None)
            if block is not None and block is builder.open_block:
                builder.end_block()
        elif kind == "message_delta":
            reason = (data.get("delta") or {}).get("stop_reason")
            if reason:
                self._set_stop_reason(reason)
            _set_usage(usage, data.get("usage") or {}, reset=False)
        elif kind == "error":
            raise RuntimeError(_stream_error_text(data))

    def _block_start(self, index: int, block: dict[str, Any]) -> None:
        builder = self.builder
        kind = block.get("type")
        if kind == "text":
            self.blocks[index] = builder.start_text()
            if block.get("text"):
                builder.text_delta(block["text"])
        elif kind == "thinking":
            thinking = builder.start_thinking(block.get("signature") or None)
            self.blocks[index] = thinking
            if block.get("thinking"):
                builder.thinking_delta(block["thinking"])
        elif kind == "redacted_thinking":
            self.blocks[index] = builder.start_thinking(block.get("data") or "", redacted=True)
            builder.thinking_delta(REDACTED_THINKING_TEXT)
        elif kind == "tool_use":
            name = str(block.get("name", ""))
            if self.oauth:
                name = from_claude_code_name(name, self.tools)
            arguments = block.get("input")
            self.blocks[index] = builder.start_tool_call(
                str(block.get("id", "")), name, arguments if isinstance(arguments, dict) else None
            )

    def _block_delta(self, index: int, delta: dict[str, Any]) -> None:
        builder = self.builder
        block = self.blocks.get(index)
        if block is None or block is not builder.open_block:
            return
        kind = delta.get("type")
        if kind == "text_delta" and isinstance(block, TextContent):
            builder.text_delta(str(delta.get("text", "")))
        elif kind == "thinking_delta" and isinstance(block, ThinkingContent):
            builder.thinking_delta(str(delta.get("thinking", "")))
        elif kind == "signature_delta" and isinstance(block, ThinkingContent):
            builder.append_thinking_signature(str(delta.get("signature", "")))
        elif kind == "input_json_delta" and isinstance(block, ToolCall):
            builder.tool_call_delta(str(delta.get("partial_json", "")))

    def _set_stop_reason(self, reason: str) -> None:
        mapped = _STOP_REASONS.get(reason)
        if mapped is None:
            raise ValueError(f"Unhandled stop reason: {reason}")
        self.stop_reason = reason
        output = self.builder.output
        output.raw_stop_reason = reason
        output.stop_reason = mapped
        if mapped == "error":
            output.error_message = (
                "An unknown error occurred\n"
                f'{self.model.provider} ended the reply of {self.model.id} with stop reason "{reason}" '
                "(it declined to continue); rephrase the request or switch models."
            )


async def read_stream(response: Response, reader: StreamReader, model: Model) -> None:
    """Read events up to ``message_stop``, which alone says the reply is whole; then the end of the body."""
    stopped = False
    try:
        events = iter_sse(response)
        async for event in events:
            data = parse_json_data(event.data)
            if not isinstance(data, dict):
                raise ValueError(f"Malformed stream frame from the server (not an object): {event.data[:200]}")
            kind = data.get("type") or event.event
            reader.handle(str(kind), data)
            if kind == "message_stop":
                stopped = True
                await finish_stream(events)
                break
    except TransportError as exc:
        raise connection_lost(model.provider, model.id, exc) from exc
    if not stopped:
        raise stream_cut_short(model.provider, model.id, "message_stop", "Anthropic stream ended before message_stop")


__all__ = ["REDACTED_THINKING_TEXT", "StreamReader", "read_stream"]
