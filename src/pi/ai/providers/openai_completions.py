"""The OpenAI Chat Completions wire API, spoken by OpenAI and by most OpenAI-compatible servers.

One module serves OpenAI itself, hosted gateways (OpenRouter, Vercel, Groq, Cerebras, xAI, z.ai,
DeepSeek, Mistral, ...) and self-hosted servers (Ollama, LM Studio, vLLM, llama.cpp, SGLang). What
differs between them is decided once per request by `get_compat` (see `openai_compat`); this
module only reads those flags, so no server-specific branch hides in the request or stream code.

Provider-specific options for `stream`, in ``options.extra``:

- ``reasoning_effort``: ``minimal | low | medium | high | xhigh | max``, sent as the server's thinking
  switch (``reasoning_effort``, ``enable_thinking`` or ``chat_template_kwargs``); ``max`` becomes the
  model's strongest effort unless its ``reasoningEffortMap`` names it;
- ``tool_choice``: ``auto | none | required`` or ``{"type": "function", "function": {"name": ...}}``.

`stream_simple` maps the portable ``options.reasoning`` level onto ``reasoning_effort``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from msgspec.structs import replace

from pi.ai.api_key import resolve_api_key
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.http import (
    ProviderHTTPError,
    RequestSpec,
    Response,
    TransportError,
    connection_lost,
    finish_stream,
    iter_sse,
    open_model_stream,
    parse_json_data,
    stream_cut_short,
)
from pi.ai.http_error_text import openai_error_text
from pi.ai.options import (
    StreamOptions,
    apply_on_payload,
    merge_headers,
    resolve_cache_retention,
    simple_max_tokens,
)
from pi.ai.providers.copilot_headers import dynamic_headers
from pi.ai.providers.grammar_tools import (
    GrammarInputStream,
    chat_custom_tool,
    grammar_format,
    grammar_inputs,
    supports_grammar_tools,
)
from pi.ai.providers.openai_compat import ResolvedCompat, get_compat, is_openrouter, is_vercel_gateway
from pi.ai.providers.openai_completions_messages import (
    BRIDGE_TEXT,
    add_anthropic_cache_control,
    add_openrouter_cache_control,
    convert_messages,
    mistral_tool_call_id,
    normalize_tool_call_id,
)
from pi.ai.providers.openai_completions_thinking import apply_thinking, sampling_params
from pi.ai.providers.output import OutputBuilder, run_provider
from pi.ai.registry import ApiProvider
from pi.ai.thinking import clamp_thinking_level
from pi.ai.transcript import resolve_transcript
from pi.ai.types import (
    AssistantMessage,
    Context,
    Message,
    Model,
    StopReason,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
)

API = "openai-completions"

REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
"""Where servers put streamed reasoning (llama.cpp/vLLM/DeepSeek, Ollama/OpenRouter, others); first non-empty wins."""


# --- keys, headers, URL ---------------------------------------------------------------------------


def chat_completions_url(base_url: str) -> str:
    return f"{base_url.rstrip('/')}/chat/completions"


def build_headers(model: Model, context: Context, options: StreamOptions, api_key: str) -> dict[str, str]:
    """Provider defaults, then model.headers, then per-request headers, then options.headers."""
    dynamic = dynamic_headers(model, context.messages)
    return merge_headers({"Authorization": f"Bearer {api_key}"}, model.headers, dynamic, options.headers)


# --- request body ---------------------------------------------------------------------------------


def convert_tools(
    tools: Sequence[Tool], compat: ResolvedCompat, grammar_supported: bool = False
) -> list[dict[str, Any]]:
    """Function tools; a grammar tool becomes a ``custom`` tool when the model supports them."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        found = grammar_format(tool, grammar_supported)
        if found is not None:
            out.append(chat_custom_tool(tool, found))
            continue
        function: dict[str, Any] = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
        if compat.supports_strict_mode:
            function["strict"] = False
        out.append({"type": "function", "function": function})
    return out


def _has_tool_history(messages: Sequence[Message]) -> bool:
    for message in messages:
        if isinstance(message, ToolResultMessage):
            return True
        if isinstance(message, AssistantMessage) and any(isinstance(b, ToolCall) for b in message.content):
            return True
    return False


def _routing(only: list[str] | None, order: list[str] | None) -> dict[str, Any]:
    routing: dict[str, Any] = {}
    if only is not None:
        routing["only"] = list(only)
    if order is not None:
        routing["order"] = list(order)
    return routing


def build_request_body(
    model: Model,
    context: Context,
    options: StreamOptions,
    compat: ResolvedCompat | None = None,
    grammar: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The JSON body of one streaming request (before `on_payload` may replace it).

    `grammar` is `grammar_inputs` of `context` when the caller has it already (it reads the reply
    with the same map). It is taken from the conversation as written, before system messages are
    folded: a grammar tool a later system message removed still has its earlier calls replayed as
    ``custom`` calls.
    """
    compat = compat or get_compat(model)
    grammar_supported = supports_grammar_tools(model)
    if grammar is None:
        grammar = grammar_inputs(context, grammar_supported)
    context = resolve_transcript(context, compat.supports_mid_convo_system_messages)
    messages = convert_messages(model, context, compat, grammar)
    body: dict[str, Any] = {"model": model.id, "messages": messages, "stream": True}
    retention = resolve_cache_retention(options.cache_retention)
    if retention != "none" and options.session_id and _sends_prompt_cache_key(model, compat, retention):
        body["prompt_cache_key"] = options.session_id[:64]
    if retention == "long" and compat.supports_long_cache_retention:
        body["prompt_cache_retention"] = "24h"
    if compat.supports_usage_in_streaming:
        body["stream_options"] = {"include_usage": True}
    if compat.supports_store:
        body["store"] = False
    if options.max_tokens:
        body[compat.max_tokens_field] = options.max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = convert_tools(context.tools, compat, grammar_supported)
    elif compat.requires_tools_with_tool_history and _has_tool_history(context.messages):
        body["tools"] = []  # proxies in front of Anthropic reject tool history without a tools field
    if compat.cache_control_format == "anthropic" and retention != "none":
        add_anthropic_cache_control(messages, body.get("tools"))
    tool_choice = options.extra.get("tool_choice")
    if tool_choice:
        body["tool_choice"] = tool_choice
    level = options.extra.get("reasoning_effort")
    apply_thinking(body, model, compat, level if isinstance(level, str) and level != "off" else None)
    if is_openrouter(model):
        routing = _routing(compat.open_router_routing.only, compat.open_router_routing.order)
        if routing:
            body["provider"] = routing
    if is_vercel_gateway(model):
        routing = _routing(compat.vercel_gateway_routing.only, compat.vercel_gateway_routing.order)
        if routing:
            body["providerOptions"] = {"gateway": routing}
    request_params = options.extra.get("sampling_params")
    body.update(sampling_params(model, level, request_params if isinstance(request_params, dict) else None))
    return body


def _sends_prompt_cache_key(model: Model, compat: ResolvedCompat, retention: str) -> bool:
    mode = compat.prompt_cache_key_mode
    if mode == "enabled":
        return True
    if mode == "disabled":
        return False
    return "api.openai.com" in model.base_url or (retention == "long" and compat.supports_long_cache_retention)


# --- errors ---------------------------------------------------------------------------------------


def _error_detail(error: Any) -> tuple[str | None, str | None]:
    """(message, OpenRouter's raw upstream error) of an ``error`` object."""
    if isinstance(error, str):
        return error, None
    if not isinstance(error, dict):
        return None, None
    message = error.get("message")
    metadata = error.get("metadata")
    raw = metadata.get("raw") if isinstance(metadata, dict) else None
    raw_text = None if raw in (None, "") else raw if isinstance(raw, str) else json.dumps(raw)
    return (message if isinstance(message, str) and message else None), raw_text


def _reworded_http_error(exc: ProviderHTTPError) -> ProviderHTTPError:
    """The refusal worded as pi words it on this API (`openai_error_text`), with our hint kept."""
    return ProviderHTTPError(exc.status, exc.body, exc.hint, openai_error_text(exc.status, exc.body))


def _chunk_error_text(error: Any) -> str:
    message, raw = _error_detail(error)
    text = message or (json.dumps(error) if not isinstance(error, str) else error) or "An unknown error occurred"
    return f"{text}\n{raw}" if raw else text


# --- stream reading -------------------------------------------------------------------------------


def map_finish_reason(reason: str | None) -> StopReason:
    if reason is None or reason in ("stop", "end"):
        return "stop"
    if reason == "length":
        return "length"
    if reason in ("tool_calls", "function_call"):
        return "toolUse"
    if reason == "content_filter":
        return "error"
    raise ValueError(f"Unhandled stop reason: {reason}")


def parse_usage(raw: dict[str, Any]) -> Usage:
    """Token counts of a usage object, in pi's normalised meaning.

    `input` excludes the prompt tokens read from or written to the cache; `cache_read` is OpenAI's
    ``cached_tokens`` (DeepSeek: ``prompt_cache_hit_tokens``, Kimi: a top-level ``cached_tokens``);
    `cache_write` is the ``cache_write_tokens`` some OpenRouter upstreams report. `output` is
    ``completion_tokens``, which already includes the reasoning tokens (pi 1.6 reads it so, after
    earlier versions added them a second time); `reasoning` breaks those out, 0 when not reported.
    """
    prompt_details = raw.get("prompt_tokens_details")
    completion_details = raw.get("completion_tokens_details")
    prompt_details = prompt_details if isinstance(prompt_details, dict) else {}
    completion_details = completion_details if isinstance(completion_details, dict) else {}
    cached = int(
        prompt_details.get("cached_tokens")
        or raw.get("prompt_cache_hit_tokens")  # DeepSeek
        or raw.get("cached_tokens")  # Kimi
        or 0
    )
    cache_write = int(prompt_details.get("cache_write_tokens") or 0)
    reasoning = int(completion_details.get("reasoning_tokens") or raw.get("reasoning_tokens") or 0)
    prompt = int(raw.get("prompt_tokens") or 0)
    output = int(raw.get("completion_tokens") or 0)
    usage = Usage(
        input=max(0, prompt - cached - cache_write),
        output=output,
        cache_read=cached,
        cache_write=cache_write,
        reasoning=reasoning,
    )
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    return usage


class _ChunkReader:
    """Turns Chat Completions chunks into OutputBuilder calls."""

    def __init__(self, builder: OutputBuilder, grammar_inputs: Mapping[str, str] | None = None) -> None:
        self.builder = builder
        self.model_id = builder.model.id
        self.grammar_inputs: Mapping[str, str] = grammar_inputs or {}
        """Grammar tools by name -> the argument their raw ``custom.input`` fills."""
        self.custom: GrammarInputStream | None = None
        """The raw input of the open tool call, when it streams as a ``custom`` call."""
        self.tool_index: int | None = None
        self.generated_id = False
        self.encrypted_reasoning: dict[str, str] = {}
        self.counter = 0
        self.finished = False
        """A chunk carried a finish_reason: only that says the reply is whole (``[DONE]`` alone does not)."""
        self.done = False
        """The ``[DONE]`` marker arrived."""

    def chunk(self, chunk: dict[str, Any]) -> None:
        if chunk.get("error"):
            raise RuntimeError(_chunk_error_text(chunk["error"]))
        output = self.builder.output
        chunk_id = chunk.get("id")
        if isinstance(chunk_id, str) and chunk_id and output.response_id is None:
            output.response_id = chunk_id  # every chunk of one completion carries the same id
        served = chunk.get("model")
        if isinstance(served, str) and served and served != self.model_id and output.response_model is None:
            output.response_model = served  # a dated snapshot or a router's pick
        choices = chunk.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
        usage = chunk.get("usage")
        if not isinstance(usage, dict) and choice is not None:
            usage = choice.get("usage")  # Moonshot reports usage on the choice
        if isinstance(usage, dict):
            self.builder.output.usage = parse_usage(usage)
        if choice is None:
            return
        finish = choice.get("finish_reason")
        if finish:
            output.raw_stop_reason = str(finish)
            output.stop_reason = map_finish_reason(finish)
            self.finished = True
        delta = choice.get("delta")
        if isinstance(delta, dict):
            self.delta(delta)

    def delta(self, delta: dict[str, Any]) -> None:
        builder = self.builder
        content = delta.get("content")
        if self.custom is not None and (content or any(delta.get(name) for name in REASONING_FIELDS)):
            self.close_custom()
        if isinstance(content, str) and content:
            builder.text_delta(content)
        elif isinstance(content, list):
            self.content_parts(content)
        for name in REASONING_FIELDS:
            value = delta.get(name)
            if isinstance(value, str) and value:
                if not isinstance(builder.open_block, ThinkingContent):
                    builder.start_thinking(name)
                builder.thinking_delta(value)
                break
        tool_calls = delta.get("tool_calls")
        if isinstance(tool_calls, list):
            for tool_call in tool_calls:
                if isinstance(tool_call, dict):
                    self.tool_call(tool_call)
        details = delta.get("reasoning_details")
        if isinstance(details, list):
            for detail in details:
                if (
                    isinstance(detail, dict)
                    and detail.get("type") == "reasoning.encrypted"
                    and detail.get("id")
                    and detail.get("data")
                ):
                    self.encrypted_reasoning[str(detail["id"])] = json.dumps(detail)

    def content_parts(self, parts: list[Any]) -> None:
        """Mistral's magistral models stream content as typed chunks, thinking included."""
        builder = self.builder
        for part in parts:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text" and isinstance(part.get("text"), str) and part["text"]:
                builder.text_delta(part["text"])
            elif part.get("type") == "thinking":
                inner = part.get("thinking")
                pieces = inner if isinstance(inner, list) else [{"text": inner}]
                for piece in pieces:
                    text = piece.get("text") if isinstance(piece, dict) else None
                    if isinstance(text, str) and text:
                        if not isinstance(builder.open_block, ThinkingContent):
                            builder.start_thinking()
                        builder.thinking_delta(text)

    def tool_call(self, chunk: dict[str, Any]) -> None:
        builder = self.builder
        raw_index, raw_id, raw_function = chunk.get("index"), chunk.get("id"), chunk.get("function")
        raw_custom = chunk.get("custom")
        index = raw_index if isinstance(raw_index, int) else None
        call_id = raw_id if isinstance(raw_id, str) else ""
        function: dict[str, Any] = raw_function if isinstance(raw_function, dict) else {}
        custom: dict[str, Any] | None = raw_custom if isinstance(raw_custom, dict) and not function else None
        raw_name = function.get("name") if custom is None else custom.get("name")
        name = raw_name if isinstance(raw_name, str) else ""
        block = builder.open_block
        if (
            not isinstance(block, ToolCall)
            or (call_id and not self.generated_id and call_id != block.id)
            or (index is not None and self.tool_index is not None and index != self.tool_index)
        ):
            self.close_custom()
            self.generated_id = not call_id
            self.counter += 1
            builder.start_tool_call(call_id or f"call_{self.counter}_{os.urandom(4).hex()}", name)
            self.tool_index = index
            if custom is not None:
                self.custom = GrammarInputStream(self.grammar_inputs.get(name, "input"))
        else:
            if call_id:
                block.id = call_id
                self.generated_id = False
            if name:
                block.name = name
            if index is not None:
                self.tool_index = index
        if custom is not None or self.custom is not None:
            self.custom_input(custom, function)
            return
        arguments = function.get("arguments")
        if isinstance(arguments, dict):  # some local servers send the object rather than JSON text
            fragment = json.dumps(arguments)
        else:
            fragment = arguments if isinstance(arguments, str) else ""
        builder.tool_call_delta(fragment)

    def custom_input(self, custom: dict[str, Any] | None, function: dict[str, Any]) -> None:
        """Add a ``custom`` call's raw input text; its arguments are ``{<property>: <input so far>}``."""
        stream = self.custom
        block = self.builder.open_block
        if stream is None or function.get("arguments"):  # one call is either a function or a custom call
            raise ValueError("a tool call streamed both function arguments and custom input")
        assert isinstance(block, ToolCall)
        text = custom.get("input") if custom is not None else None
        piece = stream.append(text) if isinstance(text, str) else None
        if piece is not None:
            self.builder.tool_call_known_delta(piece, stream.arguments)
        else:
            block.arguments = stream.arguments

    def close_custom(self) -> None:
        """End the open custom call's input: its last JSON piece goes out as a delta."""
        stream, self.custom = self.custom, None
        if stream is not None and isinstance(self.builder.open_block, ToolCall):
            piece = stream.close(None)
            if piece is not None:
                self.builder.tool_call_known_delta(piece, stream.arguments)

    def finish(self) -> None:
        output = self.builder.output
        for block in output.content:
            if isinstance(block, ToolCall) and block.id in self.encrypted_reasoning:
                block.thought_signature = self.encrypted_reasoning[block.id]
        if output.stop_reason == "stop" and any(isinstance(block, ToolCall) for block in output.content):
            output.stop_reason = "toolUse"  # some local servers end tool calls with "stop"


async def _read_stream(
    response: Response,
    builder: OutputBuilder,
    grammar: Mapping[str, str] | None = None,
    supports_finish_reason: bool = True,
) -> None:
    """Read chunks up to ``[DONE]`` or the end of the body; the reply is whole only with a finish_reason.

    A proxy or server that drops the stream may still close it cleanly, even with ``[DONE]``, so
    the finish_reason is what tells a whole reply from a cut one; a cut one fails with a transient
    error that the session sends again. A server that never sends finish_reason (compat
    ``supportsFinishReason: false``) ends its replies with the body instead.
    """
    reader = _ChunkReader(builder, grammar)
    events = iter_sse(response)
    async for event in events:
        data = event.data.strip()
        if not data:
            continue
        if data == "[DONE]":
            reader.done = True
            await finish_stream(events)
            break
        chunk = parse_json_data(data)
        if isinstance(chunk, dict):
            reader.chunk(chunk)
    if not reader.finished and supports_finish_reason:
        missing = "a chunk carrying finish_reason" + (" ([DONE] came without one)" if reader.done else "")
        raise stream_cut_short(builder.model.provider, builder.model.id, missing, "Stream ended without finish_reason")
    reader.close_custom()
    builder.end_block()
    reader.finish()
    output = builder.output
    if output.stop_reason == "error" and not output.error_message:
        model = builder.model
        output.error_message = (
            f"{model.provider} stopped the reply of {model.id} with finish_reason content_filter: "
            "its content filter blocked the output. Rephrase the request or use another model."
        )


# --- entry points ---------------------------------------------------------------------------------


def stream_openai_completions(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream one reply; every failure ends the stream with an ``error`` event."""

    async def body(builder: OutputBuilder) -> None:
        api_key = resolve_api_key(model, options)
        compat = get_compat(model)
        grammar = grammar_inputs(context, supports_grammar_tools(model))
        payload = build_request_body(model, context, options, compat, grammar)
        payload = await apply_on_payload(payload, model, options)
        request = RequestSpec(
            url=chat_completions_url(model.base_url),
            headers=build_headers(model, context, options, api_key),
            body=payload,
        )
        try:
            response = await open_model_stream(request, model, options)
        except ProviderHTTPError as exc:
            raise _reworded_http_error(exc) from exc
        try:
            builder.start()
            await _read_stream(response, builder, grammar, compat.supports_finish_reason)
        except TransportError as exc:
            raise connection_lost(model.provider, model.id, exc) from exc
        finally:
            await response.aclose()

    return run_provider(model, options, body)


def stream_simple_openai_completions(
    model: Model, context: Context, options: StreamOptions
) -> AssistantMessageEventStream:
    """Clamp the portable reasoning level to the model's levels and fit the output budget to the window.

    The request body maps the level to the server's value (`openai_completions_thinking`).
    """
    level = clamp_thinking_level(model, options.reasoning) if options.reasoning is not None else None
    extra = {key: value for key, value in options.extra.items() if key != "reasoning_effort"}
    if level is not None and level != "off":
        extra["reasoning_effort"] = level
    simple = replace(options, max_tokens=simple_max_tokens(model, options, context), extra=extra)
    return stream_openai_completions(model, context, simple)


PROVIDER = ApiProvider(api=API, stream=stream_openai_completions, stream_simple=stream_simple_openai_completions)

__all__ = [
    "API",
    "BRIDGE_TEXT",
    "PROVIDER",
    "REASONING_FIELDS",
    "add_openrouter_cache_control",
    "build_headers",
    "build_request_body",
    "chat_completions_url",
    "convert_messages",
    "convert_tools",
    "map_finish_reason",
    "mistral_tool_call_id",
    "normalize_tool_call_id",
    "parse_usage",
    "stream_openai_completions",
    "stream_simple_openai_completions",
]
