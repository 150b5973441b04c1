"""The Copilot headers, computed in one place for every wire API a Copilot model can speak."""

from __future__ import annotations

import pytest

from pi.ai.providers.copilot_headers import copilot_headers, dynamic_headers
from pi.ai.types import (
    AssistantMessage,
    ImageContent,
    Message,
    Model,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

PNG = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
CALL = AssistantMessage(
    api="openai-completions", provider="github-copilot", model="m", content=[ToolCall(id="c1", name="read")]
)


def result(*content: TextContent | ImageContent) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id="c1", tool_name="read", content=list(content))


@pytest.mark.parametrize(
    ("messages", "initiator"),
    [
        ([], "user"),
        ([UserMessage(content="hi")], "user"),
        ([UserMessage(content="hi"), CALL], "agent"),
        ([UserMessage(content="hi"), CALL, result(TextContent(text="x"))], "agent"),
        ([UserMessage(content="hi"), CALL, result(TextContent(text="x")), UserMessage(content="go on")], "user"),
    ],
)
def test_initiator_is_whoever_spoke_last(messages: list[Message], initiator: str) -> None:
    assert copilot_headers(messages) == {"X-Initiator": initiator, "Openai-Intent": "conversation-edits"}


def test_an_image_anywhere_asks_for_vision() -> None:
    with_image: list[Message] = [UserMessage(content="hi"), CALL, result(TextContent(text="x"), PNG)]
    assert copilot_headers(with_image)["Copilot-Vision-Request"] == "true"
    assert copilot_headers([UserMessage(content=[TextContent(text="see"), PNG])])["Copilot-Vision-Request"] == "true"
    assert "Copilot-Vision-Request" not in copilot_headers([UserMessage(content=[TextContent(text="no image")])])


def test_only_copilot_models_get_them() -> None:
    def model(provider: str) -> Model:
        return Model(id="m", name="m", api="openai-completions", provider=provider, base_url="http://x.invalid")

    messages: list[Message] = [UserMessage(content="hi")]
    assert dynamic_headers(model("github-copilot"), messages) == copilot_headers(messages)
    assert dynamic_headers(model("openai"), messages) is None
