"""System messages in a conversation: folded into one prompt, or kept in place as named updates."""

from __future__ import annotations

from pi.ai.transcript import render_system_message_update, resolve_transcript, system_message_text
from pi.ai.transform_messages import transform_messages
from pi.ai.types import (
    AssistantMessage,
    Context,
    Message,
    Model,
    SystemMessage,
    TextContent,
    Tool,
    ToolCall,
    ToolReference,
    ToolResultMessage,
    UserMessage,
)

READ = Tool(name="read", description="Read.")
LS = Tool(name="ls", description="List.")
LS2 = Tool(name="ls", description="List, v2.")


def test_rendering_of_a_full_message_and_of_an_update() -> None:
    full = SystemMessage(content="Base.", sections={"a": "Alpha.", "b": None})
    assert system_message_text(full) == "Base.\n\nAlpha."
    update = SystemMessage(content="Also this.", sections={"a": "Alpha 2.", "b": None})
    assert render_system_message_update(update) == (
        'Also this.\n\nUpdated system prompt section "a":\n\nAlpha 2.\n\nRemoved system prompt section "b".'
    )


def test_folding_replays_sections_contents_and_tools() -> None:
    context = Context(
        system_prompt="Lead.",
        tools=[READ],
        messages=[
            SystemMessage(content="Base.", sections={"a": "A1", "b": "B1"}, tools_added=[LS]),
            UserMessage(content="hi"),
            SystemMessage(content="Extra.", sections={"a": "A2", "b": None}, tools_added=[LS2]),
            SystemMessage(tools_removed=[ToolReference(name="read")]),
        ],
    )
    folded = resolve_transcript(context)
    assert folded.system_prompt == "Lead.\n\nBase.\n\nExtra.\n\nA2"
    assert [(t.name, t.description) for t in folded.tools or []] == [("ls", "List, v2.")]
    assert [m.role for m in folded.messages] == ["user"]
    assert context.messages[0].role == "system"  # the input is not changed


def test_mid_conversation_keeps_later_messages_in_place() -> None:
    later = SystemMessage(sections={"a": "A2"})
    context = Context(messages=[SystemMessage(content="Base."), UserMessage(content="hi"), later])
    resolved = resolve_transcript(context, mid_conversation=True)
    assert resolved.system_prompt == "Base."
    assert resolved.messages[-1] is later


def test_a_context_without_system_messages_is_returned_as_is() -> None:
    context = Context(system_prompt="S", messages=[UserMessage(content="hi")])
    assert resolve_transcript(context) is context


def test_a_prompt_update_between_a_call_and_its_result_keeps_the_result() -> None:
    model = Model(id="m", name="m", api="openai-completions", provider="p", base_url="u")
    call = ToolCall(id="c1", name="read")
    messages: list[Message] = [
        UserMessage(content="go"),
        AssistantMessage(api=model.api, provider="p", model="m", content=[call], stop_reason="toolUse"),
        SystemMessage(sections={"a": "x"}),
        ToolResultMessage(tool_call_id="c1", tool_name="read", content=[TextContent(text="ok")]),
    ]
    out = transform_messages(messages, model)
    assert [m.role for m in out] == ["user", "assistant", "system", "toolResult"]
    assert isinstance(out[-1], ToolResultMessage) and not out[-1].is_error
