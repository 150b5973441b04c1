"""The socket layer under httpcore: asyncio's own transports instead of anyio streams.

httpcore reaches sockets through a "network backend". Its default one goes through anyio, which
costs an import of anyio (tens of milliseconds of every start-up), and for every read enters a
cancel scope and registers the socket with the event loop again, and opens every connection inside
a task group. This backend keeps each socket registered for its whole life (an asyncio protocol
buffers what arrives), arms one timer per wait, and raises httpcore's exceptions where the default
backend raises them, so timeouts, error types and retries behave as before. HTTP itself (parsing,
pooling, TLS settings) stays httpcore's; `pi.ai.http_transport` plugs it into httpx through the
public transport and backend interfaces of both.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import ssl
from collections.abc import Iterable
from typing import Any, cast

import httpcore

SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]

_PAUSE_AT = 1 << 20
"""Stop reading from the socket while this much is buffered and unread (a stalled consumer)."""
_RESUME_AT = 1 << 16
_HAPPY_EYEBALLS_DELAY = 0.25
"""Seconds before trying the next address of a host with several (RFC 8305; anyio's default too)."""


class _SocketProtocol(asyncio.Protocol):
    """Buffers incoming bytes and wakes the one reader or writer waiting on the connection."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.eof = False
        self.lost: Exception | None = None
        self.closed = False
        self.reading_paused = False
        self.writing_paused = False
        self._data_waiter: asyncio.Future[None] | None = None
        self._drain_waiter: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) >= _PAUSE_AT and self.transport is not None and not self.reading_paused:
            self.transport.pause_reading()
            self.reading_paused = True
        self._wake_reader()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake_reader()
        return False  # close our side too: HTTP/1.1 never half-closes

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.lost = exc
        self._wake_reader()
        waiter, self._drain_waiter = self._drain_waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def pause_writing(self) -> None:
        self.writing_paused = True

    def resume_writing(self) -> None:
        self.writing_paused = False
        waiter, self._drain_waiter = self._drain_waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _wake_reader(self) -> None:
        waiter, self._data_waiter = self._data_waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait_for_data(self) -> None:
        waiter = asyncio.get_running_loop().create_future()
        self._data_waiter = waiter
        try:
            await waiter
        finally:
            if self._data_waiter is waiter:
                self._data_waiter = None

    async def wait_for_drain(self) -> None:
        waiter = asyncio.get_running_loop().create_future()
        self._drain_waiter = waiter
        try:
            await waiter
        finally:
            if self._drain_waiter is waiter:
                self._drain_waiter = None

    def take(self, max_bytes: int) -> bytes:
        if max_bytes >= len(self.buffer):
            data = bytes(self.buffer)
            self.buffer.clear()
        else:
            data = bytes(self.buffer[:max_bytes])
            del self.buffer[:max_bytes]
        if self.reading_paused and len(self.buffer) <= _RESUME_AT and self.transport is not None:
            self.reading_paused = False
            self.transport.resume_reading()
        return data


class AsyncioStream(httpcore.AsyncNetworkStream):
    """One connection: plain TCP, a Unix socket, or TLS over either."""

    def __init__(self, transport: asyncio.Transport, protocol: _SocketProtocol) -> None:
        self._transport = transport
        self._protocol = protocol

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        protocol = self._protocol
        if not protocol.buffer and not protocol.eof and not protocol.closed:
            try:
                async with asyncio.timeout(timeout):
                    await protocol.wait_for_data()
            except TimeoutError as exc:
                raise httpcore.ReadTimeout(f"No data from the server for {timeout} seconds") from exc
        if protocol.buffer:
            return protocol.take(max_bytes)
        if protocol.lost is not None:
            raise httpcore.ReadError(str(protocol.lost) or type(protocol.lost).__name__) from protocol.lost
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        protocol = self._protocol
        if protocol.closed or self._transport.is_closing():
            raise httpcore.WriteError(str(protocol.lost) if protocol.lost else "The connection is closed")
        self._transport.write(buffer)
        if protocol.writing_paused:
            try:
                async with asyncio.timeout(timeout):
                    await protocol.wait_for_drain()
            except TimeoutError as exc:
                raise httpcore.WriteTimeout(f"Could not send to the server for {timeout} seconds") from exc
            if protocol.lost is not None:
                raise httpcore.WriteError(str(protocol.lost)) from protocol.lost

    async def aclose(self) -> None:
        self._transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                tls = await loop.start_tls(
                    self._transport, self._protocol, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError as exc:
            self._transport.close()
            raise httpcore.ConnectTimeout(f"TLS handshake took longer than {timeout} seconds") from exc
        except (OSError, ssl.SSLError, EOFError) as exc:
            self._transport.close()
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        if tls is None:  # the connection closed during the handshake
            raise httpcore.ConnectError("The connection closed during the TLS handshake")
        self._protocol.transport = tls
        return AsyncioStream(tls, self._protocol)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            return self._is_readable()
        name = {"ssl_object": "ssl_object", "client_addr": "sockname", "server_addr": "peername", "socket": "socket"}
        if info not in name:
            return None
        try:
            return self._transport.get_extra_info(name[info])
        except AttributeError:  # a TLS transport that has closed no longer knows its details
            return None

    def _is_readable(self) -> bool:
        """True when an idle pooled connection has something pending: data, or the server hung up."""
        protocol = self._protocol
        if protocol.buffer or protocol.eof or protocol.closed:
            return True
        sock = self.get_extra_info("socket")
        if sock is None or sock.fileno() < 0:
            return True
        with contextlib.suppress(OSError, ValueError):
            if hasattr(select, "poll"):  # select() cannot take descriptors above 1023
                poller = select.poll()
                poller.register(sock.fileno(), select.POLLIN)
                return bool(poller.poll(0))
            readable, _, _ = select.select([sock], [], [], 0)
            return bool(readable)
        return True


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """Opens connections with the running event loop; see the module docstring for why."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await loop.create_connection(
                    _SocketProtocol,
                    host,
                    port,
                    local_addr=(local_address, 0) if local_address else None,
                    # An address has nothing to race, and asyncio would still start tasks to race it.
                    happy_eyeballs_delay=None if _is_ip_address(host) else _HAPPY_EYEBALLS_DELAY,
                )
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"Could not connect to {host}:{port} within {timeout} seconds") from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        return _stream(transport, protocol, socket_options)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await loop.create_unix_connection(_SocketProtocol, path)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"Could not connect to {path} within {timeout} seconds") from exc
        except (OSError, NotImplementedError) as exc:
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        return _stream(transport, protocol, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def _is_ip_address(host: str) -> bool:
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, host)
        except (OSError, ValueError):
            continue
        return True
    return False


def _stream(
    transport: asyncio.BaseTransport, protocol: asyncio.BaseProtocol, socket_options: Iterable[SocketOption] | None
) -> AsyncioStream:
    sock: socket.socket | None = transport.get_extra_info("socket")
    if sock is not None:
        for option in socket_options or ():
            sock.setsockopt(*option)
    return AsyncioStream(cast(asyncio.Transport, transport), cast(_SocketProtocol, protocol))


__all__ = ["AsyncioBackend", "AsyncioStream"]
