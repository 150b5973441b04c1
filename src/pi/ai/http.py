"""HTTP plumbing shared by the wire APIs: one pooled client, retries, and Server-Sent Events.

Each provider module builds its request body and reads its own event shapes; how to send a
request, retry a transient failure and split a byte stream into SSE events is the same for all of
them and lives here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import random
import re
import ssl
import sys
import time
import weakref
from collections.abc import AsyncIterator
from typing import Any

from msgspec import Struct

from pi.ai.abort import AbortSignal
from pi.ai.http_response import Headers, Response, TransportError, TransportTimeout
from pi.ai.http_transport import HttpPool, Timeouts
from pi.ai.options import StreamOptions
from pi.ai.types import Model
from pi.ai.wire_json import encode_json

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
MAX_ERROR_BODY = 4000

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, HttpPool] = weakref.WeakKeyDictionary()


class DeferredTrustContext(ssl.SSLContext):
    """The TLS client context `ssl.create_default_context()` builds, reading its CA certificates on first use.

    Loading the certificate bundle is most of what creating a client costs (about 20 ms), and a
    session that only talks to a local server over plain http never needs it. The context starts
    with the same settings as `ssl.create_default_context()` and loads the trust store httpx would
    pick (`SSL_CERT_FILE`, else `SSL_CERT_DIR`, else certifi's bundle) just before its first TLS
    connection, whichever way that connection wraps its socket.
    """

    _trust_loaded = False

    def load_trust(self) -> None:
        if self._trust_loaded:
            return
        if os.environ.get("SSL_CERT_FILE"):
            self.load_verify_locations(cafile=os.environ["SSL_CERT_FILE"])
        elif os.environ.get("SSL_CERT_DIR"):
            self.load_verify_locations(capath=os.environ["SSL_CERT_DIR"])
        else:
            import certifi

            self.load_verify_locations(cafile=certifi.where())
        self._trust_loaded = True

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self.load_trust()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self.load_trust()
        return super().wrap_bio(*args, **kwargs)


def deferred_trust_context() -> DeferredTrustContext:
    """A fresh `DeferredTrustContext` set up as `ssl.create_default_context()` sets up a client context."""
    context = DeferredTrustContext(ssl.PROTOCOL_TLS_CLIENT)
    context.verify_mode = ssl.CERT_REQUIRED
    context.check_hostname = True
    keylog = os.environ.get("SSLKEYLOGFILE")
    if keylog and not sys.flags.ignore_environment:
        context.keylog_filename = keylog
    return context


def get_client() -> HttpPool:
    """The connection pool of the running event loop (created on first use, with the environment's proxies)."""
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None or client.is_closed:
        client = HttpPool(deferred_trust_context)
        _clients[loop] = client
    return client


class ProviderHTTPError(Exception):
    """A non-2xx answer. The message starts with the status so overflow patterns can match it.

    `text` is how the wire API words the refusal (see `pi.ai.http_error_text`); without it the
    message is the status and the body as received. `hint`, a next step for the user, follows on a
    line of its own.
    """

    def __init__(self, status: int, body: str, hint: str | None = None, text: str | None = None) -> None:
        self.status = status
        self.body = body
        self.hint = hint
        if text is None:
            text = body.strip()
            if len(text) > MAX_ERROR_BODY:
                text = f"{text[:MAX_ERROR_BODY]}... [truncated {len(text) - MAX_ERROR_BODY} chars]"
            text = f"{status} {text}" if text else f"{status} status code (no body)"
        message = text
        if hint:
            message = f"{message}\n{hint}"
        super().__init__(message)


def error_hint(status: int, provider: str, model_id: str) -> str | None:
    """A line telling the user what to do about an HTTP failure, where there is something to say."""
    if status in (401, 403):
        return (
            f"The {provider} server rejected the credentials for model {model_id}: "
            "check the API key (environment variable, auth.json or --api-key)."
        )
    if status == 404:
        return (
            f"The {provider} server does not know model {model_id} or this endpoint: check the model id and base URL."
        )
    return None


def parse_retry_after(headers: Headers) -> float | None:
    """Seconds the server asked us to wait, from retry-after-ms or Retry-After (seconds or a date)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # only servers that send an HTTP date need the email package

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


async def abortable_sleep(seconds: float, signal: AbortSignal | None) -> bool:
    """Sleep; returns False at once if the signal fires first."""
    if signal is None:
        await asyncio.sleep(seconds)
        return True
    if signal.aborted:
        return False
    waiter = asyncio.ensure_future(signal.wait())
    try:
        done, _ = await asyncio.wait({waiter}, timeout=seconds)
    finally:
        waiter.cancel()
    return not done


class RetryDelayTooLong(Exception):
    pass


class RequestSpec(Struct):
    """One HTTP request a provider wants sent by `open_stream`; `body` is sent as JSON."""

    url: str
    headers: dict[str, str]
    body: dict[str, Any]
    method: str = "POST"


async def open_stream(
    request: RequestSpec,
    *,
    signal: AbortSignal | None,
    max_retries: int,
    max_retry_delay_ms: int,
    provider: str,
    model_id: str,
    timeout_s: float | None = None,
    client: HttpPool | None = None,
    no_retry: frozenset[int] = frozenset(),
) -> Response:
    """Send `request` and return the open streaming 2xx response; the caller must close it.

    Transient failures (see RETRYABLE_STATUS, and connections that fail or drop before an answer)
    are retried up to `max_retries` times with exponential back-off, or after the delay the server
    asks for when it asks for one no longer than `max_retry_delay_ms` (0 = no cap). Statuses in
    `no_retry` fail at once although they are normally retried. `timeout_s` bounds connecting and
    each wait for data; None keeps the client's defaults (30 s / 600 s), 0 lifts the limit on waiting
    for data.
    """
    http = client or get_client()
    content = encode_json(request.body)  # compact UTF-8, no lone surrogates (`pi.ai.wire_json`)
    timeouts = None if timeout_s is None else Timeouts(read=None) if timeout_s <= 0 else Timeouts.uniform(timeout_s)
    headers = {"content-type": "application/json", **request.headers}
    attempt = 0
    while True:
        attempt += 1
        delay: float | None = None
        try:
            response = await http.send(request.method, request.url, headers=headers, content=content, timeouts=timeouts)
        except TransportError as exc:
            if attempt > max_retries:
                raise ConnectionError(f"Connection error: {exc or type(exc).__name__}") from exc
        else:
            if response.status_code < 300:
                return response
            body = (await response.aread()).decode("utf-8", errors="replace")
            await response.aclose()
            status = response.status_code
            if status not in RETRYABLE_STATUS or status in no_retry or attempt > max_retries:
                raise ProviderHTTPError(
                    response.status_code, body, error_hint(response.status_code, provider, model_id)
                )
            delay = parse_retry_after(response.headers)
            if delay is not None and max_retry_delay_ms > 0 and delay * 1000 > max_retry_delay_ms:
                raise RetryDelayTooLong(
                    f"Server requested {math.ceil(delay)}s retry delay (max: {math.ceil(max_retry_delay_ms / 1000)}s). "
                    f"{ProviderHTTPError(response.status_code, body)}"
                )
        if delay is None:
            delay = min(0.5 * 2 ** (attempt - 1), 8.0) * (0.8 + 0.4 * random.random())
        if not await abortable_sleep(delay, signal):
            raise asyncio.CancelledError


async def open_model_stream(request: RequestSpec, model: Model, options: StreamOptions) -> Response:
    """`open_stream` with the retry, timeout and abort settings of one request's options.

    A callable ``options.extra["on_response"]`` is awaited with the status and headers of the
    response before its body is read (extensions' `after_provider_response`); a callable
    ``options.extra["on_frame"]`` is given each raw stream frame as `iter_sse` reads it
    (extensions' `provider_stream_event`).
    """
    response = await open_stream(
        request,
        signal=options.signal,
        max_retries=options.max_retries,
        max_retry_delay_ms=options.max_retry_delay_ms,
        provider=model.provider,
        model_id=model.id,
        timeout_s=options.timeout_s,
    )
    on_response = options.extra.get("on_response")
    if callable(on_response):
        await on_response(response.status_code, response.headers)
    on_frame = options.extra.get("on_frame")
    if callable(on_frame):
        _frame_observers[response] = on_frame
    return response


_frame_observers: weakref.WeakKeyDictionary[Response, Any] = weakref.WeakKeyDictionary()
"""Responses whose request asked to see each raw stream frame (``options.extra["on_frame"]``)."""


async def _show_frame(observer: Any, data: str) -> None:
    """Give a frame's parsed JSON to `observer` (awaited when it returns an awaitable); other data is skipped."""
    try:
        frame = json.loads(data)
    except ValueError:
        return
    result = observer(frame)
    if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future):
        await result


class SSEEvent(Struct):
    """One Server-Sent Event; `data` is its data lines joined by newlines.

    `event` is ``"message"`` when the frame names no event type, as the SSE format prescribes.
    """

    event: str
    data: str


_SSE_LINE_END = re.compile(rb"\r\n|\r(?!\Z)|\n")
"""CRLF, LF or CR; a CR at the very end of the buffered bytes may be the first half of a CRLF."""


async def iter_sse_lines(response: Response) -> AsyncIterator[str]:
    """The lines of an event stream, ended only by CR, LF or CRLF as the SSE format defines.

    Text line splitting (`str.splitlines`, httpx's `aiter_lines`) also splits at U+2028, U+2029,
    NEL and other characters Unicode treats as line breaks; JSON carries those unescaped inside
    strings, so a model writing one would cut its frame in two. Splitting the bytes is safe because CR and LF never
    occur inside a multi-byte UTF-8 sequence; each line is decoded whole.
    """
    pending: list[bytes] = []
    async for chunk in response.aiter_bytes():
        if not chunk:
            continue
        held_cr = bool(pending) and pending[-1].endswith(b"\r")
        pending.append(chunk)
        if not held_cr and b"\n" not in chunk and b"\r" not in chunk:
            continue
        lines = _SSE_LINE_END.split(b"".join(pending))
        pending = [lines.pop()]
        for line in lines:
            yield line.decode("utf-8", errors="replace")
    rest = b"".join(pending).rstrip(b"\r")
    if rest:
        yield rest.decode("utf-8", errors="replace")


async def iter_sse(response: Response) -> AsyncIterator[SSEEvent]:
    """Split a `text/event-stream` body into events (``event:`` name, joined ``data:`` lines).

    When the request's options carried an ``on_frame`` callable, it sees each frame's JSON before the
    frame is yielded (in stream order); without one the only cost is one lookup per stream.
    """
    observer = _frame_observers.pop(response, None) if _frame_observers else None
    event = ""
    data: list[str] = []
    async for line in iter_sse_lines(response):
        if not line:
            if data:
                if observer is not None:
                    await _show_frame(observer, "\n".join(data))
                yield SSEEvent(event or "message", "\n".join(data))
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
    if data:
        if observer is not None:
            await _show_frame(observer, "\n".join(data))
        yield SSEEvent(event or "message", "\n".join(data))


def stream_cut_short(
    provider: str, model_id: str, final_frame: str, lead: str = "Stream ended without a finish frame"
) -> ConnectionError:
    """The error for a stream whose body ended before the frame that marks a complete reply.

    `lead` is the sentence pi prints for the API concerned ("Stream ended without finish_reason",
    "Anthropic stream ended before message_stop", ...), so logs and scripts read the same under both.
    Every such sentence says the stream "ended without" or "ended before" its final frame, wording the
    retry classifier treats as transient: the server or a proxy dropped the stream, and the same request
    usually succeeds when sent again. The rest says which frame was missing and what to do.
    """
    return ConnectionError(
        f"{lead}: the {provider} stream for {model_id} closed before {final_frame}. "
        "The reply is incomplete; send the request again."
    )


def connection_lost(provider: str, model_id: str, exc: BaseException) -> ConnectionError:
    """The error for a connection that failed while a reply was streaming (reset, broken chunking)."""
    return ConnectionError(
        f"Connection lost while streaming the reply of {model_id} from {provider}: "
        f"{exc or type(exc).__name__}. The reply is incomplete; send the request again."
    )


FINISH_GRACE_S = 1.0
"""How long a server may take to end the response body after its final stream event."""


async def finish_stream(rest: AsyncIterator[object]) -> None:
    """Read and drop whatever follows a stream's final event, up to the end of the response body.

    Servers end the body right after their final event (``[DONE]``, ``message_stop``,
    ``response.completed``). Reading that end lets the connection go back to the pool for the next
    request, where closing a half-read response would close the connection and make the next request
    pay for a new TCP and TLS handshake; it also leaves no half-run generators for the event loop to
    clean up. A server that keeps the body open gets `FINISH_GRACE_S`; the reply is complete either
    way, so a failure here changes nothing.
    """
    with contextlib.suppress(TimeoutError, TransportError, ValueError):
        async with asyncio.timeout(FINISH_GRACE_S):
            async for _ in rest:
                pass


def parse_json_data(data: str) -> Any:
    """JSON of one SSE data field, with an error that says which frame was malformed."""
    try:
        return json.loads(data)
    except ValueError as exc:
        snippet = data if len(data) <= 200 else data[:200] + "..."
        raise ValueError(f"Malformed stream frame from the server (not JSON): {snippet}") from exc


__all__ = [
    "RETRYABLE_STATUS",
    "DeferredTrustContext",
    "Headers",
    "ProviderHTTPError",
    "RequestSpec",
    "Response",
    "RetryDelayTooLong",
    "SSEEvent",
    "TransportError",
    "TransportTimeout",
    "abortable_sleep",
    "connection_lost",
    "deferred_trust_context",
    "error_hint",
    "finish_stream",
    "get_client",
    "iter_sse",
    "iter_sse_lines",
    "open_model_stream",
    "open_stream",
    "parse_json_data",
    "parse_retry_after",
    "stream_cut_short",
]
