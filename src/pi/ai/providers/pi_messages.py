"""The pi-messages wire API: pi's own message protocol, spoken by the Radius gateway.

One request is ``POST <baseUrl>/messages`` with the JSON body ``{model, context, options}``: the
model id, the conversation exactly as pi holds it (system prompt, messages, tools) and a few
request options (temperature, maxTokens, reasoning level, cacheRetention, sessionId, toolChoice).
The answer is an event stream whose frames are pi's own reply events (``start``, ``text_*``,
``thinking_*``, ``toolcall_*``) each naming its ``contentIndex``, ended by ``done`` (stop reason,
usage, response id) or ``error`` (stop reason, usage, error message). The gateway does the
translation to each model's own API, so nothing is converted here.

The usage in the final frame is what the gateway billed, so its cost is kept rather than
re-estimated from the catalog. A body that ends before its ``done`` or ``error`` frame is a lost
reply, reported in words the retry logic treats as transient; it is never taken as the answer.
Any backend that implements the protocol can be used through models.json (``"api": "pi-messages"``).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import AsyncIterator
from http import HTTPStatus
from typing import Any

from msgspec.structs import replace

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
from pi.ai.options import StreamOptions, apply_on_payload, merge_headers, reasoning_level
from pi.ai.providers.output import OutputBuilder, run_provider
from pi.ai.registry import ApiProvider
from pi.ai.types import AssistantDiagnostic, Context, Model, TextContent, ThinkingContent, ToolCall, Usage

API = "pi-messages"
FINAL_FRAMES = "its done or error event"
MAX_DIAGNOSTIC_BODY = 8192


class PiMessagesResponseError(Exception):
    """A non-2xx answer from a pi-messages server, worded from its ``{"error": {message, code}}`` body."""

    def __init__(self, message: str, code: str | None, details: dict[str, Any]) -> None:
        super().__init__(message)
        self.code = code
        self.details = details


class BilledOutputBuilder(OutputBuilder):
    """An OutputBuilder whose usage may carry the cost the server billed; that cost is kept as it is."""

    billed = False

    def finish_usage(self) -> None:
        if self.billed:
            self.output.usage.cost.total_from_provider = True
            return
        super().finish_usage()


# --- request ----------------------------------------------------------------------------------------


def _user_agent() -> str:
    from pi.version import __version__

    runtime = f"python/{platform.python_version()}"
    return f"pi/{__version__} ({sys.platform}; {runtime}; {platform.machine() or 'unknown'})"


def _cache_retention(options: StreamOptions) -> str | None:
    """The caller's retention; unset lets the server choose, except the legacy ``PI_CACHE_RETENTION=long``."""
    if options.cache_retention is not None:
        return options.cache_retention
    return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else None


def build_payload(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """The request body; options that are not set are left out, as the protocol's JSON leaves them out."""
    wanted: dict[str, Any] = {
        "temperature": options.temperature,
        "maxTokens": options.max_tokens,
        "reasoning": reasoning_level(options.reasoning),
        "cacheRetention": _cache_retention(options),
        "sessionId": options.session_id,
        "toolChoice": options.extra.get("tool_choice"),
    }
    return {
        "model": model.id,
        "context": context.model_dump(mode="json", by_alias=True, exclude_none=True),
        "options": {key: value for key, value in wanted.items() if value is not None},
    }


def request_url(model: Model, options: StreamOptions) -> str:
    """``<baseUrl>/messages`` (``?debug=1`` when the caller asks for the server's debug output)."""
    base = options.extra.get("base_url")
    if not isinstance(base, str) or not base:
        base = model.base_url
        if model.provider == "radius":
            from pi.ai.providers.radius import model_base_url

            base = model_base_url(model)
    url = f"{base.rstrip('/')}/messages"
    return f"{url}?debug=1" if options.extra.get("debug") else url


def _api_key(model: Model, options: StreamOptions) -> str:
    if options.api_key:
        return options.api_key
    from pi.ai.api_key import MissingApiKeyError, resolve_api_key

    if model.provider != "radius":
        return resolve_api_key(model, options)
    from pi.ai.env_api_keys import get_env_api_key

    key = get_env_api_key(model.provider)
    if not key:
        raise MissingApiKeyError(
            'No API key for provider: radius\nRun "/login radius" (or "pi auth login radius"), or set RADIUS_API_KEY.'
        )
    return key


def response_error(model: Model, url: str, failure: ProviderHTTPError) -> PiMessagesResponseError:
    """``<status> <reason>: <server message> (<code>)``, with the details kept for the reply's diagnostics."""
    error: Any = None
    try:
        parsed = json.loads(failure.body)
        error = parsed.get("error") if isinstance(parsed, dict) else None
    except ValueError:
        pass
    error = error if isinstance(error, dict) else None
    message = error.get("message") if error is not None else None
    code = error.get("code") if error is not None else None
    try:
        reason = HTTPStatus(failure.status).phrase
    except ValueError:
        reason = ""
    text = message if isinstance(message, str) else failure.body.strip()
    suffix = f" ({code})" if isinstance(code, str) else ""
    details: dict[str, Any] = {
        "version": 1,
        "provider": model.provider,
        "model": model.id,
        "url": url,
        "status": failure.status,
        "statusText": reason,
        "timestampMs": int(time.time() * 1000),
    }
    if error is not None:
        details["error"] = error
    else:
        details["body"] = failure.body[:MAX_DIAGNOSTIC_BODY]
    if failure.status in (401, 403) and model.provider == "radius":
        suffix += '\nRadius did not accept the credential: run "/login radius" again, or check RADIUS_API_KEY.'
    return PiMessagesResponseError(
        f"{failure.status} {reason}: {text}{suffix}", code if isinstance(code, str) else None, details
    )


# --- reply ------------------------------------------------------------------------------------------


class PiMessagesReader:
    """Applies the server's reply events to one `BilledOutputBuilder`; `finished` once the final one came."""

    def __init__(self, builder: BilledOutputBuilder) -> None:
        self.builder = builder
        self.finished = False

    def _index(self, event: dict[str, Any], kind: str) -> int:
        """The event's ``contentIndex``: a start adds the next block, any other event names the open one."""
        index = event.get("contentIndex")
        kind_type = event.get("type")
        expected = len(self.builder.output.content) if str(kind_type).endswith("_start") else self.builder.index
        if not isinstance(index, int) or isinstance(index, bool) or index != expected:
            raise ValueError(f"Invalid contentIndex {json.dumps(index)} in pi-messages {kind_type} event")
        if not str(kind_type).endswith("_start") and not self._open_is(kind):
            raise ValueError(f"Invalid contentIndex {json.dumps(index)} in pi-messages {kind_type} event")
        return index

    def _open_is(self, kind: str) -> bool:
        block = self.builder.open_block
        wanted = {"text": TextContent, "thinking": ThinkingContent, "toolcall": ToolCall}[kind]
        return isinstance(block, wanted)

    def apply(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind in ("done", "error"):
            self._finish(event)
        elif kind == "start":
            self.builder.start()
        elif isinstance(kind, str) and kind.startswith(("text_", "thinking_", "toolcall_")):
            family, _, step = kind.partition("_")
            self._index(event, family)
            getattr(self, f"_{family}_{step}")(event)
        # Other event types are for newer clients; they change nothing here.

    def _text_start(self, event: dict[str, Any]) -> None:
        self.builder.start_text()

    def _text_delta(self, event: dict[str, Any]) -> None:
        self.builder.text_delta(str(event.get("delta", "")))

    def _text_end(self, event: dict[str, Any]) -> None:
        block = self.builder.open_block
        assert isinstance(block, TextContent)
        if isinstance(event.get("content"), str):
            block.text = event["content"]
        if isinstance(event.get("contentSignature"), str):
            block.text_signature = event["contentSignature"]
        self.builder.end_block()

    def _thinking_start(self, event: dict[str, Any]) -> None:
        self.builder.start_thinking()

    def _thinking_delta(self, event: dict[str, Any]) -> None:
        self.builder.thinking_delta(str(event.get("delta", "")))

    def _thinking_end(self, event: dict[str, Any]) -> None:
        block = self.builder.open_block
        assert isinstance(block, ThinkingContent)
        if isinstance(event.get("content"), str):
            block.thinking = event["content"]
        if isinstance(event.get("contentSignature"), str):
            block.thinking_signature = event["contentSignature"]
        if isinstance(event.get("redacted"), bool):
            block.redacted = event["redacted"]
        self.builder.end_block()

    def _toolcall_start(self, event: dict[str, Any]) -> None:
        self.builder.start_tool_call(str(event.get("id", "")), str(event.get("toolName", "")))

    def _toolcall_delta(self, event: dict[str, Any]) -> None:
        self.builder.tool_call_delta(str(event.get("delta", "")))

    def _toolcall_end(self, event: dict[str, Any]) -> None:
        block = self.builder.open_block
        assert isinstance(block, ToolCall)
        final = event.get("toolCall")
        if isinstance(final, dict):
            if isinstance(final.get("id"), str):
                block.id = final["id"]
            if isinstance(final.get("name"), str):
                block.name = final["name"]
            if isinstance(final.get("thoughtSignature"), str):
                block.thought_signature = final["thoughtSignature"]
            if isinstance(final.get("arguments"), dict):
                self.builder.replace_tool_arguments(json.dumps(final["arguments"]))
        self.builder.end_block()

    def _finish(self, event: dict[str, Any]) -> None:
        self.finished = True
        builder = self.builder
        builder.end_block()
        output = builder.output
        usage = event.get("usage")
        if isinstance(usage, dict):
            output.usage = Usage.model_validate(usage)
            builder.billed = isinstance(usage.get("cost"), dict)
        for field, attr in (("responseId", "response_id"), ("responseModel", "response_model")):
            if isinstance(event.get(field), str):
                setattr(output, attr, event[field])
        level = event.get("providerThinkingLevel")
        if isinstance(level, (str, int)) and not isinstance(level, bool):
            output.provider_thinking_level = str(level)
        rewrite = event.get("rewrite")
        if isinstance(rewrite, dict):
            diagnostic = AssistantDiagnostic(
                type="pi_messages_rewrite", timestamp=int(time.time() * 1000), details=dict(rewrite)
            )
            output.diagnostics = [*(output.diagnostics or []), diagnostic]
        reason = event.get("reason")
        if event.get("type") == "error":
            message = event.get("errorMessage")
            output.stop_reason = "aborted" if reason == "aborted" else "error"
            output.error_message = message if isinstance(message, str) and message else "The server reported an error"
            return
        if reason not in ("stop", "length", "toolUse"):
            raise ValueError(f"Unknown stop reason {json.dumps(reason)} in pi-messages done event")
        output.stop_reason = reason


async def _frames(response: Response) -> AsyncIterator[dict[str, Any]]:
    async for sse in iter_sse(response):
        if sse.data.strip() == "[DONE]":
            continue
        frame = parse_json_data(sse.data)
        if isinstance(frame, dict):
            yield frame


async def read_reply(builder: BilledOutputBuilder, response: Response) -> None:
    """Apply every frame up to the final one; a body that ends first is a lost reply."""
    model = builder.model
    reader = PiMessagesReader(builder)
    frames = _frames(response)
    try:
        async for frame in frames:
            reader.apply(frame)
            if reader.finished:
                break
        if not reader.finished:
            raise stream_cut_short(
                model.provider, model.id, FINAL_FRAMES, f"{model.provider} stream ended without a terminal event"
            )
        await finish_stream(frames)
    except TransportError as exc:
        raise connection_lost(model.provider, model.id, exc) from exc
    finally:
        await response.aclose()


# --- entry points -----------------------------------------------------------------------------------


def stream(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream one reply; every failure (no key, HTTP error, error frame, cut stream, abort) ends it as an event."""

    async def body(builder: OutputBuilder) -> None:
        assert isinstance(builder, BilledOutputBuilder)
        key = _api_key(model, options)
        url = request_url(model, options)
        headers = merge_headers(
            {"User-Agent": _user_agent()},
            {"authorization": f"Bearer {key}", "accept": "text/event-stream", "content-type": "application/json"},
            model.headers,
            options.headers,
        )
        payload = await apply_on_payload(build_payload(model, context, options), model, options)
        try:
            response = await open_model_stream(RequestSpec(url=url, headers=headers, body=payload), model, options)
        except ProviderHTTPError as failure:
            error = response_error(model, url, failure)
            builder.output.diagnostics = [
                *(builder.output.diagnostics or []),
                AssistantDiagnostic(
                    type="pi_messages_response_failure",
                    timestamp=int(time.time() * 1000),
                    error={
                        "name": "PiMessagesResponseError",
                        "message": str(error),
                        **({"code": error.code} if error.code else {}),
                    },
                    details=error.details,
                ),
            ]
            raise error from None
        await read_reply(builder, response)

    return run_provider(model, options, body, builder_type=BilledOutputBuilder)


def stream_simple(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """The same request: the portable reasoning level is the protocol's own, the server maps it per model."""
    return stream(model, context, replace(options))


PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple)

__all__ = [
    "API",
    "PROVIDER",
    "BilledOutputBuilder",
    "PiMessagesReader",
    "PiMessagesResponseError",
    "build_payload",
    "read_reply",
    "request_url",
    "response_error",
    "stream",
    "stream_simple",
]
