"""The Gemini API (``google-generative-ai``): ``streamGenerateContent`` over Server-Sent Events.

Gemini differs from the other wire APIs in three ways that shape this module. Thinking is marked
per part (``thought: true``) rather than by a block type, and opaque ``thoughtSignature`` values
ride on text, thinking and function-call parts; Gemini 3 refuses a replayed function call without
one, so calls that lost theirs (another model wrote them) carry a documented sentinel instead.
Function calls arrive whole, never as argument fragments. And a reply can be cut off by the
server's own judgement (``SAFETY``, ``RECITATION``, ...), which must surface as an error rather
than as a quietly truncated answer.

Provider-specific options for `stream` (``options.extra``):

- ``tool_choice``: ``"auto" | "none" | "any"`` (``"required"`` means ``"any"``).
- ``thinking``: ``{"enabled": bool, "budget_tokens": int, "level": str}``; ``budget_tokens`` -1
  lets the model decide and 0 turns thinking off; ``level`` (Gemini 3) is a wire value such as
  ``"LOW"`` or ``"HIGH"`` and wins over the budget. Only sent for models marked ``reasoning``.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypedDict

from msgspec.structs import replace

from pi.ai.api_key import resolve_api_key
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.http import (
    ProviderHTTPError,
    RequestSpec,
    TransportError,
    connection_lost,
    error_hint,
    iter_sse,
    open_model_stream,
    parse_json_data,
    stream_cut_short,
)
from pi.ai.options import (
    StreamOptions,
    ThinkingBudgets,
    apply_on_payload,
    clamp_reasoning,
    merge_headers,
    reasoning_level,
    simple_max_tokens,
)
from pi.ai.providers.google_messages import (
    SKIP_THOUGHT_SIGNATURE,
    convert_messages,
    convert_tools,
    is_valid_signature,
    normalize_tool_call_id,
    requires_tool_call_id,
)
from pi.ai.providers.output import OutputBuilder, run_provider
from pi.ai.registry import ApiProvider
from pi.ai.sanitize import sanitize_surrogates
from pi.ai.thinking import clamp_thinking_level
from pi.ai.transcript import resolve_transcript
from pi.ai.types import (
    Context,
    Model,
    TextContent,
    ThinkingContent,
    ThinkingLevel,
    ToolCall,
    Usage,
    now_ms,
)

API = "google-generative-ai"
DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"

TOOL_CHOICE_MODES: dict[str, str] = {"auto": "AUTO", "none": "NONE", "any": "ANY", "required": "ANY"}

_GEMINI3_PRO = re.compile(r"gemini-3(?:\.\d+)?-pro")
_GEMINI3_FLASH = re.compile(r"gemini-3(?:\.\d+)?-flash")

_BUDGETS_25_PRO: dict[str, int] = {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}
_BUDGETS_25_FLASH: dict[str, int] = {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}


class GoogleThinking(TypedDict, total=False):
    """The raw ``thinking`` option of `stream` (see the module docstring)."""

    enabled: bool
    budget_tokens: int
    level: str


# --- reasoning levels -----------------------------------------------------------------------------


def is_gemini3_pro(model_id: str) -> bool:
    return _GEMINI3_PRO.search(model_id.lower()) is not None


def is_gemini3_flash(model_id: str) -> bool:
    return _GEMINI3_FLASH.search(model_id.lower()) is not None


def gemini3_thinking_level(model_id: str, level: ThinkingLevel) -> str:
    """Gemini 3 Pro knows only LOW and HIGH; Flash takes all four levels. xhigh and max mean HIGH."""
    effort = clamp_reasoning(level) or "high"
    if is_gemini3_pro(model_id):
        return "LOW" if effort in ("minimal", "low") else "HIGH"
    return effort.upper()


def thinking_budget(model_id: str, level: ThinkingLevel, budgets: ThinkingBudgets | None = None) -> int:
    """Tokens of thinking for a pre-3 model: a custom budget, the 2.5 family's own scale, or -1 (dynamic).

    xhigh and max take the high budget, the largest of each scale.
    """
    effort = clamp_reasoning(level) or "high"
    custom = getattr(budgets, effort, None) if budgets is not None else None
    if custom is not None:
        return int(custom)
    lowered = model_id.lower()
    if "2.5-pro" in lowered:
        return _BUDGETS_25_PRO[effort]
    if "2.5-flash" in lowered:
        return _BUDGETS_25_FLASH[effort]
    return -1


_LEVEL_MODELS = re.compile(
    r"gemini-3(?:\.\d+)?-(?:pro|flash)|gemini-(?:[4-9]|[1-9]\d)|^gemini-flash(?:-lite)?-latest$|gemma-?4"
)
"""Models that take a named ``thinkingLevel`` rather than a token budget (Gemini 3 and later, Gemma 4)."""


def uses_thinking_level(model_id: str) -> bool:
    return _LEVEL_MODELS.search(model_id.lower()) is not None


def _mapped_level(model: Model, level: str) -> str:
    """The model's own name for `level` (its thinking-level map), as one of minimal..high."""
    mapped = (model.thinking_level_map or {}).get(level)
    value = mapped.lower() if isinstance(mapped, str) else level
    return value if value in ("minimal", "low", "medium", "high") else "high"


def simple_thinking(model: Model, level: ThinkingLevel | None, budgets: ThinkingBudgets | None) -> GoogleThinking:
    """The raw ``thinking`` option that a portable reasoning level stands for on this model.

    The level is clamped to the model's levels first (a model that always thinks turns ``off``
    into its lightest level).
    """
    on = reasoning_level(clamp_thinking_level(model, level) if level is not None else None)
    if on is None:
        return {"enabled": False}
    if model.thinking_level_map is not None and uses_thinking_level(model.id):
        return {"enabled": True, "level": _mapped_level(model, on).upper()}
    if is_gemini3_pro(model.id) or is_gemini3_flash(model.id) or uses_thinking_level(model.id):
        return {"enabled": True, "level": gemini3_thinking_level(model.id, on)}
    return {"enabled": True, "budget_tokens": thinking_budget(model.id, on, budgets)}


def thinking_config(model: Model, thinking: GoogleThinking | None) -> dict[str, Any] | None:
    """``generationConfig.thinkingConfig``, or None to leave the model's default in place."""
    if not thinking or not thinking.get("enabled") or not model.reasoning:
        return None
    config: dict[str, Any] = {"includeThoughts": True}
    level = thinking.get("level")
    budget = thinking.get("budget_tokens")
    if level:
        config["thinkingLevel"] = level.upper()
    elif budget is not None:
        config["thinkingBudget"] = budget
    return config


def build_request_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    context = resolve_transcript(context)
    body: dict[str, Any] = {"contents": convert_messages(model, list(context.messages))}
    if context.system_prompt:
        body["systemInstruction"] = {"parts": [{"text": sanitize_surrogates(context.system_prompt)}]}
    config: dict[str, Any] = {}
    if options.temperature is not None:
        config["temperature"] = options.temperature
    if options.max_tokens:
        config["maxOutputTokens"] = options.max_tokens
    thinking = thinking_config(model, options.extra.get("thinking"))
    if thinking is not None:
        config["thinkingConfig"] = thinking
    if config:
        body["generationConfig"] = config
    if context.tools:
        body["tools"] = convert_tools(context.tools)
        choice = options.extra.get("tool_choice")
        if choice is not None:
            mode = TOOL_CHOICE_MODES.get(str(choice).lower())
            if mode is None:
                raise ValueError(f"Unsupported tool_choice for {API}: {choice!r}; use one of auto, none or any.")
            body["toolConfig"] = {"functionCallingConfig": {"mode": mode}}
    return body


def stream_url(model: Model) -> str:
    base = (model.base_url or DEFAULT_BASE_URL).rstrip("/")
    return f"{base}/models/{model.id}:streamGenerateContent?alt=sse"


# --- errors ---------------------------------------------------------------------------------------


def describe_http_error(exc: ProviderHTTPError, model: Model) -> str:
    """``<status> <STATUS>: <message>`` from Google's error JSON, keeping the server's own wording.

    The wording matters: overflow detection looks for "input token count ... exceeds the maximum".
    """
    try:
        parsed = json.loads(exc.body)
    except ValueError:
        return str(exc)
    if isinstance(parsed, list) and parsed:
        parsed = parsed[0]
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if not isinstance(error, dict) or not error.get("message"):
        return str(exc)
    status = error.get("status")
    text = f"{exc.status} {status}: {error['message']}" if status else f"{exc.status} {error['message']}"
    hint = error_hint(exc.status, model.provider, model.id)
    return f"{text}\n{hint}" if hint else text


def _stream_error_text(error: Any) -> str:
    if isinstance(error, dict):
        code = error.get("code")
        status = error.get("status")
        message = error.get("message") or json.dumps(error)
        prefix = " ".join(str(x) for x in (code, status) if x)
        return f"{prefix}: {message}" if prefix else str(message)
    return str(error)


def _finish_error(model: Model, reason: str, detail: str | None) -> str:
    text = f"{model.provider} stopped the reply of {model.id} (finishReason {reason})"
    if detail:
        text += f": {detail}"
    return text + ". Rephrase the request or try again."


# --- the reply ------------------------------------------------------------------------------------


def apply_usage(usage: Usage, metadata: dict[str, Any]) -> None:
    """Fill `usage` from ``usageMetadata``.

    Unlike the TypeScript pi, which reports ``promptTokenCount`` as input, `input` here excludes the
    cached tokens (counted in `cache_read`), the meaning `Usage.input` has for every other provider.
    Thinking tokens are output, and `reasoning` says how many of them there were; the total is the
    server's own.
    """
    prompt = int(metadata.get("promptTokenCount") or 0)
    cached = int(metadata.get("cachedContentTokenCount") or 0)
    thoughts = int(metadata.get("thoughtsTokenCount") or 0)
    usage.input = max(0, prompt - cached)
    usage.cache_read = cached
    usage.cache_write = 0
    usage.reasoning = thoughts
    usage.output = int(metadata.get("candidatesTokenCount") or 0) + thoughts
    usage.total_tokens = int(metadata.get("totalTokenCount") or 0) or prompt + usage.output


class ReplyReader:
    """Turns ``GenerateContentResponse`` chunks into events on an OutputBuilder."""

    def __init__(self, builder: OutputBuilder) -> None:
        self.builder = builder
        self._calls = 0
        self.finished = False
        """A finishReason (or a blocked prompt) arrived; Gemini's last chunk always carries one."""

    def feed(self, chunk: dict[str, Any]) -> None:
        if "error" in chunk:
            raise RuntimeError(_stream_error_text(chunk["error"]))
        output = self.builder.output
        response_id = chunk.get("responseId")
        if isinstance(response_id, str) and response_id and output.response_id is None:
            output.response_id = response_id
        candidates = chunk.get("candidates") or []
        candidate = candidates[0] if candidates and isinstance(candidates[0], dict) else {}
        for part in (candidate.get("content") or {}).get("parts") or []:
            self._part(part)
        reason = candidate.get("finishReason")
        if reason:
            output.raw_stop_reason = str(reason)
            self._finish(str(reason), candidate.get("finishMessage"))
            self.finished = True
        block_reason = (chunk.get("promptFeedback") or {}).get("blockReason")
        if block_reason:
            self.finished = True
            output.stop_reason = "error"
            output.error_message = (
                f"{self.builder.model.provider} blocked the prompt sent to {self.builder.model.id} "
                f"(blockReason {block_reason}). Rephrase the request."
            )
        metadata = chunk.get("usageMetadata")
        if isinstance(metadata, dict):
            apply_usage(output.usage, metadata)

    def finish(self) -> None:
        """A reply holding a function call always asks for tool results, whatever ended it."""
        output = self.builder.output
        if not self.finished:
            model = self.builder.model
            raise stream_cut_short(
                model.provider, model.id, "a finishReason", "Google stream ended without a finish reason"
            )
        if any(isinstance(block, ToolCall) for block in output.content):
            output.stop_reason = "toolUse"
            output.error_message = None

    def _part(self, part: dict[str, Any]) -> None:
        signature = part.get("thoughtSignature") or None
        text = part.get("text")
        if isinstance(text, str):
            self._text(text, part.get("thought") is True, signature)
        call = part.get("functionCall")
        if isinstance(call, dict):
            self._function_call(call, signature)

    def _text(self, text: str, thought: bool, signature: str | None) -> None:
        builder = self.builder
        block = builder.open_block
        kind = ThinkingContent if thought else TextContent
        if not text:
            # An empty part may still carry the signature of the block it closes.
            if signature and isinstance(block, kind):
                self._sign(block, signature)
            return
        if thought:
            builder.thinking_delta(text)
        else:
            builder.text_delta(text)
        opened = builder.open_block
        if signature and opened is not None:
            self._sign(opened, signature)

    @staticmethod
    def _sign(block: TextContent | ThinkingContent | ToolCall, signature: str) -> None:
        if isinstance(block, ThinkingContent):
            block.thinking_signature = signature
        elif isinstance(block, TextContent):
            block.text_signature = signature

    def _function_call(self, call: dict[str, Any], signature: str | None) -> None:
        builder = self.builder
        name = str(call.get("name") or "")
        args = call.get("args")
        arguments: dict[str, Any] = args if isinstance(args, dict) else {}
        given = call.get("id")
        taken = any(isinstance(b, ToolCall) and b.id == given for b in builder.output.content)
        if not given or taken:
            self._calls += 1
            call_id = f"{name}_{now_ms()}_{self._calls}"
        else:
            call_id = str(given)
        tool_call = builder.start_tool_call(call_id, name, arguments)
        if signature:
            tool_call.thought_signature = signature
        builder.tool_call_delta(json.dumps(arguments, ensure_ascii=False))
        builder.end_block()

    def _finish(self, reason: str, detail: Any) -> None:
        output = self.builder.output
        if reason == "STOP":
            output.stop_reason = "stop"
        elif reason == "MAX_TOKENS":
            output.stop_reason = "length"
        else:
            output.stop_reason = "error"
            output.error_message = _finish_error(self.builder.model, reason, str(detail) if detail else None)


# --- entry points ---------------------------------------------------------------------------------


def stream_google(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream one reply; `start` is pushed only once the server has accepted the request."""

    async def body(builder: OutputBuilder) -> None:
        api_key = resolve_api_key(model, options)
        payload = await apply_on_payload(build_request_body(model, context, options), model, options)
        request = RequestSpec(
            url=stream_url(model),
            headers=merge_headers({"x-goog-api-key": api_key}, model.headers, options.headers),
            body=payload,
        )
        try:
            response = await open_model_stream(request, model, options)
        except ProviderHTTPError as exc:
            raise RuntimeError(describe_http_error(exc, model)) from exc
        reader = ReplyReader(builder)
        try:
            builder.start()
            async for event in iter_sse(response):
                if not event.data.strip():
                    continue
                chunk = parse_json_data(event.data)
                if not isinstance(chunk, dict):
                    raise ValueError(f"Unexpected stream frame from the server (not an object): {event.data[:200]}")
                reader.feed(chunk)
        except TransportError as exc:
            raise connection_lost(model.provider, model.id, exc) from exc
        finally:
            await response.aclose()
        reader.finish()

    return run_provider(model, options, body)


def stream_simple_google(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """`stream` with the portable reasoning level turned into Gemini's thinking settings."""
    thinking = simple_thinking(model, options.reasoning, options.thinking_budgets)
    simple = replace(
        options,
        max_tokens=simple_max_tokens(model, options, context),
        extra={**options.extra, "thinking": thinking},
    )
    return stream_google(model, context, simple)


PROVIDER = ApiProvider(api=API, stream=stream_google, stream_simple=stream_simple_google)

__all__ = [
    "API",
    "DEFAULT_BASE_URL",
    "PROVIDER",
    "SKIP_THOUGHT_SIGNATURE",
    "GoogleThinking",
    "ReplyReader",
    "apply_usage",
    "build_request_body",
    "convert_messages",
    "convert_tools",
    "describe_http_error",
    "gemini3_thinking_level",
    "is_gemini3_flash",
    "is_gemini3_pro",
    "is_valid_signature",
    "normalize_tool_call_id",
    "requires_tool_call_id",
    "simple_thinking",
    "stream_google",
    "stream_simple_google",
    "stream_url",
    "thinking_budget",
    "thinking_config",
]
