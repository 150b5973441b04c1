"""The `openai-codex-responses` wire API: the Responses dialect of the ChatGPT backend (Codex).

A ChatGPT Plus/Pro login's access token is a JWT; the backend wants the account id inside it
(claim ``https://api.openai.com/auth`` -> ``chatgpt_account_id``) in a ``chatgpt-account-id``
header, ``originator: pi`` on every request and ``OpenAI-Beta: responses=experimental`` on the SSE
endpoint ``<baseUrl>/codex/responses``. The body is a Responses body with Codex's fixed choices:
nothing stored, encrypted reasoning included, the session id as prompt cache key, automatic and
parallel tool calls, low text verbosity; the system prompt stays a leading developer item.

The stream speaks the Responses events, with three Codex differences handled before the shared
reader sees them: an ``error`` event fails the reply (``Codex error: ...``), ``response.failed``
carries its error's message, and ``response.done`` ends a reply like ``response.completed``.

Transport: ``options.extra["transport"]``. ``"sse"`` posts to the endpoint and reads server-sent
events; ``"websocket"`` and ``"websocket-cached"`` use the WebSocket transport (`codex_websocket`);
``"auto"`` (the default) tries the WebSocket and, when it fails before the reply starts, sends the
request over SSE, as it does for the rest of that session. The fallback is recorded on the reply
as a ``provider_transport_failure`` diagnostic.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

from msgspec.structs import replace

from pi.ai.api_key import resolve_api_key
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.http import ProviderHTTPError, RequestSpec, open_model_stream
from pi.ai.options import StreamOptions, apply_on_payload, effort_level, merge_headers, simple_max_tokens
from pi.ai.providers.grammar_tools import grammar_inputs, supports_grammar_tools
from pi.ai.providers.openai_responses_messages import convert_responses_messages, convert_responses_tools
from pi.ai.providers.output import OutputBuilder, run_provider
from pi.ai.providers.responses_driver import drive_sse_reply
from pi.ai.registry import ApiProvider
from pi.ai.transcript import resolve_transcript
from pi.ai.types import AssistantDiagnostic, Context, Model

API = "openai-codex-responses"
DEFAULT_BASE_URL = "https://chatgpt.com/backend-api"
JWT_CLAIM = "https://api.openai.com/auth"
OPENAI_BETA_SSE = "responses=experimental"
MIN_OUTPUT_TOKENS = 16
"""The backend refuses a smaller `max_output_tokens`."""
CODEX_STATUSES = frozenset({"completed", "incomplete", "failed", "cancelled", "queued", "in_progress"})
TRANSPORTS = frozenset({"auto", "sse", "websocket", "websocket-cached"})
UNKNOWN_TRANSPORT = (
    'Unknown transport "{transport}": set "transport" in settings.json to one of '
    '"auto", "sse", "websocket" or "websocket-cached".'
)
USE_SSE_HINT = 'To use server-sent events instead, set "transport": "auto" or "sse" in settings.json.'
WEBSOCKETS_MISSING = (
    'The "{transport}" transport needs the Python package "websockets": install it '
    '(pip install websockets), or set "transport": "sse" in settings.json.'
)


class CodexApiError(RuntimeError):
    """The backend reported a failure inside the stream (an ``error`` or ``response.failed`` event)."""


def account_id_from_token(token: str) -> str:
    """The ChatGPT account id inside the access token; raises ValueError when it has none."""
    parts = token.split(".")
    try:
        if len(parts) != 3:
            raise ValueError("not a JWT")
        payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
        value = payload.get(JWT_CLAIM, {}).get("chatgpt_account_id") if isinstance(payload, dict) else None
    except (ValueError, AttributeError, binascii.Error):
        value = None
    if not isinstance(value, str) or not value:
        raise ValueError("Failed to extract accountId from token")
    return value


def codex_url(base_url: str) -> str:
    """``<base>/codex/responses``, accepting a base that already ends in ``/codex`` or the full path."""
    base = (base_url.strip() or DEFAULT_BASE_URL).rstrip("/")
    if base.endswith("/codex/responses"):
        return base
    if base.endswith("/codex"):
        return f"{base}/responses"
    return f"{base}/codex/responses"


def _effort(model: Model, requested: str) -> str | None:
    """The wire effort for an already mapped level; ``none`` is spelled as the model's ``off`` mapping."""
    if requested != "none":
        return requested
    mapping = model.thinking_level_map or {}
    off = mapping.get("off", "none")
    return off if isinstance(off, str) else None


def build_request_body(
    model: Model, context: Context, options: StreamOptions, grammar: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The JSON body of one request. From ``options.extra``: ``reasoning_effort``, ``reasoning_summary``,
    ``text_verbosity``, ``tool_choice``, ``service_tier``.

    `grammar` is `grammar_inputs` of `context` when the caller has it already (it reads the reply
    with the same map)."""
    extra = options.extra
    compat = model.compat
    mid_convo = bool(compat is not None and compat.supports_mid_convo_system_messages)
    grammar_supported = supports_grammar_tools(model)
    if grammar is None:
        grammar = grammar_inputs(context, grammar_supported)
    context = resolve_transcript(context, mid_convo)
    body: dict[str, Any] = {
        "model": model.id,
        "store": False,
        "stream": True,
        "input": convert_responses_messages(model, context, grammar_inputs=grammar),
        "text": {"verbosity": extra.get("text_verbosity") or "low"},
        "include": ["reasoning.encrypted_content"],
        "prompt_cache_key": options.session_id,
        "tool_choice": extra.get("tool_choice") or "auto",
        "parallel_tool_calls": True,
    }
    if options.max_tokens and not (compat is not None and compat.supports_max_output_tokens is False):
        body["max_output_tokens"] = max(options.max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if extra.get("service_tier") is not None:
        body["service_tier"] = extra["service_tier"]
    if context.tools:
        body["tools"] = convert_responses_tools(context.tools, grammar_supported=grammar_supported)
    requested = extra.get("reasoning_effort")
    if requested is not None:
        effort = _effort(model, str(requested))
        if effort is not None:
            body["reasoning"] = {"effort": effort, "summary": extra.get("reasoning_summary") or "auto"}
    elif model.reasoning:
        off = (model.thinking_level_map or {}).get("off", "none")
        if off is not None:
            body["reasoning"] = {"effort": off}
    return body


def build_headers(model: Model, options: StreamOptions, token: str, account_id: str) -> dict[str, str]:
    """Model and caller headers over ``originator``; the credential and SSE headers always as Codex wants."""
    headers = merge_headers({"originator": "pi"}, model.headers, options.headers)
    fixed = {
        "Authorization": f"Bearer {token}",
        "chatgpt-account-id": account_id,
        "OpenAI-Beta": OPENAI_BETA_SSE,
        "accept": "text/event-stream",
        "content-type": "application/json",
    }
    if options.session_id:
        fixed["session-id"] = options.session_id
        fixed["x-client-request-id"] = options.session_id
    lowered = {key.lower() for key in fixed}
    out = {key: value for key, value in headers.items() if key.lower() not in lowered}
    return {**out, **fixed}


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


async def codex_events(events: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
    """Responses events with Codex's own failure and end events turned into the shared ones."""
    async for event in events:
        kind = event.get("type")
        if kind == "error":
            nested = _object(event.get("error"))
            message = event.get("message") or nested.get("message") or event.get("code") or nested.get("code")
            raise CodexApiError(f"Codex error: {message or json.dumps(event)}")
        if kind == "response.failed":
            error = _object(_object(event.get("response")).get("error"))
            raise CodexApiError(str(error.get("message") or "Codex response failed"))
        if kind in ("response.done", "response.completed", "response.incomplete"):
            response = dict(_object(event.get("response")))
            status = response.get("status")
            response["status"] = status if status in CODEX_STATUSES else None
            if response["status"] is None and kind == "response.incomplete":
                response["status"] = "incomplete"
            yield {**event, "type": "response.completed", "response": response}
            return
        yield event


def usage_limit_message(exc: ProviderHTTPError) -> str | None:
    """The ChatGPT usage-limit wording for a 429 or a usage-limit error code, else None."""
    try:
        error = json.loads(exc.body).get("error")
    except (ValueError, AttributeError):
        error = None
    code = str(error.get("code") or error.get("type") or "") if isinstance(error, dict) else ""
    limited = any(word in code for word in ("usage_limit_reached", "usage_not_included", "rate_limit_exceeded"))
    if not limited and exc.status != 429:
        return None
    plan = error.get("plan_type") if isinstance(error, dict) else None
    suffix = f" ({str(plan).lower()} plan)" if plan else ""
    return f"You have hit your ChatGPT usage limit{suffix}."


def stream(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream one reply over the transport the options ask for; every failure ends the stream as an error event."""

    async def body(builder: OutputBuilder) -> None:
        transport = options.extra.get("transport") or "auto"
        if transport not in TRANSPORTS:
            raise ValueError(UNKNOWN_TRANSPORT.format(transport=transport))
        token = resolve_api_key(model, options)
        account = account_id_from_token(token)
        grammar = grammar_inputs(context, supports_grammar_tools(model))
        payload = await apply_on_payload(build_request_body(model, context, options, grammar), model, options)
        request = RequestSpec(
            url=codex_url(model.base_url), headers=build_headers(model, options, token, account), body=payload
        )
        if transport != "sse" and not (transport == "auto" and _fell_back(options.session_id)):
            failure = await _try_websocket(builder, options, request, transport, account, grammar)
            if failure is None:
                return
            builder.output.diagnostics = [*(builder.output.diagnostics or []), failure]
        await _stream_sse(builder, model, options, request, grammar)

    return run_provider(model, options, body)


def _fell_back(session_id: str | None) -> bool:
    """Whether this session's WebSocket already failed under ``auto`` (then it stays on SSE)."""
    if not session_id:
        return False
    from pi.ai.providers.codex_socket_cache import CACHE

    return session_id in CACHE.fallback


async def _try_websocket(
    builder: OutputBuilder,
    options: StreamOptions,
    request: RequestSpec,
    transport: str,
    account: str,
    grammar: dict[str, str],
) -> AssistantDiagnostic | None:
    """The reply over the WebSocket; under ``auto`` a failure before it started is returned, not raised."""
    try:
        from pi.ai.providers.codex_websocket import WebSocketUnavailable, stream_websocket
    except ImportError as exc:
        if transport != "auto":
            raise RuntimeError(WEBSOCKETS_MISSING.format(transport=transport)) from exc
        return _fallback_diagnostic(transport, WEBSOCKETS_MISSING.format(transport=transport))
    try:
        await stream_websocket(
            builder,
            options,
            http_url=request.url,
            sse_headers=request.headers,
            payload=request.body,
            transport=transport,
            account_id=account,
            adapt=codex_events,
            grammar_inputs=grammar,
        )
    except WebSocketUnavailable as exc:
        if transport != "auto":
            raise RuntimeError(f"{exc}. {USE_SSE_HINT}") from exc
        if options.session_id:
            from pi.ai.providers.codex_socket_cache import CACHE

            CACHE.fallback.add(options.session_id)
        return _fallback_diagnostic(transport, str(exc))
    return None


def _fallback_diagnostic(transport: str, message: str) -> AssistantDiagnostic:
    return AssistantDiagnostic(
        type="provider_transport_failure",
        timestamp=int(time.time() * 1000),
        error={"message": message},
        details={"configuredTransport": transport, "fallbackTransport": "sse", "phase": "before_message_stream_start"},
    )


async def _stream_sse(
    builder: OutputBuilder, model: Model, options: StreamOptions, request: RequestSpec, grammar: dict[str, str]
) -> None:
    try:
        response = await open_model_stream(request, model, options)
    except ProviderHTTPError as exc:
        friendly = usage_limit_message(exc)
        if friendly is None:
            raise
        raise ProviderHTTPError(exc.status, exc.body, friendly) from exc
    await drive_sse_reply(builder, response, request.body, codex_events, grammar)


def stream_simple(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """The portable reasoning level as ``reasoning_effort``; without one a reasoning model gets its ``off`` effort."""
    level = effort_level(model, options.reasoning)
    extra = {key: value for key, value in options.extra.items() if key != "reasoning_effort"}
    if level is not None and model.reasoning:
        extra["reasoning_effort"] = level
    max_tokens = simple_max_tokens(model, options, context)
    return stream(model, context, replace(options, max_tokens=max_tokens, extra=extra))


PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple)

__all__ = [
    "API",
    "DEFAULT_BASE_URL",
    "OPENAI_BETA_SSE",
    "PROVIDER",
    "CodexApiError",
    "account_id_from_token",
    "build_headers",
    "build_request_body",
    "codex_events",
    "codex_url",
    "stream",
    "stream_simple",
    "usage_limit_message",
]
