"""Codex's WebSocket transport against a loopback backend speaking its frames (websockets' own server)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from pi.ai.abort import AbortController
from pi.ai.models import get_model
from pi.ai.options import StreamOptions
from pi.ai.providers import codex_socket_cache
from pi.ai.providers.codex_socket_cache import close_codex_websockets
from pi.ai.registry import require_api_provider
from pi.ai.types import AssistantMessage, Context, Message, Model, TextContent, Tool, UserMessage
from tests.ai.codex_ws_server import CodexWebSocketServer, Turn, answering, text_events
from tests.app.oauth.wire import codex_jwt, codex_reply
from tests.support.http_server import ScriptedServer

TOKEN = codex_jwt("acc-7")


@pytest.fixture
async def ws() -> AsyncIterator[CodexWebSocketServer]:
    server = CodexWebSocketServer().start()
    yield server
    await close_codex_websockets()
    await asyncio.to_thread(server.stop)  # off the loop, which answers the server's closing handshakes


@pytest.fixture(autouse=True)
async def _fresh_cache() -> AsyncIterator[None]:
    await close_codex_websockets()
    yield
    await close_codex_websockets()


def _model(base: str) -> Model:
    model = get_model("openai-codex", "gpt-6.2-sol")
    assert model is not None
    return model.model_copy(update={"base_url": f"{base}/backend-api"})


def _text(message: AssistantMessage) -> str:
    return "".join(block.text for block in message.content if isinstance(block, TextContent))


async def _converse(
    base: str, turns: list[str], session_id: str | None, transport: str | None = None, **extra: Any
) -> list[AssistantMessage]:
    """Send each user text in turn as one growing conversation; the replies, in order."""
    provider = require_api_provider("openai-codex-responses")
    messages: list[Message] = []
    replies = []
    for text in turns:
        messages.append(UserMessage(content=text))
        options = StreamOptions(api_key=TOKEN, session_id=session_id, max_retries=0)
        if transport is not None:
            options.extra["transport"] = transport
        options.extra.update(extra)
        context = Context(system_prompt="Be brief.", messages=list(messages))
        reply = await provider.stream_simple(_model(base), context, options).result()
        replies.append(reply)
        messages.append(reply)
    return replies


async def test_auto_answers_over_the_websocket_with_its_own_headers(ws: CodexWebSocketServer) -> None:
    ws.script = answering("Hello")
    [reply] = await _converse(ws.url, ["Hi"], "sess-1")
    assert (reply.stop_reason, _text(reply), reply.error_message) == ("stop", "Hello", None)
    assert reply.response_id == "resp_0" and reply.diagnostics is None
    assert (reply.usage.input, reply.usage.output) == (10, 2)
    assert ws.paths == ["/backend-api/codex/responses"]
    headers = ws.upgrades[0]
    assert headers["openai-beta"] == "responses_websockets=2026-02-06"
    assert (headers["session-id"], headers["x-client-request-id"]) == ("sess-1", "sess-1")
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert (headers["chatgpt-account-id"], headers["originator"]) == ("acc-7", "pi")
    assert "accept" not in headers and "content-type" not in headers
    [sent] = ws.bodies()
    assert (sent["type"], sent["model"], sent["store"], sent["prompt_cache_key"]) == (
        "response.create",
        "gpt-6.2-sol",
        False,
        "sess-1",
    )
    assert "previous_response_id" not in sent
    assert [item.get("role") for item in sent["input"]] == ["developer", "user"]


async def test_a_lone_surrogate_in_the_request_is_dropped_not_fatal(ws: CodexWebSocketServer) -> None:
    """Half an emoji in a tool description must not make the frame unsendable (it is UTF-8 text)."""
    ws.script = answering("Hello")
    provider = require_api_provider("openai-codex-responses")
    tool = Tool(name="look", description="finds things \ud83d quickly")
    context = Context(system_prompt="Be brief.", messages=[UserMessage(content="Hi")], tools=[tool])
    options = StreamOptions(api_key=TOKEN, session_id="sess-20", max_retries=0)
    reply = await provider.stream_simple(_model(ws.url), context, options).result()
    assert (reply.stop_reason, _text(reply)) == ("stop", "Hello")
    [sent] = ws.bodies()
    assert [t["description"] for t in sent["tools"]] == ["finds things  quickly"]


@pytest.mark.parametrize("transport", ["auto", "websocket-cached"])
async def test_the_next_request_reuses_the_connection_and_sends_only_what_is_new(
    ws: CodexWebSocketServer, transport: str
) -> None:
    ws.script = answering("First", "Second")
    first, second = await _converse(ws.url, ["Hi", "And then?"], "sess-2", transport)
    assert (_text(first), _text(second)) == ("First", "Second")
    assert len(ws.upgrades) == 1
    assert [r.connection for r in ws.received] == [0, 0]
    full, delta = ws.bodies()
    assert "previous_response_id" not in full
    assert delta["previous_response_id"] == "resp_0"
    assert delta["input"] == [{"role": "user", "content": [{"type": "input_text", "text": "And then?"}]}]
    assert {k: v for k, v in delta.items() if k != "input" and k != "previous_response_id"} == {
        k: v for k, v in full.items() if k != "input"
    }


async def test_plain_websocket_keeps_the_connection_but_sends_the_whole_conversation(ws: CodexWebSocketServer) -> None:
    ws.script = answering("First", "Second")
    await _converse(ws.url, ["Hi", "And then?"], "sess-3", "websocket")
    assert len(ws.upgrades) == 1
    _, second = ws.bodies()
    assert "previous_response_id" not in second
    assert [item.get("role") for item in second["input"]] == ["developer", "user", "assistant", "user"]


async def test_without_a_session_each_request_gets_its_own_connection(ws: CodexWebSocketServer) -> None:
    ws.script = answering("First", "Second")
    await _converse(ws.url, ["Hi", "And then?"], None)
    assert len(ws.upgrades) == 2
    first_id, second_id = (h["x-client-request-id"] for h in ws.upgrades)
    assert first_id != second_id and ws.upgrades[0]["session-id"] == first_id
    assert all("previous_response_id" not in body for body in ws.bodies())


async def test_a_refused_upgrade_falls_back_to_sse_and_the_session_stays_there(server: ScriptedServer) -> None:
    server.queue(codex_reply("over sse"), codex_reply("still sse"))
    first, second = await _converse(server.url, ["Hi", "Again"], "sess-4")
    assert (_text(first), _text(second)) == ("over sse", "still sse")
    assert len(server.upgrades) == 1, "the WebSocket is not tried again in that session"
    assert len(server.requests) == 2
    assert first.diagnostics is not None
    assert first.diagnostics[0].error == {"message": "WebSocket upgrade refused: the server answered HTTP 404"}
    assert second.diagnostics is None


async def test_a_stalled_handshake_times_out_as_configured(ws: CodexWebSocketServer) -> None:
    ws.stall = True
    [reply] = await _converse(ws.url, ["Hi"], "sess-5", "websocket", websocket_connect_timeout_ms=200)
    assert reply.stop_reason == "error"
    assert str(reply.error_message).startswith("WebSocket connect timeout after 200ms. ")
    assert ws.received == []


async def test_a_connection_that_closes_after_the_reply_started_fails_it(ws: CodexWebSocketServer) -> None:
    def script(turn: Turn) -> None:
        turn.send({"type": "response.created", "response": {"id": "resp_x"}})
        turn.close(1011, "boom")

    ws.script = script
    [reply] = await _converse(ws.url, ["Hi"], "sess-6")
    assert (reply.stop_reason, reply.error_message) == ("error", "WebSocket closed 1011 boom")
    assert len(ws.received) == 1
    assert reply.diagnostics is not None and reply.diagnostics[0].details is not None
    assert reply.diagnostics[0].details["phase"] == "after_message_stream_start"
    assert codex_socket_cache.CACHE.fallback == {"sess-6"}, "the session's later requests go over SSE"


async def test_a_missing_continuation_is_sent_again_in_full(ws: CodexWebSocketServer) -> None:
    answered: list[int] = []

    def script(turn: Turn) -> None:
        if "previous_response_id" in turn.body:
            turn.send({"type": "error", "code": "previous_response_not_found", "message": "gone"})
            return
        answered.append(turn.index)
        for event in text_events(f"resp_{len(answered)}", "First" if len(answered) == 1 else "Second"):
            turn.send(event)

    ws.script = script
    _, second = await _converse(ws.url, ["Hi", "And then?"], "sess-7")
    assert _text(second) == "Second"
    bodies = ws.bodies()
    assert len(bodies) == 3
    assert "previous_response_id" in bodies[1] and "previous_response_id" not in bodies[2]
    assert len(bodies[2]["input"]) == 4


async def test_the_connection_limit_gets_one_fresh_connection(ws: CodexWebSocketServer) -> None:
    def script(turn: Turn) -> None:
        if turn.index == 0:
            turn.send({"type": "error", "code": "websocket_connection_limit_reached", "message": "too many"})
            return
        for event in text_events("resp_1", "Made it"):
            turn.send(event)

    ws.script = script
    [reply] = await _converse(ws.url, ["Hi"], "sess-8")
    assert _text(reply) == "Made it"
    assert [r.connection for r in ws.received] == [0, 1]


async def test_a_kept_connection_the_server_dropped_is_replaced(ws: CodexWebSocketServer) -> None:
    def script(turn: Turn) -> None:
        for event in text_events(f"resp_{turn.index}", f"Reply {turn.index}"):
            turn.send(event)
        if turn.index == 0:
            turn.close(1001, "going away")

    ws.script = script
    provider = require_api_provider("openai-codex-responses")
    options = StreamOptions(api_key=TOKEN, session_id="sess-9")
    first = await provider.stream_simple(_model(ws.url), Context(messages=[UserMessage(content="a")]), options).result()
    assert _text(first) == "Reply 0"
    await asyncio.to_thread(ws.closed.wait, 10)
    second = await provider.stream_simple(
        _model(ws.url), Context(messages=[UserMessage(content="b")]), options
    ).result()
    assert (second.stop_reason, _text(second)) == ("stop", "Reply 1")
    assert len(ws.upgrades) == 2


async def test_an_idle_connection_is_closed(ws: CodexWebSocketServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codex_socket_cache, "IDLE_TTL_S", 0.05)
    ws.script = answering("Hello")
    await _converse(ws.url, ["Hi"], "sess-10")
    assert await asyncio.to_thread(ws.closed.wait, 10)
    assert codex_socket_cache.CACHE.entries == {}


async def test_an_aborted_reply_does_not_keep_its_connection(ws: CodexWebSocketServer) -> None:
    release = threading.Event()

    def script(turn: Turn) -> None:
        turn.send({"type": "response.created", "response": {"id": "resp_0"}})
        turn.send(text_events("resp_0", "Hel")[1])
        turn.send({"type": "response.output_text.delta", "output_index": 0, "delta": "Hel"})
        release.wait(10)

    ws.script = script
    controller = AbortController()
    options = StreamOptions(api_key=TOKEN, session_id="sess-11", signal=controller.signal)
    provider = require_api_provider("openai-codex-responses")
    events = provider.stream_simple(_model(ws.url), Context(messages=[UserMessage(content="Hi")]), options)
    async for event in events:
        if event.type == "text_delta":
            controller.abort()
    reply = await events.result()
    release.set()
    assert reply.stop_reason == "aborted"
    assert await asyncio.to_thread(ws.closed.wait, 10), "the connection is closed, not kept for the session"
    assert codex_socket_cache.CACHE.entries == {}


def test_websockets_is_imported_only_for_a_websocket_request() -> None:
    code = "import sys, pi.ai.providers.openai_codex_responses, pi.ai.stream\nprint('websockets' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "False"


async def test_the_upgrade_response_is_reported_like_an_sse_response(ws: CodexWebSocketServer) -> None:
    ws.script = answering("Hello")
    seen: list[tuple[int, str | None]] = []

    async def on_response(status: int, headers: Any) -> None:
        seen.append((status, headers.get("sec-websocket-accept")))

    [reply] = await _converse(ws.url, ["Hi"], "sess-12", on_response=on_response)
    assert reply.stop_reason == "stop"
    assert len(seen) == 1 and seen[0][0] == 101 and seen[0][1]


async def test_each_received_frame_is_shown_to_an_on_frame_observer(ws: CodexWebSocketServer) -> None:
    ws.script = answering("Hello")
    frames: list[str] = []
    [reply] = await _converse(ws.url, ["Hi"], "sess-13", on_frame=lambda frame: frames.append(frame["type"]))
    assert reply.stop_reason == "stop"
    assert frames == [event["type"] for event in text_events("resp_0", "Hello")]
