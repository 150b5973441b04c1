"""The WebSocket transport of the `openai-codex-responses` API.

The ChatGPT backend also serves ``<baseUrl>/codex/responses`` as a WebSocket (``wss://``, or
``ws://`` for an ``http://`` base) when the upgrade request carries ``OpenAI-Beta:
responses_websockets=2026-02-06``. The client sends one text message per request, the Responses
body with ``"type": "response.create"``; the server answers with one JSON text message per stream
event, the same events SSE carries, and keeps the connection open for the next request.

Until the first event of a reply arrives nothing has been shown, so a failure up to there (no
upgrade, a connect timeout, a dropped connection) raises `WebSocketUnavailable`, which ``auto``
answers by sending the request over SSE. Once the reply has started, a closed connection fails the
reply (``WebSocket closed <code> <reason>``); it is not sent again.

Recovered before the reply starts: a kept connection that turns out dead is replaced once; a
``previous_response_not_found`` answer to a continued request is answered by sending the whole
request; ``websocket_connection_limit_reached`` gets one fresh connection.

`websockets` is imported here, and this module only when a request uses the WebSocket.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any

from msgspec import Struct
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from pi.ai.http_response import Headers
from pi.ai.options import StreamOptions
from pi.ai.providers.codex_socket_cache import CACHE, Continuation, Lease, Socket, continued_body, snapshot
from pi.ai.providers.openai_responses_messages import convert_responses_messages
from pi.ai.providers.output import OutputBuilder
from pi.ai.providers.responses_driver import EventAdapter, Events, read_reply
from pi.ai.types import AssistantDiagnostic, AssistantMessage, Context, Model
from pi.ai.wire_json import json_text

OPENAI_BETA_WEBSOCKETS = "responses_websockets=2026-02-06"
DEFAULT_CONNECT_TIMEOUT_MS = 15_000
DEFAULT_READ_TIMEOUT_S = 600.0
"""The longest wait for the next event when the request sets no timeout (as for SSE)."""
CONTINUING = frozenset({"auto", "websocket-cached"})
"""The transports that send only new input with ``previous_response_id``."""


class WebSocketUnavailable(Exception):
    """The WebSocket failed before any of the reply arrived; the request may go over SSE instead."""


class WebSocketLost(ConnectionError):
    """The WebSocket failed while the reply was streaming; the reply fails (it is not sent again)."""


def websocket_url(http_url: str) -> str:
    """The WebSocket form of an http(s) endpoint URL."""
    if http_url.startswith("https://"):
        return "wss://" + http_url[len("https://") :]
    if http_url.startswith("http://"):
        return "ws://" + http_url[len("http://") :]
    return http_url


def websocket_headers(sse_headers: dict[str, str], request_id: str) -> dict[str, str]:
    """The SSE request's headers for the upgrade: no body headers, the WebSocket beta, the request id."""
    dropped = {"accept", "content-type", "openai-beta", "session-id", "x-client-request-id"}
    headers = {key: value for key, value in sse_headers.items() if key.lower() not in dropped}
    headers["OpenAI-Beta"] = OPENAI_BETA_WEBSOCKETS
    headers["x-client-request-id"] = request_id
    headers["session-id"] = request_id
    return headers


def connect_timeout_ms(options: StreamOptions) -> int:
    value = options.extra.get("websocket_connect_timeout_ms")
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else DEFAULT_CONNECT_TIMEOUT_MS
    )


async def _open(url: str, headers: dict[str, str], timeout_ms: int) -> ClientConnection:
    try:
        return await connect(
            url,
            additional_headers=headers,
            open_timeout=timeout_ms / 1000 if timeout_ms > 0 else None,
            max_size=None,
        )
    except TimeoutError as exc:
        raise WebSocketUnavailable(f"WebSocket connect timeout after {timeout_ms}ms") from exc
    except InvalidStatus as exc:
        status = exc.response.status_code
        raise WebSocketUnavailable(f"WebSocket upgrade refused: the server answered HTTP {status}") from exc
    except (InvalidHandshake, OSError) as exc:
        raise WebSocketUnavailable(f"WebSocket connection failed: {exc or type(exc).__name__}") from exc


def _closed_message(exc: ConnectionClosed) -> str:
    frame = exc.rcvd
    if frame is None:
        return "WebSocket closed without a close frame"
    return f"WebSocket closed {frame.code} {frame.reason}".rstrip()


def _parse(message: str | bytes) -> dict[str, Any]:
    text = message.decode("utf-8", errors="replace") if isinstance(message, bytes) else message
    try:
        event = json.loads(text)
    except ValueError:
        event = None
    if not isinstance(event, dict):
        raise ValueError(f"Malformed WebSocket message from the server (not a JSON object): {text[:200]}")
    return event


async def _receive(socket: Socket, timeout_s: float) -> dict[str, Any]:
    async with asyncio.timeout(timeout_s):
        return _parse(await socket.recv())


def _error_code(event: dict[str, Any]) -> str:
    for holder in (event, event.get("error"), (event.get("response") or {}).get("error")):
        if isinstance(holder, dict) and isinstance(holder.get("code"), str) and holder["code"]:
            return str(holder["code"])
    return ""


class _Started(Struct):
    lease: Lease
    first: dict[str, Any]
    sent: dict[str, Any]


class _Attempt(Struct):
    url: str
    headers: dict[str, str]
    key: tuple[str, str] | None
    body: dict[str, Any]
    continuing: bool
    timeout_ms: int
    read_timeout_s: float


async def _lease(attempt: _Attempt) -> Lease:
    lease, may_keep = CACHE.take(attempt.key)
    if lease is not None:
        return lease
    socket = await _open(attempt.url, attempt.headers, attempt.timeout_ms)
    if may_keep and attempt.key is not None:
        return CACHE.keep(attempt.key, socket)
    return Lease(socket, False)


async def _start(attempt: _Attempt) -> _Started:
    """Send the request and wait for its first event, recovering what can be recovered before the reply."""
    retry_limit = retry_missing = True
    while True:
        lease = await _lease(attempt)
        sent = continued_body(attempt.body, lease.continuation) if attempt.continuing else None
        request = sent if sent is not None else attempt.body
        try:
            await lease.socket.send(json_text({"type": "response.create", **request}))
            first = await _receive(lease.socket, attempt.read_timeout_s)
        except (ConnectionClosed, OSError, TimeoutError) as exc:
            lease.release(keep=False)
            if lease.reused:
                continue  # a kept connection the server had dropped: one fresh connection
            message = _closed_message(exc) if isinstance(exc, ConnectionClosed) else f"WebSocket failed: {exc}"
            raise WebSocketUnavailable(message) from exc
        except BaseException:
            lease.release(keep=False)
            raise
        code = _error_code(first)
        if code == "previous_response_not_found" and sent is not None and retry_missing:
            retry_missing = False
            CACHE.forget_continuation(lease.key)
            lease.release(keep=False)
            continue
        if code == "websocket_connection_limit_reached":
            lease.release(keep=False)
            if retry_limit:
                retry_limit = False
                continue
            raise WebSocketUnavailable("Codex error: websocket_connection_limit_reached")
        return _Started(lease, first, request)


async def _events(socket: Socket, first: dict[str, Any], timeout_s: float, on_frame: Any) -> Events:
    """The reply's events, `first` included; ``on_frame`` (when callable) sees each before it is read."""
    event = first
    while True:
        if callable(on_frame):
            shown = on_frame(event)
            if inspect.isawaitable(shown):
                await shown
        yield event
        try:
            event = await _receive(socket, timeout_s)
        except ConnectionClosed as exc:
            raise WebSocketLost(_closed_message(exc)) from exc
        except TimeoutError as exc:
            raise WebSocketLost(f"WebSocket timed out waiting for the next event ({timeout_s:g}s)") from exc


def _capture_id(builder: OutputBuilder, events: Events) -> Events:
    async def capture() -> AsyncIterator[dict[str, Any]]:
        async for event in events:
            response = event.get("response")
            if isinstance(response, dict) and isinstance(response.get("id"), str) and response["id"]:
                builder.output.response_id = response["id"]
            yield event

    return capture()


async def _report_handshake(lease: Lease, options: StreamOptions) -> None:
    """Hand ``options.extra["on_response"]`` the upgrade's status and headers, as SSE requests do theirs."""
    on_response = options.extra.get("on_response")
    response = getattr(lease.socket, "response", None)
    if not callable(on_response) or response is None:
        return
    try:
        await on_response(response.status_code, Headers(list(response.headers.raw_items())))
    except BaseException:
        lease.release(keep=False)
        raise


def _lost_diagnostic(message: str) -> AssistantDiagnostic:
    details = {"configuredTransport": "auto", "fallbackTransport": "sse", "phase": "after_message_stream_start"}
    return AssistantDiagnostic(
        type="provider_transport_failure",
        timestamp=int(time.time() * 1000),
        error={"message": message},
        details=details,
    )


def _reply_items(model: Model, reply: AssistantMessage, grammar: Mapping[str, str]) -> list[dict[str, Any]]:
    """The reply as the next request's input repeats it.

    Converted on its own, a reply's tool calls have no results yet and get placeholder outputs;
    those are not part of the reply (the real results follow it), so they are left out.
    """
    items = convert_responses_messages(
        model, Context(messages=[reply]), include_system_prompt=False, grammar_inputs=grammar
    )
    return [item for item in items if item.get("type") not in ("function_call_output", "custom_tool_call_output")]


async def stream_websocket(
    builder: OutputBuilder,
    options: StreamOptions,
    *,
    http_url: str,
    sse_headers: dict[str, str],
    payload: dict[str, Any],
    transport: str,
    account_id: str,
    adapt: EventAdapter,
    grammar_inputs: Mapping[str, str] | None = None,
) -> None:
    """Stream one reply over the WebSocket into `builder`; raises `WebSocketUnavailable` before it starts."""
    session_id = options.session_id
    attempt = _Attempt(
        url=websocket_url(http_url),
        headers=websocket_headers(sse_headers, session_id or str(uuid.uuid4())),
        key=(session_id, account_id) if session_id else None,
        body=snapshot(payload),
        continuing=transport in CONTINUING,
        timeout_ms=connect_timeout_ms(options),
        read_timeout_s=options.timeout_s or DEFAULT_READ_TIMEOUT_S,
    )
    started = await _start(attempt)
    lease = started.lease
    await _report_handshake(lease, options)
    events = _capture_id(
        builder, _events(lease.socket, started.first, attempt.read_timeout_s, options.extra.get("on_frame"))
    )
    try:
        await read_reply(builder, events, payload, adapt, grammar_inputs)
    except WebSocketLost as exc:
        lease.release(keep=False)
        if transport == "auto" and session_id:
            CACHE.fallback.add(session_id)  # later requests of the session go over SSE
            builder.output.diagnostics = [*(builder.output.diagnostics or []), _lost_diagnostic(str(exc))]
        raise
    except BaseException:
        lease.release(keep=False)
        raise
    output = builder.output
    continuation = None
    if attempt.continuing and output.response_id:
        replayed = _reply_items(builder.model, output, grammar_inputs or {})
        continuation = Continuation(attempt.body, output.response_id, replayed)
    lease.release(keep=output.stop_reason not in ("error", "aborted"), continuation=continuation)


__all__ = [
    "CONTINUING",
    "DEFAULT_CONNECT_TIMEOUT_MS",
    "OPENAI_BETA_WEBSOCKETS",
    "WebSocketLost",
    "WebSocketUnavailable",
    "connect_timeout_ms",
    "stream_websocket",
    "websocket_headers",
    "websocket_url",
]
