"""The anthropic-messages provider against a loopback server speaking Anthropic's streaming protocol."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from pi.ai.abort import AbortController
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.events import AssistantMessageEvent, DoneEvent, ErrorEvent
from pi.ai.json_parse import parse_streaming_json
from pi.ai.options import StreamOptions
from pi.ai.providers.anthropic_messages import (
    CLAUDE_CODE_IDENTITY,
    PROVIDER,
    stream_anthropic,
    stream_simple_anthropic,
)
from pi.ai.retry_classifier import is_retryable_assistant_error
from pi.ai.stream import stream as pi_stream
from pi.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    ModelCompat,
    ModelCost,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.ai.providers.snapshots import arguments_at_each_delta
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response, named_sse

API_KEY = "sk-ant-api03-test-key"
OAUTH_KEY = "sk-ant-oat01-test-token"

# --- fixtures and helpers -------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PI_CACHE_RETENTION", "ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def make_model(server: ScriptedServer, **overrides: Any) -> Model:
    fields: dict[str, Any] = {
        "id": "claude-sonnet-4-5",
        "name": "Claude Sonnet 4.5",
        "api": "anthropic-messages",
        "provider": "anthropic",
        "base_url": server.url,
        "reasoning": True,
        "input": ["text", "image"],
        "cost": ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
        "context_window": 200_000,
        "max_tokens": 64_000,
    }
    fields.update(overrides)
    return Model(**fields)


def options(**overrides: Any) -> StreamOptions:
    extra = overrides.pop("extra", {})
    overrides.setdefault("api_key", API_KEY)
    opts = StreamOptions(**overrides)
    opts.extra.update(extra)
    return opts


def ctx(*messages: Message, system: str | None = "Be brief.", tools: list[Tool] | None = None) -> Context:
    return Context(system_prompt=system, messages=list(messages) or [UserMessage(content="Hello")], tools=tools)


def message_start(input_tokens: int = 10, cache_read: int = 0, cache_write: int = 0) -> tuple[str, Any]:
    return (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_01",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": input_tokens,
                    "cache_creation_input_tokens": cache_write,
                    "cache_read_input_tokens": cache_read,
                    "output_tokens": 1,
                },
            },
        },
    )


def block_start(index: int, block: dict[str, Any]) -> tuple[str, Any]:
    return ("content_block_start", {"type": "content_block_start", "index": index, "content_block": block})


def delta(index: int, body: dict[str, Any]) -> tuple[str, Any]:
    return ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": body})


def text_delta(index: int, text: str) -> tuple[str, Any]:
    return delta(index, {"type": "text_delta", "text": text})


def json_delta(index: int, fragment: str) -> tuple[str, Any]:
    return delta(index, {"type": "input_json_delta", "partial_json": fragment})


def block_stop(index: int) -> tuple[str, Any]:
    return ("content_block_stop", {"type": "content_block_stop", "index": index})


def message_delta(stop_reason: str, output_tokens: int = 5, **usage: int) -> tuple[str, Any]:
    return (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens, **usage},
        },
    )


PING = ("ping", {"type": "ping"})
MESSAGE_STOP = ("message_stop", {"type": "message_stop"})


def text_reply(*pieces: str, stop_reason: str = "end_turn") -> list[bytes]:
    frames = [message_start(), block_start(0, {"type": "text", "text": ""})]
    frames += [text_delta(0, piece) for piece in pieces]
    frames += [block_stop(0), message_delta(stop_reason), MESSAGE_STOP]
    return named_sse(*frames)


def ok(chunks: list[bytes], **kw: Any) -> ScriptedResponse:
    return ScriptedResponse(chunks=chunks, **kw)


def assert_grammar(events: list[AssistantMessageEvent]) -> AssistantMessage:
    """start first, one terminal last, blocks nested properly, indices and end contents consistent."""
    assert events[0].type == "start"
    terminals = [e for e in events if isinstance(e, DoneEvent | ErrorEvent)]
    assert len(terminals) == 1 and events[-1] is terminals[0]
    final = terminals[0].message if isinstance(terminals[0], DoneEvent) else terminals[0].error
    kinds = {"text": "text", "thinking": "thinking", "toolcall": "toolCall"}
    open_index: int | None = None
    deltas = ""
    for event in events[1:-1]:
        prefix, _, phase = event.type.rpartition("_")
        index = getattr(event, "content_index", None)
        assert index is not None, event.type
        assert final.content[index].type == kinds[prefix]
        if phase == "start":
            assert open_index is None, "a block started while another was open"
            open_index, deltas = index, ""
        elif phase == "delta":
            assert index == open_index
            deltas += event.delta  # type: ignore[union-attr]
        else:
            assert index == open_index
            if prefix in ("text", "thinking"):
                assert event.content == deltas  # type: ignore[union-attr]
            else:
                call = event.tool_call  # type: ignore[union-attr]
                assert call is final.content[index]
                if deltas.strip():
                    assert call.arguments == parse_streaming_json(deltas)
            open_index = None
    return final


async def run(stream: AssistantMessageEventStream) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
    events = [event async for event in stream]
    final = assert_grammar(events)
    assert await stream.result() is final
    return events, final


async def complete(
    server: ScriptedServer, context: Context | None = None, model: Model | None = None, **opts: Any
) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
    return await run(stream_anthropic(model or make_model(server), context or ctx(), options(**opts)))


async def sent_body(server: ScriptedServer, context: Context, model: Model | None = None, **opts: Any) -> Any:
    server.queue(ok(text_reply("ok")))
    _, final = await complete(server, context, model, **opts)
    assert final.stop_reason == "stop", final.error_message
    return server.requests[-1].json()


async def sent_simple(server: ScriptedServer, model: Model, **opts: Any) -> Any:
    server.queue(ok(text_reply("ok")))
    _, final = await run(stream_simple_anthropic(model, ctx(), options(**opts)))
    assert final.stop_reason == "stop", final.error_message
    return server.requests[-1]


# --- streaming replies ----------------------------------------------------------------------------


async def test_text_reply_streams_deltas_and_ends_with_done(server: ScriptedServer) -> None:
    server.queue(ok(text_reply("Hel", "lo ", "world")))
    events, final = await run(pi_stream(make_model(server), ctx(), api_key=API_KEY))
    assert [e.type for e in events] == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    assert final.content == [TextContent(text="Hello world")]
    assert (final.api, final.provider, final.model) == ("anthropic-messages", "anthropic", "claude-sonnet-4-5")
    request = server.requests[0]
    assert request.method == "POST" and request.path == "/v1/messages"
    assert request.json()["stream"] is True
    assert PROVIDER.api == "anthropic-messages"


async def test_thinking_block_collects_its_signature_then_text(server: ScriptedServer) -> None:
    frames = [
        message_start(),
        block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        delta(0, {"type": "thinking_delta", "thinking": "Let me "}),
        delta(0, {"type": "thinking_delta", "thinking": "think."}),
        delta(0, {"type": "signature_delta", "signature": "EqQBCkYIBx"}),
        delta(0, {"type": "signature_delta", "signature": "gCKkAsig=="}),
        block_stop(0),
        block_start(1, {"type": "text", "text": ""}),
        text_delta(1, "Answer."),
        block_stop(1),
        message_delta("end_turn"),
        MESSAGE_STOP,
    ]
    server.queue(ok(named_sse(*frames)))
    events, final = await complete(server)
    assert final.content == [
        ThinkingContent(thinking="Let me think.", thinking_signature="EqQBCkYIBxgCKkAsig=="),
        TextContent(text="Answer."),
    ]
    assert [e.type for e in events if e.type.startswith("thinking")] == [
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
    ]


async def test_redacted_thinking_keeps_its_opaque_data(server: ScriptedServer) -> None:
    frames = [
        message_start(),
        block_start(0, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}),
        block_stop(0),
        block_start(1, {"type": "text", "text": ""}),
        text_delta(1, "Done."),
        block_stop(1),
        message_delta("end_turn"),
        MESSAGE_STOP,
    ]
    server.queue(ok(named_sse(*frames)))
    _, final = await complete(server)
    thinking = final.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert thinking.redacted is True
    assert thinking.thinking_signature == "EmwKAhgBEgy3va3pzix"
    assert thinking.thinking == "[Reasoning redacted]"


def tool_use(index: int, call_id: str, name: str, fragments: list[str]) -> list[tuple[str, Any]]:
    frames = [block_start(index, {"type": "tool_use", "id": call_id, "name": name, "input": {}})]
    frames += [json_delta(index, fragment) for fragment in fragments]
    frames.append(block_stop(index))
    return frames


async def test_tool_call_arguments_stream_in_fragments(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    fragments = ["", '{"path": "src/', 'main.py", "lim', 'it": 20}']
    frames = [
        message_start(),
        *tool_use(0, "toolu_01", "read", fragments),
        message_delta("tool_use"),
        MESSAGE_STOP,
    ]
    server.queue(ok(named_sse(*frames)))
    partials = arguments_at_each_delta(monkeypatch)
    stream = stream_anthropic(make_model(server), ctx(), options())
    events = [event async for event in stream]
    final = assert_grammar(events)
    assert final.stop_reason == "toolUse"
    assert [e.delta for e in events if e.type == "toolcall_delta"] == fragments
    assert partials == [{}, {"path": "src/"}, {"path": "src/main.py"}, {"path": "src/main.py", "limit": 20}]
    call = final.content[0]
    assert isinstance(call, ToolCall)
    assert call.arguments == {"path": "src/main.py", "limit": 20}
    assert call.to_json_dict() == {
        "type": "toolCall",
        "id": "toolu_01",
        "name": "read",
        "arguments": {"path": "src/main.py", "limit": 20},
    }


async def test_two_tool_calls_after_text(server: ScriptedServer) -> None:
    frames = [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "Reading both."),
        block_stop(0),
        *tool_use(1, "toolu_a", "read", ['{"pa', 'th": "a.txt"}']),
        *tool_use(2, "toolu_b", "bash", ['{"command":', ' "ls -la"', "}"]),
        message_delta("tool_use"),
        MESSAGE_STOP,
    ]
    server.queue(ok(named_sse(*frames)))
    events, final = await complete(server)
    calls = [block for block in final.content if isinstance(block, ToolCall)]
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("toolu_a", "read", {"path": "a.txt"}),
        ("toolu_b", "bash", {"command": "ls -la"}),
    ]
    assert [e.content_index for e in events if e.type == "toolcall_end"] == [1, 2]
    assert all(set(c.to_json_dict()) == {"type", "id", "name", "arguments"} for c in calls)


async def test_tool_call_with_full_input_at_start_and_no_deltas_keeps_it(server: ScriptedServer) -> None:
    frames = [
        message_start(),
        block_start(0, {"type": "tool_use", "id": "call_0", "name": "bash", "input": {"command": "pwd"}}),
        block_stop(0),
        message_delta("tool_use"),
        MESSAGE_STOP,
    ]
    server.queue(ok(named_sse(*frames)))
    _, final = await complete(server)
    assert final.content == [ToolCall(id="call_0", name="bash", arguments={"command": "pwd"})]


async def test_usage_totals_and_cost_come_from_the_stream_and_the_model(server: ScriptedServer) -> None:
    frames = [
        message_start(input_tokens=100, cache_read=2000, cache_write=500),
        PING,
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "Hi"),
        block_stop(0),
        message_delta("end_turn", output_tokens=40, cache_read_input_tokens=2100),
        MESSAGE_STOP,
    ]
    server.queue(ok(named_sse(*frames)))
    _, final = await complete(server)
    usage = final.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (100, 40, 2100, 500)
    assert usage.total_tokens == 100 + 40 + 2100 + 500
    assert usage.cost.input == pytest.approx(3.0 * 100 / 1e6)
    assert usage.cost.output == pytest.approx(15.0 * 40 / 1e6)
    assert usage.cost.cache_read == pytest.approx(0.3 * 2100 / 1e6)
    assert usage.cost.cache_write == pytest.approx(3.75 * 500 / 1e6)
    assert usage.cost.total == pytest.approx(
        usage.cost.input + usage.cost.output + usage.cost.cache_read + usage.cost.cache_write
    )


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ("end_turn", "stop"),
        ("pause_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "toolUse"),
    ],
)
async def test_stop_reasons_that_finish_normally(server: ScriptedServer, wire: str, expected: str) -> None:
    server.queue(ok(text_reply("x", stop_reason=wire)))
    events, final = await complete(server)
    assert isinstance(events[-1], DoneEvent)
    assert events[-1].reason == expected == final.stop_reason
    assert final.error_message is None


@pytest.mark.parametrize("wire", ["refusal", "sensitive"])
async def test_refusal_stop_reasons_end_in_error(server: ScriptedServer, wire: str) -> None:
    server.queue(ok(text_reply("partial", stop_reason=wire)))
    events, final = await complete(server)
    assert isinstance(events[-1], ErrorEvent) and events[-1].reason == "error"
    assert final.stop_reason == "error"
    assert final.error_message is not None
    assert final.error_message.startswith("An unknown error occurred")
    assert wire in final.error_message
    assert final.content == [TextContent(text="partial")]


async def test_unknown_stop_reason_is_an_error(server: ScriptedServer) -> None:
    server.queue(ok(text_reply("x", stop_reason="model_context_window_exceeded_v9")))
    _, final = await complete(server)
    assert final.stop_reason == "error"
    assert final.error_message == "Unhandled stop reason: model_context_window_exceeded_v9"


async def test_error_event_in_the_stream_becomes_the_error_message(server: ScriptedServer) -> None:
    frames = [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "So far"),
        ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ]
    server.queue(ok(named_sse(*frames)))
    _, final = await complete(server)
    assert final.stop_reason == "error"
    assert final.error_message == "overloaded_error: Overloaded"
    assert final.content == [TextContent(text="So far")]


async def test_stream_that_ends_without_a_stop_reason_is_an_error(server: ScriptedServer) -> None:
    frames = [message_start(), block_start(0, {"type": "text", "text": ""}), text_delta(0, "cut")]
    server.queue(ok(named_sse(*frames)))
    _, final = await complete(server)
    assert final.stop_reason == "error"
    assert final.error_message is not None and "closed before message_stop" in final.error_message
    assert final.content == [TextContent(text="cut")]
    assert is_retryable_assistant_error(final)


async def test_a_stop_reason_without_message_stop_is_still_incomplete(server: ScriptedServer) -> None:
    frames = [message_start(), block_start(0, {"type": "text", "text": ""}), text_delta(0, "all"), block_stop(0)]
    server.queue(ok(named_sse(*frames, message_delta("end_turn"))))
    _, final = await complete(server)
    assert final.stop_reason == "error"
    assert final.error_message is not None
    assert final.error_message.startswith("Anthropic stream ended before message_stop: ")
    assert is_retryable_assistant_error(final)


async def test_reply_records_message_id_raw_stop_reason_and_usage_breakdown(server: ScriptedServer) -> None:
    start = message_start(input_tokens=20, cache_write=50)
    start[1]["message"]["usage"]["cache_creation"] = {"ephemeral_5m_input_tokens": 10, "ephemeral_1h_input_tokens": 40}
    end = message_delta("max_tokens", output_tokens=30)
    end[1]["usage"]["output_tokens_details"] = {"thinking_tokens": 12}
    frames = [start, block_start(0, {"type": "text", "text": ""}), text_delta(0, "long"), block_stop(0), end]
    server.queue(ok(named_sse(*frames, MESSAGE_STOP)))
    _, final = await complete(server)
    assert final.stop_reason == "length", final.error_message
    assert (final.response_id, final.raw_stop_reason, final.response_model) == ("msg_01", "max_tokens", None)
    assert (final.usage.cache_write, final.usage.cache_write_1h, final.usage.reasoning) == (50, 40, 12)
    wire = final.model_dump(by_alias=True, exclude_none=True)
    assert (wire["responseId"], wire["rawStopReason"]) == ("msg_01", "max_tokens")
    assert (wire["usage"]["cacheWrite1h"], wire["usage"]["reasoning"]) == (40, 12)


async def test_a_fallback_model_answering_is_recorded(server: ScriptedServer) -> None:
    start = message_start()
    start[1]["message"]["model"] = "claude-haiku-4-5"
    frames = [start, block_start(0, {"type": "text", "text": ""}), text_delta(0, "hi"), block_stop(0)]
    server.queue(ok(named_sse(*frames, message_delta("end_turn"), MESSAGE_STOP)))
    _, final = await complete(server)
    assert final.response_model == "claude-haiku-4-5"
    assert final.usage.cache_write_1h == 0  # message_start always names it, as pi's does
    assert final.usage.reasoning is None  # not broken out by this server


# --- HTTP failures, retries, broken streams, abort ------------------------------------------------


async def test_prompt_too_long_400_keeps_status_and_body_after_start(server: ScriptedServer) -> None:
    body = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"},
    }
    server.queue(json_response(400, body))
    events, final = await complete(server)
    assert [e.type for e in events] == ["start", "error"]
    assert final.stop_reason == "error"
    assert final.error_message is not None
    assert final.error_message.startswith("400 ")
    assert "prompt is too long" in final.error_message
    assert len(server.requests) == 1


async def test_401_says_what_to_fix(server: ScriptedServer) -> None:
    body = {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
    server.queue(json_response(401, body))
    _, final = await complete(server)
    assert final.error_message is not None
    assert final.error_message.startswith("401 ")
    assert "invalid x-api-key" in final.error_message
    assert "check the API key" in final.error_message
    assert len(server.requests) == 1


async def test_401_with_subscription_token_says_to_log_in_again(server: ScriptedServer) -> None:
    server.queue(json_response(401, {"type": "error", "error": {"type": "authentication_error", "message": "expired"}}))
    _, final = await complete(server, api_key=OAUTH_KEY)
    assert final.error_message is not None
    assert final.error_message.startswith("401 ")
    assert "/login" in final.error_message


async def test_429_waits_for_retry_after_then_succeeds(server: ScriptedServer) -> None:
    server.queue(
        json_response(429, {"type": "error", "error": {"type": "rate_limit_error"}}, headers={"retry-after": "0.2"}),
        ok(text_reply("after wait")),
    )
    started = time.monotonic()
    _, final = await complete(server)
    assert time.monotonic() - started >= 0.2
    assert final.content == [TextContent(text="after wait")]
    assert len(server.requests) == 2


async def test_500_and_529_are_retried(server: ScriptedServer) -> None:
    server.queue(
        json_response(500, {"type": "error", "error": {"type": "api_error"}}, headers={"retry-after": "0"}),
        json_response(529, {"type": "error", "error": {"type": "overloaded_error"}}, headers={"retry-after": "0"}),
        ok(text_reply("third time")),
    )
    _, final = await complete(server)
    assert final.stop_reason == "stop"
    assert final.content == [TextContent(text="third time")]
    assert len(server.requests) == 3


async def test_529_after_retries_are_exhausted_is_an_error(server: ScriptedServer) -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.queue(json_response(529, overloaded, headers={"retry-after": "0"}))
    _, final = await complete(server, max_retries=0)
    assert final.error_message is not None and final.error_message.startswith("529 ")
    assert "Overloaded" in final.error_message


async def test_connection_dropped_mid_stream_keeps_partial_content(server: ScriptedServer) -> None:
    chunks = text_reply("first ", "second ", "never")
    server.queue(ok(chunks, drop_after=4))
    events, final = await complete(server)
    assert isinstance(events[-1], ErrorEvent)
    assert final.stop_reason == "error"
    assert final.error_message is not None and final.error_message.startswith("Connection lost while streaming")
    assert final.content == [TextContent(text="first second ")]
    assert is_retryable_assistant_error(final)


async def test_malformed_frame_is_an_error(server: ScriptedServer) -> None:
    chunks = [*named_sse(message_start()), b"event: content_block_start\ndata: {not json\n\n"]
    server.queue(ok(chunks))
    _, final = await complete(server)
    assert final.stop_reason == "error"
    assert final.error_message is not None and "Malformed stream frame" in final.error_message


async def test_missing_api_key_is_an_error_event(server: ScriptedServer) -> None:
    opts = options()
    opts.api_key = None
    _, final = await run(stream_anthropic(make_model(server), ctx(), opts))
    assert final.error_message is not None and final.error_message.startswith("No API key for provider: anthropic")
    assert server.requests == []


async def test_abort_during_a_slow_stream_ends_at_once(server: ScriptedServer) -> None:
    frames = [message_start(), block_start(0, {"type": "text", "text": ""}), text_delta(0, "streaming")]
    server.queue(ok(named_sse(*frames), hold_open=30.0))
    controller = AbortController()
    stream = stream_anthropic(make_model(server), ctx(), options(signal=controller.signal))
    events: list[AssistantMessageEvent] = []
    aborted_at = 0.0
    async for event in stream:
        events.append(event)
        if event.type == "text_delta":
            aborted_at = time.monotonic()
            controller.abort()
    assert time.monotonic() - aborted_at < 10.0  # the server would keep the stream open for 30 s
    final = assert_grammar(events)
    assert isinstance(events[-1], ErrorEvent) and events[-1].reason == "aborted"
    assert final.stop_reason == "aborted"
    assert final.error_message == "Request was aborted"
    assert final.content == [TextContent(text="streaming")]


# --- the request ----------------------------------------------------------------------------------


async def test_headers_defaults_then_model_then_options(server: ScriptedServer) -> None:
    model = make_model(server, headers={"X-Model": "m", "X-Both": "model"})
    await sent_body(server, ctx(), model, headers={"x-both": "options", "X-Opt": "o"})
    headers = server.requests[-1].headers
    assert headers["x-api-key"] == API_KEY
    assert "authorization" not in headers
    assert headers["anthropic-version"] == "2023-06-01"
    assert headers["anthropic-dangerous-direct-browser-access"] == "true"
    assert headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    assert (headers["x-model"], headers["x-both"], headers["x-opt"]) == ("m", "options", "o")


async def test_headers_from_options_replace_defaults(server: ScriptedServer) -> None:
    await sent_body(server, ctx(), headers={"anthropic-beta": "custom-beta"})
    assert server.requests[-1].headers["anthropic-beta"] == "custom-beta"


async def test_interleaved_beta_can_be_turned_off(server: ScriptedServer) -> None:
    await sent_body(server, ctx(), extra={"interleaved_thinking": False})
    assert "anthropic-beta" not in server.requests[-1].headers


async def test_fine_grained_streaming_beta_only_without_eager_tool_input(server: ScriptedServer) -> None:
    tool = Tool(name="read", description="Read a file.")
    eager = await sent_body(server, ctx(tools=[tool]))
    assert eager["tools"][0]["eager_input_streaming"] is True
    assert "fine-grained" not in server.requests[-1].headers["anthropic-beta"]
    no_eager = make_model(server, compat=ModelCompat(supports_eager_tool_input_streaming=False))
    body = await sent_body(server, ctx(tools=[tool]), no_eager)
    assert "eager_input_streaming" not in body["tools"][0]
    assert "fine-grained-tool-streaming-2025-05-14" in server.requests[-1].headers["anthropic-beta"]


async def test_cache_control_on_the_last_tool_unless_the_host_refuses_it(server: ScriptedServer) -> None:
    tools = [Tool(name="read", description="Read."), Tool(name="ls", description="List.")]
    body = await sent_body(server, ctx(tools=tools))
    assert "cache_control" not in body["tools"][0]
    assert body["tools"][1]["cache_control"] == {"type": "ephemeral"}
    refusing = make_model(server, compat=ModelCompat(supports_cache_control_on_tools=False))
    body = await sent_body(server, ctx(tools=tools), refusing)
    assert all("cache_control" not in tool for tool in body["tools"])


async def test_temperature_is_left_out_where_the_model_refuses_it(server: ScriptedServer) -> None:
    assert (await sent_body(server, ctx(), temperature=0.4))["temperature"] == 0.4
    refusing = make_model(server, compat=ModelCompat(supports_temperature=False))
    assert "temperature" not in await sent_body(server, ctx(), refusing, temperature=0.4)


async def test_system_prompt_and_last_user_block_carry_cache_control(server: ScriptedServer) -> None:
    body = await sent_body(server, ctx(UserMessage(content="What is 2+2?"), system="You are terse."))
    assert body["system"] == [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}]
    assert body["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "What is 2+2?", "cache_control": {"type": "ephemeral"}}],
        }
    ]
    assert body["model"] == "claude-sonnet-4-5"
    assert body["max_tokens"] == 64_000 // 3
    assert "temperature" not in body and "thinking" not in body and "tools" not in body


async def test_long_retention_adds_ttl_only_on_anthropics_own_host(server: ScriptedServer) -> None:
    anthropic_host = make_model(server, base_url=f"{server.url}/api.anthropic.com")
    body = await sent_body(server, ctx(), anthropic_host, cache_retention="long")
    assert server.requests[-1].path == "/api.anthropic.com/v1/messages"
    assert body["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}

    other_host = await sent_body(server, ctx(), cache_retention="long")
    assert other_host["system"][0]["cache_control"] == {"type": "ephemeral"}


async def test_long_retention_from_the_environment(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    body = await sent_body(server, ctx(), make_model(server, base_url=f"{server.url}/api.anthropic.com"))
    assert body["system"][0]["cache_control"]["ttl"] == "1h"


async def test_no_cache_control_when_retention_is_none(server: ScriptedServer) -> None:
    body = await sent_body(server, ctx(), cache_retention="none")
    assert "cache_control" not in json.dumps(body)
    assert body["messages"][-1]["content"] == "Hello"


async def test_tools_are_sent_with_input_schema_and_tool_choice(server: ScriptedServer) -> None:
    tool = Tool(
        name="read",
        description="Read a file.",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    )
    bare = Tool(name="now", description="Current time.", parameters={"type": "object"})
    body = await sent_body(server, ctx(tools=[tool, bare]), extra={"tool_choice": "any"})
    assert body["tools"] == [
        {
            "name": "read",
            "description": "Read a file.",
            "eager_input_streaming": True,
            "input_schema": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
                "additionalProperties": False,
            },
        },
        {
            "name": "now",
            "description": "Current time.",
            "eager_input_streaming": True,
            "input_schema": {"type": "object", "properties": {}, "required": []},
            "cache_control": {"type": "ephemeral"},
        },
    ]
    assert body["tool_choice"] == {"type": "any"}

    named = await sent_body(server, ctx(tools=[tool]), extra={"tool_choice": {"type": "tool", "name": "read"}})
    assert named["tool_choice"] == {"type": "tool", "name": "read"}


@pytest.mark.parametrize(
    ("choice", "wire"),
    [("auto", {"type": "auto"}), ("none", {"type": "none"}), ("required", {"type": "any"})],
)
async def test_string_tool_choices(server: ScriptedServer, choice: str, wire: dict[str, str]) -> None:
    tools = [Tool(name="read", description="Read.")]
    body = await sent_body(server, ctx(tools=tools), extra={"tool_choice": choice})
    assert body["tool_choice"] == wire


async def test_nested_schema_definitions_survive(server: ScriptedServer) -> None:
    schema = {
        "type": "object",
        "properties": {"edit": {"$ref": "#/$defs/Edit"}},
        "required": ["edit"],
        "$defs": {"Edit": {"type": "object", "properties": {"old": {"type": "string"}}}},
    }
    body = await sent_body(server, ctx(tools=[Tool(name="edit", description="Edit.", parameters=schema)]))
    assert body["tools"][0]["input_schema"]["$defs"] == schema["$defs"]


async def test_metadata_user_id_is_passed_through(server: ScriptedServer) -> None:
    body = await sent_body(server, ctx(), metadata={"user_id": "user-42", "other": "dropped"})
    assert body["metadata"] == {"user_id": "user-42"}
    ignored = await sent_body(server, ctx(), metadata={"user_id": 42})
    assert "metadata" not in ignored


async def test_on_payload_may_replace_the_body_asynchronously(server: ScriptedServer) -> None:
    seen: list[dict[str, Any]] = []

    async def swap(body: dict[str, Any], model: Model) -> dict[str, Any]:
        seen.append(body)
        return {**body, "max_tokens": 7, "custom": True}

    body = await sent_body(server, ctx(), on_payload=swap)
    assert seen and seen[0]["max_tokens"] == 64_000 // 3
    assert body["max_tokens"] == 7 and body["custom"] is True


async def test_on_payload_returning_none_keeps_the_body(server: ScriptedServer) -> None:
    def look(body: dict[str, Any], model: Model) -> None:
        body["temperature"] = 0.5

    body = await sent_body(server, ctx(), on_payload=look)
    assert body["temperature"] == 0.5 and body["model"] == "claude-sonnet-4-5"


# --- thinking options -----------------------------------------------------------------------------


async def test_raw_thinking_options_send_a_budget_and_drop_temperature(server: ScriptedServer) -> None:
    body = await sent_body(
        server, ctx(), temperature=0.3, extra={"thinking_enabled": True, "thinking_budget_tokens": 4000}
    )
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 4000}
    assert "temperature" not in body

    default_budget = await sent_body(server, ctx(), extra={"thinking_enabled": True})
    assert default_budget["thinking"] == {"type": "enabled", "budget_tokens": 1024}

    plain = await sent_body(server, ctx(), temperature=0.3)
    assert plain["temperature"] == 0.3 and "thinking" not in plain


async def test_raw_adaptive_thinking_with_effort(server: ScriptedServer) -> None:
    opus = make_model(server, id="claude-opus-4-6")
    body = await sent_body(server, ctx(), opus, extra={"thinking_enabled": True, "effort": "max"})
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": "max"}
    assert "anthropic-beta" not in server.requests[-1].headers


async def test_simple_budget_thinking_adjusts_max_tokens(server: ScriptedServer) -> None:
    request = await sent_simple(server, make_model(server), reasoning="medium", temperature=0.7)
    body = request.json()
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert body["max_tokens"] == 64_000  # the model's limit: the window has room for it
    assert "temperature" not in body
    assert "output_config" not in body
    assert "interleaved-thinking-2025-05-14" in request.headers["anthropic-beta"]


async def test_simple_budget_shrinks_when_the_model_limit_is_small(server: ScriptedServer) -> None:
    small = make_model(server, max_tokens=10_000)
    body = (await sent_simple(server, small, reasoning="high")).json()
    assert body["max_tokens"] == 10_000
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 10_000 - 1024}


@pytest.mark.parametrize(
    ("model_id", "level", "effort"),
    [
        ("claude-opus-4-6", "minimal", "low"),
        ("claude-opus-4-6", "low", "low"),
        ("claude-opus-4-6", "medium", "medium"),
        ("claude-opus-4-6", "high", "high"),
        ("claude-opus-4-6", "xhigh", "high"),
        ("claude-opus-4-6", "max", "high"),
        ("claude-sonnet-4-6", "xhigh", "high"),
        ("claude-sonnet-4-6", "max", "high"),
        ("claude-sonnet-4.6", "medium", "medium"),
    ],
)
async def test_simple_adaptive_thinking_uses_effort(
    server: ScriptedServer, model_id: str, level: str, effort: str
) -> None:
    request = await sent_simple(server, make_model(server, id=model_id), reasoning=level, temperature=0.2)
    body = request.json()
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": effort}
    assert body["max_tokens"] == 64_000
    assert "temperature" not in body
    assert "interleaved-thinking" not in request.headers.get("anthropic-beta", "")


@pytest.mark.parametrize(("level", "effort"), [("off", "low"), ("high", "high"), ("xhigh", "xhigh"), ("max", "max")])
async def test_simple_adaptive_effort_follows_the_thinking_level_map(
    server: ScriptedServer, level: str, effort: str
) -> None:
    mapped = make_model(
        server,
        id="claude-sonnet-5",
        thinking_level_map={"off": None, "xhigh": "xhigh", "max": "max"},
        compat=ModelCompat.model_validate({"forceAdaptiveThinking": True}),
    )
    body = (await sent_simple(server, mapped, reasoning=level)).json()
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": effort}


async def test_simple_without_reasoning_sends_no_thinking(server: ScriptedServer) -> None:
    body = (await sent_simple(server, make_model(server), temperature=0.2)).json()
    assert "thinking" not in body and "output_config" not in body
    assert body["temperature"] == 0.2
    assert body["max_tokens"] == 64_000
    off = (await sent_simple(server, make_model(server), reasoning="off", temperature=0.2)).json()
    assert off == body


async def test_simple_max_on_a_budget_model_takes_the_largest_budget(server: ScriptedServer) -> None:
    body = (await sent_simple(server, make_model(server), reasoning="max")).json()
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 16384}
    assert body["max_tokens"] == make_model(server).max_tokens


async def test_simple_reasoning_on_a_non_reasoning_model_sends_no_thinking(server: ScriptedServer) -> None:
    plain = make_model(server, id="claude-3-5-haiku", reasoning=False, max_tokens=8192)
    body = (await sent_simple(server, plain, reasoning="high", temperature=0.2)).json()
    assert "thinking" not in body
    assert body["temperature"] == 0.2
    assert body["max_tokens"] == 8192


# --- message conversion ---------------------------------------------------------------------------


def assistant(*content: Any, model_id: str = "claude-sonnet-4-5", provider: str = "anthropic") -> AssistantMessage:
    return AssistantMessage(
        content=list(content),
        api="anthropic-messages" if provider == "anthropic" else "openai-responses",
        provider=provider,
        model=model_id,
        stop_reason="toolUse" if any(isinstance(c, ToolCall) for c in content) else "stop",
    )


PNG = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")


async def test_consecutive_tool_results_merge_into_one_user_message(server: ScriptedServer) -> None:
    calls = [
        ToolCall(id="toolu_1", name="read", arguments={"path": "a"}),
        ToolCall(id="toolu_2", name="screenshot", arguments={}),
        ToolCall(id="toolu_3", name="bash", arguments={"command": "false"}),
    ]
    context = ctx(
        UserMessage(content="Go"),
        assistant(*calls),
        ToolResultMessage(
            tool_call_id="toolu_1", tool_name="read", content=[TextContent(text="line 1"), TextContent(text="line 2")]
        ),
        ToolResultMessage(tool_call_id="toolu_2", tool_name="screenshot", content=[PNG]),
        ToolResultMessage(
            tool_call_id="toolu_3", tool_name="bash", content=[TextContent(text="exit 1")], is_error=True
        ),
    )
    body = await sent_body(server, context)
    messages = body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == [
        {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
        {"type": "tool_use", "id": "toolu_2", "name": "screenshot", "input": {}},
        {"type": "tool_use", "id": "toolu_3", "name": "bash", "input": {"command": "false"}},
    ]
    image_block = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "line 1\nline 2", "is_error": False},
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": [{"type": "text", "text": "(see attached image)"}, image_block],
            "is_error": False,
        },
        {
            "type": "tool_result",
            "tool_use_id": "toolu_3",
            "content": "exit 1",
            "is_error": True,
            "cache_control": {"type": "ephemeral"},
        },
    ]


async def test_tool_result_with_text_and_image_keeps_both_as_blocks(server: ScriptedServer) -> None:
    context = ctx(
        UserMessage(content="Look"),
        assistant(ToolCall(id="toolu_1", name="read", arguments={"path": "x.png"})),
        ToolResultMessage(tool_call_id="toolu_1", tool_name="read", content=[TextContent(text="x.png:"), PNG]),
        UserMessage(content="And?"),
    )
    body = await sent_body(server, context)
    result = body["messages"][2]["content"][0]
    assert [block["type"] for block in result["content"]] == ["text", "image"]
    assert "cache_control" not in result
    assert body["messages"][3]["content"][-1]["cache_control"] == {"type": "ephemeral"}


async def test_history_is_cleaned_for_the_wire(server: ScriptedServer) -> None:
    context = ctx(
        UserMessage(content=[TextContent(text="bad \ud83d surrogate"), TextContent(text="   "), PNG]),
        assistant(
            ThinkingContent(thinking="signed thought", thinking_signature="sig=="),
            ThinkingContent(thinking="unsigned thought"),
            ThinkingContent(thinking="", thinking_signature="opaque", redacted=True),
            TextContent(text=""),
            TextContent(text="Visible answer"),
        ),
        UserMessage(content="   "),
        UserMessage(content="Next"),
    )
    body = await sent_body(server, context)
    messages = body["messages"]
    assert messages[0] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "bad  surrogate"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
        ],
    }
    assert messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "signed thought", "signature": "sig=="},
            {"type": "text", "text": "unsigned thought"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": "Visible answer"},
        ],
    }
    assert len(messages) == 3
    assert messages[2]["content"] == [{"type": "text", "text": "Next", "cache_control": {"type": "ephemeral"}}]


async def test_images_are_not_sent_to_a_text_only_model(server: ScriptedServer) -> None:
    text_only = make_model(server, input=["text"])
    body = await sent_body(server, ctx(UserMessage(content=[TextContent(text="See this"), PNG])), text_only)
    assert "image" not in [block["type"] for block in body["messages"][0]["content"]]
    assert body["messages"][0]["content"][0]["text"] == "See this"


async def test_foreign_tool_call_ids_are_normalized(server: ScriptedServer) -> None:
    foreign_id = "call_abc|fc_" + "x" * 80
    context = ctx(
        UserMessage(content="Go"),
        assistant(ToolCall(id=foreign_id, name="bash", arguments={}), model_id="gpt-5", provider="openai"),
        ToolResultMessage(tool_call_id=foreign_id, tool_name="bash", content=[TextContent(text="ok")]),
    )
    body = await sent_body(server, context)
    new_id = body["messages"][1]["content"][0]["id"]
    assert new_id == ("call_abc_fc_" + "x" * 80)[:64]
    assert body["messages"][2]["content"][0]["tool_use_id"] == new_id


# --- subscription (OAuth) tokens and Copilot ------------------------------------------------------


async def test_oauth_token_uses_bearer_claude_code_identity_and_tool_names(server: ScriptedServer) -> None:
    tools = [
        Tool(name="read", description="Read."),
        Tool(name="BASH", description="Run."),
        Tool(name="my_tool", description="Mine."),
    ]
    frames = [
        message_start(),
        *tool_use(0, "toolu_1", "Read", ['{"path": "a"}']),
        *tool_use(1, "toolu_2", "Bash", ['{"command": "ls"}']),
        message_delta("tool_use"),
        MESSAGE_STOP,
    ]
    server.queue(ok(named_sse(*frames)))
    history = ctx(
        UserMessage(content="Hi"),
        assistant(ToolCall(id="toolu_0", name="read", arguments={"path": "b"})),
        ToolResultMessage(tool_call_id="toolu_0", tool_name="read", content=[TextContent(text="b")]),
        tools=tools,
        system="Project rules.",
    )
    _, final = await complete(server, history, api_key=OAUTH_KEY)
    assert [(c.name, c.arguments) for c in final.content if isinstance(c, ToolCall)] == [
        ("read", {"path": "a"}),
        ("BASH", {"command": "ls"}),
    ]
    request = server.requests[-1]
    headers = request.headers
    assert headers["authorization"] == f"Bearer {OAUTH_KEY}"
    assert "x-api-key" not in headers
    assert headers["anthropic-beta"] == ("claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14")
    assert headers["user-agent"] == "claude-cli/2.1.322"
    assert headers["x-app"] == "cli"
    body = request.json()
    ephemeral = {"type": "ephemeral"}
    assert body["system"] == [
        {"type": "text", "text": CLAUDE_CODE_IDENTITY, "cache_control": ephemeral},
        {"type": "text", "text": "Project rules.", "cache_control": ephemeral},
    ]
    assert [tool["name"] for tool in body["tools"]] == ["Read", "Bash", "my_tool"]
    assert body["messages"][1]["content"][0]["name"] == "Read"


async def test_oauth_identity_block_is_sent_even_without_a_system_prompt(server: ScriptedServer) -> None:
    body = await sent_body(server, ctx(system=None), api_key=OAUTH_KEY)
    assert [block["text"] for block in body["system"]] == [CLAUDE_CODE_IDENTITY]


async def test_api_key_requests_keep_tool_names_and_send_no_system_without_a_prompt(server: ScriptedServer) -> None:
    body = await sent_body(server, ctx(system=None, tools=[Tool(name="read", description="Read.")]))
    assert "system" not in body
    assert body["tools"][0]["name"] == "read"


async def test_copilot_uses_bearer_without_the_fine_grained_beta(server: ScriptedServer) -> None:
    copilot = make_model(server, provider="github-copilot", id="claude-sonnet-4.5")
    await sent_body(server, ctx(UserMessage(content=[TextContent(text="see"), PNG])), copilot)
    headers = server.requests[-1].headers
    assert headers["authorization"] == f"Bearer {API_KEY}"
    assert "x-api-key" not in headers
    assert headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    assert headers["x-initiator"] == "user"
    assert headers["openai-intent"] == "conversation-edits"
    assert headers["copilot-vision-request"] == "true"


async def test_tool_result_image_with_only_empty_text_gets_the_placeholder(server: ScriptedServer) -> None:
    # Anthropic refuses empty text blocks, so an image result whose text is blank reads as image-only.
    context = ctx(
        UserMessage(content="Look"),
        assistant(ToolCall(id="toolu_1", name="screenshot", arguments={})),
        ToolResultMessage(tool_call_id="toolu_1", tool_name="screenshot", content=[TextContent(text=""), PNG]),
        UserMessage(content="And?"),
    )
    body = await sent_body(server, context)
    image_block = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    assert body["messages"][2]["content"][0]["content"] == [
        {"type": "text", "text": "(see attached image)"},
        image_block,
    ]


async def test_message_stop_then_the_end_of_the_body_keeps_the_connection(keep_alive_server: ScriptedServer) -> None:
    model = make_model(keep_alive_server)
    for text in ("first", "second"):
        keep_alive_server.queue(ok(text_reply(text)))
        _, final = await complete(keep_alive_server, ctx(), model)
        assert final.content == [TextContent(text=text)]
    assert keep_alive_server.connections == 1


async def test_auth_token_from_the_environment_is_sent_as_bearer(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "gateway-token")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_OAUTH_TOKEN", raising=False)
    await sent_body(server, ctx(), api_key=None)
    headers = server.requests[-1].headers
    assert headers["authorization"] == "Bearer gateway-token"
    assert "x-api-key" not in headers
    await sent_body(server, ctx())  # an API key of the request's own: the token is ignored
    headers = server.requests[-1].headers
    assert headers["x-api-key"] == API_KEY and "authorization" not in headers


async def test_system_messages_are_folded_into_the_system_prompt(server: ScriptedServer) -> None:
    from pi.ai.types import SystemMessage, ToolReference

    history = Context(
        messages=[
            SystemMessage(
                content="Base.", sections={"rules": "One."}, tools_added=[Tool(name="read", description="R")]
            ),
            UserMessage(content="a"),
            SystemMessage(sections={"rules": "Two."}, tools_removed=[ToolReference(name="read")]),
            UserMessage(content="b"),
        ]
    )
    body = await sent_body(server, history)
    assert [block["text"] for block in body["system"]] == ["Base.\n\nTwo."]
    assert "tools" not in body
    assert [m["role"] for m in body["messages"]] == ["user", "user"]
