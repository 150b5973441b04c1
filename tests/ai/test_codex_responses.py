"""The `openai-codex-responses` wire API against a loopback server speaking the ChatGPT backend's SSE."""

from __future__ import annotations

from typing import Any

import pytest

from pi.ai.models import get_model
from pi.ai.options import StreamOptions
from pi.ai.providers.openai_codex_responses import account_id_from_token, codex_url
from pi.ai.registry import require_api_provider
from pi.ai.retry_classifier import is_retryable_assistant_error
from pi.ai.types import AssistantMessage, Context, Model, UserMessage
from tests.app.oauth.wire import codex_events, codex_jwt, codex_reply, make_jwt
from tests.support.http_server import ScriptedServer, json_response

TOKEN = codex_jwt("acc-42")


def _model(server: ScriptedServer, **update: Any) -> Model:
    model = get_model("openai-codex", "gpt-6.2-sol")
    assert model is not None
    return model.model_copy(update={"base_url": f"{server.url}/backend-api", **update})


async def _run(model: Model, options: StreamOptions, *, simple: bool = True) -> AssistantMessage:
    provider = require_api_provider("openai-codex-responses")
    fn = provider.stream_simple if simple else provider.stream
    context = Context(system_prompt="Be brief.", messages=[UserMessage(content="Hello")])
    return await fn(model, context, options).result()


def test_the_catalog_serves_codex_models_at_the_chatgpt_backend() -> None:
    model = get_model("openai-codex", "gpt-6.2-sol")
    assert model is not None
    assert (model.api, model.base_url) == ("openai-codex-responses", "https://chatgpt.com/backend-api")


def test_codex_url_accepts_the_three_spellings_of_the_base() -> None:
    assert codex_url("https://chatgpt.com/backend-api") == "https://chatgpt.com/backend-api/codex/responses"
    assert codex_url("https://x.test/codex/") == "https://x.test/codex/responses"
    assert codex_url("https://x.test/codex/responses") == "https://x.test/codex/responses"


def test_account_id_comes_from_the_token_claim() -> None:
    assert account_id_from_token(TOKEN) == "acc-42"
    for bad in ("not-a-jwt", make_jwt({"sub": "x"}), make_jwt({"https://api.openai.com/auth": {}})):
        with pytest.raises(ValueError, match=r"^Failed to extract accountId from token$"):
            account_id_from_token(bad)


async def test_request_shape_headers_and_reply(server: ScriptedServer) -> None:
    server.queue(codex_reply("Hi there"))
    options = StreamOptions(api_key=TOKEN, session_id="sess-1", max_tokens=4, reasoning="minimal")
    reply = await _run(_model(server), options)
    assert reply.stop_reason == "stop" and reply.error_message is None
    assert [getattr(b, "text", None) for b in reply.content] == ["Hi there"]
    assert (reply.usage.input, reply.usage.cache_read, reply.usage.output) == (10, 2, 3)
    request = server.requests[0]
    assert request.path == "/backend-api/codex/responses"
    headers = request.headers
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["chatgpt-account-id"] == "acc-42"
    assert headers["originator"] == "pi"
    assert headers["openai-beta"] == "responses=experimental"
    assert (headers["session-id"], headers["x-client-request-id"]) == ("sess-1", "sess-1")
    body = request.json()
    assert body["model"] == "gpt-6.2-sol"
    assert (body["store"], body["stream"], body["parallel_tool_calls"]) == (False, True, True)
    assert (body["tool_choice"], body["text"], body["prompt_cache_key"]) == ("auto", {"verbosity": "low"}, "sess-1")
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["max_output_tokens"] == 16  # the backend's minimum
    assert body["reasoning"] == {"effort": "low", "summary": "auto"}  # minimal maps to low on this model
    assert body["input"][0]["role"] == "developer"  # the system prompt leads the input, no `instructions`
    assert "instructions" not in body


async def test_response_done_ends_the_reply(server: ScriptedServer) -> None:
    server.queue(codex_reply("done via response.done", end_event="response.done", status="weird"))
    reply = await _run(_model(server), StreamOptions(api_key=TOKEN))
    assert reply.stop_reason == "stop"
    assert reply.content and getattr(reply.content[0], "text", "") == "done via response.done"


async def test_the_final_event_records_end_turn_and_the_response_id(server: ScriptedServer) -> None:
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": []}
    done = {**item, "content": [{"type": "output_text", "text": "more to come", "annotations": []}]}
    server.queue(
        codex_events(
            {"type": "response.created", "response": {"id": "resp_9", "status": "in_progress"}},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.output_item.done", "output_index": 0, "item": done},
            {"type": "response.done", "response": {"id": "resp_9", "status": "completed", "end_turn": False}},
        )
    )
    reply = await _run(_model(server), StreamOptions(api_key=TOKEN))
    assert reply.stop_reason == "stop", reply.error_message
    assert (reply.end_turn, reply.response_id, reply.raw_stop_reason) == (False, "resp_9", "completed")
    assert reply.model_dump(by_alias=True, exclude_none=True)["endTurn"] is False


async def test_a_stream_cut_before_its_final_event_is_a_transient_failure(server: ScriptedServer) -> None:
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}
    server.queue(
        codex_events(
            {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "half"},
        )
    )
    reply = await _run(_model(server), StreamOptions(api_key=TOKEN, max_retries=0))
    assert reply.stop_reason == "error"
    assert (reply.error_message or "").startswith("OpenAI Responses stream ended before a terminal response event: ")
    assert is_retryable_assistant_error(reply)


async def test_error_events_fail_the_reply_with_codex_wording(server: ScriptedServer) -> None:
    server.queue(
        codex_events({"type": "error", "code": "server_error", "message": "backend hiccup"}),
        codex_events({"type": "response.failed", "response": {"error": {"code": "x", "message": "model overloaded"}}}),
    )
    first = await _run(_model(server), StreamOptions(api_key=TOKEN))
    assert first.stop_reason == "error" and first.error_message == "Codex error: backend hiccup"
    second = await _run(_model(server), StreamOptions(api_key=TOKEN))
    assert second.stop_reason == "error" and second.error_message == "model overloaded"


async def test_usage_limit_is_explained(server: ScriptedServer) -> None:
    body = {"error": {"code": "usage_limit_reached", "message": "limit", "plan_type": "PLUS"}}
    server.queue(json_response(429, body))
    reply = await _run(_model(server), StreamOptions(api_key=TOKEN, max_retries=0))
    assert reply.stop_reason == "error"
    assert "You have hit your ChatGPT usage limit (plus plan)." in str(reply.error_message)


async def test_a_token_without_the_account_claim_is_refused_before_any_request(server: ScriptedServer) -> None:
    reply = await _run(_model(server), StreamOptions(api_key=make_jwt({"sub": "u"})))
    assert reply.stop_reason == "error" and reply.error_message == "Failed to extract accountId from token"
    assert server.requests == []


async def test_an_explicit_websocket_transport_fails_clearly_where_only_sse_is_served(server: ScriptedServer) -> None:
    options = StreamOptions(api_key=TOKEN)
    options.extra["transport"] = "websocket"
    reply = await _run(_model(server), options)
    assert reply.stop_reason == "error"
    assert reply.error_message is not None and reply.error_message.startswith("WebSocket upgrade refused")
    assert 'set "transport": "auto" or "sse"' in reply.error_message
    assert server.requests == [] and len(server.upgrades) == 1


async def test_auto_falls_back_to_sse_when_the_upgrade_is_refused(server: ScriptedServer) -> None:
    server.queue(codex_reply("over sse"))
    options = StreamOptions(api_key=TOKEN)
    options.extra["transport"] = "auto"
    reply = await _run(_model(server), options)
    assert reply.stop_reason == "stop" and [getattr(b, "text", "") for b in reply.content] == ["over sse"]
    assert len(server.upgrades) == 1 and len(server.requests) == 1
    upgrade = server.upgrades[0]
    assert upgrade.path == "/backend-api/codex/responses"
    assert upgrade.headers["openai-beta"] == "responses_websockets=2026-02-06"
    assert reply.diagnostics is not None and reply.diagnostics[0].type == "provider_transport_failure"
    assert reply.diagnostics[0].details == {
        "configuredTransport": "auto",
        "fallbackTransport": "sse",
        "phase": "before_message_stream_start",
    }


async def test_an_unknown_transport_is_refused_with_the_valid_ones(server: ScriptedServer) -> None:
    options = StreamOptions(api_key=TOKEN)
    options.extra["transport"] = "carrier-pigeon"
    reply = await _run(_model(server), options)
    assert reply.stop_reason == "error"
    assert reply.error_message == (
        'Unknown transport "carrier-pigeon": set "transport" in settings.json to one of '
        '"auto", "sse", "websocket" or "websocket-cached".'
    )
    assert server.requests == [] and server.upgrades == []
