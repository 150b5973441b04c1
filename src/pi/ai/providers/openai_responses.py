"""The OpenAI Responses wire API: ``POST {base_url}/responses`` with ``stream: true``.

Responses differs from Chat Completions in ways that shape this module. The conversation is a flat
list of typed *items* (messages, reasoning, function calls, function outputs) rather than chat
turns, and reasoning comes back as an opaque encrypted item that must be replayed verbatim, next to
the function calls it produced, for the model to keep its chain of thought across tool calls. So a
thinking block keeps its whole reasoning item as its signature, a text block keeps its message item
id (and phase), and a tool call keeps both the ``call_id`` that pairs it with its output and the
item id that pairs it with its reasoning: ``"<call_id>|<item_id>"`` (see `openai_responses_messages`).

Nothing is stored server-side (``store: false``), so every request carries the whole history.

The conversion helpers are public, and the stream reader (`responses_events`) re-exported, so that the
other Responses dialects (Codex, Azure) can reuse them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec.structs import replace

from pi.ai.api_key import resolve_api_key
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.http import ProviderHTTPError, RequestSpec, open_model_stream
from pi.ai.http_error_text import openai_error_text
from pi.ai.options import (
    StreamOptions,
    apply_on_payload,
    effort_level,
    merge_headers,
    resolve_cache_retention,
    simple_max_tokens,
)
from pi.ai.providers.copilot_headers import dynamic_headers
from pi.ai.providers.grammar_tools import grammar_inputs, supports_grammar_tools
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
from pi.ai.providers.responses_driver import drive_sse_reply
from pi.ai.providers.responses_events import (
    SERVICE_TIER_COST_MULTIPLIERS,
    ResponsesStreamReader,
    apply_service_tier_pricing,
    failure_message,
    iter_response_events,
    map_response_status,
)
from pi.ai.registry import ApiProvider
from pi.ai.transcript import resolve_transcript
from pi.ai.types import Context, Model

API = "openai-responses"

JUICE_MESSAGE = "# Juice: 0 !important"
"""A developer line that makes GPT-5 models reason minimally: how "reasoning off" is spelled for them."""

# --- request body ---------------------------------------------------------------------------------


def _uses_gpt5_naming(model: Model) -> bool:
    return model.id.lower().startswith("gpt-5") or model.name.lower().startswith("gpt-5")


def build_request_body(
    model: Model, context: Context, options: StreamOptions, grammar: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The JSON body of one streaming request (before `on_payload` may replace it).

    `grammar` is `grammar_inputs` of `context` when the caller has it already (it reads the reply
    with the same map).

    Provider-specific options, from ``options.extra``: ``reasoning_effort``, ``reasoning_summary``
    (auto / detailed / concise), ``service_tier`` (e.g. flex, priority) and ``tool_choice``.
    """
    extra = options.extra
    compat = model.compat
    mid_convo = bool(compat is not None and compat.supports_mid_convo_system_messages)
    grammar_supported = supports_grammar_tools(model)
    if grammar is None:
        grammar = grammar_inputs(context, grammar_supported)
    context = resolve_transcript(context, mid_convo)
    input_items = convert_responses_messages(model, context, grammar_inputs=grammar)
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
        body["tools"] = convert_responses_tools(context.tools, grammar_supported=grammar_supported)
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


# --- entry points ---------------------------------------------------------------------------------


def stream(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream one reply; every failure (missing key, HTTP error, bad frame, abort) ends the stream as an event."""

    async def body(builder: OutputBuilder) -> None:
        api_key = resolve_api_key(model, options)
        dynamic = dynamic_headers(model, context.messages)
        headers = merge_headers({"Authorization": f"Bearer {api_key}"}, model.headers, dynamic, options.headers)
        grammar = grammar_inputs(context, supports_grammar_tools(model))
        payload = await apply_on_payload(build_request_body(model, context, options, grammar), model, options)
        request = RequestSpec(url=f"{model.base_url.rstrip('/')}/responses", headers=headers, body=payload)
        try:
            response = await open_model_stream(request, model, options)
        except ProviderHTTPError as exc:
            prefix = f"{'OpenAI' if model.provider == 'openai' else model.provider} API error"
            text = openai_error_text(exc.status, exc.body, prefix)
            raise ProviderHTTPError(exc.status, exc.body, exc.hint, text) from exc
        await drive_sse_reply(builder, response, payload, grammar_inputs=grammar)

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
