"""The pooled client's start-up savings keep its behaviour: same trust store, same importable modules."""

from __future__ import annotations

import ssl
import subprocess
import sys
from pathlib import Path

import certifi
import pytest

from pi.ai.http import DeferredTrustContext, RequestSpec, deferred_trust_context, get_client, iter_sse, open_stream
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
    response = await open_stream(
        RequestSpec(url=f"{server.url}/v1/chat", headers={}, body={}),
        signal=None,
        max_retries=0,
        max_retry_delay_ms=0,
        provider="test",
        model_id="m",
    )
    try:
        assert [event.data async for event in iter_sse(response)] == ['{"a": 1}', "[DONE]"]
    finally:
        await response.aclose()
    assert loads == []
    await get_client().aclose()


def test_importing_the_http_layer_leaves_httpx_whole() -> None:
    """httpx loads without its CLI, yet `httpx._main` stays importable; a missing sniffio stays missing."""
    code = (
        "import importlib.util, sys\n"
        "sniffio_installed = importlib.util.find_spec('sniffio') is not None\n"
        "import pi.ai.http\n"
        "print('httpx._main' in sys.modules, 'rich' in sys.modules)\n"
        "try:\n"
        "    import sniffio\n"
        "    print(sniffio_installed)\n"
        "except ImportError:\n"
        "    print(not sniffio_installed)\n"
        "try:\n"
        "    import httpx._main\n"
        "    print(True)\n"
        "except ImportError as error:\n"
        "    print('None in sys.modules' not in str(error))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "True", "True"]
