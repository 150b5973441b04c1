"""The pi-messages wire API (Radius) against a loopback server speaking its real frames."""

from __future__ import annotations

from typing import Any

import pytest

from pi.ai.events import AssistantMessageEvent
from pi.ai.models import get_model
from pi.ai.options import make_options
from pi.ai.providers.pi_messages import PROVIDER
from pi.ai.registry import get_api_provider
from pi.ai.retry_classifier import is_retryable_assistant_error
from pi.ai.types import (
    AssistantMessage,
    Context,
    Model,
    ModelCost,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    UserMessage,
)
from tests.support import pi_messages as pm
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response, sse

READ = Tool(name="read", description="Read a file", parameters={"type": "object", "properties": {"path": {}}})


def make_model(server: ScriptedServer, **overrides: Any) -> Model:
    data: dict[str, Any] = {
        "id": "balanced",
        "name": "Balanced",
        "api": "pi-messages",
        "provider": "radius",
        "base_url": f"{server.url}/v1",
        "reasoning": True,
        "cost": ModelCost(input=3, output=15, cache_read=0.3),
        "context_window": 1048576,
        "max_tokens": 262144,
    }
    data.update(overrides)
    return Model(**data)


def hello() -> Context:
    return Context(system_prompt="Be brief.", messages=[UserMessage(content="Hello")], tools=[READ])


async def run(model: Model, **kwargs: Any) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
    kwargs.setdefault("api_key", "radius-token-1")
    result = PROVIDER.stream_simple(model, hello(), make_options(**kwargs))
    events = [event async for event in result]
    return events, await result.result()


def test_the_api_is_registered_by_name() -> None:
    assert get_api_provider("pi-messages") is PROVIDER


async def test_thinking_text_and_a_tool_call_stream_as_pi_events(server: ScriptedServer) -> None:
    server.queue(
        pm.stream(
            *pm.thinking_frames(0, ["Let me ", "look."], signature="sig-think"),
            *pm.text_frames(1, ["Reading ", "it."], signature="sig-text"),
            *pm.tool_frames(2, "call_7", "read", {"path": "a.txt"}),
            pm.done("toolUse", responseModel="kimi-k3", providerThinkingLevel="high"),
        )
    )
    events, message = await run(make_model(server), reasoning="high", session_id="sess-9", max_tokens=999)

    assert [e.type for e in events] == [
        "start",
        "thinking_start", "thinking_delta", "thinking_delta", "thinking_end",
        "text_start", "text_delta", "text_delta", "text_end",
        "toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_end",
        "done",
    ]  # fmt: skip
    thinking, text, call = message.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Let me look."
    assert thinking.thinking_signature == "sig-think"
    assert isinstance(text, TextContent) and text.text == "Reading it." and text.text_signature == "sig-text"
    assert isinstance(call, ToolCall) and (call.id, call.name, call.arguments) == ("call_7", "read", {"path": "a.txt"})
    assert message.stop_reason == "toolUse"
    assert (message.response_id, message.response_model, message.provider_thinking_level) == (
        "resp_radius_1",
        "kimi-k3",
        "high",
    )
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.total_tokens) == (120, 30, 40, 190)
    assert usage.cost.total == pytest.approx(0.000822) and usage.cost.total_from_provider is True

    (request,) = server.requests
    assert (request.method, request.path) == ("POST", "/v1/messages")
    assert request.headers["authorization"] == "Bearer radius-token-1"
    assert request.headers["accept"] == "text/event-stream"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("pi/")
    body = request.json()
    assert body["model"] == "balanced"
    assert body["options"] == {"maxTokens": 999, "reasoning": "high", "sessionId": "sess-9"}
    context = body["context"]
    assert context["systemPrompt"] == "Be brief."
    assert context["messages"][0]["role"] == "user" and context["messages"][0]["content"] == "Hello"
    assert context["tools"] == [{"name": "read", "description": "Read a file", "parameters": READ.parameters}]


async def test_reasoning_off_and_unset_options_are_left_out(server: ScriptedServer) -> None:
    server.queue(pm.text_reply("ok"))
    _events, message = await run(make_model(server), reasoning="off", temperature=0.2, tool_choice="auto")
    assert message.stop_reason == "stop" and message.content == [TextContent(text="ok")]
    assert server.requests[0].json()["options"] == {"temperature": 0.2, "toolChoice": "auto"}


async def test_an_error_frame_ends_the_reply_with_its_message_and_usage(server: ScriptedServer) -> None:
    server.queue(pm.stream(*pm.text_frames(0, ["Par"]), pm.error("Upstream model refused the request")))
    events, message = await run(make_model(server))
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert message.error_message == "Upstream model refused the request"
    assert message.usage.input == 120 and message.usage.cost.total == pytest.approx(0.000822)


async def test_a_stream_cut_before_its_final_frame_is_a_retryable_failure(server: ScriptedServer) -> None:
    """Text that arrived is not the answer: without `done` the reply failed, in words retries act on."""
    server.queue(ScriptedResponse(chunks=sse({"type": "start"}, *pm.text_frames(0, ["Half an ans"])[:2])))
    events, message = await run(make_model(server))
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert "ended without" in (message.error_message or "")
    assert is_retryable_assistant_error(message)


async def test_a_dropped_connection_mid_reply_is_a_retryable_failure(server: ScriptedServer) -> None:
    chunks = sse({"type": "start"}, *pm.text_frames(0, ["Half", " more", " text"]))
    server.queue(ScriptedResponse(chunks=chunks, drop_after=3))
    _events, message = await run(make_model(server))
    assert message.stop_reason == "error" and is_retryable_assistant_error(message)


async def test_an_http_error_names_status_message_and_code(server: ScriptedServer) -> None:
    server.queue(json_response(400, {"error": {"message": "Unknown model", "code": "model_not_found"}}))
    _events, message = await run(make_model(server))
    assert message.stop_reason == "error"
    assert message.error_message == "400 Bad Request: Unknown model (model_not_found)"
    (diagnostic,) = message.diagnostics or []
    assert diagnostic.type == "pi_messages_response_failure"
    assert diagnostic.details is not None and diagnostic.details["status"] == 400
    assert diagnostic.details["error"] == {"message": "Unknown model", "code": "model_not_found"}


async def test_a_rejected_credential_says_how_to_sign_in_again(server: ScriptedServer) -> None:
    server.queue(json_response(401, {"error": {"message": "Invalid token"}}))
    _events, message = await run(make_model(server))
    assert (message.error_message or "").startswith("401 Unauthorized: Invalid token\n")
    assert "/login radius" in (message.error_message or "")


async def test_a_content_index_out_of_order_is_refused(server: ScriptedServer) -> None:
    server.queue(pm.stream({"type": "text_start", "contentIndex": 3}, pm.done()))
    _events, message = await run(make_model(server))
    assert message.stop_reason == "error"
    assert message.error_message == "Invalid contentIndex 3 in pi-messages text_start event"


async def test_without_a_key_the_error_says_how_to_get_one(server: ScriptedServer, monkeypatch: Any) -> None:
    monkeypatch.delenv("RADIUS_API_KEY", raising=False)
    _events, message = await run(make_model(server), api_key=None)
    assert message.stop_reason == "error"
    assert "/login radius" in (message.error_message or "") and "RADIUS_API_KEY" in (message.error_message or "")
    assert server.requests == []


async def test_radius_api_key_from_the_environment_is_sent(server: ScriptedServer, monkeypatch: Any) -> None:
    monkeypatch.setenv("RADIUS_API_KEY", "env-radius-key")
    server.queue(pm.text_reply("hi"))
    _events, message = await run(make_model(server), api_key=None)
    assert message.stop_reason == "stop"
    assert server.requests[0].headers["authorization"] == "Bearer env-radius-key"


async def test_the_catalog_model_follows_pi_radius_gateway(server: ScriptedServer, monkeypatch: Any) -> None:
    model = get_model("radius", "balanced")
    assert model is not None and model.base_url == "https://radius.pi.dev/v1" and model.api == "pi-messages"
    monkeypatch.setenv("PI_RADIUS_GATEWAY", server.url + "/")
    server.queue(pm.text_reply("via gateway"))
    _events, message = await run(model)
    assert message.content == [TextContent(text="via gateway")]
    assert server.requests[0].path == "/v1/messages"


async def test_a_custom_pi_messages_server_keeps_its_own_base_url(server: ScriptedServer, monkeypatch: Any) -> None:
    """models.json `"api": "pi-messages"`: the Radius gateway override does not move another provider."""
    monkeypatch.setenv("PI_RADIUS_GATEWAY", "http://127.0.0.1:9")
    server.queue(pm.text_reply("from my gateway"))
    model = make_model(server, provider="my-gateway", base_url=f"{server.url}/api/")
    _events, message = await run(model, api_key="my-key", extra={"debug": True})
    assert message.content == [TextContent(text="from my gateway")]
    (request,) = server.requests
    assert request.path == "/api/messages?debug=1"
    assert request.headers["authorization"] == "Bearer my-key"


async def test_abort_mid_reply_ends_it_as_aborted(server: ScriptedServer) -> None:
    from pi.ai.abort import AbortController

    chunks = sse({"type": "start"}, *pm.text_frames(0, ["first"])[:2])
    server.queue(ScriptedResponse(chunks=chunks, hold_open=30.0))
    controller = AbortController()
    result = PROVIDER.stream(make_model(server), hello(), make_options(api_key="k", signal=controller.signal))
    async for event in result:
        if event.type == "text_delta":
            controller.abort()
    message = await result.result()
    assert message.stop_reason == "aborted" and message.error_message == "Request was aborted"
    assert message.content == [TextContent(text="first")]
