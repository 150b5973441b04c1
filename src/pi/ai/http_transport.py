"""Provider requests sent over httpcore's connection pools.

httpcore is the transport httpx is built on; httpx's package also imports its command-line client
(click, pygments, and rich where installed), which cost `pi -p` about a twentieth of its time to the
first request. The wire APIs need little of httpx on top of the transport, and this module supplies
that little: the Host, Content-Length, Accept-Encoding and User-Agent headers, the proxy the
environment names (`http_proxy_env`), redirects, one pool per proxy, and failures below HTTP
reported as `TransportError`.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from urllib.parse import urljoin, urlsplit

import httpcore
from msgspec import Struct

from pi.ai.http_proxy_env import ProxyChoice, proxy_for
from pi.ai.http_response import Headers, Response, TransportError, TransportTimeout
from pi.version import __version__

MAX_REDIRECTS = 20
USER_AGENT = f"pi/{__version__}"


class Timeouts(Struct, frozen=True):
    """Seconds allowed for connecting, for each wait for answer bytes, for sending, and for a free connection."""

    connect: float | None = 30.0
    read: float | None = 600.0
    write: float | None = 60.0
    pool: float | None = 30.0

    @classmethod
    def uniform(cls, seconds: float) -> Timeouts:
        return cls(seconds, seconds, seconds, seconds)

    def as_extension(self) -> dict[str, float | None]:
        return {"connect": self.connect, "read": self.read, "write": self.write, "pool": self.pool}


def _transport_error(exc: Exception) -> TransportError:
    """Our error for what httpcore (or the socket or TLS layer under it) raised."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, httpcore.TimeoutException):
        return TransportTimeout(f"{type(exc).__name__}: {text}")
    if isinstance(exc, ImportError) and "socksio" in text:
        return TransportError("A SOCKS proxy needs the socksio package: pip install socksio (or unset ALL_PROXY).")
    return TransportError(text)


_TRANSPORT_FAILURES: tuple[type[Exception], ...] = (
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.ProxyError,
    httpcore.UnsupportedProtocol,
    OSError,  # includes ssl.SSLError from a handshake
)


_SEND_FAILURES: tuple[type[Exception], ...] = (*_TRANSPORT_FAILURES, ImportError)
"""What sending can raise besides: httpcore imports socksio only when a SOCKS proxy is first used."""


class _MappedStream:
    """httpcore's body stream, with its failures turned into `TransportError`."""

    __slots__ = ("_response",)

    def __init__(self, response: httpcore.Response) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.aiter_stream():
                yield chunk
        except _TRANSPORT_FAILURES as exc:
            raise _transport_error(exc) from exc

    async def aclose(self) -> None:
        try:
            await self._response.aclose()
        except _TRANSPORT_FAILURES as exc:
            raise _transport_error(exc) from exc


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or (443 if scheme == "https" else 80)


def _redirect(
    method: str, status: int, headers: dict[str, str], content: bytes | None, url: str, target: str
) -> tuple[str, dict[str, str], bytes | None]:
    """Method, headers and body of the request a redirect asks for (the rules browsers and httpx follow)."""
    if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
        method, content = "GET", None
        headers = {k: v for k, v in headers.items() if k.lower() not in ("content-type", "content-length")}
    old, new = _origin(url), _origin(target)
    upgraded = old[0] == "http" and new[0] == "https" and old[1] == new[1] and old[2] == 80 and new[2] == 443
    if old != new and not upgraded:
        headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
    return method, headers, content


class HttpPool:
    """Keep-alive connections for one event loop: one pool for direct requests, one per proxy in use."""

    def __init__(self, ssl_context: ssl.SSLContext, timeouts: Timeouts | None = None) -> None:
        self._ssl_context = ssl_context
        self._timeouts = timeouts or Timeouts()
        self._pools: dict[ProxyChoice | None, httpcore.AsyncConnectionPool] = {}
        self.is_closed = False

    def _pool(self, proxy: ProxyChoice | None) -> httpcore.AsyncConnectionPool:
        pool = self._pools.get(proxy)
        if pool is None:
            proxy_spec = None
            if proxy is not None:
                auth = (proxy.username, proxy.password or "") if proxy.username is not None else None
                proxy_spec = httpcore.Proxy(proxy.url, auth=auth, ssl_context=self._ssl_context)
            pool = httpcore.AsyncConnectionPool(
                ssl_context=self._ssl_context,
                proxy=proxy_spec,
                max_connections=100,
                max_keepalive_connections=20,
                keepalive_expiry=5.0,
            )
            self._pools[proxy] = pool
        return pool

    async def send(
        self,
        method: str,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        content: bytes | None = None,
        timeouts: Timeouts | None = None,
        follow_redirects: bool = True,
    ) -> Response:
        """Send one request and return its response with the body not yet read; the caller closes it."""
        if self.is_closed:
            raise RuntimeError("This HttpPool has been closed.")
        sent_headers = dict(headers or {})
        for _ in range(MAX_REDIRECTS + 1):
            response = await self._send_once(method, url, sent_headers, content, timeouts or self._timeouts)
            location = response.headers.get("location")
            if not follow_redirects or response.status_code not in (301, 302, 303, 307, 308) or not location:
                return response
            await response.aread()  # the connection goes back to the pool
            target = urljoin(url, location)
            method, sent_headers, content = _redirect(method, response.status_code, sent_headers, content, url, target)
            url = target
        raise TransportError(f"More than {MAX_REDIRECTS} redirects, the last to {url}.")

    async def _send_once(
        self, method: str, url: str, headers: dict[str, str], content: bytes | None, timeouts: Timeouts
    ) -> Response:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise TransportError(f"Not an http(s) URL: {url!r}. Check the provider's base URL.")
        present = {name.lower() for name in headers}
        wire: list[tuple[str, str]] = []
        if "host" not in present:
            wire.append(("Host", parts.netloc.rpartition("@")[2]))
        wire.extend(headers.items())
        if "accept" not in present:
            wire.append(("Accept", "*/*"))
        if "accept-encoding" not in present:
            wire.append(("Accept-Encoding", "gzip, deflate"))
        if "user-agent" not in present:
            wire.append(("User-Agent", USER_AGENT))
        if content is not None and "content-length" not in present:
            wire.append(("Content-Length", str(len(content))))
        request = httpcore.Request(
            method,
            url,
            headers=wire,
            content=content if content is not None else b"",
            extensions={"timeout": timeouts.as_extension()},
        )
        try:
            answer = await self._pool(proxy_for(url)).handle_async_request(request)
        except _SEND_FAILURES as exc:
            raise _transport_error(exc) from exc
        return Response(answer.status, Headers.from_bytes(answer.headers), _MappedStream(answer), url)

    async def aclose(self) -> None:
        self.is_closed = True
        pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            await pool.aclose()


__all__ = ["MAX_REDIRECTS", "USER_AGENT", "HttpPool", "Timeouts"]
