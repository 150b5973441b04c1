"""Reading a Responses event stream into an assistant message.

The OpenAI Responses API and its dialects (Codex, Azure, Copilot) stream the same typed events
(``response.output_item.added``, text and argument deltas, ``response.completed``...), whether they
arrive as SSE frames or as WebSocket messages. This module turns those events into the builder's
blocks, usage and stop reason; how the events are fetched is the transports' business.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from pi.ai.http import Response, iter_sse, parse_json_data, stream_cut_short
from pi.ai.providers.grammar_tools import GrammarInputStream
from pi.ai.providers.openai_responses_messages import encode_text_signature
from pi.ai.providers.output import OutputBuilder
from pi.ai.types import StopReason, TextContent, ThinkingContent, ToolCall

SERVICE_TIER_COST_MULTIPLIERS: dict[str, float] = {"flex": 0.5, "priority": 2.0}


def map_response_status(status: str | None) -> StopReason:
    if status in (None, "completed", "queued", "in_progress"):
        return "stop"
    if status == "incomplete":
        return "length"
    if status in ("failed", "cancelled"):
        return "error"
    raise ValueError(f"Unhandled stop reason: {status}")


def failure_message(response: dict[str, Any]) -> str:
    """Why a ``response.failed`` event failed, in pi's wording."""
    error = response.get("error")
    if isinstance(error, dict) and error:
        return f"{error.get('code') or 'unknown'}: {error.get('message') or 'no message'}"
    details = response.get("incomplete_details")
    if isinstance(details, dict) and details.get("reason"):
        return f"incomplete: {details['reason']}"
    return "Unknown error (no error details in response)"


def apply_service_tier_pricing(builder: OutputBuilder, tier: str | None) -> None:
    """Flex and priority processing are billed at a multiple of the list price.

    The builder prices the reply from its model when the stream ends, so it is handed a copy of
    the model whose prices carry the multiplier.
    """
    factor = SERVICE_TIER_COST_MULTIPLIERS.get(tier or "")
    if factor is None:
        return
    price = builder.model.cost
    scaled = price.model_copy(
        update={
            "input": price.input * factor,
            "output": price.output * factor,
            "cache_read": price.cache_read * factor,
            "cache_write": price.cache_write * factor,
        }
    )
    builder.model = builder.model.model_copy(update={"cost": scaled})


async def iter_response_events(response: Response) -> AsyncIterator[dict[str, Any]]:
    """Each SSE frame's JSON object; the ``type`` field names the event (the SSE name is a fallback)."""
    async for frame in iter_sse(response):
        data = frame.data.strip()
        if not data or data == "[DONE]":
            continue
        event = parse_json_data(data)
        if not isinstance(event, dict):
            raise ValueError(f"Malformed stream frame from the server (not a JSON object): {data[:200]}")
        event.setdefault("type", frame.event)
        yield event


class ResponsesStreamReader:
    """Turns Responses stream events into the builder's blocks, usage and stop reason."""

    def __init__(
        self, builder: OutputBuilder, service_tier: str | None = None, grammar_inputs: Mapping[str, str] | None = None
    ) -> None:
        self.builder = builder
        self.service_tier = service_tier
        self.grammar_inputs: Mapping[str, str] = grammar_inputs or {}
        """Grammar tool name -> the argument its raw ``custom_tool_call`` input fills (else ``input``)."""
        self._custom: GrammarInputStream | None = None
        """The raw input of the custom tool call being streamed."""
        self.finished = False
        """Set by the terminal ``response.*`` event; a stream that ends without one was cut short."""

    async def read(self, events: AsyncIterator[dict[str, Any]]) -> None:
        async for event in events:
            self.handle(event)
            if self.finished:
                return
        if not self.finished:
            model = self.builder.model
            raise stream_cut_short(
                model.provider,
                model.id,
                "response.completed",
                "OpenAI Responses stream ended before a terminal response event",
            )

    def handle(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        builder = self.builder
        open_block = builder.open_block
        if kind == "response.created":
            self._note_response_id(event.get("response"))
        elif kind == "response.output_item.added":
            self._item_added(event.get("item") or {})
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            if isinstance(open_block, ThinkingContent):
                builder.thinking_delta(str(event.get("delta") or ""))
        elif kind == "response.reasoning_summary_part.done":
            if isinstance(open_block, ThinkingContent):
                builder.thinking_delta("\n\n")
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            delta = str(event.get("delta") or "")
            if delta:
                builder.text_delta(delta)
        elif kind == "response.function_call_arguments.delta":
            if isinstance(open_block, ToolCall):
                builder.tool_call_delta(str(event.get("delta") or ""))
        elif kind == "response.function_call_arguments.done":
            if isinstance(open_block, ToolCall) and isinstance(event.get("arguments"), str):
                builder.replace_tool_arguments(event["arguments"])
        elif kind == "response.custom_tool_call_input.delta":
            if self._custom is not None and isinstance(open_block, ToolCall):
                self._custom_piece(self._custom.append(str(event.get("delta") or "")))
        elif kind == "response.custom_tool_call_input.done":
            if self._custom is not None and isinstance(open_block, ToolCall):
                final = event.get("input")
                self._custom_piece(self._custom.close(final if isinstance(final, str) else None))
        elif kind == "response.output_item.done":
            self._item_done(event.get("item") or {})
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self._finish(kind, event.get("response") or {})
        elif kind == "error":
            nested = event.get("error")
            error: dict[str, Any] = nested if isinstance(nested, dict) else event
            code = error.get("code") or "unknown"
            raise RuntimeError(f"Error Code {code}: {error.get('message') or 'no message'}")

    def _item_added(self, item: dict[str, Any]) -> None:
        builder = self.builder
        kind = item.get("type")
        self._custom = None
        if kind == "reasoning":
            builder.start_thinking()
        elif kind == "message":
            builder.start_text()
        elif kind == "function_call":
            raw = item.get("arguments") if isinstance(item.get("arguments"), str) else ""
            builder.start_tool_call(f"{item.get('call_id')}|{item.get('id')}", str(item.get("name") or ""))
            if raw:
                builder.replace_tool_arguments(raw)
        elif kind == "custom_tool_call":
            name = str(item.get("name") or "")
            custom = GrammarInputStream(self.grammar_inputs.get(name, "input"))
            initial = item.get("input") if isinstance(item.get("input"), str) else ""
            piece = custom.append(str(initial))
            builder.start_tool_call(f"{item.get('call_id')}|{item.get('id')}", name, custom.arguments)
            self._custom = custom
            self._custom_piece(piece)

    def _custom_piece(self, piece: str | None) -> None:
        """Show the custom call's input so far as its arguments, and its new JSON text as a delta."""
        custom = self._custom
        if custom is not None and piece is not None:
            self.builder.tool_call_known_delta(piece, custom.arguments)

    def _custom_done(self, item: dict[str, Any]) -> None:
        builder = self.builder
        block = builder.open_block
        custom = self._custom
        if not isinstance(block, ToolCall) or custom is None:
            name = str(item.get("name") or "")
            custom = GrammarInputStream(self.grammar_inputs.get(name, "input"))
            block = builder.start_tool_call(f"{item.get('call_id')}|{item.get('id')}", name, custom.arguments)
            self._custom = custom
        final = item.get("input")
        self._custom_piece(custom.close(final if isinstance(final, str) else None))
        block.arguments = custom.arguments
        self._custom = None
        builder.end_block()

    def _item_done(self, item: dict[str, Any]) -> None:
        builder = self.builder
        block = builder.open_block
        kind = item.get("type")
        if kind == "reasoning":
            if not isinstance(block, ThinkingContent):
                block = builder.start_thinking()
            summary = item.get("summary") or []
            texts = [str(part.get("text") or "") for part in summary if isinstance(part, dict)]
            if not texts:
                content = item.get("content") or []
                texts = [str(part.get("text") or "") for part in content if isinstance(part, dict)]
            block.thinking = "\n\n".join(texts)
            block.thinking_signature = json.dumps(item, separators=(",", ":"), ensure_ascii=False)
            builder.end_block()
        elif kind == "message":
            if not isinstance(block, TextContent):
                block = builder.start_text()
            parts = [part for part in item.get("content") or [] if isinstance(part, dict)]
            if parts:
                block.text = "".join(
                    str(part.get("text") or "") if part.get("type") == "output_text" else str(part.get("refusal") or "")
                    for part in parts
                )
            block.text_signature = encode_text_signature(str(item.get("id") or ""), item.get("phase"))
            builder.end_block()
        elif kind == "function_call":
            call_id = f"{item.get('call_id')}|{item.get('id')}"
            name = str(item.get("name") or "")
            if not isinstance(block, ToolCall):
                block = builder.start_tool_call(call_id, name)
            block.id = call_id
            block.name = name or block.name
            raw = item.get("arguments")
            if isinstance(raw, str) and raw.strip():
                builder.replace_tool_arguments(raw)
            builder.end_block()
        elif kind == "custom_tool_call":
            self._custom_done(item)

    def _note_response_id(self, response: Any) -> None:
        """The response's id, known from ``response.created`` on; it names the reply for a later request."""
        if isinstance(response, dict) and isinstance(response.get("id"), str) and response["id"]:
            self.builder.output.response_id = response["id"]

    def _finish(self, kind: str, response: dict[str, Any]) -> None:
        builder = self.builder
        output = builder.output
        self._note_response_id(response)
        usage = response.get("usage")
        if isinstance(usage, dict):
            details = usage.get("input_tokens_details") or {}
            cached = int(details.get("cached_tokens") or 0)
            cache_write = int(details.get("cache_write_tokens") or 0)
            output_details = usage.get("output_tokens_details") or {}
            output.usage.input = max(0, int(usage.get("input_tokens") or 0) - cached - cache_write)
            output.usage.cache_read = cached
            output.usage.output = int(usage.get("output_tokens") or 0)
            output.usage.cache_write = cache_write
            output.usage.reasoning = int(output_details.get("reasoning_tokens") or 0)
            output.usage.total_tokens = int(usage.get("total_tokens") or 0)
        apply_service_tier_pricing(builder, response.get("service_tier") or self.service_tier)
        self.finished = True
        status = response.get("status")
        incomplete = response.get("incomplete_details")
        reason = incomplete.get("reason") if isinstance(incomplete, dict) else None
        if isinstance(status, str) and status:
            # As pi records it: the status, and for an incomplete reply why ("incomplete.max_output_tokens").
            output.raw_stop_reason = f"{status}.{reason}" if isinstance(reason, str) and reason else status
        if isinstance(response.get("end_turn"), bool):
            output.end_turn = response["end_turn"]  # Codex: whether the model meant to end its turn here
        if kind == "response.failed":
            builder.end_block()
            raise RuntimeError(failure_message(response))
        if status is None:
            status = "incomplete" if kind == "response.incomplete" else "completed"
        builder.end_block()
        if status == "incomplete" and reason != "max_output_tokens":
            # Cut for another reason (a content filter, ...): not a reply that merely ran out of room,
            # so not one to continue or compact for. pi's wording.
            raise RuntimeError(
                f"Response incomplete: {reason}"
                if isinstance(reason, str) and reason
                else "Response incomplete without a provider reason"
            )
        stop = map_response_status(status)
        if stop == "stop" and any(isinstance(block, ToolCall) for block in output.content):
            stop = "toolUse"
        output.stop_reason = stop


__all__ = [
    "SERVICE_TIER_COST_MULTIPLIERS",
    "ResponsesStreamReader",
    "apply_service_tier_pricing",
    "failure_message",
    "iter_response_events",
    "map_response_status",
]
