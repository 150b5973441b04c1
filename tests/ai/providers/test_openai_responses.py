"""The openai-responses wire API against a loopback server speaking real Responses SSE frames."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from pi.ai.abort import AbortController
from pi.ai.events import AssistantMessageEvent
from pi.ai.options import StreamOptions, make_options
from pi.ai.overflow import is_context_overflow
from pi.ai.providers.openai_responses import (
    JUICE_MESSAGE,
    PROVIDER,
    encode_text_signature,
    normalize_tool_call_id,
    parse_text_signature,
    short_hash,
)
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
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.ai.providers.snapshots import arguments_at_each_delta
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response, named_sse

# --- Responses frames ----------------------------------------------------------------------------


def _frames(*events: dict[str, Any]) -> list[bytes]:
    numbered = [{**event, "sequence_number": i} for i, event in enumerate(events)]
    return named_sse(*((event["type"], event) for event in numbered))


def created() -> dict[str, Any]:
    return {
        "type": "response.created",
        "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": [], "usage": None},
    }


def text_item(item_id: str, chunks: list[str], phase: str | None = None, index: int = 0) -> list[dict[str, Any]]:
    full = "".join(chunks)
    done_item: dict[str, Any] = {
        "id": item_id,
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": full, "annotations": []}],
    }
    if phase:
        done_item["phase"] = phase
    return [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {"id": item_id, "type": "message", "status": "in_progress", "role": "assistant", "content": []},
        },
        {
            "type": "response.content_part.added",
            "item_id": item_id,
            "output_index": index,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
        *(
            {
                "type": "response.output_text.delta",
                "item_id": item_id,
                "output_index": index,
                "content_index": 0,
                "delta": chunk,
            }
            for chunk in chunks
        ),
        {
            "type": "response.output_text.done",
            "item_id": item_id,
            "output_index": index,
            "content_index": 0,
            "text": full,
        },
        {
            "type": "response.content_part.done",
            "item_id": item_id,
            "output_index": index,
            "content_index": 0,
            "part": {"type": "output_text", "text": full, "annotations": []},
        },
        {"type": "response.output_item.done", "output_index": index, "item": done_item},
    ]


def reasoning_item(item_id: str, summaries: list[list[str]], encrypted: str, index: int = 0) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {"id": item_id, "type": "reasoning", "summary": []},
        }
    ]
    for s, chunks in enumerate(summaries):
        text = "".join(chunks)
        events.append(
            {
                "type": "response.reasoning_summary_part.added",
                "item_id": item_id,
                "output_index": index,
                "summary_index": s,
                "part": {"type": "summary_text", "text": ""},
            }
        )
        events.extend(
            {
                "type": "response.reasoning_summary_text.delta",
                "item_id": item_id,
                "output_index": index,
                "summary_index": s,
                "delta": chunk,
            }
            for chunk in chunks
        )
        events.append(
            {
                "type": "response.reasoning_summary_text.done",
                "item_id": item_id,
                "output_index": index,
                "summary_index": s,
                "text": text,
            }
        )
        events.append(
            {
                "type": "response.reasoning_summary_part.done",
                "item_id": item_id,
                "output_index": index,
                "summary_index": s,
                "part": {"type": "summary_text", "text": text},
            }
        )
    events.append(
        {
            "type": "response.output_item.done",
            "output_index": index,
            "item": {
                "id": item_id,
                "type": "reasoning",
                "encrypted_content": encrypted,
                "summary": [{"type": "summary_text", "text": "".join(chunks)} for chunks in summaries],
            },
        }
    )
    return events


def call_item(item_id: str, call_id: str, name: str, chunks: list[str], index: int = 0) -> list[dict[str, Any]]:
    full = "".join(chunks)
    base = {"id": item_id, "type": "function_call", "call_id": call_id, "name": name}
    return [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**base, "status": "in_progress", "arguments": ""},
        },
        *(
            {"type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": index, "delta": c}
            for c in chunks
        ),
        {"type": "response.function_call_arguments.done", "item_id": item_id, "output_index": index, "arguments": full},
        {
            "type": "response.output_item.done",
            "output_index": index,
            "item": {**base, "status": "completed", "arguments": full},
        },
    ]


def finished(
    kind: str = "response.completed",
    status: str = "completed",
    input_tokens: int = 100,
    cached: int = 0,
    output_tokens: int = 20,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "type": kind,
        "response": {
            "id": "resp_1",
            "object": "response",
            "status": status,
            "usage": {
                "input_tokens": input_tokens,
                "input_tokens_details": {"cached_tokens": cached},
                "output_tokens": output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": input_tokens + output_tokens,
            },
            **extra,
        },
    }


def ok_reply(text: str = "ok") -> ScriptedResponse:
    return ScriptedResponse(chunks=_frames(created(), *text_item("msg_ok", [text]), finished()))


# --- models, contexts, running ---------------------------------------------------------------------


XHIGH: dict[str, str | None] = {"xhigh": "xhigh"}
SOL: dict[str, str | None] = {
    "off": None, "minimal": None, "low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "max"
}  # fmt: skip


def make_model(server: ScriptedServer, **overrides: Any) -> Model:
    data: dict[str, Any] = {
        "id": "gpt-5-mini",
        "name": "GPT-5 Mini",
        "api": "openai-responses",
        "provider": "openai",
        "base_url": f"{server.url}/v1",
        "reasoning": True,
        "input": ["text", "image"],
        "cost": ModelCost(input=1.25, output=10.0, cache_read=0.125),
        "context_window": 400000,
        "max_tokens": 128000,
    }
    data.update(overrides)
    return Model(**data)


def hello(system: str | None = "Be brief.", tools: list[Tool] | None = None) -> Context:
    return Context(system_prompt=system, messages=[UserMessage(content="Hello")], tools=tools)


async def run(model: Model, context: Context, **kwargs: Any) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
    kwargs.setdefault("api_key", "sk-test")
    result = PROVIDER.stream(model, context, make_options(**kwargs))
    events = [event async for event in result]
    return events, await result.result()


async def run_simple(model: Model, context: Context, **kwargs: Any) -> AssistantMessage:
    kwargs.setdefault("api_key", "sk-test")
    return await PROVIDER.stream_simple(model, context, make_options(**kwargs)).result()


def types_of(events: list[AssistantMessageEvent]) -> list[str]:
    return [event.type for event in events]


# --- streaming -------------------------------------------------------------------------------------


async def test_registry_loads_this_module_for_the_api() -> None:
    assert get_api_provider("openai-responses") is PROVIDER


async def test_text_reply_streams_and_keeps_message_id_and_phase(server: ScriptedServer) -> None:
    server.queue(
        ScriptedResponse(
            chunks=_frames(created(), *text_item("msg_abc", ["Hel", "lo", "!"], phase="final_answer"), finished())
        )
    )
    events, message = await run(make_model(server), hello())
    assert types_of(events) == ["start", "text_start", "text_delta", "text_delta", "text_delta", "text_end", "done"]
    assert [e.delta for e in events if e.type == "text_delta"] == ["Hel", "lo", "!"]
    assert message.stop_reason == "stop"
    assert message.content == [
        TextContent(text="Hello!", text_signature='{"v":1,"id":"msg_abc","phase":"final_answer"}')
    ]
    request = server.requests[0]
    assert request.path == "/v1/responses"
    assert request.headers["authorization"] == "Bearer sk-test"
    body = request.json()
    assert body["model"] == "gpt-5-mini"
    assert body["stream"] is True
    assert body["store"] is False
    assert body["input"][1] == {"role": "user", "content": [{"type": "input_text", "text": "Hello"}]}


async def test_reasoning_summary_becomes_thinking_signed_with_the_item(server: ScriptedServer) -> None:
    server.queue(
        ScriptedResponse(
            chunks=_frames(
                created(),
                *reasoning_item("rs_1", [["Think", "ing A"], ["Step B"]], encrypted="gAAAAenc=="),
                *text_item("msg_1", ["Done"], index=1),
                finished(),
            )
        )
    )
    events, message = await run(make_model(server), hello(), reasoning_effort="high")
    thinking_deltas = [e.delta for e in events if e.type == "thinking_delta"]
    assert thinking_deltas == ["Think", "ing A", "\n\n", "Step B", "\n\n"]
    assert types_of(events)[:2] == ["start", "thinking_start"]
    block = message.content[0]
    assert isinstance(block, ThinkingContent)
    assert block.thinking == "Thinking A\n\nStep B"
    assert block.thinking_signature is not None
    item = json.loads(block.thinking_signature)
    assert item == {
        "id": "rs_1",
        "type": "reasoning",
        "encrypted_content": "gAAAAenc==",
        "summary": [{"type": "summary_text", "text": "Thinking A"}, {"type": "summary_text", "text": "Step B"}],
    }
    thinking_end = next(e for e in events if e.type == "thinking_end")
    assert thinking_end.content == "Thinking A\n\nStep B"
    assert isinstance(message.content[1], TextContent)


async def test_raw_reasoning_text_from_compatible_servers_is_thinking(server: ScriptedServer) -> None:
    raw = {"type": "response.reasoning_text.delta", "item_id": "rs_1", "output_index": 0, "content_index": 0}
    done_item = {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": "Plan: answer."}],
    }
    server.queue(
        ScriptedResponse(
            chunks=_frames(
                created(),
                {"type": "response.output_item.added", "output_index": 0, "item": {**done_item, "content": []}},
                {**raw, "delta": "Plan: "},
                {**raw, "delta": "answer."},
                {"type": "response.output_item.done", "output_index": 0, "item": done_item},
                *text_item("msg_1", ["Hi"], index=1),
                finished(),
            )
        )
    )
    events, message = await run(make_model(server, id="gpt-oss-120b", name="gpt-oss-120b"), hello())
    assert [e.delta for e in events if e.type == "thinking_delta"] == ["Plan: ", "answer."]
    assert isinstance(message.content[0], ThinkingContent)
    assert message.content[0].thinking == "Plan: answer."


async def test_one_function_call_streams_arguments_and_stops_for_tool_use(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.queue(
        ScriptedResponse(
            chunks=_frames(
                created(),
                *call_item("fc_1", "call_A", "read", ['{"pa', 'th": "src/', 'a.py"}']),
                finished(),
            ),
        )
    )
    partial_args = arguments_at_each_delta(monkeypatch)
    result = PROVIDER.stream(make_model(server), hello(), make_options(api_key="sk-test"))
    events = [event async for event in result]
    message = await result.result()
    assert types_of(events) == [
        "start",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    assert partial_args == [{}, {"path": "src/"}, {"path": "src/a.py"}]
    end = next(e for e in events if e.type == "toolcall_end")
    assert end.tool_call == ToolCall(id="call_A|fc_1", name="read", arguments={"path": "src/a.py"})
    assert message.stop_reason == "toolUse"
    assert events[-1].type == "done" and events[-1].reason == "toolUse"
    assert message.content == [end.tool_call]
    assert set(message.content[0].to_json_dict()) == {"type", "id", "name", "arguments"}


async def test_two_function_calls_are_two_blocks(server: ScriptedServer) -> None:
    server.queue(
        ScriptedResponse(
            chunks=_frames(
                created(),
                *call_item("fc_1", "call_A", "read", ['{"path":', '"a"}'], index=0),
                *call_item("fc_2", "call_B", "bash", ['{"command"', ': "ls -la"}'], index=1),
                finished(),
            )
        )
    )
    events, message = await run(make_model(server), hello())
    ends = [e for e in events if e.type == "toolcall_end"]
    assert [(e.content_index, e.tool_call.id, e.tool_call.arguments) for e in ends] == [
        (0, "call_A|fc_1", {"path": "a"}),
        (1, "call_B|fc_2", {"command": "ls -la"}),
    ]
    assert message.stop_reason == "toolUse"
    assert len(message.content) == 2


async def test_arguments_done_event_replaces_what_streamed(server: ScriptedServer) -> None:
    events = call_item("fc_1", "call_A", "read", ['{"path": "wr'])
    events[2]["arguments"] = '{"path": "right"}'
    events[3]["item"]["arguments"] = '{"path": "right"}'
    server.queue(ScriptedResponse(chunks=_frames(created(), *events, finished())))
    _, message = await run(make_model(server), hello())
    assert message.content[0] == ToolCall(id="call_A|fc_1", name="read", arguments={"path": "right"})


async def test_refusal_is_streamed_as_text(server: ScriptedServer) -> None:
    item = text_item("msg_r", [])
    item[1]["part"] = {"type": "refusal", "refusal": ""}
    refusal = {"type": "response.refusal.delta", "item_id": "msg_r", "output_index": 0, "content_index": 0}
    item[-1]["item"]["content"] = [{"type": "refusal", "refusal": "I can't help with that."}]
    frames = [*item[:2], {**refusal, "delta": "I can't "}, {**refusal, "delta": "help with that."}, item[-1]]
    server.queue(ScriptedResponse(chunks=_frames(created(), *frames, finished())))
    events, message = await run(make_model(server), hello())
    assert [e.delta for e in events if e.type == "text_delta"] == ["I can't ", "help with that."]
    assert isinstance(message.content[0], TextContent)
    assert message.content[0].text == "I can't help with that."


# --- usage and cost --------------------------------------------------------------------------------


@pytest.mark.parametrize(("tier", "factor"), [(None, 1.0), ("default", 1.0), ("flex", 0.5), ("priority", 2.0)])
async def test_usage_excludes_cached_tokens_and_cost_follows_service_tier(
    server: ScriptedServer, tier: str | None, factor: float
) -> None:
    server.queue(
        ScriptedResponse(
            chunks=_frames(
                created(),
                *text_item("msg_1", ["hi"]),
                finished(input_tokens=1_000_000, cached=400_000, output_tokens=100_000),
            )
        )
    )
    kwargs = {"service_tier": tier} if tier else {}
    _, message = await run(make_model(server), hello(), **kwargs)
    usage = message.usage
    assert (usage.input, usage.cache_read, usage.output, usage.cache_write, usage.total_tokens) == (
        600_000,
        400_000,
        100_000,
        0,
        1_100_000,
    )
    assert usage.cost.input == pytest.approx(0.75 * factor)
    assert usage.cost.cache_read == pytest.approx(0.05 * factor)
    assert usage.cost.output == pytest.approx(1.0 * factor)
    assert usage.cost.total == pytest.approx(1.8 * factor)
    body = server.requests[0].json()
    assert body.get("service_tier") == tier


async def test_service_tier_reported_by_the_server_wins(server: ScriptedServer) -> None:
    server.queue(
        ScriptedResponse(
            chunks=_frames(
                created(),
                *text_item("msg_1", ["hi"]),
                finished(input_tokens=1_000_000, output_tokens=0, service_tier="flex"),
            )
        )
    )
    _, message = await run(make_model(server), hello(), service_tier="auto")
    assert message.usage.cost.total == pytest.approx(0.625)


# --- terminal states -------------------------------------------------------------------------------


async def test_incomplete_response_stops_for_length(server: ScriptedServer) -> None:
    server.queue(
        ScriptedResponse(
            chunks=_frames(
                created(),
                *text_item("msg_1", ["partial"]),
                finished(
                    "response.incomplete", status="incomplete", incomplete_details={"reason": "max_output_tokens"}
                ),
            )
        )
    )
    events, message = await run(make_model(server), hello())
    assert events[-1].type == "done" and events[-1].reason == "length"
    assert message.stop_reason == "length"
    assert message.usage.output == 20


async def test_incomplete_tool_call_is_not_tool_use(server: ScriptedServer) -> None:
    server.queue(
        ScriptedResponse(
            chunks=_frames(
                created(),
                *call_item("fc_1", "call_A", "write", ['{"path": "a", "content": "tru']),
                finished(
                    "response.incomplete", status="incomplete", incomplete_details={"reason": "max_output_tokens"}
                ),
            )
        )
    )
    _, message = await run(make_model(server), hello())
    assert message.stop_reason == "length"


@pytest.mark.parametrize(
    ("details", "expected"),
    [
        ({"reason": "content_filter"}, "Response incomplete: content_filter"),
        (None, "Response incomplete without a provider reason"),
    ],
)
async def test_incomplete_for_another_reason_than_the_output_limit_is_an_error(
    server: ScriptedServer, details: dict[str, Any] | None, expected: str
) -> None:
    server.queue(
        ScriptedResponse(
            chunks=_frames(
                created(),
                *text_item("msg_1", ["partial"]),
                finished("response.incomplete", status="incomplete", incomplete_details=details),
            )
        )
    )
    events, message = await run(make_model(server), hello())
    assert events[-1].type == "error"
    assert (message.stop_reason, message.error_message) == ("error", expected)


@pytest.mark.parametrize(
    ("response_fields", "expected"),
    [
        ({"error": {"code": "server_error", "message": "The model crashed."}}, "server_error: The model crashed."),
        ({"error": None, "incomplete_details": {"reason": "content_filter"}}, "incomplete: content_filter"),
        ({"error": None}, "Unknown error (no error details in response)"),
    ],
)
async def test_failed_response_is_an_error_with_its_reason(
    server: ScriptedServer, response_fields: dict[str, Any], expected: str
) -> None:
    server.queue(
        ScriptedResponse(
            chunks=_frames(
                created(),
                *text_item("msg_1", ["so far"]),
                finished("response.failed", status="failed", **response_fields),
            )
        )
    )
    events, message = await run(make_model(server), hello())
    assert events[-1].type == "error" and events[-1].reason == "error"
    assert message.stop_reason == "error"
    assert message.error_message == expected
    assert message.content[0] == TextContent(text="so far", text_signature='{"v":1,"id":"msg_1"}')
    assert message.usage.input == 100


async def test_cancelled_status_is_an_error(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=_frames(created(), finished(status="cancelled"))))
    _, message = await run(make_model(server), hello())
    assert message.stop_reason == "error"
    assert message.error_message == "An unknown error occurred"


async def test_stream_error_event(server: ScriptedServer) -> None:
    server.queue(
        ScriptedResponse(
            chunks=_frames(
                created(),
                {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down.", "param": None},
            )
        )
    )
    events, message = await run(make_model(server), hello())
    assert types_of(events) == ["start", "error"]
    assert message.error_message == "Error Code rate_limit_exceeded: Slow down."


async def test_stream_error_event_with_nested_error_object(server: ScriptedServer) -> None:
    nested = {"type": "error", "error": {"type": "server_error", "code": "server_error", "message": "Try again."}}
    server.queue(ScriptedResponse(chunks=_frames(created(), nested)))
    _, message = await run(make_model(server), hello())
    assert message.error_message == "Error Code server_error: Try again."


async def test_stream_that_ends_without_a_terminal_event_is_an_error(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=_frames(created(), *text_item("msg_1", ["half"]))))
    _, message = await run(make_model(server), hello())
    assert message.stop_reason == "error"
    assert (message.error_message or "").startswith("OpenAI Responses stream ended before a terminal response event: ")
    assert "closed before response.completed" in (message.error_message or "")
    assert "gpt-5-mini" in (message.error_message or "")
    assert is_retryable_assistant_error(message)
    assert message.response_id == "resp_1"  # known from response.created, before the stream broke


async def test_reply_records_response_id_raw_status_and_usage_breakdown(server: ScriptedServer) -> None:
    done = finished(
        kind="response.incomplete",
        status="incomplete",
        input_tokens=500,
        cached=100,
        incomplete_details={"reason": "max_output_tokens"},
    )
    response = done["response"]
    response["id"] = "resp_final"
    response["usage"]["input_tokens_details"]["cache_write_tokens"] = 150
    response["usage"]["output_tokens_details"]["reasoning_tokens"] = 7
    server.queue(ScriptedResponse(chunks=_frames(created(), *text_item("msg_1", ["cut"]), done)))
    _, message = await run(make_model(server), hello())
    assert message.stop_reason == "length", message.error_message
    assert (message.response_id, message.raw_stop_reason) == ("resp_final", "incomplete.max_output_tokens")
    usage = message.usage
    assert (usage.input, usage.cache_read, usage.cache_write, usage.reasoning) == (250, 100, 150, 7)
    wire = message.model_dump(by_alias=True, exclude_none=True)
    assert (wire["responseId"], wire["rawStopReason"], wire["usage"]["reasoning"]) == (
        "resp_final",
        "incomplete.max_output_tokens",
        7,
    )
    assert "endTurn" not in wire  # only Codex says whether the turn ended


async def test_a_failed_response_records_its_raw_status(server: ScriptedServer) -> None:
    failed = finished(kind="response.failed", status="failed", error={"code": "server_error", "message": "oops"})
    server.queue(ScriptedResponse(chunks=_frames(created(), failed)))
    _, message = await run(make_model(server), hello())
    assert message.stop_reason == "error"
    assert (message.raw_stop_reason, message.error_message) == ("failed", "server_error: oops")


# --- HTTP failures ---------------------------------------------------------------------------------

OVERFLOW_BODY = {
    "error": {
        "message": "Your input exceeds the context window of this model. Please adjust your input and try again.",
        "type": "invalid_request_error",
        "param": "input",
        "code": "context_length_exceeded",
    }
}


async def test_context_overflow_400_is_a_lone_error_that_reads_as_overflow(server: ScriptedServer) -> None:
    server.queue(json_response(400, OVERFLOW_BODY))
    events, message = await run(make_model(server), hello())
    assert types_of(events) == ["error"]
    assert message.stop_reason == "error"
    assert (message.error_message or "").startswith('OpenAI API error (400): {"message":')
    assert "Your input exceeds the context window of this model." in (message.error_message or "")
    assert is_context_overflow(message)
    assert len(server.requests) == 1


async def test_401_names_the_provider_and_what_to_do(server: ScriptedServer) -> None:
    server.queue(
        json_response(401, {"error": {"message": "Incorrect API key provided: sk-test.", "code": "invalid_api_key"}})
    )
    events, message = await run(make_model(server), hello())
    assert types_of(events) == ["error"]
    text = message.error_message or ""
    assert text.startswith("OpenAI API error (401): ")
    assert "Incorrect API key provided" in text
    assert "openai" in text and "gpt-5-mini" in text and "API key" in text
    assert len(server.requests) == 1


async def test_429_with_retry_after_is_retried_then_streams(server: ScriptedServer) -> None:
    server.queue(
        json_response(429, {"error": {"message": "Rate limit reached"}}, headers={"retry-after": "0.2"}),
        ok_reply("after wait"),
    )
    started = time.monotonic()
    events, message = await run(make_model(server), hello())
    assert time.monotonic() - started >= 0.2
    assert types_of(events)[0] == "start"
    assert message.stop_reason == "stop"
    assert message.content[0].text == "after wait"  # type: ignore[union-attr]
    assert len(server.requests) == 2
    assert server.requests[0].json() == server.requests[1].json()


async def test_500_after_retries_is_a_lone_error(server: ScriptedServer) -> None:
    server.queue(json_response(500, {"error": {"message": "The server had an error"}}))
    events, message = await run(make_model(server), hello(), max_retries=0)
    assert types_of(events) == ["error"]
    assert (message.error_message or "").startswith("OpenAI API error (500): ")
    assert "The server had an error" in (message.error_message or "")


async def test_500_then_success_is_retried(server: ScriptedServer) -> None:
    server.queue(json_response(500, {"error": {"message": "oops"}}, headers={"retry-after": "0"}), ok_reply())
    _, message = await run(make_model(server), hello())
    assert message.stop_reason == "stop"
    assert len(server.requests) == 2


async def test_connection_dropped_mid_stream_keeps_partial_output(server: ScriptedServer) -> None:
    frames = _frames(created(), *text_item("msg_1", ["partial ", "answer"]), finished())
    server.queue(ScriptedResponse(chunks=frames, drop_after=4))
    events, message = await run(make_model(server), hello(), max_retries=0)
    assert types_of(events)[0] == "start"
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert (message.error_message or "").startswith("Connection lost while streaming the reply of gpt-5-mini")
    assert message.content[0].text == "partial "  # type: ignore[union-attr]
    assert is_retryable_assistant_error(message)


async def test_malformed_frame_is_an_error(server: ScriptedServer) -> None:
    frames = [*_frames(created()), b"event: response.output_text.delta\ndata: {not json\n\n"]
    server.queue(ScriptedResponse(chunks=frames))
    events, message = await run(make_model(server), hello())
    assert events[-1].type == "error"
    assert "Malformed stream frame" in (message.error_message or "")


async def test_abort_mid_stream_ends_at_once_with_partial_text(server: ScriptedServer) -> None:
    frames = _frames(created(), *text_item("msg_1", ["first"])[:3])
    server.queue(ScriptedResponse(chunks=frames, hold_open=30.0))
    controller = AbortController()
    result = PROVIDER.stream(make_model(server), hello(), make_options(api_key="sk-test", signal=controller.signal))
    seen: list[str] = []
    started = 0.0
    async for event in result:
        seen.append(event.type)
        if event.type == "text_delta":
            started = time.monotonic()
            controller.abort()
    message = await result.result()
    assert time.monotonic() - started < 10.0  # the server would keep the stream open for 30 s
    assert seen[-1] == "error"
    assert message.stop_reason == "aborted"
    assert message.error_message == "Request was aborted"
    assert message.content[0].text == "first"  # type: ignore[union-attr]


async def test_abort_before_sending_sends_nothing(server: ScriptedServer) -> None:
    controller = AbortController()
    controller.abort()
    result = PROVIDER.stream(make_model(server), hello(), make_options(api_key="sk-test", signal=controller.signal))
    events = [event async for event in result]
    message = await result.result()
    assert types_of(events) == ["error"]
    assert message.stop_reason == "aborted"
    assert result.task is not None
    await asyncio.wait([result.task])  # a request the task had sent would have been answered by now
    assert server.requests == []


# --- API key ---------------------------------------------------------------------------------------


async def test_missing_key_is_an_in_stream_error(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = PROVIDER.stream(make_model(server), hello(), StreamOptions())
    events = [event async for event in result]
    message = await result.result()
    assert types_of(events) == ["error"]
    assert message.error_message == "No API key for provider: openai\nSet OPENAI_API_KEY, or pass an API key."
    assert server.requests == []


async def test_each_provider_reads_only_its_own_variable(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-env")
    monkeypatch.setenv("OPENCODE_API_KEY", "sk-opencode-env")
    server.queue(ok_reply(), ok_reply())
    await PROVIDER.stream(make_model(server, provider="opencode"), hello(), StreamOptions()).result()
    await PROVIDER.stream(make_model(server, provider="openai"), hello(), StreamOptions()).result()
    custom = await PROVIDER.stream(make_model(server, provider="my-proxy"), hello(), StreamOptions()).result()
    assert server.requests[0].headers["authorization"] == "Bearer sk-opencode-env"
    assert server.requests[1].headers["authorization"] == "Bearer sk-openai-env"
    assert custom.stop_reason == "error" and len(server.requests) == 2


# --- request body ----------------------------------------------------------------------------------


async def test_system_prompt_role_depends_on_reasoning(server: ScriptedServer) -> None:
    server.queue(ok_reply(), ok_reply())
    await run(make_model(server), hello("Rules."), reasoning_effort="low")
    await run(make_model(server, id="gpt-4.1", name="GPT-4.1", reasoning=False), hello("Rules."))
    assert server.requests[0].json()["input"][0] == {"role": "developer", "content": "Rules."}
    assert server.requests[1].json()["input"][0] == {"role": "system", "content": "Rules."}


async def test_reasoning_level_sends_effort_summary_and_encrypted_include(server: ScriptedServer) -> None:
    server.queue(ok_reply(), ok_reply(), ok_reply())
    await run(make_model(server), hello(), reasoning_effort="low")
    await run(make_model(server), hello(), reasoning_effort="high", reasoning_summary="detailed")
    await run(make_model(server), hello(), reasoning_summary="concise")
    bodies = [r.json() for r in server.requests]
    assert bodies[0]["reasoning"] == {"effort": "low", "summary": "auto"}
    assert bodies[0]["include"] == ["reasoning.encrypted_content"]
    assert bodies[1]["reasoning"] == {"effort": "high", "summary": "detailed"}
    assert bodies[2]["reasoning"] == {"effort": "medium", "summary": "concise"}
    assert all(JUICE_MESSAGE not in json.dumps(b) for b in bodies)


async def test_no_level_on_gpt5_appends_the_juice_message(server: ScriptedServer) -> None:
    server.queue(ok_reply(), ok_reply(), ok_reply())
    await run(make_model(server), hello())
    await run(make_model(server, id="o3", name="o3"), hello())
    await run(make_model(server, id="gpt-5", name="gpt-5", reasoning=False), hello())
    gpt5, o3, plain = (r.json() for r in server.requests)
    assert gpt5["input"][-1] == {"role": "developer", "content": [{"type": "input_text", "text": JUICE_MESSAGE}]}
    assert "reasoning" not in gpt5 and "include" not in gpt5
    assert JUICE_MESSAGE not in json.dumps(o3) and "reasoning" not in o3
    assert JUICE_MESSAGE not in json.dumps(plain)


async def test_simple_maps_level_and_clamps_xhigh(server: ScriptedServer) -> None:
    server.queue(ok_reply(), ok_reply(), ok_reply())
    await run_simple(make_model(server), hello(), reasoning="xhigh")
    await run_simple(
        make_model(server, id="gpt-5.2", name="GPT-5.2", thinking_level_map=XHIGH), hello(), reasoning="xhigh"
    )
    await run_simple(make_model(server), hello(), reasoning="minimal")
    bodies = [r.json() for r in server.requests]
    assert bodies[0]["reasoning"]["effort"] == "high"
    assert bodies[1]["reasoning"]["effort"] == "xhigh"
    assert bodies[2]["reasoning"]["effort"] == "minimal"
    assert bodies[0]["max_output_tokens"] == 128_000  # the model's limit fits the window


async def test_max_is_the_strongest_effort_of_the_model(server: ScriptedServer) -> None:
    server.queue(ok_reply(), ok_reply(), ok_reply())
    await run_simple(make_model(server), hello(), reasoning="max")
    await run_simple(
        make_model(server, id="gpt-5.2", name="GPT-5.2", thinking_level_map=XHIGH), hello(), reasoning="max"
    )
    await run(make_model(server), hello(), reasoning_effort="max")
    efforts = [r.json()["reasoning"]["effort"] for r in server.requests]
    assert efforts == ["high", "xhigh", "high"]


async def test_thinking_level_map_of_gpt_6_2_sol(server: ScriptedServer) -> None:
    sol = make_model(server, id="gpt-6.2-sol", name="GPT-6.2 Sol", thinking_level_map=SOL)
    server.queue(ok_reply(), ok_reply(), ok_reply())
    await run_simple(sol, hello(), reasoning="off")
    await run_simple(sol, hello(), reasoning="max")
    await run_simple(make_model(server, thinking_level_map={"off": "none"}), hello(), reasoning="off")
    off, top, none = (r.json() for r in server.requests)
    assert off["reasoning"]["effort"] == "low"  # off and minimal are unsupported: clamped upwards
    assert top["reasoning"]["effort"] == "max"
    assert none["reasoning"] == {"effort": "none"} and JUICE_MESSAGE not in json.dumps(none)


async def test_simple_off_is_the_same_as_no_level(server: ScriptedServer) -> None:
    server.queue(ok_reply(), ok_reply())
    await run_simple(make_model(server), hello(), reasoning="off")
    await run_simple(make_model(server), hello())
    off, unset = (r.json() for r in server.requests)
    assert "reasoning" not in off and off["input"] == unset["input"]


async def test_simple_without_level_turns_reasoning_off(server: ScriptedServer) -> None:
    server.queue(ok_reply())
    await run_simple(make_model(server), hello(), reasoning_effort="high")
    body = server.requests[0].json()
    assert "reasoning" not in body
    assert body["input"][-1]["content"][0]["text"] == JUICE_MESSAGE


async def test_prompt_cache_key_and_retention(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_CACHE_RETENTION", raising=False)
    openai_like = make_model(server, base_url=f"{server.url}/api.openai.com/v1")
    server.queue(*(ok_reply() for _ in range(5)))
    await run(openai_like, hello(), session_id="sess-1")
    await run(openai_like, hello(), session_id="sess-1", cache_retention="long")
    await run(make_model(server), hello(), session_id="sess-1", cache_retention="long")
    await run(openai_like, hello(), session_id="sess-1", cache_retention="none")
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    await run(openai_like, hello())
    short, long_openai, long_other, none, env_long = (r.json() for r in server.requests)
    assert short["prompt_cache_key"] == "sess-1" and "prompt_cache_retention" not in short
    assert long_openai["prompt_cache_key"] == "sess-1" and long_openai["prompt_cache_retention"] == "24h"
    assert long_other["prompt_cache_key"] == "sess-1" and "prompt_cache_retention" not in long_other
    assert "prompt_cache_key" not in none and "prompt_cache_retention" not in none
    assert "prompt_cache_key" not in env_long and env_long["prompt_cache_retention"] == "24h"
    assert server.requests[1].path == "/api.openai.com/v1/responses"


async def test_tools_options_and_headers_in_the_request(server: ScriptedServer) -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    tools = [Tool(name="read", description="Read a file.", parameters=schema)]
    server.queue(ok_reply())
    model = make_model(server, headers={"X-Model": "m", "X-Both": "model"})
    await run(
        model,
        hello(tools=tools),
        max_tokens=999,
        temperature=0.3,
        tool_choice="required",
        headers={"X-Both": "options", "X-Extra": "1"},
    )
    request = server.requests[0]
    body = request.json()
    assert body["tools"] == [
        {"type": "function", "name": "read", "description": "Read a file.", "parameters": schema, "strict": False}
    ]
    assert body["tool_choice"] == "required"
    assert body["max_output_tokens"] == 999
    assert body["temperature"] == 0.3
    assert request.headers["x-model"] == "m"
    assert request.headers["x-both"] == "options"
    assert request.headers["x-extra"] == "1"
    assert request.headers["authorization"] == "Bearer sk-test"


async def test_on_payload_can_replace_the_body(server: ScriptedServer) -> None:
    seen: list[dict[str, Any]] = []

    async def swap(body: dict[str, Any], model: Model) -> dict[str, Any]:
        seen.append(body)
        return {**body, "metadata": {"trace": "1"}}

    server.queue(ok_reply())
    await run(make_model(server), hello(), on_payload=swap)
    assert seen[0]["model"] == "gpt-5-mini"
    assert server.requests[0].json()["metadata"] == {"trace": "1"}


async def test_copilot_gets_initiator_intent_and_vision_headers(server: ScriptedServer) -> None:
    image = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    context = Context(
        messages=[
            UserMessage(content=[TextContent(text="look"), image]),
            _assistant("gpt-5-mini", [ToolCall(id="call_1|fc_1", name="read", arguments={})]),
            ToolResultMessage(tool_call_id="call_1|fc_1", tool_name="read", content=[TextContent(text="x")]),
        ]
    )
    server.queue(ok_reply(), ok_reply())
    await run(make_model(server, provider="github-copilot"), context)
    await run(make_model(server, provider="github-copilot"), hello())
    agent, user = (r.headers for r in server.requests)
    assert agent["x-initiator"] == "agent"
    assert agent["openai-intent"] == "conversation-edits"
    assert agent["copilot-vision-request"] == "true"
    assert user["x-initiator"] == "user"
    assert "copilot-vision-request" not in user


async def test_user_images_and_surrogates(server: ScriptedServer) -> None:
    image = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    context = Context(
        system_prompt="sys \ud800 end",
        messages=[
            UserMessage(content=[TextContent(text="what \udc00is 😀 this?"), image]),
            _assistant(
                "gpt-5-mini",
                [
                    TextContent(text="ok\ud83d"),
                    ToolCall(id="call_1|fc_1", name="write", arguments={"content": "a\ud800b"}),
                ],
            ),
            ToolResultMessage(tool_call_id="call_1|fc_1", tool_name="write", content=[TextContent(text="x\udc00y")]),
        ],
    )
    server.queue(ok_reply())
    _, message = await run(make_model(server), context)
    assert message.stop_reason == "stop"
    items = server.requests[0].json()["input"]
    assert items[0]["content"] == "sys  end"
    assert items[1]["content"] == [
        {"type": "input_text", "text": "what is 😀 this?"},
        {"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64,iVBORw0KGgo="},
    ]
    assert items[2]["content"][0]["text"] == "ok"
    assert json.loads(items[3]["arguments"]) == {"content": "ab"}
    assert items[4]["output"] == "xy"


# --- replay of earlier turns -----------------------------------------------------------------------

REASONING_ITEM = {
    "id": "rs_9",
    "type": "reasoning",
    "encrypted_content": "gAAAAsecret",
    "summary": [{"type": "summary_text", "text": "I should read it."}],
}


def _assistant(model_id: str, content: list[Any], provider: str = "openai", api: str = "openai-responses") -> Any:
    return AssistantMessage(api=api, provider=provider, model=model_id, content=content, stop_reason="toolUse")


def _history(model_id: str, provider: str = "openai", api: str = "openai-responses") -> list[Message]:
    return [
        UserMessage(content="Read a.py"),
        _assistant(
            model_id,
            [
                ThinkingContent(thinking="I should read it.", thinking_signature=json.dumps(REASONING_ITEM)),
                TextContent(text="Reading.", text_signature=encode_text_signature("msg_7", "commentary")),
                ToolCall(id="call_1|fc_1", name="read", arguments={"path": "a.py"}),
            ],
            provider,
            api,
        ),
        ToolResultMessage(tool_call_id="call_1|fc_1", tool_name="read", content=[TextContent(text="print(1)")]),
    ]


async def _replayed_input(server: ScriptedServer, model: Model, messages: list[Message]) -> list[dict[str, Any]]:
    server.queue(ok_reply())
    await run(model, Context(messages=messages), reasoning_effort="medium")
    items: list[dict[str, Any]] = server.requests[-1].json()["input"]
    return items


async def test_same_model_replays_reasoning_item_message_id_and_call_ids(server: ScriptedServer) -> None:
    items = await _replayed_input(server, make_model(server), _history("gpt-5-mini"))
    assert items[1] == REASONING_ITEM
    assert items[2] == {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Reading.", "annotations": []}],
        "status": "completed",
        "id": "msg_7",
        "phase": "commentary",
    }
    assert items[3] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "read",
        "arguments": '{"path":"a.py"}',
        "id": "fc_1",
    }
    assert items[4] == {"type": "function_call_output", "call_id": "call_1", "output": "print(1)"}


async def test_other_model_of_same_provider_drops_reasoning_and_fc_id(server: ScriptedServer) -> None:
    items = await _replayed_input(server, make_model(server), _history("gpt-5"))
    assert [item.get("type") for item in items[1:]] == ["message", "function_call", "function_call_output"]
    said, call = items[1], items[2]
    assert "I should read it." not in json.dumps(items)
    assert said["id"] == "msg_1" and "phase" not in said
    assert "id" not in call
    assert call["call_id"] == "call_1"
    assert items[3]["call_id"] == "call_1"


async def test_other_provider_ids_are_normalized_for_openai(server: ScriptedServer) -> None:
    long_call = "call_" + "x" * 70
    long_item = "item+" + "y" * 58 + "_z"
    messages: list[Message] = [
        UserMessage(content="go"),
        _assistant(
            "claude-sonnet-4-5",
            [
                ToolCall(id="toolu_01A.b", name="read", arguments={}),
                ToolCall(id=f"{long_call}|{long_item}", name="bash", arguments={"command": "ls"}),
            ],
            provider="anthropic",
            api="anthropic-messages",
        ),
        ToolResultMessage(tool_call_id="toolu_01A.b", tool_name="read", content=[TextContent(text="r")]),
        ToolResultMessage(tool_call_id=f"{long_call}|{long_item}", tool_name="bash", content=[TextContent(text="b")]),
    ]
    items = await _replayed_input(server, make_model(server), messages)
    first, second, first_out, second_out = items[1:5]
    assert first == {"type": "function_call", "call_id": "toolu_01A_b", "name": "read", "arguments": "{}"}
    assert len(second["call_id"]) == 64 and second["call_id"] == long_call[:64]
    assert second["id"].startswith("fc_item_")
    assert len(second["id"]) <= 64 and not second["id"].endswith("_")
    assert first_out["call_id"] == "toolu_01A_b"
    assert second_out["call_id"] == second["call_id"]


def test_normalizer_rules() -> None:
    openai = Model(id="gpt-5", name="GPT-5", api="openai-responses", provider="openai", base_url="")
    copilot = openai.model_copy(update={"provider": "github-copilot"})
    source = _assistant("claude", [], provider="anthropic", api="anthropic-messages")
    normalized = normalize_tool_call_id("call:a/b|weird id" + "_" * 70, openai, source)
    call_id, item_id = normalized.split("|")
    assert call_id == "call_a_b"
    assert item_id == "fc_weird_id"
    assert normalize_tool_call_id("call_1|fcx", openai, source) == "call_1|fcx"
    over = normalize_tool_call_id("c" * 63 + "_" + "d" * 5 + "|fc_" + "e" * 80, openai, source)
    assert over == "c" * 63 + "|fc_" + "e" * 61
    assert normalize_tool_call_id("call:a|weird id", copilot, source) == "call:a|weird id"


def test_text_signature_forms() -> None:
    assert parse_text_signature("msg_legacy") == ("msg_legacy", None)
    assert parse_text_signature('{"v":1,"id":"msg_2","phase":"final_answer"}') == ("msg_2", "final_answer")
    assert parse_text_signature(None) == (None, None)
    assert encode_text_signature("msg_3", None) == '{"v":1,"id":"msg_3"}'
    assert short_hash("a") == short_hash("a") != short_hash("b")


async def test_legacy_and_overlong_text_ids(server: ScriptedServer) -> None:
    long_id = "msg_" + "z" * 80
    messages: list[Message] = [
        UserMessage(content="hi"),
        AssistantMessage(
            api="openai-responses",
            provider="openai",
            model="gpt-5-mini",
            content=[TextContent(text="a", text_signature="msg_plain"), TextContent(text="b", text_signature=long_id)],
        ),
        UserMessage(content="again"),
    ]
    items = await _replayed_input(server, make_model(server), messages)
    assert items[1]["id"] == "msg_plain" and "phase" not in items[1]
    assert items[2]["id"] == f"msg_{short_hash(long_id)}"
    assert len(items[2]["id"]) <= 64


async def test_tool_result_images_for_vision_models_only(server: ScriptedServer) -> None:
    image = ImageContent(data="AAAA", mime_type="image/jpeg")

    def history() -> list[Message]:
        return [
            UserMessage(content="shot"),
            _assistant("gpt-5-mini", [ToolCall(id="call_1|fc_1", name="screenshot", arguments={})]),
            ToolResultMessage(
                tool_call_id="call_1|fc_1", tool_name="screenshot", content=[TextContent(text="here"), image]
            ),
            ToolResultMessage(tool_call_id="call_1|fc_1", tool_name="screenshot", content=[image]),
        ]

    vision = await _replayed_input(server, make_model(server), history()[:3])
    assert vision[-1]["output"] == [
        {"type": "input_text", "text": "here"},
        {"type": "input_image", "detail": "auto", "image_url": "data:image/jpeg;base64,AAAA"},
    ]
    blind = await _replayed_input(server, make_model(server, input=["text"]), history()[:3])
    assert isinstance(blind[-1]["output"], str)
    assert blind[-1]["output"].startswith("here")
    assert "AAAA" not in json.dumps(blind)
    only_image = history()
    del only_image[2]
    items = await _replayed_input(server, make_model(server), only_image)
    assert items[-1]["output"] == [
        {"type": "input_image", "detail": "auto", "image_url": "data:image/jpeg;base64,AAAA"}
    ]
    text_model = make_model(server, id="gpt-5-nano", input=["text"])
    items = await _replayed_input(server, text_model, only_image)
    assert "AAAA" not in json.dumps(items)


async def test_empty_tool_result_still_has_output(server: ScriptedServer) -> None:
    messages: list[Message] = [
        UserMessage(content="touch"),
        _assistant("gpt-5-mini", [ToolCall(id="call_1|fc_1", name="bash", arguments={"command": "touch a"})]),
        ToolResultMessage(tool_call_id="call_1|fc_1", tool_name="bash", content=[]),
    ]
    items = await _replayed_input(server, make_model(server), messages)
    assert items[-1] == {"type": "function_call_output", "call_id": "call_1", "output": "(no tool output)"}


async def test_whitespace_only_tool_result_gets_the_placeholder(server: ScriptedServer) -> None:
    messages: list[Message] = [
        UserMessage(content="touch"),
        _assistant("gpt-5-mini", [ToolCall(id="call_1|fc_1", name="bash", arguments={"command": "touch a"})]),
        ToolResultMessage(tool_call_id="call_1|fc_1", tool_name="bash", content=[TextContent(text=" \n ")]),
    ]
    items = await _replayed_input(server, make_model(server), messages)
    assert items[-1]["output"] == "(no tool output)"


async def test_errored_turns_are_not_replayed(server: ScriptedServer) -> None:
    failed = _assistant("gpt-5-mini", [ThinkingContent(thinking="x", thinking_signature=json.dumps(REASONING_ITEM))])
    failed.stop_reason = "error"
    failed.error_message = "boom"
    items = await _replayed_input(
        server, make_model(server), [UserMessage(content="a"), failed, UserMessage(content="b")]
    )
    assert [item.get("role") for item in items] == ["user", "user"]


async def test_the_completed_event_then_the_end_of_the_body_keeps_the_connection(
    keep_alive_server: ScriptedServer,
) -> None:
    model = make_model(keep_alive_server)
    for text in ("first", "second"):
        keep_alive_server.queue(ok_reply(text))
        _, message = await run(model, hello())
        assert message.stop_reason == "stop", message.error_message
    assert keep_alive_server.connections == 1


async def test_system_messages_in_place_or_folded_per_compat(server: ScriptedServer) -> None:
    from pi.ai.types import ModelCompat, SystemMessage

    history = Context(
        messages=[
            SystemMessage(content="Base.", sections={"s": "One."}),
            UserMessage(content="a"),
            SystemMessage(sections={"s": None}),
            UserMessage(content="b"),
        ]
    )
    server.queue(ok_reply(), ok_reply())
    await run(make_model(server), history)
    await run(make_model(server, compat=ModelCompat(supports_mid_convo_system_messages=True)), history)
    folded, in_place = (r.json()["input"] for r in server.requests)
    assert folded[0] == {"role": "developer", "content": "Base."}
    assert [item["role"] for item in folded[:3]] == ["developer", "user", "user"]
    assert in_place[0] == {"role": "developer", "content": "Base.\n\nOne."}
    assert in_place[2] == {"role": "developer", "content": 'Removed system prompt section "s".'}


async def test_compat_can_refuse_the_developer_role_and_max_output_tokens(server: ScriptedServer) -> None:
    from pi.ai.types import ModelCompat

    compat = ModelCompat(supports_developer_role=False, supports_max_output_tokens=False)
    server.queue(ok_reply())
    await run(make_model(server, compat=compat), hello(), max_tokens=500)
    body = server.requests[-1].json()
    assert body["input"][0]["role"] == "system"
    assert "max_output_tokens" not in body
