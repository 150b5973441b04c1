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
from dataclasses import replace
from typing import Any

import httpx

from pi.ai.env_api_keys import get_env_api_key, missing_key_message
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.http import ProviderHTTPError, RequestSpec, finish_stream, iter_sse, open_model_stream, parse_json_data
from pi.ai.options import (
    StreamOptions,
    adjust_max_tokens_for_thinking,
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
    Message,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ThinkingLevel,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

API = "anthropic-messages"
ANTHROPIC_VERSION = "2023-06-01"
FINE_GRAINED_TOOL_STREAMING_BETA = "fine-grained-tool-streaming-2025-05-14"
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
OAUTH_BETAS = ("claude-code-20250219", "oauth-2025-04-20")
CLAUDE_CODE_VERSION = "2.1.75"
CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."
REDACTED_THINKING_TEXT = "[Reasoning redacted]"
IMAGES_ONLY_TEXT = "(see attached image)"
DEFAULT_THINKING_BUDGET = 1024

CLAUDE_CODE_TOOL_NAMES: tuple[str, ...] = (
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
)
"""Tool names a subscription token is expected to use; ours are sent under these when they match."""

_CANONICAL_BY_LOWER = {name.lower(): name for name in CLAUDE_CODE_TOOL_NAMES}
_ADAPTIVE_MARKERS = ("opus-4-6", "opus-4.6", "sonnet-4-6", "sonnet-4.6")
_INVALID_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "pause_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "toolUse",
    "refusal": "error",
    "sensitive": "error",
}


# --- small predicates -----------------------------------------------------------------------------


def is_oauth_token(api_key: str) -> bool:
    """Claude subscription tokens carry this marker; they authenticate with Bearer, not x-api-key."""
    return "sk-ant-oat" in api_key


def supports_adaptive_thinking(model: Model) -> bool:
    """Opus/Sonnet 4.6 choose their own thinking depth from an effort level instead of a token budget."""
    return any(marker in model.id for marker in _ADAPTIVE_MARKERS)


def normalize_tool_call_id(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    """Anthropic accepts ``[a-zA-Z0-9_-]{1,64}`` ids; other providers' ids are squeezed into that."""
    return _INVALID_ID_CHARS.sub("_", tool_call_id)[:64]


def to_claude_code_name(name: str) -> str:
    return _CANONICAL_BY_LOWER.get(name.lower(), name)


def from_claude_code_name(name: str, tools: Sequence[Tool] | None) -> str:
    """The caller's spelling of a tool the model called by its Claude Code name."""
    lowered = name.lower()
    for tool in tools or ():
        if tool.name.lower() == lowered:
            return tool.name
    return name


# --- request body ---------------------------------------------------------------------------------


def cache_control_for(model: Model, options: StreamOptions) -> dict[str, str] | None:
    """The cache breakpoint marker, or None when caching is off; a 1h TTL only on Anthropic itself."""
    retention = resolve_cache_retention(options.cache_retention)
    if retention == "none":
        return None
    control = {"type": "ephemeral"}
    if retention == "long" and "api.anthropic.com" in model.base_url:
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
        else:
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


def convert_tools(tools: Sequence[Tool], oauth: bool) -> list[dict[str, Any]]:
    """Tool definitions; `$defs` is kept so that pydantic's nested-model references still resolve."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        schema = tool.parameters
        input_schema: dict[str, Any] = {
            "type": "object",
            "properties": schema.get("properties", {}),
            "required": schema.get("required", []),
        }
        if "$defs" in schema:
            input_schema["$defs"] = schema["$defs"]
        out.append(
            {
                "name": to_claude_code_name(tool.name) if oauth else tool.name,
                "description": sanitize_surrogates(tool.description),
                "input_schema": input_schema,
            }
        )
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
    if options.temperature is not None and not thinking:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = convert_tools(context.tools, oauth)
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


def _copilot_headers(context: Context) -> dict[str, str]:
    """Copilot bills and routes by who spoke last and whether images are in play."""
    last = context.messages[-1] if context.messages else None
    headers = {
        "x-initiator": "user" if isinstance(last, UserMessage) else "agent",
        "openai-intent": "conversation-edits",
    }
    for message in context.messages:
        content = message.content if isinstance(message, UserMessage | ToolResultMessage) else None
        if isinstance(content, list) and any(isinstance(block, ImageContent) for block in content):
            headers["copilot-vision-request"] = "true"
            break
    return headers


def build_headers(model: Model, context: Context, options: StreamOptions, api_key: str) -> dict[str, str]:
    """Provider defaults, then model.headers, then per-request headers, then options.headers (last wins)."""
    oauth = is_oauth_token(api_key)
    copilot = model.provider == "github-copilot"
    betas: list[str] = list(OAUTH_BETAS) if oauth else []
    if not copilot:
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
    if oauth or copilot:
        defaults["authorization"] = f"Bearer {api_key}"
    else:
        defaults["x-api-key"] = api_key
    if oauth:
        defaults["user-agent"] = f"claude-cli/{CLAUDE_CODE_VERSION}"
        defaults["x-app"] = "cli"
    dynamic = _copilot_headers(context) if copilot else None
    return merge_headers(defaults, _lowercase(model.headers), dynamic, _lowercase(options.headers))


def messages_url(model: Model) -> str:
    return f"{model.base_url.rstrip('/')}/v1/messages"


# --- reading the stream ---------------------------------------------------------------------------


def _set_usage(usage: Usage, wire: dict[str, Any], *, reset: bool) -> None:
    """message_start gives the first counts; message_delta may update any of them."""
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
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write


def _stream_error_text(data: dict[str, Any]) -> str:
    error = data.get("error")
    if isinstance(error, dict):
        kind = error.get("type") or "error"
        message = error.get("message") or "no details given"
        return f"{kind}: {message}"
    return f"error: {error or data}"


class _StreamReader:
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
        output.stop_reason = mapped
        if mapped == "error":
            output.error_message = (
                "An unknown error occurred\n"
                f'{self.model.provider} ended the reply of {self.model.id} with stop reason "{reason}" '
                "(it declined to continue); rephrase the request or switch models."
            )


async def _read_stream(response: httpx.Response, reader: _StreamReader, model: Model) -> None:
    try:
        events = iter_sse(response)
        async for event in events:
            data = parse_json_data(event.data)
            if not isinstance(data, dict):
                raise ValueError(f"Malformed stream frame from the server (not an object): {event.data[:200]}")
            kind = data.get("type") or event.event
            reader.handle(str(kind), data)
            if kind == "message_stop":
                await finish_stream(events)
                break
    except (httpx.TransportError, httpx.DecodingError) as exc:
        raise ConnectionError(
            f"Connection error: the {model.provider} stream for {model.id} broke off mid-reply "
            f"({exc or type(exc).__name__}); try again."
        ) from exc
    if reader.stop_reason is None:
        raise ConnectionError(
            f"Connection error: the {model.provider} stream for {model.id} ended before the reply was complete "
            "(no stop reason received); try again."
        )


# --- entry points ---------------------------------------------------------------------------------


def stream_anthropic(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream one reply; raw Anthropic options come from ``options.extra`` (see the module docstring)."""

    async def body(builder: OutputBuilder) -> None:
        # Anthropic announces the reply before the request, so its HTTP failures follow `start`.
        builder.start()
        api_key = options.api_key or get_env_api_key(model.provider)
        if not api_key:
            raise ValueError(missing_key_message(model.provider))
        oauth = is_oauth_token(api_key)
        payload = await apply_on_payload(build_request_body(model, context, options, oauth), model, options)
        request = RequestSpec(
            url=messages_url(model), headers=build_headers(model, context, options, api_key), body=payload
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
            raise
        try:
            await _read_stream(response, _StreamReader(builder, model, context.tools, oauth), model)
        finally:
            await response.aclose()

    return run_provider(model, options, body)


def _adaptive_effort(model: Model, level: ThinkingLevel) -> str:
    if level in ("minimal", "low"):
        return "low"
    if level == "xhigh":
        return "max" if supports_xhigh(model) else "high"
    return level


def stream_simple_anthropic(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Map the portable reasoning level: effort for adaptive models, a token budget for the others."""
    extra = dict(options.extra)
    max_tokens = simple_max_tokens(model, options)
    level = options.reasoning if supports_xhigh(model) else clamp_reasoning(options.reasoning)
    if level is None or not model.reasoning:
        extra["thinking_enabled"] = False
    elif supports_adaptive_thinking(model):
        extra.update(thinking_enabled=True, effort=_adaptive_effort(model, level))
    else:
        max_tokens, budget = adjust_max_tokens_for_thinking(
            max_tokens, model.max_tokens, level, options.thinking_budgets
        )
        extra.update(thinking_enabled=True, thinking_budget_tokens=budget)
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
