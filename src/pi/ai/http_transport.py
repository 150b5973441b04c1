"""An httpx transport that sends requests through an httpcore pool on asyncio's own sockets.

httpx's default transport is an httpcore connection pool on httpcore's default network backend,
which imports anyio and goes through it for every read. This transport is the same pool given
`pi.ai.net_backend.AsyncioBackend`, connected through the public interfaces: an
`httpx.AsyncBaseTransport` here, `network_backend=` of `httpcore.AsyncConnectionPool` there. The
pool settings are httpx's defaults (100 connections, 20 kept alive for 5 seconds, HTTP/1.1), and
httpcore's exceptions become the httpx exceptions of the same name, so callers see what the default
transport gives them. httpx applies the environment's proxies only to its own transports, so a
process with a proxy configured does not use this one (see `pi.ai.http.get_client`).
"""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import AsyncIterable, AsyncIterator, Iterator

import httpcore
import httpx

from pi.ai.net_backend import AsyncioBackend

_ERRORS: dict[type[Exception], type[httpx.TransportError]] = {
    httpcore.TimeoutException: httpx.TimeoutException,
    httpcore.ConnectTimeout: httpx.ConnectTimeout,
    httpcore.ReadTimeout: httpx.ReadTimeout,
    httpcore.WriteTimeout: httpx.WriteTimeout,
    httpcore.PoolTimeout: httpx.PoolTimeout,
    httpcore.NetworkError: httpx.NetworkError,
    httpcore.ConnectError: httpx.ConnectError,
    httpcore.ReadError: httpx.ReadError,
    httpcore.WriteError: httpx.WriteError,
    httpcore.ProxyError: httpx.ProxyError,
    httpcore.UnsupportedProtocol: httpx.UnsupportedProtocol,
    httpcore.ProtocolError: httpx.ProtocolError,
    httpcore.LocalProtocolError: httpx.LocalProtocolError,
    httpcore.RemoteProtocolError: httpx.RemoteProtocolError,
}
_CORE_ERRORS = tuple(_ERRORS)


@contextlib.contextmanager
def _as_httpx_errors(request: httpx.Request | None = None) -> Iterator[None]:
    """Re-raise an httpcore exception as the httpx exception of the same name (the most specific one)."""
    try:
        yield
    except _CORE_ERRORS as exc:
        raise _translated(exc, request) from exc


def _translated(exc: Exception, request: httpx.Request | None) -> httpx.TransportError:
    for cls in type(exc).__mro__:
        target = _ERRORS.get(cls)
        if target is not None:
            return target(str(exc), request=request)
    return httpx.TransportError(str(exc), request=request)


class _ResponseBody(httpx.AsyncByteStream):
    """The body of an httpcore response, read with httpx's exceptions; closing it returns the connection."""

    def __init__(self, stream: AsyncIterable[bytes]) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx_errors():
            async for part in self._stream:
                yield part

    async def aclose(self) -> None:
        close = getattr(self._stream, "aclose", None)
        if close is not None:
            with _as_httpx_errors():
                await close()


class AsyncioTransport(httpx.AsyncBaseTransport):
    """httpx's default pool settings over `AsyncioBackend` (see the module docstring)."""

    def __init__(self, ssl_context: ssl.SSLContext) -> None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            http1=True,
            http2=False,
            network_backend=AsyncioBackend(),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx_errors(request):
            response = await self._pool.handle_async_request(core_request)
        body = response.stream
        assert isinstance(body, AsyncIterable)  # an async pool always answers with an async body
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseBody(body),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


__all__ = ["AsyncioTransport"]
