"""The shared client's transport: httpcore on asyncio's sockets, behaving as httpx's default transport does."""

from __future__ import annotations

import asyncio
import socket
import ssl

import httpx
import pytest

from pi.ai.http import RequestSpec, get_client, iter_sse, open_stream
from pi.ai.http_transport import AsyncioTransport
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response, sse


async def test_the_shared_client_on_asyncio_uses_the_asyncio_transport(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    original = AsyncioTransport.handle_async_request

    async def recording(self: AsyncioTransport, request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return await original(self, request)

    monkeypatch.setattr(AsyncioTransport, "handle_async_request", recording)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    server.queue(json_response(200, {"ok": True}, headers={"x-reply": "yes"}))
    client = get_client()
    try:
        response = await client.post(f"{server.url}/v1/echo?q=1", json={"hello": "wörld"}, headers={"x-test": "1"})
        assert response.status_code == 200
        assert response.json() == {"ok": True}
        assert response.headers["x-reply"] == "yes"
        sent = server.requests[0]
        assert (sent.method, sent.path) == ("POST", "/v1/echo?q=1")
        assert sent.headers["x-test"] == "1"
        assert sent.json() == {"hello": "wörld"}
        assert seen == [f"{server.url}/v1/echo?q=1"]
    finally:
        await client.aclose()


async def test_kept_alive_connection_is_reused_across_streamed_requests() -> None:
    server = ScriptedServer(keep_alive=True).start()
    try:
        for _ in range(3):
            server.queue(ScriptedResponse(chunks=sse({"a": 1}, "[DONE]")))
        spec = RequestSpec(url=f"{server.url}/v1/chat", headers={}, body={})
        for _ in range(3):
            response = await open_stream(
                spec, signal=None, max_retries=0, max_retry_delay_ms=0, provider="t", model_id="m"
            )
            try:
                assert [e.data async for e in iter_sse(response)] == ['{"a": 1}', "[DONE]"]
            finally:
                await response.aclose()
        assert server.connections == 1
    finally:
        await get_client().aclose()
        server.stop()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_connection_refused_is_httpx_connect_error() -> None:
    transport = AsyncioTransport(ssl.create_default_context())
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"http://127.0.0.1:{_closed_port()}/")


async def test_a_server_that_goes_silent_is_httpx_read_timeout() -> None:
    accepted = asyncio.Event()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.set()
        await reader.read(65536)
        await asyncio.sleep(5)
        writer.close()

    silent = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = silent.sockets[0].getsockname()[1]
    transport = AsyncioTransport(ssl.create_default_context())
    try:
        async with httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(5.0, read=0.2)) as client:
            with pytest.raises(httpx.ReadTimeout):
                await client.get(f"http://127.0.0.1:{port}/")
        assert accepted.is_set()
    finally:
        silent.close()


async def test_a_body_cut_mid_stream_is_an_httpx_transport_error(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=sse({"a": 1}), drop_after=1))
    transport = AsyncioTransport(ssl.create_default_context())
    async with httpx.AsyncClient(transport=transport) as client, client.stream("GET", f"{server.url}/v1/chat") as reply:
        with pytest.raises(httpx.TransportError):
            async for _ in reply.aiter_bytes():
                pass


async def test_a_proxy_from_the_environment_still_carries_the_requests(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", server.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    server.queue(json_response(200, {"via": "proxy"}))
    client = get_client()
    try:
        response = await client.get("http://models.example.invalid/v1/models")
        assert response.json() == {"via": "proxy"}
        assert server.requests[0].path == "http://models.example.invalid/v1/models"  # absolute form: a proxy request
    finally:
        await client.aclose()
