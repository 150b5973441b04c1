"""The asyncio network backend under httpx: real sockets, TLS, timeouts, failures and pooling."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from pi.ai.http import get_client
from pi.ai.net_backend import AsyncioBackend, _is_ip_address, use_asyncio_sockets

TLS_DIR = Path(__file__).parent / "fixtures" / "tls"

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def serve(handler: Handler, tls: ssl.SSLContext | None = None) -> AsyncIterator[tuple[str, list[int]]]:
    """A loopback server running `handler` per connection; yields its base URL and a connection counter."""
    connections: list[int] = []

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        try:
            await handler(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0, ssl=tls)
    port = server.sockets[0].getsockname()[1]
    scheme = "https" if tls else "http"
    try:
        yield f"{scheme}://127.0.0.1:{port}", connections
    finally:
        server.close()
        await server.wait_closed()


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return await reader.readexactly(length) if length else b""


def reply(body: bytes, *, close: bool = False) -> bytes:
    extra = b"connection: close\r\n" if close else b""
    return b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n%s\r\n%s" % (len(body), extra, body)


def client(**kwargs: object) -> httpx.AsyncClient:
    made = httpx.AsyncClient(**kwargs)  # type: ignore[arg-type]
    assert use_asyncio_sockets(made._transport._pool, asyncio.get_running_loop())  # type: ignore[attr-defined]
    return made


def server_tls() -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(TLS_DIR / "cert.pem", TLS_DIR / "key.pem")
    return context


async def test_the_shared_client_uses_this_backend() -> None:
    pool = get_client()._transport._pool  # type: ignore[attr-defined]
    assert isinstance(pool._network_backend, AsyncioBackend)


async def test_other_pools_and_other_event_loops_keep_their_own_backend() -> None:
    loop = asyncio.get_running_loop()
    assert use_asyncio_sockets(None, loop) is False
    assert use_asyncio_sockets(object(), loop) is False
    pool = httpx.AsyncHTTPTransport()._pool
    assert use_asyncio_sockets(pool, object()) is False  # e.g. uvloop, which is no asyncio.BaseEventLoop
    assert not isinstance(pool._network_backend, AsyncioBackend)


async def test_a_streamed_response_arrives_whole_across_many_writes() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        body = await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
        for i in range(20):
            piece = b"data: %d %s\n\n" % (i, body)
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async with serve(handler) as (url, _), client() as http, http.stream("POST", url, content=b"ping") as response:
        text = b"".join([chunk async for chunk in response.aiter_bytes()])
    assert text == b"".join(b"data: %d ping\n\n" % i for i in range(20))


async def test_tls_round_trip_with_a_trusted_certificate() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(reply(b"secure", close=True))
        await writer.drain()

    trust = ssl.create_default_context(cafile=str(TLS_DIR / "cert.pem"))
    async with (
        serve(handler, server_tls()) as (url, _),
        client(verify=trust) as http,
        http.stream("GET", url) as response,
    ):
        assert response.extensions["network_stream"].get_extra_info("ssl_object") is not None
        assert (await response.aread()) == b"secure"


async def test_an_untrusted_certificate_is_a_connect_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)

    async with serve(handler, server_tls()) as (url, _), client() as http:
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await http.get(url)


async def test_a_refused_connection_is_a_connect_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with client() as http:
        with pytest.raises(httpx.ConnectError):
            await http.get(f"http://127.0.0.1:{port}/")


async def test_a_silent_server_is_a_read_timeout() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await asyncio.sleep(5)

    async with serve(handler) as (url, _), client(timeout=httpx.Timeout(5.0, read=0.2)) as http:
        with pytest.raises(httpx.ReadTimeout):
            await http.get(url)


async def test_a_reset_connection_is_a_read_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial")
        await writer.drain()
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends RST
        writer.transport.abort()

    async with serve(handler) as (url, _), client() as http:
        with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):
            await http.get(url)


async def test_a_server_that_stops_reading_is_a_write_timeout() -> None:
    release = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await release.wait()

    body = b"x" * (64 << 20)
    async with serve(handler) as (url, _), client(timeout=httpx.Timeout(5.0, write=0.3)) as http:
        with pytest.raises(httpx.WriteTimeout):
            await http.post(url, content=body)
        release.set()


async def test_a_large_upload_is_sent_whole_under_backpressure() -> None:
    received: list[int] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        body = await read_request(reader)
        received.append(len(body))
        writer.write(reply(b"ok", close=True))
        await writer.drain()

    async with serve(handler) as (url, _), client() as http:
        response = await http.post(url, content=b"y" * (16 << 20))
    assert response.text == "ok"
    assert received == [16 << 20]


async def test_idle_connections_are_reused_and_dropped_once_the_server_closes_them() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # Two requests per connection, then the server hangs up without saying so in advance.
        for _ in range(2):
            await read_request(reader)
            writer.write(reply(b"ok"))
            await writer.drain()

    async with serve(handler) as (url, connections), client() as http:
        for _ in range(5):
            assert (await http.get(url)).text == "ok"
            await asyncio.sleep(0.01)  # let the loop see the server's FIN on an idle connection
    assert len(connections) == 3


async def test_a_cancelled_read_leaves_the_task_cancelled_and_the_client_usable() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await asyncio.sleep(0.3)
        writer.write(reply(b"late", close=True))
        await writer.drain()

    async with serve(handler) as (url, _), client() as http:
        task = asyncio.create_task(http.get(url))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert (await http.get(url)).text == "late"


async def test_unix_sockets_and_socket_options(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sock")

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(reply(b"unix", close=True))
        await writer.drain()
        writer.close()

    server = await asyncio.start_unix_server(on_connect, path)
    try:
        transport = httpx.AsyncHTTPTransport(uds=path)
        assert use_asyncio_sockets(transport._pool, asyncio.get_running_loop())
        async with httpx.AsyncClient(transport=transport) as http:
            assert (await http.get("http://localhost/")).text == "unix"

        async def tcp_handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.read(1)

        async with serve(tcp_handler) as (url, _):
            port = int(url.rsplit(":", 1)[1])
            option = (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5, socket_options=[option])
            assert stream.get_extra_info("socket").getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
            assert stream.get_extra_info("server_addr")[1] == port
            assert stream.get_extra_info("is_readable") is False
            await stream.aclose()
    finally:
        server.close()
        await server.wait_closed()


async def test_the_shared_client_loads_its_trust_store_for_a_tls_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(reply(b"trusted", close=True))
        await writer.drain()

    monkeypatch.setenv("SSL_CERT_FILE", str(TLS_DIR / "cert.pem"))
    async with serve(handler, server_tls()) as (url, _):
        response = await get_client().get(url)
    assert response.text == "trusted"


async def test_connecting_to_an_address_races_nothing() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)

    loop = asyncio.get_running_loop()
    created: list[str] = []

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kw: Any) -> asyncio.Task[Any]:
        created.append(coro.__qualname__)
        return asyncio.Task(coro, loop=loop, **kw)

    async with serve(handler) as (url, _):
        port = int(url.rsplit(":", 1)[1])
        loop.set_task_factory(factory)
        try:
            stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        finally:
            loop.set_task_factory(None)
        await stream.aclose()
    assert [name for name in created if "staggered" in name] == []  # the server still makes its own


@pytest.mark.parametrize(
    ("host", "literal"), [("127.0.0.1", True), ("::1", True), ("localhost", False), ("api.example.com", False)]
)
def test_only_names_get_happy_eyeballs(host: str, literal: bool) -> None:
    assert _is_ip_address(host) is literal
