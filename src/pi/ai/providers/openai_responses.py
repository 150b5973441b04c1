"""The OpenAI Responses wire API: ``POST {base_url}/responses`` with ``stream: true``.

Responses differs from Chat Completions in ways that shape this module. The conversation is a flat
list of typed *items* (messages, reasoning, function calls, function outputs) rather than chat
turns, and reasoning comes back as an opaque encrypted item that must be replayed verbatim, next to
the function calls it produced, for the model to keep its chain of thought across tool calls. So a
thinking block keeps its whole reasoning item as its signature, a text block keeps its message item
id (and phase), and a tool call keeps both the ``call_id`` that pairs it with its output and the
item id that pairs it with its reasoning: ``"<call_id>|<item_id>"``.

Nothing is stored server-side (``store: false``), so every request carries the whole history.

The conversion helpers and the stream reader are public so that the other Responses dialects
(Codex, Azure) can reuse them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import AsyncIterator, Iterable
from dataclasses import replace
from typing import Any

import httpx

from pi.ai.env_api_keys import get_env_api_key
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.http import RequestSpec, finish_stream, iter_sse, open_model_stream, parse_json_data
from pi.ai.options import (
    StreamOptions,
    apply_on_payload,
    clamp_reasoning,
    merge_headers,
    resolve_cache_retention,
    simple_max_tokens,
    supports_xhigh,
)
from pi.ai.providers.output import OutputBuilder, run_provider
from pi.ai.registry import ApiProvider
from pi.ai.sanitize import sanitize_surrogates
from pi.ai.transform_messages import transform_messages
from pi.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

API = "openai-responses"

MISSING_KEY_MESSAGE = "OpenAI API key is required. Set OPENAI_API_KEY environment variable or pass it as an argument."
JUICE_MESSAGE = "# Juice: 0 !important"
"""A developer line that makes GPT-5 models reason minimally: how "reasoning off" is spelled for them."""

TOOL_CALL_ID_PROVIDERS = frozenset({"openai", "openai-codex", "opencode", "azure-openai-responses"})
"""Providers whose servers check the shape of replayed call ids (64 chars, ``fc`` item ids)."""

SERVICE_TIER_COST_MULTIPLIERS: dict[str, float] = {"flex": 0.5, "priority": 2.0}

MAX_ID_LENGTH = 64

_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


# --- ids and signatures ---------------------------------------------------------------------------


def short_hash(text: str) -> str:
    """A short, stable base-36 digest, for ids that must shrink but stay distinct."""
    number = int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8], "big")
    digits = ""
    while number:
        number, rest = divmod(number, 36)
        digits = _BASE36[rest] + digits
    return digits or "0"


def _clip_id(value: str) -> str:
    # Codex rejects ids ending in "_", which truncation can leave behind.
    return _ID_UNSAFE.sub("_", value)[:MAX_ID_LENGTH].rstrip("_")


def normalize_tool_call_id(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    """Make a call id written by another model acceptable to OpenAI-run Responses servers.

    Other servers speaking this API accept what they were given, so their ids pass unchanged.
    """
    if model.provider not in TOOL_CALL_ID_PROVIDERS:
        return tool_call_id
    call_id, sep, item_id = tool_call_id.partition("|")
    call_id = _clip_id(call_id)
    if not sep:
        return call_id or tool_call_id
    item_id = _ID_UNSAFE.sub("_", item_id)
    if not item_id.startswith("fc"):
        item_id = f"fc_{item_id}"
    return f"{call_id}|{_clip_id(item_id)}"


def encode_text_signature(item_id: str, phase: str | None) -> str:
    """The textSignature of a message item: ``{"v":1,"id":...,"phase":...}``."""
    payload: dict[str, Any] = {"v": 1, "id": item_id}
    if phase:
        payload["phase"] = phase
    return json.dumps(payload, separators=(",", ":"))


def parse_text_signature(signature: str | None) -> tuple[str | None, str | None]:
    """(item id, phase) from a textSignature; older sessions stored the bare id."""
    if not signature:
        return None, None
    if signature.startswith("{"):
        try:
            data = json.loads(signature)
        except ValueError:
            data = None
        if isinstance(data, dict) and data.get("v") == 1 and isinstance(data.get("id"), str):
            phase = data.get("phase")
            return data["id"], phase if isinstance(phase, str) else None
    return signature, None


# --- request body ---------------------------------------------------------------------------------


def _image_part(image: ImageContent) -> dict[str, Any]:
    return {"type": "input_image", "detail": "auto", "image_url": f"data:{image.mime_type};base64,{image.data}"}


def _user_item(message: UserMessage) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        parts: list[dict[str, Any]] = [{"type": "input_text", "text": sanitize_surrogates(message.content)}]
    else:
        parts = [
            {"type": "input_text", "text": sanitize_surrogates(block.text)}
            if isinstance(block, TextContent)
            else _image_part(block)
            for block in message.content
        ]
    return {"role": "user", "content": parts} if parts else None


def _reasoning_item(block: ThinkingContent) -> dict[str, Any] | None:
    if not block.thinking_signature:
        return None
    try:
        item = json.loads(block.thinking_signature)
    except ValueError:
        return None
    return item if isinstance(item, dict) and item.get("type") == "reasoning" else None


def _assistant_items(message: AssistantMessage, model: Model, index: int) -> list[dict[str, Any]]:
    # A function_call id ("fc_...") from another model of the same service names a reasoning item
    # that is not replayed with it; the server rejects such an unpaired id, so it is left out.
    other_model = message.model != model.id and message.provider == model.provider and message.api == model.api
    items: list[dict[str, Any]] = []
    used_ids: set[str] = set()
    for block in message.content:
        if isinstance(block, ThinkingContent):
            reasoning = _reasoning_item(block)
            if reasoning is not None:
                items.append(reasoning)
        elif isinstance(block, TextContent):
            item_id, phase = parse_text_signature(block.text_signature)
            if not item_id:
                item_id = f"msg_{index}"
            elif len(item_id) > MAX_ID_LENGTH:
                item_id = f"msg_{short_hash(item_id)}"
            if item_id in used_ids:
                item_id = f"{item_id}_{len(used_ids)}"
            used_ids.add(item_id)
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": sanitize_surrogates(block.text), "annotations": []}],
                "status": "completed",
                "id": item_id,
            }
            if phase:
                item["phase"] = phase
            items.append(item)
        else:
            call_id, _, fc_id = block.id.partition("|")
            call: dict[str, Any] = {
                "type": "function_call",
                "call_id": call_id,
                "name": block.name,
                "arguments": sanitize_surrogates(
                    json.dumps(block.arguments, ensure_ascii=False, separators=(",", ":"))
                ),
            }
            if fc_id and not (other_model and fc_id.startswith("fc_")):
                call["id"] = fc_id
            items.append(call)
    return items


def _tool_result_item(message: ToolResultMessage, model: Model) -> dict[str, Any]:
    text = "\n".join(block.text for block in message.content if isinstance(block, TextContent))
    images = [block for block in message.content if isinstance(block, ImageContent)]
    output: str | list[dict[str, Any]]
    if images and "image" in model.input:
        parts: list[dict[str, Any]] = [{"type": "input_text", "text": sanitize_surrogates(text)}] if text else []
        parts.extend(_image_part(image) for image in images)
        output = parts
    else:
        # A result with nothing in it still needs some output; an empty one reads as a broken tool.
        output = sanitize_surrogates(text or ("(see attached image)" if images else "(no output)"))
    return {"type": "function_call_output", "call_id": message.tool_call_id.partition("|")[0], "output": output}


def convert_responses_messages(
    model: Model, context: Context, *, include_system_prompt: bool = True
) -> list[dict[str, Any]]:
    """The ``input`` list for `context` as `model` should see it."""
    items: list[dict[str, Any]] = []
    if include_system_prompt and context.system_prompt:
        role = "developer" if model.reasoning else "system"
        items.append({"role": role, "content": sanitize_surrogates(context.system_prompt)})
    for index, message in enumerate(transform_messages(context.messages, model, normalize_tool_call_id)):
        if isinstance(message, UserMessage):
            user = _user_item(message)
            if user is not None:
                items.append(user)
        elif isinstance(message, AssistantMessage):
            items.extend(_assistant_items(message, model, index))
        else:
            items.append(_tool_result_item(message, model))
    return items


def convert_responses_tools(tools: Iterable[Tool]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "strict": False,
        }
        for tool in tools
    ]


def _uses_gpt5_naming(model: Model) -> bool:
    return model.id.lower().startswith("gpt-5") or model.name.lower().startswith("gpt-5")


def build_request_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """The JSON body of one streaming request (before `on_payload` may replace it).

    Provider-specific options, from ``options.extra``: ``reasoning_effort``, ``reasoning_summary``
    (auto / detailed / concise), ``service_tier`` (e.g. flex, priority) and ``tool_choice``.
    """
    extra = options.extra
    input_items = convert_responses_messages(model, context)
    retention = resolve_cache_retention(options.cache_retention)
    body: dict[str, Any] = {"model": model.id, "input": input_items, "stream": True}
    if retention != "none" and options.session_id:
        body["prompt_cache_key"] = options.session_id
    if retention == "long" and "api.openai.com" in model.base_url:
        body["prompt_cache_retention"] = "24h"
    body["store"] = False
    if options.max_tokens:
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
        if effort == "xhigh" and not supports_xhigh(model):
            effort = "high"
        if effort or summary:
            body["reasoning"] = {"effort": effort or "medium", "summary": summary or "auto"}
            body["include"] = ["reasoning.encrypted_content"]
        elif _uses_gpt5_naming(model):
            input_items.append({"role": "developer", "content": [{"type": "input_text", "text": JUICE_MESSAGE}]})
    return body


def copilot_headers(context: Context) -> dict[str, str]:
    """GitHub Copilot bills and routes by who spoke last and whether images are involved."""
    last = context.messages[-1] if context.messages else None
    headers = {
        "X-Initiator": "agent" if last is not None and not isinstance(last, UserMessage) else "user",
        "Openai-Intent": "conversation-edits",
    }
    for message in context.messages:
        content = message.content if isinstance(message, (UserMessage, ToolResultMessage)) else None
        if isinstance(content, list) and any(isinstance(block, ImageContent) for block in content):
            headers["Copilot-Vision-Request"] = "true"
            break
    return headers


def resolve_api_key(model: Model, options: StreamOptions) -> str:
    key = options.api_key or get_env_api_key(model.provider) or os.environ.get("OPENAI_API_KEY")
    if not key:
        raise ValueError(MISSING_KEY_MESSAGE)
    return key


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
            raise ConnectionError(
                f"The {self.builder.model.provider} stream for model {self.builder.model.id} ended before the "
                "response completed; the reply is incomplete, try again."
            )

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
        dynamic = copilot_headers(context) if model.provider == "github-copilot" else None
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
        finally:
            await response.aclose()

    return run_provider(model, options, body)


def stream_simple(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Map the portable reasoning level to ``reasoning_effort`` (xhigh only where the model has it)."""
    level = options.reasoning if supports_xhigh(model) else clamp_reasoning(options.reasoning)
    extra = {key: value for key, value in options.extra.items() if key != "reasoning_effort"}
    if level is not None:
        extra["reasoning_effort"] = level
    return stream(model, context, replace(options, max_tokens=simple_max_tokens(model, options), extra=extra))


PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple)

__all__ = [
    "API",
    "JUICE_MESSAGE",
    "MISSING_KEY_MESSAGE",
    "PROVIDER",
    "SERVICE_TIER_COST_MULTIPLIERS",
    "TOOL_CALL_ID_PROVIDERS",
    "ResponsesStreamReader",
    "apply_service_tier_pricing",
    "build_request_body",
    "convert_responses_messages",
    "convert_responses_tools",
    "copilot_headers",
    "encode_text_signature",
    "failure_message",
    "iter_response_events",
    "map_response_status",
    "normalize_tool_call_id",
    "parse_text_signature",
    "resolve_api_key",
    "short_hash",
    "stream",
    "stream_simple",
]
