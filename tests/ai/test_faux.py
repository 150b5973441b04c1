"""The scripted provider streams real event grammar, reports failures as events and answers what was sent."""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

import pytest

from pi.ai.abort import AbortController
from pi.ai.faux import (
    NO_MORE_RESPONSES,
    FauxProvider,
    FauxState,
    faux_assistant_message,
    faux_text,
    faux_thinking,
    faux_tool_call,
    register_faux_provider,
)
from pi.ai.options import StreamOptions
from pi.ai.stream import complete, stream
from pi.ai.types import Context, Model, UserMessage
from tests.support.content import text_of


def ctx(text: str = "hello") -> Context:
    return Context(messages=[UserMessage(content=text)])


async def collect(faux: FauxProvider, context: Context | None = None, **options: Any) -> list[Any]:
    return [event async for event in stream(faux.model, context or ctx(), **options)]


async def test_text_streams_in_several_deltas_with_one_terminal_event(faux: FauxProvider) -> None:
    text = "The quick brown fox jumps over the lazy dog, twice over, for good measure."
    faux.set_responses([faux_assistant_message(text)])
    events = await collect(faux)
    types = [e.type for e in events]
    assert types[0] == "start" and types[1] == "text_start"
    assert types[-2:] == ["text_end", "done"]
    deltas = [e.delta for e in events if e.type == "text_delta"]
    assert len(deltas) > 2
    assert "".join(deltas) == text
    assert all(len(d) <= 20 for d in deltas)
    done = events[-1]
    assert done.reason == "stop"
    assert done.message.content[0].text == text
    assert done.message.api == faux.api and done.message.provider == "faux" and done.message.model == "faux-1"


async def test_tool_call_arguments_stream_as_json_text(faux: FauxProvider) -> None:
    args = {"path": "src/some/long/file/name.py", "limit": 20, "nested": {"k": [1, 2, 3]}}
    faux.set_responses([faux_assistant_message([faux_thinking("let me see"), faux_tool_call("read", args, id="c1")])])
    events = await collect(faux)
    types = [e.type for e in events]
    assert types[:4] == ["start", "thinking_start", "thinking_delta", "thinking_end"]
    assert types[4] == "toolcall_start"
    json_text = "".join(e.delta for e in events if e.type == "toolcall_delta")
    assert json_text.startswith("{") and types.count("toolcall_delta") > 1
    end = next(e for e in events if e.type == "toolcall_end")
    assert end.tool_call.id == "c1" and end.tool_call.arguments == args
    assert events[-1].type == "done" and events[-1].reason == "toolUse"


async def test_empty_queue_is_an_error_event_and_still_counts_the_call(faux: FauxProvider) -> None:
    message = await complete(faux.model, ctx())
    assert message.stop_reason == "error"
    assert message.error_message == NO_MORE_RESPONSES
    assert faux.call_count == 1


async def test_factory_sees_the_request_and_may_be_async(faux: FauxProvider) -> None:
    seen: list[tuple[Context, StreamOptions, int, Model]] = []

    def sync_factory(context: Context, options: StreamOptions, state: FauxState, model: Model) -> Any:
        seen.append((context, options, state.call_count, model))
        return faux_assistant_message(f"you said {context.messages[-1].content}")

    async def async_factory(context: Context, options: StreamOptions, state: FauxState, model: Model) -> Any:
        await asyncio.sleep(0)
        return faux_assistant_message(f"call {state.call_count}")

    faux.set_responses([sync_factory, async_factory])
    first = await complete(faux.model, ctx("ping"), api_key="k1")
    second = await complete(faux.model, ctx())
    assert text_of(first.content[0]) == "you said ping"
    assert text_of(second.content[0]) == "call 2"
    assert seen[0][1].api_key == "k1" and seen[0][2] == 1 and seen[0][3] is faux.model


async def test_abort_mid_stream_ends_aborted_with_partial_content(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message("word " * 200)])
    controller = AbortController()
    events = []
    async for event in stream(faux.model, ctx(), signal=controller.signal):
        events.append(event)
        if event.type == "text_delta":
            controller.abort()
    final = events[-1]
    assert final.type == "error" and final.reason == "aborted"
    assert final.error.stop_reason == "aborted"
    assert final.error.error_message == "Request was aborted"
    assert text_of(final.error.content[0]).startswith("word")


async def test_scripted_error_and_abort_end_with_error_events(faux: FauxProvider) -> None:
    faux.set_responses(
        [
            faux_assistant_message("partial answer", stop_reason="error", error_message="overloaded"),
            faux_assistant_message("cut", stop_reason="aborted"),
        ]
    )
    first = await collect(faux)
    assert [e.type for e in first][-2:] == ["text_end", "error"]
    assert first[-1].reason == "error" and first[-1].error.error_message == "overloaded"
    assert text_of(first[-1].error.content[0]) == "partial answer"
    second = await collect(faux)
    assert second[-1].type == "error" and second[-1].reason == "aborted"
    assert second[-1].error.stop_reason == "aborted"
    assert second[-1].error.error_message == "Request was aborted"


async def test_usage_is_estimated_from_characters(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message("x" * 41)])
    message = await complete(faux.model, Context(system_prompt="s" * 10, messages=[UserMessage(content="u" * 7)]))
    assert message.usage.input == math.ceil(17 / 4)
    assert message.usage.output == math.ceil(41 / 4)
    assert message.usage.total_tokens == message.usage.input + message.usage.output


async def test_queue_management_and_models() -> None:
    custom = Model(id="big", name="Big", api="x", provider="x", base_url="http://x", reasoning=True)
    faux = register_faux_provider(provider="scripted", models=["small", custom])
    try:
        assert faux.model.id == "small" and faux.model.provider == "scripted"
        big = faux.get_model("big")
        assert big.api == faux.api and big.reasoning
        with pytest.raises(KeyError):
            faux.get_model("missing")
        faux.set_responses([faux_assistant_message("a"), faux_assistant_message("b")])
        faux.append_responses([faux_assistant_message("c")])
        assert faux.pending_response_count == 3
        faux.set_responses([faux_assistant_message("only")])
        assert faux.pending_response_count == 1
        assert text_of((await complete(big, ctx())).content[0]) == "only"
        assert faux.pending_response_count == 0
    finally:
        faux.unregister()
    with pytest.raises(ValueError, match="No API provider registered"):
        stream(faux.model, ctx())


async def test_each_registration_gets_its_own_api(faux: FauxProvider) -> None:
    other = register_faux_provider(responses=[faux_assistant_message("other")])
    try:
        faux.set_responses([faux_assistant_message("first")])
        assert other.api != faux.api
        assert text_of((await complete(other.model, ctx())).content[0]) == "other"
        assert text_of((await complete(faux.model, ctx())).content[0]) == "first"
    finally:
        other.unregister()


async def test_tokens_per_second_paces_the_stream() -> None:
    faux = register_faux_provider(tokens_per_second=200, responses=[faux_assistant_message("y" * 80)])
    try:
        started = time.perf_counter()
        await complete(faux.model, ctx())
        assert time.perf_counter() - started >= 0.08  # 20 tokens at 200 per second
    finally:
        faux.unregister()


async def test_on_payload_sees_the_request(faux: FauxProvider) -> None:
    payloads: list[dict[str, Any]] = []
    faux.set_responses([faux_assistant_message("ok")])
    await complete(faux.model, ctx("look"), on_payload=lambda payload, model: payloads.append(payload))
    assert payloads[0]["context"]["messages"][0]["content"] == "look"


def test_scripted_message_defaults() -> None:
    assert faux_assistant_message("hi").stop_reason == "stop"
    assert faux_assistant_message([faux_tool_call("t", {})]).stop_reason == "toolUse"
    assert faux_assistant_message(faux_text("x"), stop_reason="length").stop_reason == "length"
    assert faux_assistant_message("").content == []
    assert faux_tool_call("a").id != faux_tool_call("a").id
    assert faux_assistant_message("t", timestamp=5).timestamp == 5
