"""The Chat Completions provider against a loopback server speaking the real chunk stream."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from pi.ai.abort import AbortController
from pi.ai.events import AssistantMessageEvent
from pi.ai.models import get_model
from pi.ai.options import StreamOptions
from pi.ai.overflow import is_context_overflow
from pi.ai.providers.openai_completions import (
    BRIDGE_TEXT,
    PROVIDER,
    mistral_tool_call_id,
    stream_openai_completions,
    stream_simple_openai_completions,
)
from pi.ai.registry import get_api_provider
from pi.ai.retry_classifier import is_retryable_assistant_error
from pi.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    ModelCompat,
    ModelCost,
    RoutingPreferences,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.ai.retry_wait import abort_when_retry_wait_starts
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response, sse

KEY = "sk-test-key"
PNG = "iVBORw0KGgo="
READ_TOOL = Tool(
    name="read",
    description="Read a file",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)

_KEY_VARS = (
    "OPENAI_API_KEY",
    "GROQ_API_KEY",
    "CEREBRAS_API_KEY",
    "XAI_API_KEY",
    "OPENROUTER_API_KEY",
    "AI_GATEWAY_API_KEY",
    "ZAI_API_KEY",
    "MISTRAL_API_KEY",
    "DEEPSEEK_API_KEY",
    "COPILOT_GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
)


@pytest.fixture(autouse=True)
def _no_env_keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in _KEY_VARS:
        monkeypatch.delenv(name, raising=False)
    yield


def make_model(server: ScriptedServer, provider: str = "openai", model_id: str = "gpt-4o-mini", **kw: Any) -> Model:
    fields: dict[str, Any] = {
        "id": model_id,
        "name": model_id,
        "api": "openai-completions",
        "provider": provider,
        "base_url": f"{server.url}/v1",
        "reasoning": False,
        "input": ["text", "image"],
        "cost": ModelCost(input=2.0, output=8.0, cache_read=0.5),
        "context_window": 128000,
        "max_tokens": 16384,
    }
    fields.update(kw)
    return Model(**fields)


def chunk(
    delta: dict[str, Any] | None = None,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` as OpenAI streams it."""
    out: dict[str, Any] = {
        "id": "chatcmpl-abc123",
        "object": "chat.completion.chunk",
        "created": 1731000000,
        "model": "gpt-4o-mini-2024-07-18",
        "system_fingerprint": "fp_0ba0d124f1",
        "choices": [{"index": 0, "delta": delta or {}, "logprobs": None, "finish_reason": finish}],
    }
    if usage is not None:
        out["usage"] = usage
    out.update(extra)
    return out


def usage_chunk(prompt: int = 12, completion: int = 5, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    """The final chunk sent with ``stream_options.include_usage``: no choices, only usage."""
    return {
        "id": "chatcmpl-abc123",
        "object": "chat.completion.chunk",
        "created": 1731000000,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": reasoning, "audio_tokens": 0},
        },
    }


def tool_delta(index: int, *, call_id: str | None = None, name: str | None = None, args: str = "") -> dict[str, Any]:
    call: dict[str, Any] = {"index": index, "function": {"arguments": args}}
    if call_id is not None:
        call["id"] = call_id
        call["type"] = "function"
        call["function"]["name"] = name
    return {"tool_calls": [call]}


def reply(*chunks: dict[str, Any] | str, **kw: Any) -> ScriptedResponse:
    return ScriptedResponse(chunks=sse(*chunks, "[DONE]"), **kw)


def text_reply(text: str = "ok") -> ScriptedResponse:
    return reply(chunk({"role": "assistant", "content": ""}), chunk({"content": text}), chunk({}, "stop"))


def ctx(*messages: Message, system: str | None = None, tools: list[Tool] | None = None) -> Context:
    return Context(system_prompt=system, messages=list(messages), tools=tools)


def user(text: str = "hi") -> UserMessage:
    return UserMessage(content=text)


def assistant(model: Model, *content: Any, stop: Any = "stop") -> AssistantMessage:
    return AssistantMessage(
        content=list(content), api=model.api, provider=model.provider, model=model.id, stop_reason=stop
    )


async def run(
    model: Model, context: Context, simple: bool = False, **kw: Any
) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
    kw.setdefault("api_key", KEY)
    kw.setdefault("max_retry_delay_ms", 60_000)
    extra = kw.pop("extra", {})
    options = StreamOptions(**kw, extra=extra)
    fn = stream_simple_openai_completions if simple else stream_openai_completions
    stream = fn(model, context, options)
    events = [event async for event in stream]
    return events, await stream.result()


def types(events: list[AssistantMessageEvent]) -> list[str]:
    return [event.type for event in events]


async def sent_body(server: ScriptedServer, model: Model, context: Context, **kw: Any) -> dict[str, Any]:
    server.queue(text_reply())
    _, message = await run(model, context, **kw)
    assert message.stop_reason == "stop", message.error_message
    body: dict[str, Any] = server.requests[-1].json()
    return body


# --- registry ----------------------------------------------------------------------------------


def test_registered_under_its_api() -> None:
    assert PROVIDER.api == "openai-completions"
    assert get_api_provider("openai-completions") is PROVIDER


# --- streaming ---------------------------------------------------------------------------------


async def test_streams_text_with_bearer_auth(server: ScriptedServer) -> None:
    server.queue(
        reply(
            chunk({"role": "assistant", "content": "", "refusal": None}),
            chunk({"content": "Hello"}),
            chunk({"content": ", world"}),
            chunk({}, "stop"),
            usage_chunk(),
        )
    )
    model = make_model(server)
    events, message = await run(model, ctx(user()))
    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert [e.delta for e in events if e.type == "text_delta"] == ["Hello", ", world"]
    assert message.content == [TextContent(text="Hello, world")]
    assert message.stop_reason == "stop"
    assert message.usage.input == 12 and message.usage.output == 5
    request = server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    body = request.json()
    assert body["model"] == "gpt-4o-mini"
    assert body["stream"] is True
    assert body["messages"] == [{"role": "user", "content": "hi"}]


async def test_reasoning_content_becomes_thinking_named_by_its_field(server: ScriptedServer) -> None:
    server.queue(
        reply(
            chunk({"role": "assistant", "content": None, "reasoning_content": "Let me"}),
            chunk({"content": None, "reasoning_content": " think."}),
            chunk({"content": "Answer", "reasoning_content": None}),
            chunk({}, "stop"),
        )
    )
    events, message = await run(make_model(server, "deepseek", "deepseek-reasoner"), ctx(user()))
    assert types(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "done",
    ]
    assert message.content == [
        ThinkingContent(thinking="Let me think.", thinking_signature="reasoning_content"),
        TextContent(text="Answer"),
    ]


async def test_first_non_empty_reasoning_field_wins(server: ScriptedServer) -> None:
    server.queue(
        reply(
            chunk({"role": "assistant", "content": "", "reasoning_content": "", "reasoning": "via reasoning"}),
            chunk({"reasoning": " more", "reasoning_text": " duplicate"}),
            chunk({"reasoning_text": " text field"}),
            chunk({}, "stop"),
        )
    )
    _, message = await run(make_model(server, "ollama"), ctx(user()))
    assert message.content == [
        ThinkingContent(thinking="via reasoning more text field", thinking_signature="reasoning")
    ]


async def test_one_tool_call_with_arguments_split_across_chunks(server: ScriptedServer) -> None:
    server.queue(
        reply(
            chunk({"role": "assistant", "content": None}),
            chunk(tool_delta(0, call_id="call_abc", name="read")),
            chunk(tool_delta(0, args='{"pa')),
            chunk(tool_delta(0, args='th": "src/')),
            chunk(tool_delta(0, args='main.py"}')),
            chunk({}, "tool_calls"),
            usage_chunk(),
        )
    )
    events, message = await run(make_model(server), ctx(user(), tools=[READ_TOOL]))
    assert types(events) == [
        "start",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    deltas = [e for e in events if e.type == "toolcall_delta"]
    assert [d.delta for d in deltas] == ["", '{"pa', 'th": "src/', 'main.py"}']
    end = next(e for e in events if e.type == "toolcall_end")
    assert end.tool_call == ToolCall(id="call_abc", name="read", arguments={"path": "src/main.py"})
    assert message.stop_reason == "toolUse"
    assert events[-1].type == "done" and events[-1].reason == "toolUse"


async def test_two_tool_calls_each_split(server: ScriptedServer) -> None:
    server.queue(
        reply(
            chunk({"role": "assistant", "content": "Reading both."}),
            chunk(tool_delta(0, call_id="call_1", name="read")),
            chunk(tool_delta(0, args='{"path"')),
            chunk(tool_delta(0, args=': "a.py"}')),
            chunk(tool_delta(1, call_id="call_2", name="read")),
            chunk(tool_delta(1, args='{"path": ')),
            chunk(tool_delta(1, args='"b.py"}')),
            chunk({}, "tool_calls"),
        )
    )
    events, message = await run(make_model(server), ctx(user(), tools=[READ_TOOL]))
    assert message.content == [
        TextContent(text="Reading both."),
        ToolCall(id="call_1", name="read", arguments={"path": "a.py"}),
        ToolCall(id="call_2", name="read", arguments={"path": "b.py"}),
    ]
    assert types(events).count("toolcall_start") == 2
    assert [e.content_index for e in events if e.type == "toolcall_end"] == [1, 2]


async def test_new_index_without_id_starts_a_new_call(server: ScriptedServer) -> None:
    server.queue(
        reply(
            chunk({"tool_calls": [{"index": 0, "function": {"name": "read", "arguments": '{"path": "a"}'}}]}),
            chunk({"tool_calls": [{"index": 1, "function": {"name": "read", "arguments": {"path": "b"}}}]}),
            chunk({}, "stop"),
        )
    )
    _, message = await run(make_model(server, "ollama"), ctx(user(), tools=[READ_TOOL]))
    calls = [block for block in message.content if isinstance(block, ToolCall)]
    assert [c.arguments for c in calls] == [{"path": "a"}, {"path": "b"}]
    assert all(c.id.startswith("call_") for c in calls) and calls[0].id != calls[1].id
    assert message.stop_reason == "toolUse"  # finish_reason "stop" with tool calls still means tool use


async def test_usage_with_cached_and_reasoning_tokens_and_cost(server: ScriptedServer) -> None:
    server.queue(reply(chunk({"content": "x"}), chunk({}, "stop"), usage_chunk(1000, 200, cached=400, reasoning=50)))
    _, message = await run(make_model(server), ctx(user()))
    usage = message.usage
    # completion_tokens already counts the reasoning tokens; `reasoning` only breaks them out.
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (600, 200, 400, 0)
    assert usage.reasoning == 50
    assert usage.total_tokens == 1200
    assert usage.cost.input == pytest.approx(600 * 2.0 / 1e6)
    assert usage.cost.output == pytest.approx(200 * 8.0 / 1e6)
    assert usage.cost.cache_read == pytest.approx(400 * 0.5 / 1e6)
    assert usage.cost.total == pytest.approx(usage.cost.input + usage.cost.output + usage.cost.cache_read)


async def test_usage_on_the_choice(server: ScriptedServer) -> None:
    last = chunk({}, "stop")
    last["choices"][0]["usage"] = {"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37}
    server.queue(reply(chunk({"content": "x"}), last))
    _, message = await run(make_model(server, "moonshot"), ctx(user()))
    assert (message.usage.input, message.usage.output, message.usage.total_tokens) == (30, 7, 37)


@pytest.mark.parametrize(
    ("finish", "reason"),
    [("stop", "stop"), ("length", "length"), ("tool_calls", "toolUse"), ("function_call", "toolUse")],
)
async def test_finish_reasons(server: ScriptedServer, finish: str, reason: str) -> None:
    server.queue(reply(chunk({"content": "x"}), chunk({}, finish)))
    events, message = await run(make_model(server), ctx(user()))
    assert events[-1].type == "done" and events[-1].reason == reason
    assert message.stop_reason == reason


async def test_content_filter_is_an_error(server: ScriptedServer) -> None:
    server.queue(reply(chunk({"content": "partial"}), chunk({}, "content_filter")))
    events, message = await run(make_model(server), ctx(user()))
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert "content_filter" in (message.error_message or "")
    assert message.content == [TextContent(text="partial")]


async def test_unknown_finish_reason_is_an_error(server: ScriptedServer) -> None:
    server.queue(reply(chunk({"content": "x"}), chunk({}, "weird")))
    _, message = await run(make_model(server), ctx(user()))
    assert message.stop_reason == "error"
    assert message.error_message == "Unhandled stop reason: weird"


async def test_context_overflow_400_is_a_lone_error(server: ScriptedServer) -> None:
    body = {
        "error": {
            "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in "
            "9000 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }
    server.queue(json_response(400, body))
    events, message = await run(make_model(server), ctx(user()))
    assert types(events) == ["error"]
    assert message.stop_reason == "error"
    # pi's wording: the status and the server's error object as compact JSON.
    assert (message.error_message or "").startswith('400: {"message":"This model\'s maximum context length is 8192')
    assert is_context_overflow(message)
    assert len(server.requests) == 1


async def test_401_names_the_fix_and_is_not_retried(server: ScriptedServer) -> None:
    body = {"error": {"message": "Incorrect API key provided: sk-test.", "type": "invalid_request_error"}}
    server.queue(json_response(401, body))
    events, message = await run(make_model(server), ctx(user()))
    assert types(events) == ["error"]
    lines = (message.error_message or "").splitlines()
    assert lines[0] == '401: {"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error"}'
    assert "check the API key" in lines[1] and "gpt-4o-mini" in lines[1]
    assert len(server.requests) == 1


async def test_429_with_retry_after_then_success(server: ScriptedServer) -> None:
    server.queue(
        json_response(429, {"error": {"message": "Rate limit reached"}}, headers={"retry-after": "0.1"}),
        text_reply("after wait"),
    )
    started = time.monotonic()
    events, message = await run(make_model(server), ctx(user()))
    assert time.monotonic() - started >= 0.1
    assert message.content == [TextContent(text="after wait")]
    assert types(events)[0] == "start"
    assert len(server.requests) == 2


async def test_500_retried_then_failing(server: ScriptedServer) -> None:
    failure = json_response(500, {"error": {"message": "The server had an error"}}, headers={"retry-after": "0"})
    server.queue(failure, failure, failure)
    events, message = await run(make_model(server), ctx(user()), max_retries=2)
    assert types(events) == ["error"]
    assert message.error_message == '500: {"message":"The server had an error"}'
    assert len(server.requests) == 3


async def test_empty_error_body_keeps_the_no_body_wording(server: ScriptedServer) -> None:
    server.queue(json_response(400, b""))
    _, message = await run(make_model(server, "cerebras"), ctx(user()))
    assert message.error_message == "400 status code (no body)"


async def test_dropped_connection_mid_stream_keeps_partial_text(server: ScriptedServer) -> None:
    server.queue(reply(chunk({"content": "Hel"}), chunk({"content": "lo"}), chunk({}, "stop"), drop_after=2))
    events, message = await run(make_model(server), ctx(user()))
    assert types(events)[0] == "start"
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert message.content == [TextContent(text="Hello")]
    assert (message.error_message or "").startswith("Connection lost while streaming the reply of gpt-4o-mini")
    assert is_retryable_assistant_error(message)


async def test_malformed_frame_is_an_error(server: ScriptedServer) -> None:
    server.queue(reply(chunk({"content": "ok"}), '{"id": "chatcmpl-1", "choices": [{"delta": '))
    _, message = await run(make_model(server), ctx(user()))
    assert message.stop_reason == "error"
    assert "Malformed stream frame" in (message.error_message or "")


async def test_error_object_inside_the_stream_appends_openrouter_raw(server: ScriptedServer) -> None:
    error = {"error": {"message": "Provider returned error", "code": 502, "metadata": {"raw": "upstream: overloaded"}}}
    server.queue(reply(chunk({"content": "so far"}), error))
    events, message = await run(make_model(server, "openrouter", "anthropic/claude-sonnet-4"), ctx(user()))
    assert events[-1].type == "error"
    assert message.error_message == "Provider returned error\nupstream: overloaded"
    assert message.content == [TextContent(text="so far")]


async def test_abort_mid_stream_ends_at_once(server: ScriptedServer) -> None:
    # No finish frame: the reply can only end by the abort (or when the server gives up after 30 s).
    server.queue(ScriptedResponse(chunks=sse(chunk({"content": "one"}), chunk({"content": "two"})), hold_open=30))
    controller = AbortController()
    stream = stream_openai_completions(
        make_model(server), ctx(user()), StreamOptions(api_key=KEY, signal=controller.signal)
    )
    seen: list[str] = []
    started = time.monotonic()
    async for event in stream:
        seen.append(event.type)
        if event.type == "text_delta":
            controller.abort()
    message = await stream.result()
    assert time.monotonic() - started < 10
    assert message.stop_reason == "aborted"
    assert message.error_message == "Request was aborted"
    assert seen[-1] == "error"
    assert message.content and isinstance(message.content[0], TextContent)


async def test_abort_before_the_answer_is_a_lone_aborted_error(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.queue(json_response(503, {"error": {"message": "busy"}}, headers={"retry-after": "30"}))
    controller = AbortController()
    waited = abort_when_retry_wait_starts(monkeypatch, controller)
    events, message = await run(make_model(server), ctx(user()), signal=controller.signal)
    assert waited.is_set()
    assert types(events) == ["error"]
    assert message.stop_reason == "aborted"


# --- keys and headers --------------------------------------------------------------------------


async def test_missing_key_is_an_in_stream_error(server: ScriptedServer) -> None:
    events, message = await run(make_model(server, "custom"), ctx(user()), api_key=None)
    assert types(events) == ["error"]
    assert message.error_message is not None
    assert message.error_message.startswith("No API key for provider: custom\n")
    assert '"apiKey"' in message.error_message and "models.json" in message.error_message
    assert server.requests == []


async def test_each_provider_reads_only_its_own_variable(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "groq-key")
    monkeypatch.setenv("OPENAI_API_KEY", "openai-key")
    await sent_body(server, make_model(server, "groq"), ctx(user()), api_key=None)
    assert server.requests[-1].headers["authorization"] == "Bearer groq-key"
    await sent_body(server, make_model(server, "openai"), ctx(user()), api_key=None)
    assert server.requests[-1].headers["authorization"] == "Bearer openai-key"
    sent = len(server.requests)
    _, message = await run(make_model(server, "my-proxy"), ctx(user()), api_key=None)
    assert message.stop_reason == "error" and len(server.requests) == sent


async def test_headers_merge_model_then_options(server: ScriptedServer) -> None:
    model = make_model(server, headers={"X-Model": "m", "X-Both": "model"})
    await sent_body(server, model, ctx(user()), headers={"X-Both": "options", "authorization": "Bearer override"})
    headers = server.requests[-1].headers
    assert headers["x-model"] == "m"
    assert headers["x-both"] == "options"
    assert headers["authorization"] == "Bearer override"


async def test_copilot_dynamic_headers(server: ScriptedServer) -> None:
    model = make_model(server, "github-copilot", "gpt-4o")
    image_user = UserMessage(content=[TextContent(text="see"), ImageContent(data=PNG, mime_type="image/png")])
    await sent_body(server, model, ctx(image_user))
    headers = server.requests[-1].headers
    assert headers["x-initiator"] == "user"
    assert headers["openai-intent"] == "conversation-edits"
    assert headers["copilot-vision-request"] == "true"
    call = ToolCall(id="c1", name="read", arguments={})
    result = ToolResultMessage(tool_call_id="c1", tool_name="read", content=[TextContent(text="x")])
    await sent_body(server, model, ctx(user(), assistant(model, call, stop="toolUse"), result))
    assert server.requests[-1].headers["x-initiator"] == "agent"
    assert "copilot-vision-request" not in server.requests[-1].headers


async def test_on_payload_can_replace_the_body(server: ScriptedServer) -> None:
    seen: list[dict[str, Any]] = []

    async def on_payload(payload: dict[str, Any], model: Model) -> dict[str, Any]:
        seen.append(payload)
        return {**payload, "seed": 7}

    body = await sent_body(server, make_model(server), ctx(user()), on_payload=on_payload)
    assert body["seed"] == 7
    assert seen[0]["model"] == "gpt-4o-mini"


# --- request bodies per server -----------------------------------------------------------------


async def test_default_openai_body(server: ScriptedServer) -> None:
    model = make_model(server, model_id="o4-mini", reasoning=True)
    body = await sent_body(
        server,
        model,
        ctx(user(), system="Be brief.", tools=[READ_TOOL]),
        max_tokens=1000,
        temperature=0.2,
        extra={"reasoning_effort": "low", "tool_choice": "required"},
    )
    assert body["messages"][0] == {"role": "developer", "content": "Be brief."}
    assert body["stream_options"] == {"include_usage": True}
    assert body["store"] is False
    assert body["max_completion_tokens"] == 1000 and "max_tokens" not in body
    assert body["temperature"] == 0.2
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file",
                "parameters": READ_TOOL.parameters,
            },
        }
    ]
    assert body["tool_choice"] == "required"
    assert body["reasoning_effort"] == "low"


async def test_non_reasoning_model_gets_system_role_and_no_effort(server: ScriptedServer) -> None:
    body = await sent_body(server, make_model(server), ctx(user(), system="S"), extra={"reasoning_effort": "high"})
    assert body["messages"][0] == {"role": "system", "content": "S"}
    assert "reasoning_effort" not in body
    assert "tools" not in body and "max_completion_tokens" not in body and "temperature" not in body


@pytest.mark.parametrize("provider", ["ollama", "lmstudio", "llama.cpp", "vllm", "my-local-server"])
async def test_local_server_body_is_the_one_pi_sends(server: ScriptedServer, provider: str) -> None:
    # pi 1.6.0 sends a reasoning model on a loopback server store, max_completion_tokens and the level's effort.
    model = make_model(server, provider, "qwen3:8b", reasoning=True)
    body = await sent_body(server, model, ctx(user(), system="S"), simple=True, max_tokens=512, reasoning="high")
    assert body["messages"][0] == {"role": "system", "content": "S"}
    assert body["store"] is False
    assert body["reasoning_effort"] == "high"
    assert body["max_completion_tokens"] == 512 and "max_tokens" not in body
    assert body["stream_options"] == {"include_usage": True}


async def test_local_server_compat_can_ask_for_the_classic_fields(server: ScriptedServer) -> None:
    compat = ModelCompat(supports_store=False, supports_reasoning_effort=False, max_tokens_field="max_tokens")
    model = make_model(server, "my-local-server", "qwen3:8b", reasoning=True, compat=compat)
    body = await sent_body(server, model, ctx(user()), simple=True, max_tokens=512, reasoning="high")
    assert "store" not in body and "reasoning_effort" not in body and "max_completion_tokens" not in body
    assert body["max_tokens"] == 512


async def test_local_reasoning_model_thinking_off_sends_no_effort(server: ScriptedServer) -> None:
    model = make_model(server, "my-local-server", "qwen3:8b", reasoning=True)
    body = await sent_body(server, model, ctx(user()), simple=True, reasoning="off")
    assert "reasoning_effort" not in body and body["store"] is False


async def test_ant_ling_sends_only_the_efforts_its_map_names(server: ScriptedServer) -> None:
    levels: dict[str, str | None] = {"off": None, "medium": None, "high": "high"}
    model = make_model(server, "ant-ling", "Ring-2.6-1T", reasoning=True, thinking_level_map=levels)
    assert (await sent_body(server, model, ctx(user()), simple=True, reasoning="high"))["reasoning"] == {
        "effort": "high"
    }
    unnamed = make_model(server, "ant-ling", "Ring-x", reasoning=True)
    assert "reasoning" not in await sent_body(server, unnamed, ctx(user()), simple=True, reasoning="high")


async def test_groq_qwen_effort_map(server: ScriptedServer) -> None:
    model = make_model(server, "groq", "qwen/qwen3-32b", reasoning=True)
    body = await sent_body(server, model, ctx(user()), extra={"reasoning_effort": "high"})
    assert body["reasoning_effort"] == "default"
    assert body["store"] is False


async def test_cerebras_body(server: ScriptedServer) -> None:
    model = make_model(server, "cerebras", "zai-glm-4.6", reasoning=True)
    body = await sent_body(server, model, ctx(user(), system="S"), extra={"reasoning_effort": "low"})
    assert body["messages"][0]["role"] == "system"
    assert "store" not in body
    assert body["reasoning_effort"] == "low"


async def test_xai_body(server: ScriptedServer) -> None:
    model = make_model(server, "xai", "grok-4", reasoning=True)
    body = await sent_body(server, model, ctx(user(), system="S"), extra={"reasoning_effort": "high"})
    assert body["messages"][0]["role"] == "system"
    assert "store" not in body and "reasoning_effort" not in body


async def test_zai_thinking_switch(server: ScriptedServer) -> None:
    model = make_model(server, "zai", "glm-4.6", reasoning=True)
    on = await sent_body(server, model, ctx(user()), extra={"reasoning_effort": "medium"})
    assert on["thinking"] == {"type": "enabled", "clear_thinking": False}
    assert "reasoning_effort" not in on and "store" not in on
    off = await sent_body(server, model, ctx(user()))
    assert off["thinking"] == {"type": "disabled"}
    effort = make_model(server, "zai", "glm-5.3", reasoning=True, compat=ModelCompat(supports_reasoning_effort=True))
    assert (await sent_body(server, effort, ctx(user()), extra={"reasoning_effort": "high"}))[
        "reasoning_effort"
    ] == "high"


async def test_qwen_formats(server: ScriptedServer) -> None:
    qwen = make_model(server, "dashscope", "qwen3", reasoning=True, compat=ModelCompat(thinking_format="qwen"))
    assert (await sent_body(server, qwen, ctx(user()), extra={"reasoning_effort": "low"}))["enable_thinking"] is True
    template = make_model(
        server, "custom", "qwen3", reasoning=True, compat=ModelCompat(thinking_format="qwen-chat-template")
    )
    body = await sent_body(server, template, ctx(user()))
    assert body["chat_template_kwargs"] == {"enable_thinking": False, "preserve_thinking": True}
    assert "enable_thinking" not in body


def catalog_model(server: ScriptedServer, provider: str, model_id: str) -> Model:
    """A catalog model, compat flags and all, pointed at the loopback server."""
    model = get_model(provider, model_id)
    assert model is not None and model.api == "openai-completions"
    return model.model_copy(update={"base_url": f"{server.url}/v1"})


async def test_mistral_body_and_history(server: ScriptedServer) -> None:
    model = catalog_model(server, "mistral", "devstral-medium-latest")
    call = ToolCall(id="call_0123456789abcdef", name="read", arguments={"path": "a"})
    history = ctx(
        user(),
        assistant(
            model,
            ThinkingContent(thinking="I should read a."),
            TextContent(text="Reading."),
            call,
            stop="toolUse",
        ),
        ToolResultMessage(tool_call_id=call.id, tool_name="read", content=[TextContent(text="contents")]),
        user("thanks"),
        system="S",
        tools=[READ_TOOL],
    )
    body = await sent_body(server, model, history, max_tokens=100)
    assert body["max_tokens"] == 100
    assert "store" not in body and "stream_options" not in body
    messages = body["messages"]
    assert messages[0] == {"role": "system", "content": "S"}
    wire_id = mistral_tool_call_id(call.id)
    assert re.fullmatch(r"[A-Za-z0-9]{9}", wire_id)
    assert messages[2]["content"] == "I should read a.\n\nReading."
    assert messages[2]["tool_calls"][0]["id"] == wire_id
    assert messages[3] == {"role": "tool", "content": "contents", "tool_call_id": wire_id, "name": "read"}
    assert messages[4] == {"role": "assistant", "content": BRIDGE_TEXT}
    assert messages[5] == {"role": "user", "content": "thanks"}
    assert mistral_tool_call_id("abcDEF123") == "abcDEF123"


async def test_mistral_thinking_chunks_stream_as_thinking(server: ScriptedServer) -> None:
    server.queue(
        reply(
            chunk(
                {"role": "assistant", "content": [{"type": "thinking", "thinking": [{"type": "text", "text": "hm"}]}]}
            ),
            chunk({"content": [{"type": "text", "text": "Done."}]}),
            chunk({}, "stop"),
        )
    )
    _, message = await run(make_model(server, "mistral", "magistral-medium-latest"), ctx(user()))
    assert message.content == [ThinkingContent(thinking="hm"), TextContent(text="Done.")]


async def test_deepseek_body_and_reasoning_replay(server: ScriptedServer) -> None:
    model = catalog_model(server, "deepseek", "deepseek-v4-pro")
    call = ToolCall(id="call_1", name="read", arguments={"path": "a"})
    history = ctx(
        user(),
        assistant(
            model,
            ThinkingContent(thinking="Need the file.", thinking_signature="reasoning_content"),
            call,
            stop="toolUse",
        ),
        ToolResultMessage(tool_call_id="call_1", tool_name="read", content=[TextContent(text="x")]),
        assistant(model, TextContent(text="Done.")),
        user("again"),
        system="S",
        tools=[READ_TOOL],
    )
    body = await sent_body(server, model, history, max_tokens=64)
    assert body["max_tokens"] == 64 and "store" not in body
    messages = body["messages"]
    assert messages[0]["role"] == "system"
    assert messages[2]["reasoning_content"] == "Need the file."
    assert messages[2]["content"] is None
    assert messages[4] == {"role": "assistant", "content": "Done.", "reasoning_content": ""}


async def test_openrouter_routing_and_anthropic_cache_control(server: ScriptedServer) -> None:
    routing = RoutingPreferences(only=["anthropic"], order=["anthropic", "amazon-bedrock"])
    model = make_model(
        server, "openrouter", "anthropic/claude-sonnet-4", compat=ModelCompat(open_router_routing=routing)
    )
    body = await sent_body(server, model, ctx(user("first"), assistant(model, TextContent(text="a")), user("last")))
    assert body["provider"] == {"only": ["anthropic"], "order": ["anthropic", "amazon-bedrock"]}
    assert body["messages"][-1] == {
        "role": "user",
        "content": [{"type": "text", "text": "last", "cache_control": {"type": "ephemeral"}}],
    }
    assert body["messages"][0] == {"role": "user", "content": "first"}


async def test_openrouter_non_anthropic_gets_no_cache_control(server: ScriptedServer) -> None:
    body = await sent_body(server, make_model(server, "openrouter", "openai/gpt-4o"), ctx(user("q")))
    assert body["messages"] == [{"role": "user", "content": "q"}]
    assert "provider" not in body


async def test_vercel_gateway_routing(server: ScriptedServer) -> None:
    routing = RoutingPreferences(order=["bedrock", "anthropic"])
    model = make_model(server, "vercel-ai-gateway", "x/y", compat=ModelCompat(vercel_gateway_routing=routing))
    body = await sent_body(server, model, ctx(user()))
    assert body["providerOptions"] == {"gateway": {"order": ["bedrock", "anthropic"]}}


async def test_explicit_compat_overrides_detection_field_by_field(server: ScriptedServer) -> None:
    compat = ModelCompat(supports_store=True, supports_strict_mode=False, supports_usage_in_streaming=False)
    model = make_model(server, "xai", "grok-4", reasoning=True, compat=compat)
    body = await sent_body(server, model, ctx(user(), system="S", tools=[READ_TOOL]), extra={"reasoning_effort": "low"})
    assert body["store"] is False  # turned on explicitly
    assert "strict" not in body["tools"][0]["function"]
    assert "stream_options" not in body
    assert body["messages"][0]["role"] == "system"  # still detected for xAI
    assert "reasoning_effort" not in body  # still detected for xAI


async def test_empty_tools_only_where_the_server_requires_them_with_tool_history(server: ScriptedServer) -> None:
    model = make_model(server)
    call = ToolCall(id="c1", name="read", arguments={})
    result = ToolResultMessage(tool_call_id="c1", tool_name="read", content=[TextContent(text="x")])
    history = ctx(user(), assistant(model, call, stop="toolUse"), result)
    assert "tools" not in await sent_body(server, model, history)
    strict_proxy = make_model(server, compat=ModelCompat(requires_tools_with_tool_history=True))
    assert (await sent_body(server, strict_proxy, history))["tools"] == []


# --- stream_simple -----------------------------------------------------------------------------


async def test_simple_maps_reasoning_and_default_max_tokens(server: ScriptedServer) -> None:
    model = make_model(server, model_id="o4-mini", reasoning=True, max_tokens=100_000)
    server.queue(text_reply(), text_reply(), text_reply())
    await run(model, ctx(user()), simple=True, reasoning="medium")
    first = server.requests[-1].json()
    assert first["reasoning_effort"] == "medium"
    assert first["max_completion_tokens"] == 100_000  # the model's own limit: the window has room
    await run(model, ctx(user()), simple=True, reasoning="xhigh")
    assert server.requests[-1].json()["reasoning_effort"] == "high"
    mapped = make_model(server, model_id="gpt-5.2", reasoning=True, thinking_level_map={"xhigh": "xhigh"})
    await run(mapped, ctx(user()), simple=True, reasoning="xhigh")
    assert server.requests[-1].json()["reasoning_effort"] == "xhigh"


@pytest.mark.parametrize(
    ("model_id", "level", "effort"),
    [("gpt-5.2", "max", "xhigh"), ("o4-mini", "max", "high"), ("o4-mini", "off", None), ("o4-mini", "low", "low")],
)
async def test_simple_max_is_the_strongest_effort_and_off_is_none(
    server: ScriptedServer, model_id: str, level: str, effort: str | None
) -> None:
    mapping = {"xhigh": "xhigh"} if model_id == "gpt-5.2" else None
    model = make_model(server, model_id=model_id, reasoning=True, thinking_level_map=mapping)
    body = await sent_body(server, model, ctx(user()), simple=True, reasoning=level)
    assert body.get("reasoning_effort") == effort


async def test_raw_max_effort_is_never_sent_as_is(server: ScriptedServer) -> None:
    model = make_model(server, model_id="o4-mini", reasoning=True)
    assert (await sent_body(server, model, ctx(user()), extra={"reasoning_effort": "max"}))[
        "reasoning_effort"
    ] == "high"


async def test_simple_levels_go_through_the_maps_that_name_them(server: ScriptedServer) -> None:
    compat = ModelCompat(reasoning_effort_map={"high": "hard"})
    model = make_model(server, model_id="local-reasoner", reasoning=True, compat=compat)
    assert (await sent_body(server, model, ctx(user()), simple=True, reasoning="max"))["reasoning_effort"] == "hard"
    mapped = make_model(server, model_id="m", reasoning=True, thinking_level_map={"max": "maximum", "low": None})
    assert (await sent_body(server, mapped, ctx(user()), simple=True, reasoning="max"))["reasoning_effort"] == "maximum"
    assert (await sent_body(server, mapped, ctx(user()), simple=True, reasoning="low"))["reasoning_effort"] == "medium"


async def test_simple_without_reasoning_sends_no_effort(server: ScriptedServer) -> None:
    model = make_model(server, model_id="o4-mini", reasoning=True)
    server.queue(text_reply())
    await run(model, ctx(user()), simple=True, extra={"reasoning_effort": "high"})
    assert "reasoning_effort" not in server.requests[-1].json()


# --- message conversion ------------------------------------------------------------------------


async def test_assistant_history_shapes(server: ScriptedServer) -> None:
    model = make_model(server, "ollama", "gpt-oss:20b", reasoning=True)
    call = ToolCall(id="call_9", name="read", arguments={"path": "é"})
    history = ctx(
        user(),
        assistant(
            model,
            ThinkingContent(thinking="first", thinking_signature="reasoning"),
            ThinkingContent(thinking="second", thinking_signature="reasoning"),
            TextContent(text="Part one, "),
            TextContent(text="part two."),
        ),
        assistant(model, call, stop="toolUse"),
        ToolResultMessage(
            tool_call_id="call_9", tool_name="read", content=[TextContent(text="a"), TextContent(text="b")]
        ),
        assistant(model),  # empty: skipped
        assistant(model, TextContent(text="lost"), stop="aborted"),  # failed turn: dropped
        user("next"),
    )
    messages = (await sent_body(server, model, history))["messages"]
    assert messages[1] == {"role": "assistant", "content": "Part one, part two.", "reasoning": "first\nsecond"}
    assert messages[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_9", "type": "function", "function": {"name": "read", "arguments": '{"path":"é"}'}}],
    }
    assert messages[3] == {"role": "tool", "content": "a\nb", "tool_call_id": "call_9"}
    assert messages[4] == {"role": "user", "content": "next"}
    assert len(messages) == 5


async def test_thinking_as_text_when_required(server: ScriptedServer) -> None:
    model = make_model(server, "custom-host", compat=ModelCompat(requires_thinking_as_text=True))
    history = ctx(
        user(),
        assistant(
            model, ThinkingContent(thinking="plan", thinking_signature="reasoning_content"), TextContent(text="ok")
        ),
        user("again"),
    )
    messages = (await sent_body(server, model, history))["messages"]
    assert messages[1] == {"role": "assistant", "content": "plan\n\nok"}


async def test_images_and_surrogates(server: ScriptedServer) -> None:
    model = make_model(server)
    call = ToolCall(id="c1", name="shot", arguments={})
    history = ctx(
        UserMessage(content=[TextContent(text="look \ud83d here"), ImageContent(data=PNG, mime_type="image/png")]),
        assistant(model, call, ToolCall(id="c2", name="shot", arguments={}), stop="toolUse"),
        ToolResultMessage(tool_call_id="c1", tool_name="shot", content=[ImageContent(data=PNG, mime_type="image/png")]),
        ToolResultMessage(
            tool_call_id="c2",
            tool_name="shot",
            content=[TextContent(text="second"), ImageContent(data="R0lG", mime_type="image/gif")],
        ),
        user("what do you see? \U0001f600"),
        system="sys \udc00",
    )
    messages = (await sent_body(server, model, history))["messages"]
    assert messages[0] == {"role": "system", "content": "sys "}
    assert messages[1]["content"] == [
        {"type": "text", "text": "look  here"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
    ]
    assert messages[3] == {"role": "tool", "content": "(see attached image)", "tool_call_id": "c1"}
    assert messages[4] == {"role": "tool", "content": "second", "tool_call_id": "c2"}
    assert messages[5] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Attached image(s) from tool result:"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            {"type": "image_url", "image_url": {"url": "data:image/gif;base64,R0lG"}},
        ],
    }
    assert messages[6] == {"role": "user", "content": "what do you see? \U0001f600"}


async def test_foreign_tool_call_ids_are_normalized(server: ScriptedServer) -> None:
    model = make_model(server)
    other = Model(
        id="gpt-5", name="gpt-5", api="openai-responses", provider="openai", base_url="https://api.openai.com/v1"
    )
    responses_id = "call_abc+/def|fc_" + "x" * 60
    long_id = "toolu_" + "y" * 60
    history = ctx(
        user(),
        assistant(other, ToolCall(id=responses_id, name="read"), ToolCall(id=long_id, name="read"), stop="toolUse"),
        ToolResultMessage(tool_call_id=responses_id, tool_name="read", content=[TextContent(text="1")]),
        ToolResultMessage(tool_call_id=long_id, tool_name="read", content=[TextContent(text="2")]),
    )
    messages = (await sent_body(server, model, history))["messages"]
    ids = [c["id"] for c in messages[1]["tool_calls"]]
    assert ids == ["call_abc__def", long_id[:40]]
    assert [messages[2]["tool_call_id"], messages[3]["tool_call_id"]] == ids


async def test_openrouter_encrypted_reasoning_round_trip(server: ScriptedServer) -> None:
    detail = {"type": "reasoning.encrypted", "id": "call_r1", "data": "ENCRYPTED==", "format": "openai-responses-v1"}
    server.queue(
        reply(
            chunk({"role": "assistant", "content": "", "reasoning": "thinking"}),
            chunk(
                {**tool_delta(0, call_id="call_r1", name="read", args='{"path":"a"}'), "reasoning_details": [detail]}
            ),
            chunk({}, "tool_calls"),
        )
    )
    model = make_model(server, "openrouter", "openai/gpt-5", reasoning=True)
    _, message = await run(model, ctx(user(), tools=[READ_TOOL]))
    call = message.content[-1]
    assert isinstance(call, ToolCall)
    assert json.loads(call.thought_signature or "{}") == detail
    result = ToolResultMessage(tool_call_id="call_r1", tool_name="read", content=[TextContent(text="x")])
    messages = (await sent_body(server, model, ctx(user(), message, result, tools=[READ_TOOL])))["messages"]
    assert messages[1]["reasoning_details"] == [detail]
    assert messages[1]["reasoning"] == "thinking"


async def test_tool_only_turn_content_and_empty_result_with_bridge_flag(server: ScriptedServer) -> None:
    model = make_model(server, "custom-host", compat=ModelCompat(requires_assistant_after_tool_result=True))
    call = ToolCall(id="c1", name="read", arguments={})
    history = ctx(
        user(),
        assistant(model, call, stop="toolUse"),
        ToolResultMessage(tool_call_id="c1", tool_name="read", content=[]),
        user("next"),
    )
    messages = (await sent_body(server, model, history))["messages"]
    assert messages[1]["content"] == ""
    assert messages[2] == {"role": "tool", "content": "(no tool output)", "tool_call_id": "c1"}
    assert messages[3] == {"role": "assistant", "content": BRIDGE_TEXT}
    assert messages[4] == {"role": "user", "content": "next"}


async def test_stream_ending_without_finish_reason_or_done_is_incomplete(server: ScriptedServer) -> None:
    # A body that just stops (a proxy closing a close-delimited response, a crashed server) must not
    # pass for a finished reply: its half-streamed tool call would be run with truncated arguments.
    server.queue(
        ScriptedResponse(
            chunks=sse(
                chunk({"content": "Writing"}),
                chunk(tool_delta(0, call_id="call_1", name="write", args='{"path": "a.txt", "content": "ab')),
            )
        )
    )
    events, message = await run(make_model(server), ctx(user()))
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert message.content[0] == TextContent(text="Writing")
    assert (message.error_message or "").startswith("Stream ended without finish_reason: ")
    assert "openai stream for gpt-4o-mini closed before a chunk carrying finish_reason." in (
        message.error_message or ""
    )
    assert is_retryable_assistant_error(message)


async def test_finish_reason_without_done_marker_is_complete(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=sse(chunk({"content": "ok"}), chunk({}, "stop"))))
    _, message = await run(make_model(server), ctx(user()))
    assert message.stop_reason == "stop", message.error_message
    assert message.content == [TextContent(text="ok")]


async def test_done_marker_without_finish_reason_is_a_cut_stream(server: ScriptedServer) -> None:
    # pi 1.6.0 refuses this too ("Stream ended without finish_reason"): a gateway that loses the
    # upstream mid-reply may still close the stream politely with [DONE].
    server.queue(reply(chunk({"role": "assistant", "content": ""}), chunk({"content": "half an ans"})))
    events, message = await run(make_model(server), ctx(user()))
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert message.content == [TextContent(text="half an ans")]
    assert message.error_message == (
        "Stream ended without finish_reason: the openai stream for gpt-4o-mini closed before a chunk "
        "carrying finish_reason ([DONE] came without one). The reply is incomplete; send the request again."
    )
    assert is_retryable_assistant_error(message)


@pytest.mark.parametrize("done", [True, False], ids=["done", "eof"])
async def test_without_finish_reason_support_the_body_ends_the_reply(server: ScriptedServer, done: bool) -> None:
    frames: list[dict[str, Any] | str] = [chunk({"content": "all "}), chunk({"content": "of it"})]
    server.queue(ScriptedResponse(chunks=sse(*frames, *(["[DONE]"] if done else []))))
    model = make_model(server, "custom-host", compat=ModelCompat(supports_finish_reason=False))
    _, message = await run(model, ctx(user()))
    assert message.stop_reason == "stop", message.error_message
    assert message.content == [TextContent(text="all of it")]
    assert message.raw_stop_reason is None


async def test_without_finish_reason_support_a_tool_call_still_asks_for_results(server: ScriptedServer) -> None:
    server.queue(reply(chunk(tool_delta(0, call_id="call_1", name="read", args='{"path": "a"}'))))
    model = make_model(server, "custom-host", compat=ModelCompat.model_validate({"supportsFinishReason": False}))
    _, message = await run(model, ctx(user(), tools=[READ_TOOL]))
    assert message.stop_reason == "toolUse", message.error_message


async def test_reply_records_response_id_served_model_and_raw_finish_reason(server: ScriptedServer) -> None:
    server.queue(reply(chunk({"content": "x"}), chunk({}, "length"), usage_chunk(10, 4, reasoning=3)))
    _, message = await run(make_model(server), ctx(user()))
    assert message.stop_reason == "length"
    assert (message.response_id, message.raw_stop_reason) == ("chatcmpl-abc123", "length")
    assert message.response_model == "gpt-4o-mini-2024-07-18"  # the dated snapshot that answered
    assert message.usage.reasoning == 3
    wire = message.model_dump(by_alias=True, exclude_none=True)
    assert (wire["responseId"], wire["rawStopReason"], wire["responseModel"]) == (
        "chatcmpl-abc123",
        "length",
        "gpt-4o-mini-2024-07-18",
    )
    assert wire["usage"]["reasoning"] == 3


async def test_served_model_equal_to_the_requested_one_is_not_repeated(server: ScriptedServer) -> None:
    served = chunk({"content": "x"}, model="gpt-4o-mini")
    server.queue(reply(served, chunk({}, "stop", model="gpt-4o-mini")))
    _, message = await run(make_model(server), ctx(user()))
    assert message.response_model is None
    assert message.usage.reasoning is None  # no usage reported at all


async def test_usage_with_cache_writes_and_top_level_cached_tokens(server: ScriptedServer) -> None:
    openrouter = {"prompt_tokens": 1000, "completion_tokens": 20, "prompt_tokens_details": {"cache_write_tokens": 300}}
    kimi = {"prompt_tokens": 500, "completion_tokens": 5, "cached_tokens": 120}
    server.queue(
        reply(chunk({"content": "x"}), chunk({}, "stop"), {**usage_chunk(), "usage": openrouter}),
        reply(chunk({"content": "x"}), chunk({}, "stop"), {**usage_chunk(), "usage": kimi}),
    )
    _, first = await run(make_model(server), ctx(user()))
    assert (first.usage.input, first.usage.cache_write, first.usage.cache_read) == (700, 300, 0)
    assert first.usage.total_tokens == 1020
    _, second = await run(make_model(server), ctx(user()))
    assert (second.usage.input, second.usage.cache_read, second.usage.reasoning) == (380, 120, 0)


# --- connection reuse ------------------------------------------------------------------------------


async def test_replies_end_cleanly_so_the_next_request_reuses_the_connection(keep_alive_server: ScriptedServer) -> None:
    model = make_model(keep_alive_server)
    for text in ("first", "second", "third"):
        keep_alive_server.queue(text_reply(text))
        _, message = await run(model, ctx(user()))
        assert message.content == [TextContent(text=text)]
    assert keep_alive_server.connections == 1


async def test_a_body_left_open_after_done_costs_at_most_the_grace_time(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pi.ai.http.FINISH_GRACE_S", 0.2)
    server.queue(reply(chunk({"content": "held"}), chunk({}, "stop"), hold_open=30.0))
    started = time.monotonic()
    _, message = await run(make_model(server), ctx(user()))
    assert message.stop_reason == "stop" and message.content == [TextContent(text="held")]
    assert time.monotonic() - started < 10.0  # the grace time, not the 30 s the body stays open
