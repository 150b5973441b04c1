"""`inputLimits.maxRequestBytes`: the oldest images are left out until a request fits the model's limit."""

from __future__ import annotations

import json

from pi.ai.input_limits import limit_images, message_bytes, over_request_bytes
from pi.ai.options import StreamOptions
from pi.ai.stream import complete_simple
from pi.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    InputLimits,
    Message,
    Model,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.support.http_server import ScriptedServer
from tests.support.openai_chunks import text_reply


def model(max_request_bytes: int | None, base_url: str = "http://127.0.0.1:9") -> Model:
    limits = InputLimits(max_request_bytes=max_request_bytes) if max_request_bytes is not None else None
    return Model(
        id="vision",
        name="vision",
        api="openai-completions",
        provider="local",
        base_url=base_url,
        input=["text", "image"],
        input_limits=limits,
    )


def picture(tag: str, size: int = 1000) -> ImageContent:
    return ImageContent(data=(tag * size)[:size], mime_type="image/png")


def transcript() -> list[Message]:
    return [
        UserMessage(content=[TextContent(text="first"), picture("A")]),
        AssistantMessage(
            content=[ToolCall(id="t1", name="read", arguments={"path": "b.png"})],
            api="openai-completions",
            provider="local",
            model="vision",
            stop_reason="toolUse",
        ),
        ToolResultMessage(tool_call_id="t1", tool_name="read", content=[picture("B")]),
        UserMessage(content=[TextContent(text="third"), picture("C")]),
    ]


def images_of(messages: list[Message]) -> list[str]:
    return [
        block.data[0]
        for message in messages
        if not isinstance(message.content, str)
        for block in message.content
        if isinstance(block, ImageContent)
    ]


def test_within_the_limit_or_without_one_nothing_changes() -> None:
    messages = transcript()
    assert limit_images(messages, model(None)) == messages
    assert limit_images(messages, model(10_000)) == messages


def test_the_oldest_images_go_first_until_the_request_fits() -> None:
    messages = transcript()
    limit = 2_500
    assert sum(message_bytes(m) for m in messages) > limit
    limited = limit_images(messages, model(limit))
    assert images_of(limited) == ["B", "C"]
    first = limited[0]
    assert not isinstance(first.content, str)
    assert [b.text for b in first.content if isinstance(b, TextContent)] == ["first", over_request_bytes(limit)]
    assert sum(message_bytes(m) for m in limited) <= limit
    assert images_of(messages) == ["A", "B", "C"]  # the transcript itself keeps them

    assert images_of(limit_images(messages, model(1_400))) == ["C"]


def test_text_alone_over_the_limit_is_left_to_the_provider() -> None:
    messages: list[Message] = [UserMessage(content="x" * 5_000)]
    assert limit_images(messages, model(1_000)) == messages


async def test_the_request_sent_carries_the_note_instead_of_the_oldest_image(server: ScriptedServer) -> None:
    server.queue(text_reply("ok"))
    target = model(2_500, f"{server.url}/v1")
    reply = await complete_simple(target, Context(messages=transcript()), StreamOptions(api_key="k"))
    assert reply.stop_reason == "stop"
    body = json.dumps(server.requests[0].json())
    assert "A" * 100 not in body
    assert "B" * 100 in body and "C" * 100 in body
    assert over_request_bytes(2_500) in body
