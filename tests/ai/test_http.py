"""Retries, Retry-After and SSE framing of the shared HTTP layer, against a loopback server."""

from __future__ import annotations

import time

import pytest

from pi.ai.abort import AbortController
from pi.ai.http import ProviderHTTPError, RequestSpec, RetryDelayTooLong, TransportTimeout, iter_sse, open_stream
from tests.ai.retry_wait import abort_when_retry_wait_starts
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response, sse


def _spec(server: ScriptedServer) -> RequestSpec:
    return RequestSpec(url=f"{server.url}/v1/chat", headers={"x-test": "1"}, body={"hello": "wörld"})


async def _open(server: ScriptedServer, **kw: object) -> object:
    args: dict[str, object] = {
        "signal": None,
        "max_retries": 2,
        "max_retry_delay_ms": 60_000,
        "provider": "test",
        "model_id": "m",
    }
    args.update(kw)
    return await open_stream(_spec(server), **args)  # type: ignore[arg-type]


async def test_retries_429_honouring_retry_after_then_streams(server: ScriptedServer) -> None:
    server.queue(
        json_response(429, {"error": "slow down"}, headers={"retry-after": "0.2"}),
        ScriptedResponse(chunks=sse({"a": 1}, "[DONE]")),
    )
    started = time.monotonic()
    response = await _open(server)
    events = [e.data async for e in iter_sse(response)]  # type: ignore[arg-type]
    assert time.monotonic() - started >= 0.2
    assert events == ['{"a": 1}', "[DONE]"]
    assert len(server.requests) == 2
    assert server.requests[0].json() == {"hello": "wörld"}
    assert server.requests[0].headers["x-test"] == "1"


async def test_non_retryable_status_raises_with_status_and_body(server: ScriptedServer) -> None:
    server.queue(json_response(401, {"error": {"message": "invalid x-api-key"}}))
    with pytest.raises(ProviderHTTPError) as info:
        await _open(server)
    assert str(info.value).startswith('401 {"error": {"message": "invalid x-api-key"}}')
    assert "check the API key" in str(info.value)
    assert len(server.requests) == 1


async def test_empty_error_body_reads_no_body(server: ScriptedServer) -> None:
    server.queue(json_response(400, b""))
    with pytest.raises(ProviderHTTPError, match=r"^400 status code \(no body\)"):
        await _open(server)


async def test_server_delay_beyond_cap_fails_fast(server: ScriptedServer) -> None:
    server.queue(json_response(529, {"error": "overloaded"}, headers={"retry-after": "120"}))
    with pytest.raises(RetryDelayTooLong, match=r"Server requested 120s retry delay \(max: 60s\)"):
        await _open(server)


async def test_gives_up_after_max_retries(server: ScriptedServer) -> None:
    server.queue(*[json_response(500, {"error": "boom"}, headers={"retry-after": "0"}) for _ in range(3)])
    with pytest.raises(ProviderHTTPError, match=r"^500"):
        await _open(server, max_retries=2)
    assert len(server.requests) == 3


async def test_abort_stops_the_retry_wait_at_once(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    server.queue(json_response(503, {"error": "x"}, headers={"retry-after": "30"}))
    controller = AbortController()
    waited = abort_when_retry_wait_starts(monkeypatch, controller)
    started = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await _open(server, signal=controller.signal)
    assert waited.is_set()
    assert time.monotonic() - started < 15  # not the 30 s the server asked for
    assert len(server.requests) == 1


async def test_timeout_bounds_a_silent_server(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=sse({"a": 1}), hold_open=30))
    response = await _open(server, timeout_s=0.3)
    started = time.monotonic()
    with pytest.raises(TransportTimeout, match="ReadTimeout"):
        [e async for e in iter_sse(response)]  # type: ignore[arg-type]
    assert time.monotonic() - started < 10  # the 0.3 s timeout, not the 30 s the server stays silent


async def test_sse_lines_end_only_at_cr_or_lf(server: ScriptedServer) -> None:
    # JSON may carry U+2028, U+2029 and NEL unescaped; they are text, not line ends. A CRLF split
    # across two chunks is one line end, and a bare CR ends a line too.
    text = "a\u2028b\u2029c\x85d\x0be"
    frame = 'data: {"t": "' + text + '"}\r'
    server.queue(
        ScriptedResponse(
            chunks=[frame.encode(), b"\n\r\n", b"event: x\rdata: 2\r\r", "data: é".encode()[:-1], b"\xa9\n\n"]
        )
    )
    response = await _open(server)
    events = [(e.event, e.data) async for e in iter_sse(response)]  # type: ignore[arg-type]
    assert events == [("message", '{"t": "' + text + '"}'), ("x", "2"), ("message", "é")]


async def test_lone_surrogates_anywhere_in_the_body_are_dropped_not_fatal(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=sse({"a": 1})))
    spec = RequestSpec(url=f"{server.url}/v1/chat", headers={}, body={"tools": [{"description": "half \ud83d emoji"}]})
    response = await open_stream(spec, signal=None, max_retries=0, max_retry_delay_ms=0, provider="t", model_id="m")
    await response.aclose()
    assert server.requests[0].json() == {"tools": [{"description": "half  emoji"}]}


async def test_retry_delay_just_over_the_cap_is_not_reported_as_equal_to_it(server: ScriptedServer) -> None:
    server.queue(json_response(429, {"error": "slow down"}, headers={"retry-after": "60.4"}))
    with pytest.raises(RetryDelayTooLong, match=r"^Server requested 61s retry delay \(max: 60s\)\. 429 "):
        await _open(server)


async def test_a_status_named_in_no_retry_fails_at_once_and_others_are_still_retried(server: ScriptedServer) -> None:
    server.queue(json_response(504, "<html>Gateway Time-out</html>"))
    with pytest.raises(ProviderHTTPError, match=r"^504 "):
        await _open(server, no_retry=frozenset({504}))
    assert len(server.requests) == 1
    server.queue(json_response(503, {"error": "busy"}), ScriptedResponse(chunks=sse("[DONE]")))
    response = await _open(server, no_retry=frozenset({504}))
    assert [e.data async for e in iter_sse(response)] == ["[DONE]"]  # type: ignore[arg-type]
    assert len(server.requests) == 3
