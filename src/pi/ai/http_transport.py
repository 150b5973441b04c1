"""Provider requests over HTTP/1.1: asyncio's streams carrying h11's protocol state machine.

h11 parses and writes the protocol (framing, chunked bodies, keep-alive rules); asyncio opens the
sockets, TLS included. That pair is all a wire API needs, and it costs a `pi -p` turn a third of what
httpcore did (whose async side also loads anyio) on the way to its first request. This module adds
what sits around the protocol: the Host, Content-Length, Accept, Accept-Encoding and User-Agent
headers; keep-alive connections reused per origin and proxy; the proxy the environment names
(`http_proxy_env`: forwarding through an http(s) proxy, a CONNECT tunnel for https, SOCKS5);
redirects; and failures below HTTP reported as `TransportError`, with a timeout as `TransportTimeout`.
"""

from __future__ import annotations

import asyncio
import base64
import os
import ssl
import time
from collections.abc import AsyncIterator, Callable
from urllib.parse import SplitResult, urljoin, urlsplit

import h11
from msgspec import Struct

from pi.ai.http_proxy_env import ProxyChoice, proxy_for
from pi.ai.http_response import Headers, Response, TransportError, TransportTimeout
from pi.version import __version__

MAX_REDIRECTS = 20
USER_AGENT = f"pi/{__version__}"
KEEPALIVE_EXPIRY_S = 5.0
"""An idle connection older than this is closed rather than reused: servers drop idle ones too."""
MAX_IDLE_PER_ORIGIN = 20
HAPPY_EYEBALLS_DELAY_S = 0.25
"""How long to wait on one address of a host before also trying the next (RFC 8305)."""
_READ_SIZE = 64 * 1024
_MAX_HEAD_BYTES = 100 * 1024
"""The most bytes a status line and headers may take (h11's own default of 16 KiB is too tight for some APIs)."""


class Timeouts(Struct, frozen=True):
    """Seconds allowed for connecting (TLS and proxy handshakes included), each wait for answer bytes, and sending."""

    connect: float | None = 30.0
    read: float | None = 600.0
    write: float | None = 60.0

    @classmethod
    def uniform(cls, seconds: float) -> Timeouts:
        return cls(seconds, seconds, seconds)


_Origin = tuple[str, str, int]
_PoolKey = tuple[str, str, int, ProxyChoice | None]


def _origin(url: str, parts: SplitResult | None = None) -> _Origin:
    """(scheme, host, port) of `url` (already split: `parts`), the port filled in from the scheme; a port
    that is no number is refused."""
    parts = parts or urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise TransportError(f"The port in {url!r} is not a number. Check the provider's base URL.") from None
    return scheme, (parts.hostname or "").lower(), port


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


def _failure(exc: BaseException, where: str) -> TransportError:
    """Our error for what the socket, TLS or protocol layer raised while talking to `where`."""
    if isinstance(exc, TransportError):
        return exc
    if isinstance(exc, asyncio.IncompleteReadError):
        return TransportError(f"{where} closed the connection during the handshake.")
    if isinstance(exc, ssl.SSLCertVerificationError):
        return TransportError(
            f"The TLS certificate of {where} could not be verified ({exc.verify_message or exc}). "
            "Behind an intercepting proxy, point SSL_CERT_FILE at its CA bundle."
        )
    if isinstance(exc, ssl.SSLError):
        return TransportError(f"The TLS connection to {where} failed: {exc.reason or exc}.")
    if isinstance(exc, OSError):
        # asyncio words a refused connection as "Connect call failed (address)": the errno says it better.
        reason = os.strerror(exc.errno) if exc.errno and exc.errno > 0 else exc.strerror or str(exc)
        return TransportError(f"Could not reach {where}: {reason}.")
    if isinstance(exc, h11.LocalProtocolError):
        return TransportError(f"The request to {where} could not be sent as HTTP/1.1: {exc}.")
    if isinstance(exc, h11.ProtocolError):
        return TransportError(f"The answer of {where} broke the HTTP protocol: {exc}.")
    return TransportError(f"{where}: {exc or type(exc).__name__}")


class _Connection:
    """One HTTP/1.1 connection: the streams of its socket and the h11 state of its current exchange."""

    __slots__ = ("idle_since", "key", "protocol", "reader", "where", "writer")

    def __init__(self, key: _PoolKey, where: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.key = key
        self.where = where
        self.reader = reader
        self.writer = writer
        self.protocol = h11.Connection(h11.CLIENT, max_incomplete_event_size=_MAX_HEAD_BYTES)
        self.idle_since = 0.0

    def reusable(self, now: float) -> bool:
        return (
            self.protocol.our_state is h11.IDLE
            and now - self.idle_since < KEEPALIVE_EXPIRY_S
            and not self.reader.at_eof()
            and not self.writer.is_closing()
        )

    def close(self) -> None:
        self.writer.close()

    async def next_event(self, read_timeout: float | None) -> object:
        return await _next_event(self.protocol, self.reader, read_timeout, self.where)


async def _next_event(
    protocol: h11.Connection, reader: asyncio.StreamReader, read_timeout: float | None, where: str
) -> object:
    """The next h11 event of an answer, reading from the socket as long as h11 needs more bytes."""
    while True:
        event = protocol.next_event()
        if event is not h11.NEED_DATA:
            return event
        try:
            async with asyncio.timeout(read_timeout):
                data = await reader.read(_READ_SIZE)
        except TimeoutError:
            raise TransportTimeout(f"ReadTimeout: {where} sent nothing for {read_timeout:g} s.") from None
        protocol.receive_data(data)


async def _answer_head(
    protocol: h11.Connection, reader: asyncio.StreamReader, read_timeout: float | None, where: str
) -> h11.Response | None:
    """The status and headers of an answer (1xx answers skipped), or None when the peer closed first."""
    while True:
        event = await _next_event(protocol, reader, read_timeout, where)
        if isinstance(event, h11.Response):
            return event
        if not isinstance(event, h11.InformationalResponse):
            return None


class _Body:
    """The body of one answer as it arrives; the connection goes back to the pool once it has all been read."""

    __slots__ = ("_conn", "_pool", "_read_timeout")

    def __init__(self, pool: HttpPool, conn: _Connection, read_timeout: float | None) -> None:
        self._pool = pool
        self._conn: _Connection | None = conn
        self._read_timeout = read_timeout

    async def __aiter__(self) -> AsyncIterator[bytes]:
        conn = self._conn
        if conn is None:
            return
        try:
            while True:
                event = await conn.next_event(self._read_timeout)
                if isinstance(event, h11.Data):
                    yield bytes(event.data)
                elif isinstance(event, h11.EndOfMessage):
                    break
                else:
                    raise TransportError(f"{conn.where} closed the connection before the body was complete.")
        except (OSError, h11.ProtocolError) as exc:
            self._discard()
            raise _failure(exc, conn.where) from exc
        except BaseException:
            self._discard()
            raise
        self._conn = None
        self._pool.release(conn)

    def _discard(self) -> None:
        if self._conn is not None:
            self._pool.forget(self._conn)
            self._conn = None

    async def aclose(self) -> None:
        """Stop reading: a connection with part of a body still unread cannot carry another request."""
        self._discard()


class HttpPool:
    """Keep-alive connections for one event loop, kept per origin and proxy."""

    def __init__(self, tls_context: Callable[[], ssl.SSLContext], timeouts: Timeouts | None = None) -> None:
        """`tls_context` makes the TLS client context, called at the first https connection only.

        Creating any context costs over a millisecond (OpenSSL sets itself up), which a session
        that only speaks plain http to a local server never needs to pay.
        """
        self._make_tls_context = tls_context
        self._tls_context: ssl.SSLContext | None = None
        self._timeouts = timeouts or Timeouts()
        self._idle: dict[_PoolKey, list[_Connection]] = {}
        self._busy: set[_Connection] = set()
        self.is_closed = False

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
        scheme, host, port = _origin(url, parts)
        if scheme not in ("http", "https") or not host:
            raise TransportError(f"Not an http(s) URL: {url!r}. Check the provider's base URL.")
        proxy = proxy_for(url)
        forwarded = proxy is not None and scheme == "http" and proxy.url.startswith(("http://", "https://"))
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        target = url.partition("#")[0] if forwarded else path
        wire = _request_headers(headers, parts.netloc.rpartition("@")[2], content)
        if forwarded and proxy is not None and proxy.username is not None:
            wire.append(("Proxy-Authorization", _basic_auth(proxy)))
        try:
            request = h11.Request(method=method, target=target, headers=wire)
        except (h11.LocalProtocolError, UnicodeError) as exc:
            raise TransportError(
                f"This request cannot be sent: {exc}. Check the headers and base URL configured for the provider."
            ) from exc
        key: _PoolKey = (scheme, host, port, proxy)
        where = f"{host}:{port}"
        while True:
            conn, reused = self._idle_connection(key), True
            if conn is None:
                conn, reused = await self._connect(key, where, timeouts), False
            self._busy.add(conn)
            try:
                head = await self._exchange(conn, request, content, timeouts)
            except (OSError, h11.ProtocolError, TransportError) as exc:
                self.forget(conn)
                if reused and not isinstance(exc, TransportTimeout):
                    continue  # the server had dropped the idle connection: try a fresh one
                raise _failure(exc, where) from exc
            except BaseException:
                self.forget(conn)
                raise
            headers_in = Headers.from_bytes(head.headers.raw_items())
            return Response(head.status_code, headers_in, _Body(self, conn, timeouts.read), url)

    async def _exchange(
        self, conn: _Connection, request: h11.Request, content: bytes | None, timeouts: Timeouts
    ) -> h11.Response:
        protocol = conn.protocol
        out = protocol.send(request) or b""
        if content:
            out += protocol.send(h11.Data(data=content)) or b""
        out += protocol.send(h11.EndOfMessage()) or b""
        conn.writer.write(out)
        try:
            async with asyncio.timeout(timeouts.write):
                await conn.writer.drain()
        except TimeoutError:
            raise TransportTimeout(f"WriteTimeout: {conn.where} took the request for {timeouts.write:g} s.") from None
        head = await _answer_head(protocol, conn.reader, timeouts.read, conn.where)
        if head is None:
            raise TransportError(f"{conn.where} closed the connection without answering.")
        return head

    def _idle_connection(self, key: _PoolKey) -> _Connection | None:
        idle = self._idle.get(key)
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            if conn.reusable(now):
                return conn
            conn.close()
        return None

    def _tls(self) -> ssl.SSLContext:
        if self._tls_context is None:
            self._tls_context = self._make_tls_context()
        return self._tls_context

    async def _connect(self, key: _PoolKey, where: str, timeouts: Timeouts) -> _Connection:
        scheme, host, port, proxy = key
        tls = self._tls() if scheme == "https" else None
        try:
            async with asyncio.timeout(timeouts.connect):
                if proxy is None:
                    reader, writer = await asyncio.open_connection(
                        host, port, ssl=tls, server_hostname=host if tls else None,
                        happy_eyeballs_delay=HAPPY_EYEBALLS_DELAY_S,
                    )  # fmt: skip
                else:
                    reader, writer = await self._through_proxy(proxy, scheme, host, port)
        except TimeoutError:
            raise TransportTimeout(
                f"ConnectTimeout: connecting to {where} took longer than {timeouts.connect:g} s."
            ) from None
        except (OSError, h11.ProtocolError, UnicodeError, asyncio.IncompleteReadError) as exc:
            raise _failure(exc, where if proxy is None else f"{where} through the proxy {proxy.url}") from exc
        return _Connection(key, where, reader, writer)

    async def _through_proxy(
        self, proxy: ProxyChoice, scheme: str, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        proxy_parts = urlsplit(proxy.url)
        kind = proxy_parts.scheme.lower()
        proxy_host = proxy_parts.hostname or ""
        if kind not in ("socks5", "socks5h", "http", "https"):
            raise TransportError(
                f"The proxy {proxy.url} uses {kind}://, which pi cannot speak: "
                "use an http://, https:// or socks5:// proxy."
            )
        socks = kind.startswith("socks")
        try:
            reader, writer = await asyncio.open_connection(
                proxy_host,
                proxy_parts.port or (1080 if socks else 443 if kind == "https" else 80),
                ssl=self._tls() if kind == "https" else None,
                server_hostname=proxy_host if kind == "https" else None,
            )
        except OSError as exc:
            raise _failure(exc, f"the proxy {proxy.url}") from exc
        try:
            if socks:
                await _socks5_connect(reader, writer, proxy, host, port)
            elif scheme == "http":
                return reader, writer  # forwarded: each request names its whole URL
            else:
                await _open_tunnel(reader, writer, proxy, host, port)
            if scheme == "https":
                await writer.start_tls(self._tls(), server_hostname=host)
        except BaseException:
            writer.close()
            raise
        return reader, writer

    def release(self, conn: _Connection) -> None:
        """Take back a connection whose answer has been read to its end."""
        self._busy.discard(conn)
        protocol = conn.protocol
        if self.is_closed or protocol.our_state is not h11.DONE or protocol.their_state is not h11.DONE:
            conn.close()
            return
        protocol.start_next_cycle()
        conn.idle_since = time.monotonic()
        idle = self._idle.setdefault(conn.key, [])
        idle.append(conn)
        if len(idle) > MAX_IDLE_PER_ORIGIN:
            idle.pop(0).close()

    def forget(self, conn: _Connection) -> None:
        """Close a connection that cannot carry another request (failed, or its answer left unread)."""
        self._busy.discard(conn)
        conn.close()

    async def aclose(self) -> None:
        self.is_closed = True
        idle, self._idle = self._idle, {}
        busy, self._busy = self._busy, set()
        for conn in [*busy, *(c for conns in idle.values() for c in conns)]:
            conn.close()


def _request_headers(headers: dict[str, str], host: str, content: bytes | None) -> list[tuple[str, str]]:
    """The caller's headers with the ones every request carries added where the caller left them out."""
    present = {name.lower() for name in headers}
    wire: list[tuple[str, str]] = []
    if "host" not in present:
        wire.append(("Host", host))
    wire.extend(headers.items())
    if "accept" not in present:
        wire.append(("Accept", "*/*"))
    if "accept-encoding" not in present:
        wire.append(("Accept-Encoding", "gzip, deflate"))
    if "user-agent" not in present:
        wire.append(("User-Agent", USER_AGENT))
    if content is not None and "content-length" not in present:
        wire.append(("Content-Length", str(len(content))))
    return wire


def _basic_auth(proxy: ProxyChoice) -> str:
    pair = f"{proxy.username}:{proxy.password or ''}".encode()
    return "Basic " + base64.b64encode(pair).decode("ascii")


async def _open_tunnel(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, proxy: ProxyChoice, host: str, port: int
) -> None:
    """Ask an HTTP proxy for a CONNECT tunnel to `host:port`, which TLS then runs through."""
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    headers = [("Host", authority)]
    if proxy.username is not None:
        headers.append(("Proxy-Authorization", _basic_auth(proxy)))
    protocol = h11.Connection(h11.CLIENT, max_incomplete_event_size=_MAX_HEAD_BYTES)
    writer.write(protocol.send(h11.Request(method="CONNECT", target=authority, headers=headers)) or b"")
    await writer.drain()
    event = await _answer_head(protocol, reader, None, f"the proxy {proxy.url}")  # within the connect timeout
    if event is None:
        raise TransportError(f"The proxy {proxy.url} closed the connection instead of opening a tunnel to {authority}.")
    if not 200 <= event.status_code < 300:
        hint = " Check the credentials in the proxy URL." if event.status_code == 407 else ""
        reason = event.reason.decode("latin-1", errors="replace")
        raise TransportError(
            f"The proxy {proxy.url} refused a tunnel to {authority}: {event.status_code} {reason}.{hint}"
        )
    if protocol.trailing_data[0]:
        raise TransportError(f"The proxy {proxy.url} sent data into the tunnel to {authority} before TLS began.")


_SOCKS_REPLIES = {
    1: "general failure",
    2: "not allowed by its rules",
    3: "network unreachable",
    4: "host unreachable",
    5: "connection refused",
    6: "TTL expired",
    7: "command not supported",
    8: "address type not supported",
}


async def _socks5_connect(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, proxy: ProxyChoice, host: str, port: int
) -> None:
    """The SOCKS5 handshake (RFC 1928, with RFC 1929's username and password when the proxy URL has them).

    The proxy is given the host name, not an address resolved here, so names resolve where the proxy
    is (as curl's ``socks5h://`` does; httpx sends names for ``socks5://`` too).
    """
    methods = b"\x00\x02" if proxy.username is not None else b"\x00"
    writer.write(b"\x05" + bytes([len(methods)]) + methods)
    version, method = await reader.readexactly(2)
    if version != 5:
        raise TransportError(f"{proxy.url} did not answer as a SOCKS5 proxy.")
    if method == 2 and proxy.username is not None:
        user, password = proxy.username.encode(), (proxy.password or "").encode()
        writer.write(b"\x01" + bytes([len(user)]) + user + bytes([len(password)]) + password)
        _, status = await reader.readexactly(2)
        if status != 0:
            raise TransportError(f"The SOCKS proxy {proxy.url} refused the username and password in its URL.")
    elif method != 0:
        raise TransportError(
            f"The SOCKS proxy {proxy.url} wants a login pi was not given: put user:password@ in the proxy URL."
        )
    name = host.encode("idna")
    writer.write(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + port.to_bytes(2, "big"))
    _, reply, _, address_type = await reader.readexactly(4)
    if reply != 0:
        reason = _SOCKS_REPLIES.get(reply, f"error {reply}")
        raise TransportError(f"The SOCKS proxy {proxy.url} could not connect to {host}:{port}: {reason}.")
    length = (await reader.readexactly(1))[0] if address_type == 3 else {1: 4, 4: 16}.get(address_type, 4)
    await reader.readexactly(length + 2)  # the address the proxy bound, and its port


__all__ = ["KEEPALIVE_EXPIRY_S", "MAX_REDIRECTS", "USER_AGENT", "HttpPool", "Timeouts"]
