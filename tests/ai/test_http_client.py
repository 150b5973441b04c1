"""The pooled client's start-up savings keep its behaviour: the same trust store, loaded only for TLS."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import certifi
import pytest

from pi.ai.http import (
    DeferredTrustContext,
    TransportError,
    deferred_trust_context,
    get_client,
    iter_sse,
)
from tests.ai.plain_stream import open_plain
from tests.support.http_server import ScriptedResponse, ScriptedServer, sse


def _ca_count(context: ssl.SSLContext) -> int:
    return context.cert_store_stats()["x509_ca"]


def _tls_object(context: ssl.SSLContext) -> ssl.SSLObject:
    return context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.com")


def test_context_matches_the_default_client_context_and_loads_certifi_on_first_tls_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    context = deferred_trust_context()
    reference = ssl.create_default_context(cafile=certifi.where())
    assert context.verify_mode == reference.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname is reference.check_hostname is True
    assert context.options == reference.options
    assert context.minimum_version == reference.minimum_version
    assert _ca_count(context) == 0
    _tls_object(context)
    assert _ca_count(context) == _ca_count(reference) > 0
    _tls_object(context)  # loaded once, not again per connection
    assert _ca_count(context) == _ca_count(reference)


def test_context_honours_ssl_cert_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = Path(certifi.where()).read_text(encoding="ascii")
    first = bundle[bundle.index("-----BEGIN CERTIFICATE-----") :]
    first = first[: first.index("-----END CERTIFICATE-----") + len("-----END CERTIFICATE-----")] + "\n"
    cafile = tmp_path / "one.pem"
    cafile.write_text(first, encoding="ascii")
    monkeypatch.setenv("SSL_CERT_FILE", str(cafile))
    context = deferred_trust_context()
    _tls_object(context)
    assert _ca_count(context) == 1


async def test_plain_http_requests_never_load_certificates(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[DeferredTrustContext] = []
    original = DeferredTrustContext.load_trust

    def recording(self: DeferredTrustContext) -> None:
        loads.append(self)
        original(self)

    monkeypatch.setattr(DeferredTrustContext, "load_trust", recording)
    server.queue(ScriptedResponse(chunks=sse({"a": 1}, "[DONE]")))
    response = await open_plain(f"{server.url}/v1/chat")
    try:
        assert [event.data async for event in iter_sse(response)] == ['{"a": 1}', "[DONE]"]
    finally:
        await response.aclose()
    assert loads == []
    await get_client().aclose()


TLS_DIR = Path(__file__).parent / "fixtures" / "tls"


@contextlib.asynccontextmanager
async def tls_server(body: bytes) -> AsyncIterator[str]:
    """A loopback HTTPS server (certificate for 127.0.0.1 in fixtures/tls) answering every request with `body`."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(TLS_DIR / "cert.pem", TLS_DIR / "key.pem")

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body))
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0, ssl=context)
    try:
        yield f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()
        await server.wait_closed()


async def test_the_shared_client_trusts_ssl_cert_file_for_a_tls_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS_DIR / "cert.pem"))
    async with tls_server(b"trusted") as url:
        response = await get_client().send("GET", url)
        assert await response.aread() == b"trusted"
    await get_client().aclose()


async def test_an_untrusted_certificate_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    async with tls_server(b"never") as url:
        with pytest.raises(TransportError, match=r"could not be verified .*self-signed.* point SSL_CERT_FILE"):
            await get_client().send("GET", url)
    await get_client().aclose()
