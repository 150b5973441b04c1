"""Handing a conversation written by one model to another."""

from __future__ import annotations

import copy
import json
from typing import Any

from pi.ai.transform_messages import (
    IMAGE_OMITTED,
    NO_RESULT_TEXT,
    TOOL_IMAGE_OMITTED,
    transform_messages,
)
from pi.ai.types import (
    AssistantContent,
    AssistantMessage,
    ImageContent,
    Message,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

CLAUDE = Model(
    id="claude-sonnet-4-5",
    name="Claude",
    api="anthropic-messages",
    provider="anthropic",
    base_url="https://api.anthropic.com",
    input=["text", "image"],
)
GPT = Model(
    id="gpt-5.2",
    name="GPT",
    api="openai-responses",
    provider="openai",
    base_url="https://api.openai.com/v1",
    input=["text", "image"],
)
TEXT_ONLY = Model(id="glm-4.6", name="GLM", api="openai-completions", provider="zai", base_url="https://api.z.ai")


def by(model: Model, *content: AssistantContent, stop: StopReason = "stop") -> AssistantMessage:
    return AssistantMessage(
        content=list(content), api=model.api, provider=model.provider, model=model.id, stop_reason=stop
    )


def result(call_id: str, text: str = "ok", name: str = "bash") -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)])


def dump(messages: list[Message]) -> list[dict[str, Any]]:
    return [m.to_json_dict() for m in messages]


def test_thinking_of_another_model_is_dropped_not_replayed_as_text() -> None:
    history: list[Message] = [
        UserMessage(content="hi"),
        by(CLAUDE, ThinkingContent(thinking="Let me think.", thinking_signature="sig"), TextContent(text="Hello")),
        by(CLAUDE, ThinkingContent(thinking="Unsigned musing.")),
    ]
    out = transform_messages(history, GPT)
    assistant = out[1]
    assert isinstance(assistant, AssistantMessage)
    assert assistant.content == [TextContent(text="Hello")]
    assert "musing" not in json.dumps(dump(out))


def test_same_model_keeps_thinking_and_signatures() -> None:
    message = by(
        CLAUDE,
        ThinkingContent(thinking="", thinking_signature="encrypted"),
        ThinkingContent(thinking="", thinking_signature="opaque", redacted=True),
        TextContent(text="Hi", text_signature="msg_1"),
        ToolCall(id="toolu_1", name="bash", arguments={"command": "ls"}, thought_signature="ts"),
    )
    out = transform_messages([message, result("toolu_1")], CLAUDE)
    assert out[0] == message


def test_redacted_and_empty_thinking_are_dropped_for_another_model() -> None:
    message = by(
        CLAUDE,
        ThinkingContent(thinking="[Reasoning redacted]", thinking_signature="opaque", redacted=True),
        ThinkingContent(thinking="   "),
        TextContent(text="answer"),
    )
    out = transform_messages([message], GPT)
    assert isinstance(out[0], AssistantMessage)
    assert out[0].content == [TextContent(text="answer")]


def test_unsigned_empty_thinking_is_dropped_even_for_the_same_model() -> None:
    out = transform_messages([by(CLAUDE, ThinkingContent(thinking=""), TextContent(text="a"))], CLAUDE)
    assert isinstance(out[0], AssistantMessage)
    assert out[0].content == [TextContent(text="a")]


def test_signatures_are_stripped_for_another_model() -> None:
    message = by(
        GPT,
        TextContent(text="Running it", text_signature='{"v":1,"id":"msg_1"}'),
        ToolCall(id="call_1|fc_1", name="bash", arguments={"command": "ls"}, thought_signature="sig"),
        stop="toolUse",
    )
    out = transform_messages([message, result("call_1|fc_1")], CLAUDE)
    assistant = out[0]
    assert isinstance(assistant, AssistantMessage)
    assert assistant.content[0] == TextContent(text="Running it")
    call = assistant.content[1]
    assert isinstance(call, ToolCall)
    assert call.thought_signature is None
    assert call.arguments == {"command": "ls"}


def test_normalized_ids_are_applied_to_the_results() -> None:
    def normalize(call_id: str, model: Model, source: AssistantMessage) -> str:
        assert model is CLAUDE
        assert source.provider == "openai"
        return call_id.split("|")[0]

    history: list[Message] = [
        UserMessage(content="go"),
        by(GPT, ToolCall(id="call_a|fc_a", name="bash", arguments={}), stop="toolUse"),
        result("call_a|fc_a", "done"),
    ]
    out = transform_messages(history, CLAUDE, normalize)
    call = out[1]
    assert isinstance(call, AssistantMessage) and isinstance(call.content[0], ToolCall)
    assert call.content[0].id == "call_a"
    tool_result = out[2]
    assert isinstance(tool_result, ToolResultMessage)
    assert tool_result.tool_call_id == "call_a"
    assert tool_result.content == [TextContent(text="done")]


def test_ids_of_the_same_model_are_not_normalized() -> None:
    history: list[Message] = [by(CLAUDE, ToolCall(id="a|b", name="bash", arguments={}), stop="toolUse"), result("a|b")]
    out = transform_messages(history, CLAUDE, lambda call_id, model, source: "changed")
    assert isinstance(out[1], ToolResultMessage)
    assert out[1].tool_call_id == "a|b"


def test_errored_and_aborted_turns_are_dropped_with_their_results() -> None:
    history: list[Message] = [
        UserMessage(content="one"),
        by(CLAUDE, TextContent(text="partial"), ToolCall(id="t1", name="bash", arguments={}), stop="error"),
        result("t1"),
        UserMessage(content="two"),
        by(CLAUDE, ToolCall(id="t2", name="bash", arguments={}), stop="aborted"),
        UserMessage(content="three"),
    ]
    out = transform_messages(history, CLAUDE)
    assert [m.role for m in out] == ["user", "user", "user"]


def test_unanswered_tool_calls_get_a_synthetic_error_result() -> None:
    history: list[Message] = [
        UserMessage(content="go"),
        by(
            CLAUDE,
            ToolCall(id="t1", name="read", arguments={}),
            ToolCall(id="t2", name="bash", arguments={}),
            stop="toolUse",
        ),
        result("t1", name="read"),
        UserMessage(content="stop that"),
        by(CLAUDE, ToolCall(id="t3", name="write", arguments={}), stop="toolUse"),
    ]
    out = transform_messages(history, CLAUDE)
    assert [m.role for m in out] == ["user", "assistant", "toolResult", "toolResult", "user", "assistant", "toolResult"]
    synthetic = out[3]
    assert isinstance(synthetic, ToolResultMessage)
    assert (synthetic.tool_call_id, synthetic.tool_name, synthetic.is_error) == ("t2", "bash", True)
    assert synthetic.content == [TextContent(text=NO_RESULT_TEXT)]
    assert NO_RESULT_TEXT == "No result provided"
    at_end = out[6]
    assert isinstance(at_end, ToolResultMessage)
    assert (at_end.tool_call_id, at_end.content) == ("t3", [TextContent(text="No result provided")])


def test_images_are_replaced_for_a_text_only_model() -> None:
    image = ImageContent(data="aGk=", mime_type="image/png")
    history: list[Message] = [
        UserMessage(content=[TextContent(text="look"), image, image]),
        by(CLAUDE, ToolCall(id="t1", name="read", arguments={}), stop="toolUse"),
        ToolResultMessage(tool_call_id="t1", tool_name="read", content=[image]),
    ]
    out = transform_messages(history, TEXT_ONLY)
    user = out[0]
    assert isinstance(user, UserMessage)
    assert user.content == [TextContent(text="look"), TextContent(text=IMAGE_OMITTED)]
    tool_result = out[2]
    assert isinstance(tool_result, ToolResultMessage)
    assert tool_result.content == [TextContent(text=TOOL_IMAGE_OMITTED)]
    assert transform_messages(history, CLAUDE)[0] == history[0]


def test_input_is_never_mutated() -> None:
    history: list[Message] = [
        UserMessage(content="go"),
        by(
            GPT,
            ThinkingContent(thinking="hmm", thinking_signature="{}"),
            ToolCall(id="c|f", name="bash", arguments={"a": 1}, thought_signature="s"),
            stop="toolUse",
        ),
        result("c|f"),
        by(GPT, TextContent(text="x"), stop="error"),
    ]
    before = dump(copy.deepcopy(history))
    transform_messages(history, CLAUDE, lambda call_id, model, source: "renamed")
    assert dump(history) == before


def test_unchanged_messages_are_passed_through_without_copying() -> None:
    """Every request re-sends the history; a message the target model sees as it is is not copied."""
    kept = by(CLAUDE, ThinkingContent(thinking="hm", thinking_signature="sig"), ToolCall(id="t1", name="bash"))
    answer = result("t1")
    question = UserMessage(content="hi")
    out = transform_messages([question, kept, answer], CLAUDE)
    assert out[0] is question and out[1] is kept and out[2] is answer
    dropped = by(CLAUDE, ThinkingContent(thinking="  "), TextContent(text="Hello"))
    changed = transform_messages([question, dropped], CLAUDE)[1]
    assert changed is not dropped
    assert isinstance(changed, AssistantMessage) and changed.content == [TextContent(text="Hello")]
    assert len(dropped.content) == 2
