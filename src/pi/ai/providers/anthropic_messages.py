"""The Anthropic Messages wire API (``POST /v1/messages`` with ``stream: true``).

Besides api.anthropic.com this API is spoken by GitHub Copilot's Claude models and by several
Anthropic-compatible servers (Kimi, MiniMax, OpenCode, Vercel's gateway), so the reader is lenient
where those servers differ: a tool call may arrive with its whole ``input`` at block start and no
deltas, and unknown event types are skipped rather than fatal.

Claude subscription (OAuth) tokens are only accepted for requests that look like Claude Code's: the
Claude Code identity block first in the system prompt and Claude Code's tool names. Tool names are
therefore mapped to those names on the way out and back to the caller's names on the way in.

Raw `stream()` options in ``options.extra``: ``thinking_enabled`` (bool), ``thinking_budget_tokens``
(int, default 1024), ``effort`` ("low" | "medium" | "high" | "max", adaptive-thinking models),
``interleaved_thinking`` (bool, default True) and ``tool_choice`` ("auto" | "any" | "none" |
``{"type": "tool", "name": ...}``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from msgspec.structs import replace

from pi.ai.api_key import resolve_api_key
from pi.ai.env_api_keys import env_bearer_token
from pi.ai.estimate import fit_max_tokens_to_context
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.http import (
    ProviderHTTPError,
    RequestSpec,
    open_model_stream,
)
from pi.ai.http_error_text import anthropic_error_text
from pi.ai.options import (
    StreamOptions,
    adjust_max_tokens_for_thinking,
    apply_on_payload,
    merge_headers,
    reasoning_level,
    resolve_cache_retention,
    simple_max_tokens,
)
from pi.ai.providers.anthropic_compat import AnthropicCompat, get_anthropic_compat
from pi.ai.providers.anthropic_messages_stream import StreamReader, read_stream
from pi.ai.providers.claude_code_names import CLAUDE_CODE_TOOL_NAMES, from_claude_code_name, to_claude_code_name
from pi.ai.providers.copilot_headers import dynamic_headers
from pi.ai.providers.output import OutputBuilder, run_provider
from pi.ai.registry import ApiProvider
from pi.ai.sanitize import sanitize_surrogates
from pi.ai.thinking import clamp_thinking_level
from pi.ai.transcript import resolve_transcript
from pi.ai.transform_messages import transform_messages
from pi.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    ReasoningLevel,
    TextContent,
    ThinkingContent,
    Tool,
    ToolResultMessage,
    UserMessage,
)

API = "anthropic-messages"
ANTHROPIC_VERSION = "2023-06-01"
FINE_GRAINED_TOOL_STREAMING_BETA = "fine-grained-tool-streaming-2025-05-14"
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
OAUTH_BETAS = ("claude-code-20250219", "oauth-2025-04-20")
CLAUDE_CODE_VERSION = "2.1.322"
CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."
IMAGES_ONLY_TEXT = "(see attached image)"
DEFAULT_THINKING_BUDGET = 1024

_ADAPTIVE_MARKERS = ("opus-4-6", "opus-4.6", "sonnet-4-6", "sonnet-4.6")
_INVALID_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


# --- small predicates -----------------------------------------------------------------------------


def is_oauth_token(api_key: str) -> bool:
    """Claude subscription tokens carry this marker; they authenticate with Bearer, not x-api-key."""
    return "sk-ant-oat" in api_key


def supports_adaptive_thinking(model: Model) -> bool:
    """Models that choose their own thinking depth from an effort level instead of a token budget:
    those whose compat forces it, and Opus/Sonnet 4.6."""
    return get_anthropic_compat(model).force_adaptive_thinking or any(m in model.id for m in _ADAPTIVE_MARKERS)


def normalize_tool_call_id(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    """Anthropic accepts ``[a-zA-Z0-9_-]{1,64}`` ids; other providers' ids are squeezed into that."""
    return _INVALID_ID_CHARS.sub("_", tool_call_id)[:64]


# --- request body ---------------------------------------------------------------------------------


def cache_control_for(model: Model, options: StreamOptions) -> dict[str, str] | None:
    """The cache breakpoint marker, or None when caching is off; a 1h TTL only on Anthropic itself."""
    retention = resolve_cache_retention(options.cache_retention)
    if retention == "none":
        return None
    control = {"type": "ephemeral"}
    long_ok = get_anthropic_compat(model).supports_long_cache_retention
    if retention == "long" and (long_ok if long_ok is not None else "api.anthropic.com" in model.base_url):
        control["ttl"] = "1h"
    return control


def _text_block(text: str, cache_control: dict[str, str] | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": sanitize_surrogates(text)}
    if cache_control is not None:
        block["cache_control"] = dict(cache_control)
    return block


def _image_block(image: ImageContent) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": image.mime_type, "data": image.data}}


def _tool_result_content(blocks: Sequence[TextContent | ImageContent], vision: bool) -> str | list[dict[str, Any]]:
    """A plain string when the result is text only (the common case); blocks when images come along."""
    texts = [block for block in blocks if isinstance(block, TextContent)]
    images = [block for block in blocks if isinstance(block, ImageContent)] if vision else []
    if not images:
        return sanitize_surrogates("\n".join(block.text for block in texts))
    out: list[dict[str, Any]] = []
    if not any(block.text.strip() for block in texts):
        out.append(_text_block(IMAGES_ONLY_TEXT))
    for block in blocks:
        if isinstance(block, TextContent):
            if block.text.strip():  # the API refuses empty text blocks
                out.append(_text_block(block.text))
        elif vision:
            out.append(_image_block(block))
    return out


def _user_content(message: UserMessage, vision: bool) -> str | list[dict[str, Any]] | None:
    if isinstance(message.content, str):
        return sanitize_surrogates(message.content) if message.content.strip() else None
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                blocks.append(_text_block(block.text))
        elif vision:
            blocks.append(_image_block(block))
    return blocks or None


def _assistant_content(message: AssistantMessage, oauth: bool) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                blocks.append(_text_block(block.text))
        elif isinstance(block, ThinkingContent):
            if block.redacted:
                blocks.append({"type": "redacted_thinking", "data": block.thinking_signature or ""})
            elif not block.thinking.strip():
                continue
            elif not (block.thinking_signature or "").strip():
                # The API rejects unsigned thinking; as text the content at least survives.
                blocks.append(_text_block(block.thinking))
            else:
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": sanitize_surrogates(block.thinking),
                        "signature": block.thinking_signature,
                    }
                )
        else:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": block.id,
                    "name": to_claude_code_name(block.name) if oauth else block.name,
                    "input": block.arguments,
                }
            )
    return blocks


def convert_messages(
    messages: Sequence[Message],
    model: Model,
    oauth: bool,
    cache_control: dict[str, str] | None,
) -> list[dict[str, Any]]:
    """Our history as Anthropic ``messages``, with the last user block marked as a cache breakpoint."""
    vision = "image" in model.input
    out: list[dict[str, Any]] = []
    pending_results: list[dict[str, Any]] = []

    def flush_results() -> None:
        # Anthropic wants all results of one assistant turn in a single user message.
        if pending_results:
            out.append({"role": "user", "content": list(pending_results)})
            pending_results.clear()

    for message in transform_messages(messages, model, normalize_tool_call_id):
        if isinstance(message, ToolResultMessage):
            pending_results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": message.tool_call_id,
                    "content": _tool_result_content(message.content, vision),
                    "is_error": message.is_error,
                }
            )
            continue
        flush_results()
        if isinstance(message, UserMessage):
            content = _user_content(message, vision)
            if content is not None:
                out.append({"role": "user", "content": content})
        elif isinstance(message, AssistantMessage):
            blocks = _assistant_content(message, oauth)
            if blocks:
                out.append({"role": "assistant", "content": blocks})
    flush_results()

    if cache_control is not None and out and out[-1]["role"] == "user":
        last = out[-1]
        if isinstance(last["content"], str):
            last["content"] = [_text_block(last["content"])]
        tail = last["content"][-1]
        if tail.get("type") in ("text", "image", "tool_result"):
            tail["cache_control"] = dict(cache_control)
    return out


def convert_tools(
    tools: Sequence[Tool],
    oauth: bool,
    compat: AnthropicCompat | None = None,
    cache_control: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Tool definitions; `$defs` is kept so that pydantic's nested-model references still resolve.

    Root keywords other than these are left out: Anthropic refuses a root ``anyOf``/``oneOf``.
    """
    compat = compat or AnthropicCompat()
    out: list[dict[str, Any]] = []
    for tool in tools:
        schema = tool.parameters
        input_schema: dict[str, Any] = {
            "type": "object",
            "properties": schema.get("properties", {}),
            "required": schema.get("required", []),
        }
        for key in ("additionalProperties", "$defs", "definitions"):
            if key in schema:
                input_schema[key] = schema[key]
        definition: dict[str, Any] = {
            "name": to_claude_code_name(tool.name) if oauth else tool.name,
            "description": sanitize_surrogates(tool.description),
        }
        if compat.supports_eager_tool_input_streaming:
            definition["eager_input_streaming"] = True
        definition["input_schema"] = input_schema
        out.append(definition)
    if out and cache_control is not None and compat.supports_cache_control_on_tools:
        out[-1]["cache_control"] = dict(cache_control)
    return out


def _tool_choice(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return {"type": "any" if value == "required" else value}
    return dict(value)


def thinking_enabled(model: Model, options: StreamOptions) -> bool:
    return bool(options.extra.get("thinking_enabled")) and model.reasoning


def build_request_body(model: Model, context: Context, options: StreamOptions, oauth: bool) -> dict[str, Any]:
    """The JSON body of one streaming Messages request, before the `on_payload` hook sees it."""
    cache_control = cache_control_for(model, options)
    compat = get_anthropic_compat(model)
    context = resolve_transcript(context)
    body: dict[str, Any] = {
        "model": model.id,
        "messages": convert_messages(context.messages, model, oauth, cache_control),
        "max_tokens": options.max_tokens or model.max_tokens // 3,
        "stream": True,
    }
    system: list[dict[str, Any]] = []
    if oauth:
        system.append(_text_block(CLAUDE_CODE_IDENTITY, cache_control))
    if context.system_prompt:
        system.append(_text_block(context.system_prompt, cache_control))
    if system:
        body["system"] = system

    thinking = thinking_enabled(model, options)
    if options.temperature is not None and not thinking and compat.supports_temperature:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = convert_tools(context.tools, oauth, compat, cache_control)
    if thinking:
        if supports_adaptive_thinking(model):
            body["thinking"] = {"type": "adaptive"}
            effort = options.extra.get("effort")
            if effort:
                body["output_config"] = {"effort": effort}
        else:
            budget = options.extra.get("thinking_budget_tokens") or DEFAULT_THINKING_BUDGET
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    user_id = (options.metadata or {}).get("user_id")
    if isinstance(user_id, str):
        body["metadata"] = {"user_id": user_id}
    choice = _tool_choice(options.extra.get("tool_choice"))
    if choice is not None:
        body["tool_choice"] = choice
    return body


# --- headers --------------------------------------------------------------------------------------


def _lowercase(headers: dict[str, str] | None) -> dict[str, str] | None:
    return {key.lower(): value for key, value in headers.items()} if headers else None


def build_headers(
    model: Model, context: Context, options: StreamOptions, api_key: str, *, bearer: bool = False
) -> dict[str, str]:
    """Provider defaults, then model.headers, then per-request headers, then options.headers (last wins).

    `bearer`: `api_key` is a bearer token (``ANTHROPIC_AUTH_TOKEN``), sent as ``Authorization``.
    """
    oauth = is_oauth_token(api_key)
    copilot = model.provider == "github-copilot"
    betas: list[str] = list(OAUTH_BETAS) if oauth else []
    if not copilot and context.tools and not get_anthropic_compat(model).supports_eager_tool_input_streaming:
        betas.append(FINE_GRAINED_TOOL_STREAMING_BETA)
    if options.extra.get("interleaved_thinking", True) and not supports_adaptive_thinking(model):
        betas.append(INTERLEAVED_THINKING_BETA)
    defaults = {
        "accept": "text/event-stream",
        "anthropic-version": ANTHROPIC_VERSION,
        "anthropic-dangerous-direct-browser-access": "true",
    }
    if betas:
        defaults["anthropic-beta"] = ",".join(betas)
    if oauth or copilot or bearer:
        defaults["authorization"] = f"Bearer {api_key}"
    else:
        defaults["x-api-key"] = api_key
    if oauth:
        defaults["user-agent"] = f"claude-cli/{CLAUDE_CODE_VERSION}"
        defaults["x-app"] = "cli"
    dynamic = _lowercase(dynamic_headers(model, context.messages))
    return merge_headers(defaults, _lowercase(model.headers), dynamic, _lowercase(options.headers))


def messages_url(model: Model) -> str:
    return f"{model.base_url.rstrip('/')}/v1/messages"


# --- entry points ---------------------------------------------------------------------------------


def stream_anthropic(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream one reply; raw Anthropic options come from ``options.extra`` (see the module docstring)."""
    context = resolve_transcript(context)

    async def body(builder: OutputBuilder) -> None:
        # Anthropic announces the reply before the request, so its HTTP failures follow `start`.
        builder.start()
        bearer = env_bearer_token(model.provider) if not options.api_key else None
        api_key = bearer or resolve_api_key(model, options)
        oauth = is_oauth_token(api_key)
        payload = await apply_on_payload(build_request_body(model, context, options, oauth), model, options)
        request = RequestSpec(
            url=messages_url(model),
            headers=build_headers(model, context, options, api_key, bearer=bearer is not None),
            body=payload,
        )
        try:
            response = await open_model_stream(request, model, options)
        except ProviderHTTPError as exc:
            if exc.status == 401 and oauth:
                raise ProviderHTTPError(
                    exc.status,
                    exc.body,
                    "The Claude subscription token was refused (expired or revoked): log in again with /login.",
                ) from exc
            raise ProviderHTTPError(exc.status, exc.body, exc.hint, anthropic_error_text(exc.status, exc.body)) from exc
        try:
            await read_stream(response, StreamReader(builder, model, context.tools, oauth), model)
        finally:
            await response.aclose()

    return run_provider(model, options, body)


def _adaptive_effort(model: Model, level: ReasoningLevel) -> str:
    """The effort for an adaptive model: the model's mapped value for the level, else low (for
    minimal and low), medium, or high (for high and above)."""
    mapped = (model.thinking_level_map or {}).get(level)
    if isinstance(mapped, str):
        return mapped
    if level in ("minimal", "low"):
        return "low"
    return "medium" if level == "medium" else "high"


def stream_simple_anthropic(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Map the portable reasoning level: effort for adaptive models, a token budget for the others.

    The level is first clamped to the levels the model has; the output budget fits the window.
    """
    extra = dict(options.extra)
    max_tokens = simple_max_tokens(model, options, context)
    clamped = clamp_thinking_level(model, options.reasoning) if options.reasoning is not None else None
    level = reasoning_level(clamped)
    if level is None or not model.reasoning:
        extra["thinking_enabled"] = False
    elif supports_adaptive_thinking(model):
        extra.update(thinking_enabled=True, effort=_adaptive_effort(model, level))
    else:
        max_tokens, budget = adjust_max_tokens_for_thinking(
            max_tokens, model.max_tokens, level, options.thinking_budgets
        )
        max_tokens = fit_max_tokens_to_context(model, context, max_tokens)
        extra.update(thinking_enabled=True, thinking_budget_tokens=min(budget, max(0, max_tokens - 1024)))
    return stream_anthropic(model, context, replace(options, max_tokens=max_tokens, extra=extra))


PROVIDER = ApiProvider(api=API, stream=stream_anthropic, stream_simple=stream_simple_anthropic)

__all__ = [
    "API",
    "CLAUDE_CODE_IDENTITY",
    "CLAUDE_CODE_TOOL_NAMES",
    "PROVIDER",
    "build_headers",
    "build_request_body",
    "cache_control_for",
    "convert_messages",
    "convert_tools",
    "from_claude_code_name",
    "is_oauth_token",
    "messages_url",
    "normalize_tool_call_id",
    "stream_anthropic",
    "stream_simple_anthropic",
    "supports_adaptive_thinking",
    "thinking_enabled",
    "to_claude_code_name",
]
