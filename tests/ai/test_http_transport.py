"""The provider transport over httpcore: proxies from the environment, redirects, compressed bodies,
the headers every request carries, and failures below HTTP, against loopback servers."""

from __future__ import annotations

import base64
import gzip
import importlib.util
import socket
import zlib
from collections.abc import Iterator

import pytest

from pi.ai.http import TransportError, get_client, iter_sse
from pi.ai.http_proxy_env import ProxyChoice, proxy_for
from pi.ai.http_response import Headers
from pi.ai.http_transport import MAX_REDIRECTS, USER_AGENT
from tests.ai.plain_stream import open_plain
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response, sse

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


async def test_a_socks_proxy_without_socksio_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    # socksio is not one of pi's dependencies; where it is installed, the proxy is simply tried.
    expected = "pip install socksio" if importlib.util.find_spec("socksio") is None else "Connection error"
    monkeypatch.setenv("ALL_PROXY", "socks5://127.0.0.1:9")
    with pytest.raises(ConnectionError, match=expected):
        await _post("http://api.example.invalid/v1/chat")
