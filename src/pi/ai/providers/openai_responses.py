"""The OpenAI Responses wire API: ``POST {base_url}/responses`` with ``stream: true``.

Responses differs from Chat Completions in ways that shape this module. The conversation is a flat
list of typed *items* (messages, reasoning, function calls, function outputs) rather than chat
turns, and reasoning comes back as an opaque encrypted item that must be replayed verbatim, next to
the function calls it produced, for the model to keep its chain of thought across tool calls. So a
thinking block keeps its whole reasoning item as its signature, a text block keeps its message item
id (and phase), and a tool call keeps both the ``call_id`` that pairs it with its output and the
item id that pairs it with its reasoning: ``"<call_id>|<item_id>"`` (see `openai_responses_messages`).

Nothing is stored server-side (``store: false``), so every request carries the whole history.

The conversion helpers and the stream reader are public so that the other Responses dialects
(Codex, Azure) can reuse them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import httpx

from pi.ai.api_key import resolve_api_key
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.http import (
    RequestSpec,
    connection_lost,
    finish_stream,
    iter_sse,
    open_model_stream,
    parse_json_data,
    stream_cut_short,
)
from pi.ai.options import (
    StreamOptions,
    apply_on_payload,
    effort_level,
    merge_headers,
    resolve_cache_retention,
    simple_max_tokens,
)
from pi.ai.providers.copilot_headers import dynamic_headers
from pi.ai.providers.openai_responses_messages import (
    TOOL_CALL_ID_PROVIDERS,
    convert_responses_messages,
    convert_responses_tools,
    encode_text_signature,
    normalize_tool_call_id,
    parse_text_signature,
    short_hash,
)
from pi.ai.providers.output import OutputBuilder, run_provider
from pi.ai.registry import ApiProvider
from pi.ai.transcript import resolve_transcript
from pi.ai.types import (
    Context,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
)

API = "openai-responses"

JUICE_MESSAGE = "# Juice: 0 !important"
"""A developer line that makes GPT-5 models reason minimally: how "reasoning off" is spelled for them."""

SERVICE_TIER_COST_MULTIPLIERS: dict[str, float] = {"flex": 0.5, "priority": 2.0}


# --- request body ---------------------------------------------------------------------------------


def _uses_gpt5_naming(model: Model) -> bool:
    return model.id.lower().startswith("gpt-5") or model.name.lower().startswith("gpt-5")


def build_request_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """The JSON body of one streaming request (before `on_payload` may replace it).

    Provider-specific options, from ``options.extra``: ``reasoning_effort``, ``reasoning_summary``
    (auto / detailed / concise), ``service_tier`` (e.g. flex, priority) and ``tool_choice``.
    """
    extra = options.extra
    compat = model.compat
    mid_convo = bool(compat is not None and compat.supports_mid_convo_system_messages)
    context = resolve_transcript(context, mid_convo)
    input_items = convert_responses_messages(model, context)
    retention = resolve_cache_retention(options.cache_retention)
    body: dict[str, Any] = {"model": model.id, "input": input_items, "stream": True}
    if retention != "none" and options.session_id:
        body["prompt_cache_key"] = options.session_id
    if retention == "long" and "api.openai.com" in model.base_url:
        body["prompt_cache_retention"] = "24h"
    body["store"] = False
    if options.max_tokens and not (compat is not None and compat.supports_max_output_tokens is False):
        body["max_output_tokens"] = options.max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if extra.get("service_tier") is not None:
        body["service_tier"] = extra["service_tier"]
    if context.tools:
        body["tools"] = convert_responses_tools(context.tools)
    if extra.get("tool_choice") is not None:
        body["tool_choice"] = extra["tool_choice"]
    if model.reasoning:
        effort = extra.get("reasoning_effort")
        summary = extra.get("reasoning_summary")
        if effort in ("xhigh", "max"):
            effort = effort_level(model, effort)
        if effort == "none" and not summary:
            body["reasoning"] = {"effort": "none"}  # the model's own spelling of "off"
        elif effort or summary:
            body["reasoning"] = {"effort": effort or "medium", "summary": summary or "auto"}
            body["include"] = ["reasoning.encrypted_content"]
        elif _uses_gpt5_naming(model):
            input_items.append({"role": "developer", "content": [{"type": "input_text", "text": JUICE_MESSAGE}]})
    return body


# --- the response stream --------------------------------------------------------------------------


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


async def iter_response_events(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
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

    def __init__(self, builder: OutputBuilder, service_tier: str | None = None) -> None:
        self.builder = builder
        self.service_tier = service_tier
        self.finished = False
        """Set by the terminal ``response.*`` event; a stream that ends without one was cut short."""

    async def read(self, events: AsyncIterator[dict[str, Any]]) -> None:
        async for event in events:
            self.handle(event)
            if self.finished:
                return
        if not self.finished:
            model = self.builder.model
            raise stream_cut_short(model.provider, model.id, "response.completed")

    def handle(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        builder = self.builder
        open_block = builder.open_block
        if kind == "response.output_item.added":
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
        if kind == "reasoning":
            builder.start_thinking()
        elif kind == "message":
            builder.start_text()
        elif kind == "function_call":
            raw = item.get("arguments") if isinstance(item.get("arguments"), str) else ""
            builder.start_tool_call(f"{item.get('call_id')}|{item.get('id')}", str(item.get("name") or ""))
            if raw:
                builder.replace_tool_arguments(raw)

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

    def _finish(self, kind: str, response: dict[str, Any]) -> None:
        builder = self.builder
        output = builder.output
        usage = response.get("usage")
        if isinstance(usage, dict):
            details = usage.get("input_tokens_details") or {}
            cached = int(details.get("cached_tokens") or 0)
            output.usage.input = int(usage.get("input_tokens") or 0) - cached
            output.usage.cache_read = cached
            output.usage.output = int(usage.get("output_tokens") or 0)
            output.usage.cache_write = 0
            output.usage.total_tokens = int(usage.get("total_tokens") or 0)
        apply_service_tier_pricing(builder, response.get("service_tier") or self.service_tier)
        self.finished = True
        if kind == "response.failed":
            builder.end_block()
            raise RuntimeError(failure_message(response))
        status = response.get("status")
        if status is None:
            status = "incomplete" if kind == "response.incomplete" else "completed"
        builder.end_block()
        stop = map_response_status(status)
        if stop == "stop" and any(isinstance(block, ToolCall) for block in output.content):
            stop = "toolUse"
        output.stop_reason = stop


# --- entry points ---------------------------------------------------------------------------------


def stream(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream one reply; every failure (missing key, HTTP error, bad frame, abort) ends the stream as an event."""

    async def body(builder: OutputBuilder) -> None:
        api_key = resolve_api_key(model, options)
        dynamic = dynamic_headers(model, context.messages)
        headers = merge_headers({"Authorization": f"Bearer {api_key}"}, model.headers, dynamic, options.headers)
        payload = await apply_on_payload(build_request_body(model, context, options), model, options)
        response = await open_model_stream(
            RequestSpec(url=f"{model.base_url.rstrip('/')}/responses", headers=headers, body=payload), model, options
        )
        try:
            builder.start()
            tier = payload.get("service_tier")
            reader = ResponsesStreamReader(builder, tier if isinstance(tier, str) else None)
            events = iter_response_events(response)
            await reader.read(events)
            await finish_stream(events)
        except httpx.HTTPError as exc:
            raise connection_lost(model.provider, model.id, exc) from exc
        finally:
            await response.aclose()

    return run_provider(model, options, body)


def stream_simple(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Map the portable reasoning level to ``reasoning_effort``; xhigh and max mean the strongest the model has."""
    level = effort_level(model, options.reasoning)
    if level is None:
        off = (model.thinking_level_map or {}).get("off")
        level = off if isinstance(off, str) else None
    extra = {key: value for key, value in options.extra.items() if key != "reasoning_effort"}
    if level is not None:
        extra["reasoning_effort"] = level
    max_tokens = simple_max_tokens(model, options, context)
    return stream(model, context, replace(options, max_tokens=max_tokens, extra=extra))


PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple)

__all__ = [
    "API",
    "JUICE_MESSAGE",
    "PROVIDER",
    "SERVICE_TIER_COST_MULTIPLIERS",
    "TOOL_CALL_ID_PROVIDERS",
    "ResponsesStreamReader",
    "apply_service_tier_pricing",
    "build_request_body",
    "convert_responses_messages",
    "convert_responses_tools",
    "encode_text_signature",
    "failure_message",
    "iter_response_events",
    "map_response_status",
    "normalize_tool_call_id",
    "parse_text_signature",
    "short_hash",
    "stream",
    "stream_simple",
]
