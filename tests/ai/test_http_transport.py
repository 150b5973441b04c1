"""The provider transport (h11 over asyncio streams): TLS, proxies from the environment (forwarding,
CONNECT tunnels, SOCKS5), keep-alive reuse, redirects, compressed bodies, the headers every request
carries, and failures below HTTP, against loopback servers."""

from __future__ import annotations

import asyncio
import base64
import errno
import gzip
import re
import socket
import ssl
import threading
import zlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from pi.ai.http import TransportError, deferred_trust_context, get_client, iter_sse
from pi.ai.http_proxy_env import ProxyChoice, proxy_for
from pi.ai.http_response import Headers, TransportTimeout
from pi.ai.http_transport import MAX_REDIRECTS, USER_AGENT, HttpPool, Timeouts
from tests.ai.plain_stream import open_plain
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response, sse
from tests.support.proxies import ConnectProxy, Socks5Proxy

PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def _no_proxy_from_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


@pytest.fixture
def other_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer().start()
    yield server
    server.stop()


async def _post(url: str, body: dict[str, object] | None = None, headers: dict[str, str] | None = None) -> bytes:
    response = await open_plain(url, body, headers)
    try:
        return await response.aread()
    finally:
        await response.aclose()


async def test_every_request_names_its_host_length_encoding_and_agent(server: ScriptedServer) -> None:
    server.queue(json_response(200, {"ok": True}))
    await _post(f"{server.url}/v1/chat", {"a": 1})
    seen = server.requests[0].headers
    assert seen["host"] == server.url.removeprefix("http://")
    assert seen["content-length"] == str(len(server.requests[0].body))
    assert seen["accept-encoding"] == "gzip, deflate"
    assert seen["user-agent"] == USER_AGENT and USER_AGENT.startswith("pi/")
    assert seen["content-type"] == "application/json"


async def test_a_request_goes_through_the_proxy_the_environment_names(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", server.url)
    server.queue(ScriptedResponse(chunks=sse({"via": "proxy"}, "[DONE]")))
    response = await open_plain("http://api.example.invalid/v1/chat", {"q": 1})
    assert [event.data async for event in iter_sse(response)] == ['{"via": "proxy"}', "[DONE]"]
    [request] = server.requests
    # A forward proxy is sent the whole URL and the origin's Host.
    assert request.path == "http://api.example.invalid/v1/chat"
    assert request.headers["host"] == "api.example.invalid"
    assert request.json() == {"q": 1}


async def test_proxy_credentials_in_the_url_are_sent_as_basic_auth(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("http_proxy", server.url.replace("http://", "http://me:p%40ss@"))
    server.queue(json_response(200, {}))
    await _post("http://api.example.invalid/v1/chat")
    expected = "Basic " + base64.b64encode(b"me:p@ss").decode()
    assert server.requests[0].headers["proxy-authorization"] == expected


async def test_no_proxy_hosts_are_reached_directly(
    server: ScriptedServer, other_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", other_server.url)
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    server.queue(json_response(200, {"direct": True}))
    assert await _post(f"{server.url}/v1/chat") == b'{"direct": true}'
    assert len(server.requests) == 1 and other_server.requests == []


@pytest.mark.parametrize(
    ("environ", "url", "expected"),
    [
        ({}, "https://api.example.com/v1", None),
        ({"HTTPS_PROXY": "http://p:1"}, "https://api.example.com/v1", ProxyChoice("http://p:1")),
        ({"HTTPS_PROXY": "http://p:1"}, "http://api.example.com/v1", None),
        ({"https_proxy": "http://low:1", "HTTPS_PROXY": "http://up:1"}, "https://a.b/", ProxyChoice("http://low:1")),
        ({"ALL_PROXY": "socks5://s:1080"}, "http://a.b/", ProxyChoice("socks5://s:1080")),
        ({"HTTP_PROXY": "p:3128"}, "http://a.b/", ProxyChoice("http://p:3128")),
        ({"HTTP_PROXY": "http://u:pw@p:1"}, "http://a.b/", ProxyChoice("http://p:1", "u", "pw")),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "*"}, "http://a.b/", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "example.com"}, "http://example.com/", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "example.com"}, "http://api.example.com/", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "example.com"}, "http://badexample.com/", ProxyChoice("http://p:1")),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": ".example.com"}, "http://example.com/", ProxyChoice("http://p:1")),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": ".example.com"}, "http://x.example.com/", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "10.0.0.0/8"}, "http://10.1.2.3:8080/", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "10.0.0.0/8"}, "http://11.1.2.3/", ProxyChoice("http://p:1")),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "a.b:8080"}, "http://a.b:8080/", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "a.b:8080"}, "http://a.b/", ProxyChoice("http://p:1")),
    ],
)
def test_the_proxy_for_a_url(environ: dict[str, str], url: str, expected: ProxyChoice | None) -> None:
    assert proxy_for(url, environ) == expected


async def test_a_307_redirect_resends_the_post_with_its_body(
    server: ScriptedServer, other_server: ScriptedServer
) -> None:
    server.queue(ScriptedResponse(status=307, headers={"location": f"{other_server.url}/v2/chat"}))
    other_server.queue(json_response(200, {"moved": True}))
    assert await _post(f"{server.url}/v1/chat", {"x": 1}, {"authorization": "Bearer k"}) == b'{"moved": true}'
    [moved] = other_server.requests
    assert (moved.method, moved.path, moved.json()) == ("POST", "/v2/chat", {"x": 1})
    # Another origin (another port) is not given the credentials meant for the first.
    assert "authorization" not in moved.headers
    assert server.requests[0].headers["authorization"] == "Bearer k"


async def test_a_same_origin_redirect_keeps_the_credentials(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(status=308, headers={"location": "/v2/chat"}), json_response(200, {}))
    await _post(f"{server.url}/v1/chat", {"x": 1}, {"authorization": "Bearer k"})
    assert [r.path for r in server.requests] == ["/v1/chat", "/v2/chat"]
    assert server.requests[1].headers["authorization"] == "Bearer k"


async def test_a_303_redirect_is_followed_with_a_get_and_no_body(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(status=303, headers={"location": "/result"}), json_response(200, {"r": 1}))
    assert await _post(f"{server.url}/v1/jobs", {"x": 1}) == b'{"r": 1}'
    second = server.requests[1]
    assert (second.method, second.path, second.body) == ("GET", "/result", b"")
    assert "content-type" not in second.headers


async def test_endless_redirects_fail_with_a_clear_error(server: ScriptedServer) -> None:
    server.queue(*[ScriptedResponse(status=307, headers={"location": "/again"}) for _ in range(MAX_REDIRECTS + 1)])
    with pytest.raises(ConnectionError, match=f"More than {MAX_REDIRECTS} redirects"):
        await _post(f"{server.url}/v1/chat")


@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda data: zlib.compress(data)[2:-4]),  # raw deflate, as some servers send it
    ],
)
async def test_a_compressed_event_stream_is_decoded_as_it_arrives(
    server: ScriptedServer, encoding: str, encode: object
) -> None:
    packed = encode(b"".join(sse({"n": 1}, {"n": 2}, "[DONE]")))  # type: ignore[operator]
    halves = [packed[: len(packed) // 2], packed[len(packed) // 2 :]]
    server.queue(
        ScriptedResponse(chunks=halves, headers={"content-type": "text/event-stream", "content-encoding": encoding})
    )
    response = await open_plain(f"{server.url}/v1/chat")
    assert [event.data async for event in iter_sse(response)] == ['{"n": 1}', '{"n": 2}', "[DONE]"]


async def test_a_corrupt_compressed_body_is_a_transport_error(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=[b"not gzip at all"], headers={"content-encoding": "gzip"}))
    with pytest.raises(TransportError, match="could not be decompressed"):
        await _post(f"{server.url}/v1/chat")


async def test_a_refused_connection_names_the_failure() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ConnectionError, match="Connection error: "):
        await _post(f"http://127.0.0.1:{port}/v1/chat")


async def test_a_base_url_without_http_is_refused_with_a_hint() -> None:
    with pytest.raises(ConnectionError, match="Check the provider's base URL"):
        await _post("ftp://example.com/v1/chat")


async def test_a_base_url_whose_port_is_no_number_is_refused_with_a_hint() -> None:
    with pytest.raises(ConnectionError, match=r"The port in 'http://127\.0\.0\.1:eighty/v1/chat' is not a number"):
        await _post("http://127.0.0.1:eighty/v1/chat")


async def test_a_redirect_to_a_port_that_is_no_number_is_a_transport_error(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(status=307, headers={"location": "http://127.0.0.1:x/v2"}))
    with pytest.raises(ConnectionError, match="is not a number"):
        await _post(f"{server.url}/v1/chat")


async def test_a_stream_dropped_midway_raises_a_transport_error(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=sse({"n": 1}, {"n": 2}), drop_after=1))
    response = await open_plain(f"{server.url}/v1/chat")
    seen: list[str] = []
    with pytest.raises(TransportError):
        async for event in iter_sse(response):
            seen.append(event.data)
    assert seen == ['{"n": 1}']


async def test_the_pool_reuses_a_kept_alive_connection() -> None:
    server = ScriptedServer(keep_alive=True).start()
    try:
        server.queue(json_response(200, {"n": 1}), json_response(200, {"n": 2}))
        assert await _post(f"{server.url}/a") == b'{"n": 1}'
        assert await _post(f"{server.url}/b") == b'{"n": 2}'
        assert server.connections == 1
    finally:
        server.stop()
        await get_client().aclose()


def test_headers_read_in_any_case_and_join_repeats() -> None:
    headers = Headers([("Content-Type", "text/plain"), ("X-Rate", "1"), ("x-rate", "2")])
    assert headers["content-type"] == headers["CONTENT-TYPE"] == "text/plain"
    assert headers["x-rate"] == "1, 2"
    assert dict(headers) == {"content-type": "text/plain", "x-rate": "1, 2"}
    assert "Content-Type" in headers and "missing" not in headers


TLS_DIR = Path(__file__).parent / "fixtures" / "tls"


@pytest.fixture
def tls_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServer]:
    """An https server with a self-signed certificate for 127.0.0.1, which SSL_CERT_FILE makes the only one trusted."""
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS_DIR / "cert.pem"))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(TLS_DIR / "cert.pem", TLS_DIR / "key.pem")
    server = ScriptedServer(tls=context).start()
    yield server
    server.stop()


@pytest.fixture
async def pool() -> AsyncIterator[HttpPool]:
    """A pool of its own, so that the trust store and proxies each test sets up are read afresh."""
    pool = HttpPool(deferred_trust_context)
    yield pool
    await pool.aclose()


async def _get(pool: HttpPool, url: str) -> tuple[int, bytes]:
    response = await pool.send("POST", url, headers={"content-type": "application/json"}, content=b"{}")
    try:
        return response.status_code, await response.aread()
    finally:
        await response.aclose()


async def test_https_is_verified_against_the_trust_store_ssl_cert_file_names(
    pool: HttpPool, tls_server: ScriptedServer
) -> None:
    tls_server.queue(json_response(200, {"secure": True}))
    assert tls_server.url.startswith("https://127.0.0.1:")
    assert await _get(pool, f"{tls_server.url}/v1/chat") == (200, b'{"secure": true}')
    assert tls_server.requests[0].path == "/v1/chat"


async def test_the_tls_context_is_made_at_the_first_https_connection_and_only_once(
    other_server: ScriptedServer, tls_server: ScriptedServer
) -> None:
    made: list[ssl.SSLContext] = []

    def make() -> ssl.SSLContext:
        made.append(deferred_trust_context())
        return made[-1]

    pool = HttpPool(make)
    try:
        other_server.queue(json_response(200, {"plain": True}), json_response(200, {"plain": True}))
        for _ in range(2):
            assert await _get(pool, f"{other_server.url}/v1/chat") == (200, b'{"plain": true}')
        assert made == []  # plain http to a local server never pays for a context
        tls_server.queue(json_response(200, {"secure": True}), json_response(200, {"secure": True}))
        for _ in range(2):
            assert await _get(pool, f"{tls_server.url}/v1/chat") == (200, b'{"secure": true}')
        assert len(made) == 1  # made once, kept for the pool's later connections
    finally:
        await pool.aclose()


async def test_https_goes_through_a_connect_tunnel_with_the_proxy_credentials(
    pool: HttpPool, tls_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ConnectProxy() as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url.replace("http://", "http://me:secret@"))
        tls_server.queue(json_response(200, {"tunnelled": True}))
        assert await _get(pool, f"{tls_server.url}/v1/chat") == (200, b'{"tunnelled": true}')
    [tunnel] = proxy.tunnels
    assert tunnel.target == tls_server.url.removeprefix("https://")
    assert tunnel.credentials == "Basic " + base64.b64encode(b"me:secret").decode()
    # TLS ran end to end through the tunnel: the server saw the request's own path and Host.
    assert tls_server.requests[0].path == "/v1/chat"
    assert tls_server.requests[0].headers["host"] == tunnel.target


async def test_a_proxy_that_refuses_the_tunnel_says_so(
    pool: HttpPool, tls_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ConnectProxy(refuse=407) as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        with pytest.raises(TransportError, match=r"refused a tunnel to 127\.0\.0\.1:.*407.*credentials in the proxy"):
            await _get(pool, f"{tls_server.url}/v1/chat")
    assert tls_server.requests == []


@pytest.mark.parametrize("login", [None, "me:pw"])
async def test_requests_go_through_a_socks5_proxy(
    pool: HttpPool, tls_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, login: str | None
) -> None:
    with Socks5Proxy() as proxy:
        url = proxy.url.replace("socks5://", f"socks5://{login}@") if login else proxy.url
        monkeypatch.setenv("ALL_PROXY", url)
        tls_server.queue(json_response(200, {"via": "socks"}))
        assert await _get(pool, f"{tls_server.url}/v1/chat") == (200, b'{"via": "socks"}')
    [tunnel] = proxy.tunnels
    assert tunnel.target == tls_server.url.removeprefix("https://")
    assert tunnel.credentials == login


async def test_a_socks5_refusal_names_the_reason(pool: HttpPool, monkeypatch: pytest.MonkeyPatch) -> None:
    with Socks5Proxy(refuse=5) as proxy:
        monkeypatch.setenv("ALL_PROXY", proxy.url)
        with pytest.raises(TransportError, match=r"could not connect to api\.example\.invalid:80: connection refused"):
            await _get(pool, "http://api.example.invalid/v1/chat")


async def test_an_unreachable_proxy_is_named_as_the_failure(pool: HttpPool, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("ALL_PROXY", f"socks5://127.0.0.1:{port}")
    expected = f"Could not reach the proxy socks5://127.0.0.1:{port}: Connection refused"
    with pytest.raises(TransportError, match=re.escape(expected)):
        await _get(pool, "http://api.example.invalid/v1/chat")


async def test_a_proxy_scheme_pi_cannot_speak_is_refused(pool: HttpPool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALL_PROXY", "socks4://127.0.0.1:1080")
    with pytest.raises(TransportError, match="socks4://, which pi cannot speak"):
        await _get(pool, "http://api.example.invalid/v1/chat")


class _ClosingServer:
    """Answers each connection's first request as keep-alive, then closes it: what an idle-timeout looks like."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.connections = 0
        self.served = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                head = b""
                while b"\r\n\r\n" not in head:
                    head += conn.recv(4096)
                length = int(next(
                    (line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")),
                    b"0",
                ))  # fmt: skip
                body = head.split(b"\r\n\r\n", 1)[1]
                while len(body) < length:
                    body += conn.recv(4096)
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                conn.shutdown(socket.SHUT_RDWR)
            self.served.set()


async def test_a_kept_alive_connection_the_server_dropped_is_replaced(pool: HttpPool) -> None:
    server = _ClosingServer()
    try:
        assert await _get(pool, f"{server.url}/a") == (200, b"ok")
        await asyncio.to_thread(server.served.wait, 30)
        # The pool holds the connection as idle; the server has closed its end. The next request
        # must not fail on it, but go out on a new connection.
        assert await _get(pool, f"{server.url}/b") == (200, b"ok")
        assert server.connections == 2
    finally:
        server.listener.close()


async def test_a_header_that_http_cannot_carry_is_refused_with_a_hint(pool: HttpPool, server: ScriptedServer) -> None:
    with pytest.raises(TransportError, match="Check the headers and base URL"):
        await pool.send("POST", f"{server.url}/v1", headers={"x-key": "line\nbreak"}, content=b"{}")
    assert server.requests == []


def _full_listener() -> tuple[socket.socket, list[socket.socket]]:
    """A listening socket that never accepts, with its accept queue already full.

    Linux drops a SYN for a listener whose accept queue is full, so a further connect neither
    succeeds nor is refused: it waits, as for a host that does not answer.
    """
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    queued: list[socket.socket] = []
    for _ in range(8):
        probe = socket.socket()
        probe.setblocking(False)
        if probe.connect_ex(listener.getsockname()) not in (0, errno.EINPROGRESS):
            probe.close()
            break
        queued.append(probe)
    return listener, queued


async def test_a_host_that_does_not_answer_the_connect_is_a_connect_timeout(pool: HttpPool) -> None:
    listener, queued = _full_listener()
    port = listener.getsockname()[1]
    try:
        with pytest.raises(
            TransportTimeout, match=r"ConnectTimeout: connecting to 127\.0\.0\.1:\d+ took longer than 0\.3 s"
        ):
            await pool.send("GET", f"http://127.0.0.1:{port}/v1", timeouts=Timeouts(connect=0.3, read=5, write=5))
    finally:
        for probe in queued:
            probe.close()
        listener.close()


async def test_a_server_that_stops_reading_the_request_is_a_write_timeout(pool: HttpPool) -> None:
    release = asyncio.Event()
    accepted = asyncio.Event()

    async def never_read(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.set()
        await release.wait()
        writer.close()

    server = await asyncio.start_server(never_read, "127.0.0.1", 0)
    server_socket = server.sockets[0]
    server_socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    port = server_socket.getsockname()[1]
    body = b"x" * (64 * 1024 * 1024)  # far more than both ends' socket buffers hold
    try:
        with pytest.raises(TransportTimeout, match=r"WriteTimeout: 127\.0\.0\.1:\d+ took the request for 0\.5 s"):
            await pool.send("POST", f"http://127.0.0.1:{port}/v1", content=body, timeouts=Timeouts(5, 5, 0.5))
        assert accepted.is_set()
    finally:
        release.set()
        server.close()
        await server.wait_closed()
