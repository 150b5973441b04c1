"""The Gemini API provider against a loopback server speaking streamGenerateContent over SSE."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from pi.ai.abort import AbortController
from pi.ai.events import AssistantMessageEvent
from pi.ai.options import StreamOptions, ThinkingBudgets
from pi.ai.overflow import is_context_overflow
from pi.ai.providers.google_generative_ai import PROVIDER, SKIP_THOUGHT_SIGNATURE
from pi.ai.registry import get_api_provider
from pi.ai.retry_classifier import is_retryable_assistant_error
from pi.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    ModelCost,
    TextContent,
    ThinkingContent,
    ThinkingLevel,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response

KEY = "test-gemini-key"
SIG_A = "c2lnLWE="  # base64 of "sig-a"
SIG_B = "c2lnLWJi"  # base64 of "sig-bb"
PNG = "iVBORw0KGgo="


def gemini_model(server: ScriptedServer, model_id: str = "gemini-2.5-flash", **kw: Any) -> Model:
    fields: dict[str, Any] = {
        "id": model_id,
        "name": model_id,
        "api": "google-generative-ai",
        "provider": "google",
        "base_url": f"{server.url}/v1beta",
        "reasoning": True,
        "input": ["text", "image"],
        "cost": ModelCost(input=0.3, output=2.5, cache_read=0.075),
        "context_window": 1_048_576,
        "max_tokens": 65536,
    }
    fields.update(kw)
    return Model(**fields)


def frames(*chunks: dict[str, Any]) -> list[bytes]:
    """SSE frames as Gemini sends them: compact JSON, CRLF line ends."""
    return [f"data: {json.dumps(c, separators=(',', ':'))}\r\n\r\n".encode() for c in chunks]


def chunk(
    *parts: dict[str, Any],
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-2.5-flash", "responseId": "r1"}
    if usage:
        out["usageMetadata"] = usage
    out.update(extra)
    return out


USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 4, "totalTokenCount": 14}


def ok(*chunks: dict[str, Any], **kw: Any) -> ScriptedResponse:
    return ScriptedResponse(chunks=frames(*chunks), **kw)


def hello() -> ScriptedResponse:
    return ok(chunk({"text": "ok"}, finish="STOP", usage=USAGE))


def user_context(text: str = "Hi", **kw: Any) -> Context:
    return Context(messages=[UserMessage(content=text)], **kw)


async def collect(
    model: Model, context: Context, options: StreamOptions | None = None, simple: bool = False
) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
    opts = options or StreamOptions()
    if opts.api_key is None:
        opts.api_key = KEY
    fn = PROVIDER.stream_simple if simple else PROVIDER.stream
    stream = fn(model, context, opts)
    events = [event async for event in stream]
    return events, await stream.result()


def types(events: list[AssistantMessageEvent]) -> list[str]:
    return [event.type for event in events]


async def sent_body(
    server: ScriptedServer,
    model: Model,
    context: Context,
    options: StreamOptions | None = None,
    simple: bool = False,
) -> dict[str, Any]:
    server.queue(hello())
    _, message = await collect(model, context, options, simple)
    assert message.stop_reason == "stop", message.error_message
    body: dict[str, Any] = server.requests[-1].json()
    return body


def assistant(
    model: Model, *content: Any, provider: str | None = None, model_id: str | None = None
) -> AssistantMessage:
    return AssistantMessage(
        content=list(content),
        api=model.api,
        provider=provider or model.provider,
        model=model_id or model.id,
        stop_reason="toolUse" if any(isinstance(c, ToolCall) for c in content) else "stop",
    )


# --- streaming ------------------------------------------------------------------------------------


async def test_text_over_several_frames(server: ScriptedServer) -> None:
    server.queue(
        ok(
            chunk({"text": "Hel"}),
            chunk({"text": "lo, "}),
            chunk({"text": "world"}, finish="STOP", usage=USAGE),
        )
    )
    model = gemini_model(server, headers={"x-model": "m", "x-both": "model"})
    options = StreamOptions(headers={"x-both": "options"})
    events, message = await collect(model, user_context(), options)

    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_delta", "text_end", "done"]
    assert [e.delta for e in events if e.type == "text_delta"] == ["Hel", "lo, ", "world"]
    assert message.content == [TextContent(text="Hello, world")]
    assert message.stop_reason == "stop"
    assert (message.api, message.provider, message.model) == ("google-generative-ai", "google", "gemini-2.5-flash")

    request = server.requests[0]
    assert request.method == "POST"
    assert request.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert request.headers["x-goog-api-key"] == KEY
    assert request.headers["x-model"] == "m"
    assert request.headers["x-both"] == "options"
    assert request.json()["contents"] == [{"role": "user", "parts": [{"text": "Hi"}]}]


async def test_thinking_parts_keep_the_last_signature_of_their_block(server: ScriptedServer) -> None:
    server.queue(
        ok(
            chunk({"text": "Let me ", "thought": True, "thoughtSignature": SIG_A}),
            chunk({"text": "think.", "thought": True, "thoughtSignature": SIG_B}),
            # A signature-only part must not wipe the one already held, and an empty one adds nothing.
            chunk({"text": "", "thought": True, "thoughtSignature": ""}),
            chunk({"text": "Answer", "thoughtSignature": SIG_A}),
            chunk({"text": "."}, finish="STOP", usage=USAGE),
        )
    )
    events, message = await collect(gemini_model(server), user_context())
    assert types(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    assert message.content == [
        ThinkingContent(thinking="Let me think.", thinking_signature=SIG_B),
        TextContent(text="Answer.", text_signature=SIG_A),
    ]


async def test_empty_part_signs_the_open_block_without_an_event(server: ScriptedServer) -> None:
    server.queue(ok(chunk({"text": "Answer"}), chunk({"text": "", "thoughtSignature": SIG_B}, finish="STOP")))
    events, message = await collect(gemini_model(server), user_context())
    assert types(events) == ["start", "text_start", "text_delta", "text_end", "done"]
    assert message.content == [TextContent(text="Answer", text_signature=SIG_B)]


async def test_signature_alone_marks_no_thinking(server: ScriptedServer) -> None:
    """Only ``thought: true`` makes a part thinking; a signed plain part is answer text."""
    server.queue(ok(chunk({"text": "Visible", "thoughtSignature": SIG_A}, finish="STOP")))
    _, message = await collect(gemini_model(server), user_context())
    assert message.content == [TextContent(text="Visible", text_signature=SIG_A)]


async def test_one_function_call_arrives_whole(server: ScriptedServer) -> None:
    call = {"name": "read", "args": {"path": "a.txt", "limit": 5}}
    server.queue(
        ok(
            chunk({"text": "Reading."}),
            chunk({"functionCall": call, "thoughtSignature": SIG_A}, finish="STOP", usage=USAGE),
        )
    )
    before = int(time.time() * 1000)
    events, message = await collect(gemini_model(server), user_context())

    assert types(events) == [
        "start",
        "text_start",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    deltas = [e.delta for e in events if e.type == "toolcall_delta"]
    assert [json.loads(d) for d in deltas] == [{"path": "a.txt", "limit": 5}]
    end = next(e for e in events if e.type == "toolcall_end")
    assert end.tool_call.arguments == {"path": "a.txt", "limit": 5}
    assert message.stop_reason == "toolUse"
    tool_call = message.content[1]
    assert isinstance(tool_call, ToolCall)
    assert tool_call.name == "read"
    assert tool_call.thought_signature == SIG_A
    match = re.fullmatch(r"read_(\d+)_(\d+)", tool_call.id)
    assert match is not None
    assert int(match.group(1)) >= before


async def test_two_function_calls_with_given_and_duplicate_ids(server: ScriptedServer) -> None:
    server.queue(
        ok(
            chunk(
                {"functionCall": {"id": "call-1", "name": "ls", "args": {}}},
                {"functionCall": {"id": "call-1", "name": "ls", "args": {"path": "src"}}},
                finish="STOP",
            )
        )
    )
    events, message = await collect(gemini_model(server), user_context())
    calls = [block for block in message.content if isinstance(block, ToolCall)]
    assert [c.arguments for c in calls] == [{}, {"path": "src"}]
    assert calls[0].id == "call-1"
    assert calls[1].id != "call-1"
    assert calls[1].id.startswith("ls_")
    assert types(events).count("toolcall_end") == 2
    assert message.stop_reason == "toolUse"


async def test_usage_excludes_cached_tokens_and_prices_the_reply(server: ScriptedServer) -> None:
    usage = {
        "promptTokenCount": 1200,
        "cachedContentTokenCount": 1000,
        "candidatesTokenCount": 50,
        "thoughtsTokenCount": 30,
        "totalTokenCount": 1280,
    }
    server.queue(
        ok(chunk({"text": "a"}, usage={"promptTokenCount": 1200}), chunk({"text": "b"}, finish="STOP", usage=usage))
    )
    _, message = await collect(gemini_model(server), user_context())
    assert message.usage.input == 200
    assert message.usage.cache_read == 1000
    assert message.usage.output == 80
    assert message.usage.cache_write == 0
    assert message.usage.total_tokens == 1280
    cost = message.usage.cost
    assert cost.input == pytest.approx(0.3 * 200 / 1e6)
    assert cost.output == pytest.approx(2.5 * 80 / 1e6)
    assert cost.cache_read == pytest.approx(0.075 * 1000 / 1e6)
    assert cost.total == pytest.approx(cost.input + cost.output + cost.cache_read)


@pytest.mark.parametrize(
    ("finish", "terminal", "reason"),
    [("STOP", "done", "stop"), ("MAX_TOKENS", "done", "length"), ("SAFETY", "error", "error")],
)
async def test_finish_reasons(server: ScriptedServer, finish: str, terminal: str, reason: str) -> None:
    server.queue(ok(chunk({"text": "partial"}), chunk(finish=finish, usage=USAGE)))
    events, message = await collect(gemini_model(server), user_context())
    assert events[-1].type == terminal
    assert message.stop_reason == reason
    assert message.content == [TextContent(text="partial")]
    assert message.usage.output == 4
    if reason == "error":
        assert message.error_message is not None
        assert "finishReason SAFETY" in message.error_message
        assert "gemini-2.5-flash" in message.error_message
    else:
        assert message.error_message is None


async def test_a_function_call_means_tool_use_whatever_the_finish_reason(server: ScriptedServer) -> None:
    server.queue(ok(chunk({"functionCall": {"name": "ls", "args": {}}}, finish="MAX_TOKENS")))
    _, message = await collect(gemini_model(server), user_context())
    assert message.stop_reason == "toolUse"


async def test_blocked_prompt_is_an_error(server: ScriptedServer) -> None:
    server.queue(ok({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": USAGE}))
    events, message = await collect(gemini_model(server), user_context())
    assert events[-1].type == "error"
    assert message.error_message is not None
    assert "PROHIBITED_CONTENT" in message.error_message


async def test_error_frame_mid_stream_is_an_error(server: ScriptedServer) -> None:
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    server.queue(ok(chunk({"text": "so far"}), error))
    events, message = await collect(gemini_model(server), user_context())
    assert events[-1].type == "error"
    assert message.error_message == "503 UNAVAILABLE: The model is overloaded."
    assert message.content == [TextContent(text="so far")]


# --- failures -------------------------------------------------------------------------------------

OVERFLOW = (
    "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."  # as Gemini says it
)


async def test_overflow_400_is_a_lone_error_keeping_the_server_text(server: ScriptedServer) -> None:
    server.queue(json_response(400, {"error": {"code": 400, "message": OVERFLOW, "status": "INVALID_ARGUMENT"}}))
    events, message = await collect(gemini_model(server), user_context())
    assert types(events) == ["error"]
    assert message.stop_reason == "error"
    assert message.error_message == f"400 INVALID_ARGUMENT: {OVERFLOW}"
    assert is_context_overflow(message)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("status", "google_status", "text"),
    [
        (401, "UNAUTHENTICATED", "API keys are not supported by this API."),
        (403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers."),
    ],
)
async def test_auth_failures_say_to_check_the_key(
    server: ScriptedServer, status: int, google_status: str, text: str
) -> None:
    server.queue(json_response(status, {"error": {"code": status, "message": text, "status": google_status}}))
    events, message = await collect(gemini_model(server), user_context())
    assert types(events) == ["error"]
    assert message.error_message is not None
    first, _, hint = message.error_message.partition("\n")
    assert first == f"{status} {google_status}: {text}"
    assert "API key" in hint
    assert "gemini-2.5-flash" in hint


async def test_rate_limit_is_retried_after_the_server_delay(server: ScriptedServer) -> None:
    limited = {"error": {"code": 429, "message": "Resource has been exhausted.", "status": "RESOURCE_EXHAUSTED"}}
    server.queue(json_response(429, limited, headers={"retry-after": "0.1"}), hello())
    started = time.monotonic()
    events, message = await collect(gemini_model(server), user_context())
    assert time.monotonic() - started >= 0.1
    assert types(events)[0] == "start"
    assert message.stop_reason == "stop"
    assert message.content == [TextContent(text="ok")]
    assert len(server.requests) == 2


async def test_server_error_after_retries_is_an_error(server: ScriptedServer) -> None:
    body = {"error": {"code": 500, "message": "An internal error has occurred.", "status": "INTERNAL"}}
    server.queue(*[json_response(500, body, headers={"retry-after": "0"}) for _ in range(2)])
    events, message = await collect(gemini_model(server), user_context(), StreamOptions(max_retries=1))
    assert types(events) == ["error"]
    assert message.error_message == "500 INTERNAL: An internal error has occurred."
    assert len(server.requests) == 2


async def test_non_json_error_body_is_kept_verbatim(server: ScriptedServer) -> None:
    server.queue(json_response(404, b"<html>Not Found</html>"))
    _, message = await collect(gemini_model(server), user_context())
    assert message.error_message is not None
    assert message.error_message.startswith("404 <html>Not Found</html>")


async def test_dropped_connection_keeps_the_partial_reply(server: ScriptedServer) -> None:
    server.queue(ok(chunk({"text": "Half"}), chunk({"text": " more"}), drop_after=1))
    events, message = await collect(gemini_model(server), user_context())
    assert events[0].type == "start"
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert message.content == [TextContent(text="Half")]
    assert message.error_message is not None
    assert message.error_message.startswith("Connection lost while streaming")
    assert is_retryable_assistant_error(message)


async def test_malformed_frame_is_an_error(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=[*frames(chunk({"text": "a"})), b"data: {not json\r\n\r\n"]))
    events, message = await collect(gemini_model(server), user_context())
    assert events[-1].type == "error"
    assert message.error_message is not None
    assert message.error_message.startswith("Malformed stream frame")


async def test_abort_ends_the_stream_at_once(server: ScriptedServer) -> None:
    server.queue(ok(chunk({"text": "Thinking about it"}), hold_open=30))
    controller = AbortController()
    stream = PROVIDER.stream(gemini_model(server), user_context(), StreamOptions(api_key=KEY, signal=controller.signal))
    started = time.monotonic()
    seen: list[str] = []
    async for event in stream:
        seen.append(event.type)
        if event.type == "text_delta":
            controller.abort()
    message = await stream.result()
    assert time.monotonic() - started < 10  # the server would keep the stream open for 30 s
    assert seen[-1] == "error"
    assert message.stop_reason == "aborted"
    assert message.error_message == "Request was aborted"
    assert message.content == [TextContent(text="Thinking about it")]


async def test_missing_key_is_an_error_event(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    stream = PROVIDER.stream(gemini_model(server), user_context(), StreamOptions())
    message = await stream.result()
    assert message.stop_reason == "error"
    assert message.error_message is not None
    assert message.error_message.startswith("No API key for provider: google")
    assert "GEMINI_API_KEY" in message.error_message
    assert server.requests == []


async def test_key_from_the_environment(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "env-key")
    server.queue(hello())
    stream = PROVIDER.stream(gemini_model(server), user_context(), StreamOptions())
    assert (await stream.result()).stop_reason == "stop"
    assert server.requests[0].headers["x-goog-api-key"] == "env-key"


# --- request body ---------------------------------------------------------------------------------

READ_TOOL = Tool(
    name="read",
    description="Read a file",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


async def test_system_prompt_tools_and_generation_config(server: ScriptedServer) -> None:
    context = user_context(system_prompt="Be brief.", tools=[READ_TOOL])
    body = await sent_body(server, gemini_model(server), context, StreamOptions(temperature=0.2, max_tokens=512))
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {"name": "read", "description": "Read a file", "parametersJsonSchema": READ_TOOL.parameters}
            ]
        }
    ]
    assert body["generationConfig"] == {"temperature": 0.2, "maxOutputTokens": 512}
    assert "toolConfig" not in body


async def test_no_tools_no_system_no_config(server: ScriptedServer) -> None:
    body = await sent_body(server, gemini_model(server), user_context())
    assert set(body) == {"contents"}


@pytest.mark.parametrize(("choice", "mode"), [("auto", "AUTO"), ("none", "NONE"), ("any", "ANY")])
async def test_tool_choice(server: ScriptedServer, choice: str, mode: str) -> None:
    options = StreamOptions(extra={"tool_choice": choice})
    body = await sent_body(server, gemini_model(server), user_context(tools=[READ_TOOL]), options)
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": mode}}


async def test_unknown_tool_choice_is_an_error_before_sending(server: ScriptedServer) -> None:
    options = StreamOptions(extra={"tool_choice": "sometimes"})
    _, message = await collect(gemini_model(server), user_context(tools=[READ_TOOL]), options)
    assert message.stop_reason == "error"
    assert message.error_message is not None
    assert "tool_choice" in message.error_message
    assert server.requests == []


@pytest.mark.parametrize(
    ("model_id", "level", "expected"),
    [
        ("gemini-3-pro-preview", "minimal", {"thinkingLevel": "LOW"}),
        ("gemini-3-pro-preview", "low", {"thinkingLevel": "LOW"}),
        ("gemini-3.1-pro-preview", "medium", {"thinkingLevel": "HIGH"}),
        ("gemini-3-pro-preview", "xhigh", {"thinkingLevel": "HIGH"}),
        ("gemini-3-pro-preview", "max", {"thinkingLevel": "HIGH"}),
        ("gemini-3-flash-preview", "max", {"thinkingLevel": "HIGH"}),
        ("gemini-2.5-pro", "max", {"thinkingBudget": 32768}),
        ("gemini-2.5-flash", "xhigh", {"thinkingBudget": 24576}),
        ("gemini-3-flash-preview", "minimal", {"thinkingLevel": "MINIMAL"}),
        ("gemini-3-flash-preview", "medium", {"thinkingLevel": "MEDIUM"}),
        ("gemini-2.5-pro", "minimal", {"thinkingBudget": 128}),
        ("gemini-2.5-pro", "high", {"thinkingBudget": 32768}),
        ("gemini-2.5-flash", "low", {"thinkingBudget": 2048}),
        ("gemini-2.5-flash", "high", {"thinkingBudget": 24576}),
        ("gemini-2.5-flash-lite", "medium", {"thinkingBudget": 8192}),
        ("gemini-2.0-flash-thinking-exp", "high", {"thinkingBudget": -1}),
    ],
)
async def test_simple_thinking_per_model_family(
    server: ScriptedServer, model_id: str, level: ThinkingLevel, expected: dict[str, Any]
) -> None:
    model = gemini_model(server, model_id)
    body = await sent_body(server, model, user_context(), StreamOptions(reasoning=level), simple=True)
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, **expected}
    assert server.requests[-1].path == f"/v1beta/models/{model_id}:streamGenerateContent?alt=sse"


async def test_custom_budgets_win(server: ScriptedServer) -> None:
    options = StreamOptions(reasoning="medium", thinking_budgets=ThinkingBudgets(medium=4000))
    body = await sent_body(server, gemini_model(server, "gemini-2.5-pro"), user_context(), options, simple=True)
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingBudget": 4000}


async def test_simple_without_level_sends_no_thinking_and_the_models_output_limit(server: ScriptedServer) -> None:
    model = gemini_model(server)
    body = await sent_body(server, model, user_context(), StreamOptions(), simple=True)
    assert body["generationConfig"] == {"maxOutputTokens": model.max_tokens}


async def test_simple_thinking_level_follows_the_models_map(server: ScriptedServer) -> None:
    mapped = gemini_model(server, "gemini-4-argon").model_copy(
        update={"thinking_level_map": {"off": None, "minimal": None, "low": "low", "xhigh": None, "max": None}}
    )
    body = await sent_body(server, mapped, user_context(), StreamOptions(reasoning="off"), simple=True)
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingLevel": "LOW"}
    body = await sent_body(server, mapped, user_context(), StreamOptions(reasoning="max"), simple=True)
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingLevel": "HIGH"}


async def test_thinking_is_not_requested_from_a_model_without_reasoning(server: ScriptedServer) -> None:
    model = gemini_model(server, "gemini-2.0-flash", reasoning=False)
    body = await sent_body(server, model, user_context(), StreamOptions(reasoning="high"), simple=True)
    assert "thinkingConfig" not in body["generationConfig"]


async def test_raw_thinking_option(server: ScriptedServer) -> None:
    model = gemini_model(server)
    budget = StreamOptions(extra={"thinking": {"enabled": True, "budget_tokens": 0}})
    body = await sent_body(server, model, user_context(), budget)
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingBudget": 0}
    level = StreamOptions(extra={"thinking": {"enabled": True, "level": "high", "budget_tokens": 99}})
    body = await sent_body(server, gemini_model(server, "gemini-3-pro-preview"), user_context(), level)
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingLevel": "HIGH"}
    off = StreamOptions(extra={"thinking": {"enabled": False, "budget_tokens": 1024}})
    body = await sent_body(server, model, user_context(), off)
    assert "generationConfig" not in body


async def test_on_payload_replaces_the_body(server: ScriptedServer) -> None:
    seen: list[dict[str, Any]] = []

    async def swap(body: dict[str, Any], model: Model) -> dict[str, Any]:
        seen.append(body)
        return {**body, "cachedContent": "cachedContents/abc"}

    body = await sent_body(server, gemini_model(server), user_context(), StreamOptions(on_payload=swap))
    assert body["cachedContent"] == "cachedContents/abc"
    assert seen[0]["contents"] == body["contents"]


# --- replaying a conversation ---------------------------------------------------------------------


def replay_context(model: Model, reply: AssistantMessage, *results: ToolResultMessage) -> Context:
    return Context(messages=[UserMessage(content="Go"), reply, *results, UserMessage(content="Next")])


async def test_same_model_replays_thinking_and_valid_signatures(server: ScriptedServer) -> None:
    model = gemini_model(server)
    reply = assistant(
        model,
        ThinkingContent(thinking="Plan", thinking_signature=SIG_A),
        ThinkingContent(thinking="   ", thinking_signature=SIG_B),
        TextContent(text="Done", text_signature="not base64!"),
        TextContent(text=""),
        ToolCall(id="c1", name="read", arguments={"path": "x"}, thought_signature=SIG_B),
    )
    result = ToolResultMessage(tool_call_id="c1", tool_name="read", content=[TextContent(text="data")])
    body = await sent_body(server, model, replay_context(model, reply, result))
    assert body["contents"][1] == {
        "role": "model",
        "parts": [
            {"thought": True, "text": "Plan", "thoughtSignature": SIG_A},
            {"text": "Done"},
            {"functionCall": {"name": "read", "args": {"path": "x"}}, "thoughtSignature": SIG_B},
        ],
    }


async def test_signature_of_wrong_length_is_dropped(server: ScriptedServer) -> None:
    model = gemini_model(server)
    reply = assistant(model, TextContent(text="Hi", text_signature="abcde"))
    body = await sent_body(server, model, replay_context(model, reply))
    assert body["contents"][1]["parts"] == [{"text": "Hi"}]


async def test_other_model_thinking_is_dropped_and_signatures_too(server: ScriptedServer) -> None:
    model = gemini_model(server)
    reply = assistant(
        model,
        ThinkingContent(thinking="Plan", thinking_signature=SIG_A),
        TextContent(text="Done", text_signature=SIG_A),
        ToolCall(id="c1", name="read", arguments={}, thought_signature=SIG_B),
        model_id="gemini-2.5-pro",
    )
    result = ToolResultMessage(tool_call_id="c1", tool_name="read", content=[TextContent(text="data")])
    body = await sent_body(server, model, replay_context(model, reply, result))
    assert body["contents"][1] == {
        "role": "model",
        "parts": [{"text": "Done"}, {"functionCall": {"name": "read", "args": {}}}],
    }


async def test_gemini3_unsigned_calls_get_the_sentinel(server: ScriptedServer) -> None:
    model = gemini_model(server, "gemini-3-pro-preview")
    signed = ToolCall(id="c1", name="read", arguments={"path": "a"}, thought_signature=SIG_A)
    from_other = assistant(model, signed, provider="anthropic", model_id="claude-sonnet-4-5")
    own = assistant(model, ToolCall(id="c2", name="read", arguments={"path": "b"}, thought_signature=SIG_B))
    results = [
        ToolResultMessage(tool_call_id="c1", tool_name="read", content=[TextContent(text="A")]),
    ]
    own_result = ToolResultMessage(tool_call_id="c2", tool_name="read", content=[TextContent(text="B")])
    messages: list[Message] = [UserMessage(content="Go"), from_other, *results, own, own_result]
    body = await sent_body(server, model, Context(messages=messages))
    model_turns = [c for c in body["contents"] if c["role"] == "model"]
    assert model_turns[0]["parts"][0]["thoughtSignature"] == SKIP_THOUGHT_SIGNATURE
    assert model_turns[1]["parts"][0]["thoughtSignature"] == SIG_B


async def test_older_models_get_no_sentinel(server: ScriptedServer) -> None:
    model = gemini_model(server)
    reply = assistant(model, ToolCall(id="c1", name="read", arguments={}), model_id="gemini-2.0-flash")
    result = ToolResultMessage(tool_call_id="c1", tool_name="read", content=[TextContent(text="A")])
    body = await sent_body(server, model, replay_context(model, reply, result))
    assert body["contents"][1]["parts"] == [{"functionCall": {"name": "read", "args": {}}}]


async def test_tool_results_merge_into_one_user_turn(server: ScriptedServer) -> None:
    model = gemini_model(server)
    reply = assistant(
        model,
        ToolCall(id="c1", name="read", arguments={"path": "a"}),
        ToolCall(id="c2", name="bash", arguments={"command": "false"}),
    )
    results = [
        ToolResultMessage(
            tool_call_id="c1", tool_name="read", content=[TextContent(text="line 1"), TextContent(text="line 2")]
        ),
        ToolResultMessage(tool_call_id="c2", tool_name="bash", content=[TextContent(text="exit 1")], is_error=True),
    ]
    body = await sent_body(server, model, replay_context(model, reply, *results))
    assert body["contents"][2] == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "read", "response": {"output": "line 1\nline 2"}}},
            {"functionResponse": {"name": "bash", "response": {"error": "exit 1"}}},
        ],
    }
    assert body["contents"][3] == {"role": "user", "parts": [{"text": "Next"}]}


async def test_unanswered_call_gets_an_error_result(server: ScriptedServer) -> None:
    model = gemini_model(server)
    reply = assistant(model, ToolCall(id="c1", name="read", arguments={}))
    body = await sent_body(server, model, replay_context(model, reply))
    assert body["contents"][2]["parts"] == [
        {"functionResponse": {"name": "read", "response": {"error": "No result provided"}}}
    ]


async def test_tool_result_images_nest_in_the_response_on_gemini3(server: ScriptedServer) -> None:
    model = gemini_model(server, "gemini-3-flash-preview")
    reply = assistant(model, ToolCall(id="c1", name="read", arguments={"path": "a.png"}))
    result = ToolResultMessage(
        tool_call_id="c1", tool_name="read", content=[ImageContent(data=PNG, mime_type="image/png")]
    )
    body = await sent_body(server, model, replay_context(model, reply, result))
    assert body["contents"][2] == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "name": "read",
                    "response": {"output": "(see attached image)"},
                    "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG}}],
                }
            }
        ],
    }


async def test_tool_result_images_follow_as_a_user_turn_before_gemini3(server: ScriptedServer) -> None:
    model = gemini_model(server, "gemini-2.5-flash")
    reply = assistant(model, ToolCall(id="c1", name="read", arguments={}), ToolCall(id="c2", name="read", arguments={}))
    results = [
        ToolResultMessage(
            tool_call_id="c1",
            tool_name="read",
            content=[TextContent(text="Read image"), ImageContent(data=PNG, mime_type="image/png")],
        ),
        ToolResultMessage(tool_call_id="c2", tool_name="read", content=[TextContent(text="plain")]),
    ]
    body = await sent_body(server, model, replay_context(model, reply, *results))
    # Gemini wants every response to a turn's calls in the one turn right after it; the images
    # follow the whole run of results.
    assert body["contents"][2:] == [
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "read", "response": {"output": "Read image"}}},
                {"functionResponse": {"name": "read", "response": {"output": "plain"}}},
            ],
        },
        {
            "role": "user",
            "parts": [{"text": "Tool result image:"}, {"inlineData": {"mimeType": "image/png", "data": PNG}}],
        },
        {"role": "user", "parts": [{"text": "Next"}]},
    ]


async def test_images_of_several_tool_results_follow_all_the_responses(server: ScriptedServer) -> None:
    model = gemini_model(server, "gemini-2.5-flash")
    reply = assistant(model, ToolCall(id="c1", name="read", arguments={}), ToolCall(id="c2", name="read", arguments={}))
    results = [
        ToolResultMessage(
            tool_call_id=call_id, tool_name="read", content=[ImageContent(data=data, mime_type="image/png")]
        )
        for call_id, data in (("c1", PNG), ("c2", "R0lGODlh"))
    ]
    context = Context(messages=[UserMessage(content="Go"), reply, *results, UserMessage(content="Compare them")])
    body = await sent_body(server, model, context)
    image = "(see attached image)"
    assert body["contents"][2:] == [
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "read", "response": {"output": image}}},
                {"functionResponse": {"name": "read", "response": {"output": image}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"text": "Tool result image:"},
                {"inlineData": {"mimeType": "image/png", "data": PNG}},
                {"inlineData": {"mimeType": "image/png", "data": "R0lGODlh"}},
            ],
        },
        {"role": "user", "parts": [{"text": "Compare them"}]},
    ]


async def test_images_for_a_text_only_model_become_placeholders(server: ScriptedServer) -> None:
    model = gemini_model(server, input=["text"])
    context = Context(
        messages=[UserMessage(content=[TextContent(text="Look"), ImageContent(data=PNG, mime_type="image/png")])]
    )
    body = await sent_body(server, model, context)
    parts = body["contents"][0]["parts"]
    assert parts[0] == {"text": "Look"}
    assert all("inlineData" not in part for part in parts)


async def test_user_images_are_inline_data(server: ScriptedServer) -> None:
    model = gemini_model(server)
    context = Context(
        messages=[UserMessage(content=[TextContent(text="Look"), ImageContent(data=PNG, mime_type="image/png")])]
    )
    body = await sent_body(server, model, context)
    assert body["contents"][0]["parts"] == [{"text": "Look"}, {"inlineData": {"mimeType": "image/png", "data": PNG}}]


async def test_claude_models_get_sanitized_call_ids(server: ScriptedServer) -> None:
    model = gemini_model(server, "claude-sonnet-4-5")
    reply = assistant(
        model, ToolCall(id="call|abc.def", name="read", arguments={}), provider="openai", model_id="gpt-5"
    )
    result = ToolResultMessage(tool_call_id="call|abc.def", tool_name="read", content=[TextContent(text="A")])
    body = await sent_body(server, model, replay_context(model, reply, result))
    assert body["contents"][1]["parts"] == [{"functionCall": {"name": "read", "args": {}, "id": "call_abc_def"}}]
    assert body["contents"][2]["parts"][0]["functionResponse"]["id"] == "call_abc_def"


async def test_gemini_models_send_no_call_ids(server: ScriptedServer) -> None:
    model = gemini_model(server)
    reply = assistant(model, ToolCall(id="call|abc", name="read", arguments={}))
    result = ToolResultMessage(tool_call_id="call|abc", tool_name="read", content=[TextContent(text="A")])
    body = await sent_body(server, model, replay_context(model, reply, result))
    assert "id" not in body["contents"][1]["parts"][0]["functionCall"]
    assert "id" not in body["contents"][2]["parts"][0]["functionResponse"]


async def test_errored_turns_are_not_replayed(server: ScriptedServer) -> None:
    model = gemini_model(server)
    failed = assistant(model, TextContent(text="half"))
    failed.stop_reason = "error"
    failed.error_message = "boom"
    body = await sent_body(server, model, replay_context(model, failed))
    assert [c["role"] for c in body["contents"]] == ["user", "user"]


async def test_lone_surrogates_are_removed(server: ScriptedServer) -> None:
    model = gemini_model(server)
    reply = assistant(model, ToolCall(id="c1", name="write", arguments={"content": "a\ud83db"}))
    result = ToolResultMessage(tool_call_id="c1", tool_name="write", content=[TextContent(text="ok\udc00")])
    context = Context(
        system_prompt="sys\ud800",
        messages=[UserMessage(content="emoji 😀 and \ud83d broken"), reply, result],
    )
    body = await sent_body(server, model, context)
    assert body["systemInstruction"]["parts"][0]["text"] == "sys"
    assert body["contents"][0]["parts"][0]["text"] == "emoji 😀 and  broken"
    assert body["contents"][1]["parts"][0]["functionCall"]["args"] == {"content": "ab"}
    assert body["contents"][2]["parts"][0]["functionResponse"]["response"] == {"output": "ok"}


# --- registration ---------------------------------------------------------------------------------


async def test_registry_finds_the_provider() -> None:
    assert get_api_provider("google-generative-ai") is PROVIDER
    assert PROVIDER.api == "google-generative-ai"


async def test_stream_ending_without_finish_reason_is_incomplete(server: ScriptedServer) -> None:
    # Gemini's last chunk always names a finishReason; without one the reply was cut short.
    server.queue(ok(chunk({"text": "Half"}), chunk({"functionCall": {"name": "write", "args": {"path": "a"}}})))
    events, message = await collect(gemini_model(server), user_context())
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert message.content[0] == TextContent(text="Half")
    assert message.error_message is not None
    assert message.error_message.startswith("Google stream ended without a finish reason: ")
    assert "closed before a finishReason" in message.error_message
    assert is_retryable_assistant_error(message)


async def test_reply_records_response_id_raw_finish_reason_and_thinking_tokens(server: ScriptedServer) -> None:
    usage = {**USAGE, "thoughtsTokenCount": 6, "totalTokenCount": 20}
    server.queue(ok(chunk({"text": "a"}, responseId="resp-g1"), chunk({"text": "b"}, finish="MAX_TOKENS", usage=usage)))
    _, message = await collect(gemini_model(server), user_context())
    assert message.stop_reason == "length", message.error_message
    assert (message.response_id, message.raw_stop_reason) == ("resp-g1", "MAX_TOKENS")
    assert (message.usage.output, message.usage.reasoning) == (10, 6)  # thoughts are part of the output
    wire = message.model_dump(by_alias=True, exclude_none=True)
    assert (wire["responseId"], wire["rawStopReason"], wire["usage"]["reasoning"]) == ("resp-g1", "MAX_TOKENS", 6)


async def test_replies_read_to_the_end_reuse_one_connection(keep_alive_server: ScriptedServer) -> None:
    for _ in range(3):
        keep_alive_server.queue(hello())
        _, message = await collect(gemini_model(keep_alive_server), user_context())
        assert message.stop_reason == "stop", message.error_message
    assert len(keep_alive_server.requests) == 3
    assert keep_alive_server.connections == 1
