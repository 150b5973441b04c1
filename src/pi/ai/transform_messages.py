"""Make a conversation safe to send to a given model, whichever models wrote it.

A session can switch models mid-way. What one provider wrote (signed thinking, opaque signatures,
tool-call ids in its own alphabet) may be rejected by another, and an aborted turn can leave tool
calls with no result, which every API refuses. Thinking written by another model is dropped: it was
that model's scratch work, and replayed as text it would read as something the new model said.
Every provider's message converter runs this first. The input is never mutated; system messages
pass through untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pi.ai.input_limits import limit_images
from pi.ai.types import (
    AssistantContent,
    AssistantMessage,
    ImageContent,
    Message,
    Model,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

NormalizeToolCallId = Callable[[str, Model, AssistantMessage], str]
"""(original id, target model, the message that made the call) -> id acceptable to the target."""

NO_RESULT_TEXT = "No result provided"
IMAGE_OMITTED = "(image omitted: model does not support images)"
TOOL_IMAGE_OMITTED = "(tool image omitted: model does not support images)"


def is_same_model(message: AssistantMessage, model: Model) -> bool:
    return message.provider == model.provider and message.api == model.api and message.model == model.id


def transform_messages(
    messages: Sequence[Message],
    model: Model,
    normalize_tool_call_id: NormalizeToolCallId | None = None,
) -> list[Message]:
    """Return the messages as `model` should see them (see the module docstring for why)."""
    vision = "image" in model.input
    id_map: dict[str, str] = {}
    first: list[Message] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            first.append(_transform_assistant(message, model, normalize_tool_call_id, id_map))
        elif isinstance(message, ToolResultMessage):
            updates: dict[str, object] = {}
            if message.tool_call_id in id_map:
                updates["tool_call_id"] = id_map[message.tool_call_id]
            if not vision and any(isinstance(block, ImageContent) for block in message.content):
                updates["content"] = _without_images(message.content, TOOL_IMAGE_OMITTED)
            first.append(message.model_copy(update=updates) if updates else message)
        elif isinstance(message, UserMessage):
            content = message.content
            if not vision and not isinstance(content, str) and any(isinstance(b, ImageContent) for b in content):
                message = message.model_copy(update={"content": _without_images(content, IMAGE_OMITTED)})
            first.append(message)
        else:
            first.append(message)
    return limit_images(_repair_tool_results(first), model)


def _without_images(blocks: Sequence[TextContent | ImageContent], placeholder: str) -> list[TextContent | ImageContent]:
    out: list[TextContent | ImageContent] = []
    for block in blocks:
        if isinstance(block, ImageContent):
            if not (out and isinstance(out[-1], TextContent) and out[-1].text == placeholder):
                out.append(TextContent(text=placeholder))
        else:
            out.append(block)
    return out


def _transform_assistant(
    message: AssistantMessage,
    model: Model,
    normalize: NormalizeToolCallId | None,
    id_map: dict[str, str],
) -> AssistantMessage:
    same = is_same_model(message, model)
    if same and not any(_empty_unsigned_thinking(block) for block in message.content):
        return message  # the usual case, and every request re-sends the whole history: no copy
    content: list[AssistantContent] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            if block.redacted:
                if same:
                    content.append(block)
                continue
            if same and block.thinking_signature:
                content.append(block)
                continue
            if same and block.thinking.strip():
                content.append(block)
        elif isinstance(block, TextContent):
            content.append(block if same else TextContent(text=block.text))
        else:
            if same:
                content.append(block)
                continue
            new_id = normalize(block.id, model, message) if normalize else block.id
            if new_id != block.id:
                id_map[block.id] = new_id
            content.append(ToolCall(id=new_id, name=block.name, arguments=dict(block.arguments)))
    if len(content) == len(message.content) and all(a is b for a, b in zip(content, message.content, strict=True)):
        return message  # nothing was rewritten (an empty message from another model)
    return message.model_copy(update={"content": content})


def _empty_unsigned_thinking(block: AssistantContent) -> bool:
    """The one block a same-model replay drops: thinking with no text, no signature, not redacted."""
    return (
        isinstance(block, ThinkingContent)
        and not block.redacted
        and not block.thinking_signature
        and not block.thinking.strip()
    )


def _repair_tool_results(messages: list[Message]) -> list[Message]:
    """Drop failed assistant turns and orphan results; give every unanswered tool call an error result."""
    out: list[Message] = []
    pending: list[ToolCall] = []

    def flush() -> None:
        for call in pending:
            out.append(
                ToolResultMessage(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    content=[TextContent(text=NO_RESULT_TEXT)],
                    is_error=True,
                )
            )
        pending.clear()

    for message in messages:
        if isinstance(message, AssistantMessage):
            flush()
            if message.stop_reason in ("error", "aborted"):
                continue
            pending.extend(block for block in message.content if isinstance(block, ToolCall))
            out.append(message)
        elif isinstance(message, ToolResultMessage):
            # A result whose call is not open (its turn was dropped) would be rejected as an orphan.
            if any(call.id == message.tool_call_id for call in pending):
                pending[:] = [call for call in pending if call.id != message.tool_call_id]
                out.append(message)
        elif isinstance(message, SystemMessage):
            out.append(message)  # a prompt update does not close the open tool calls
        else:
            assert isinstance(message, UserMessage)
            flush()
            out.append(message)
    flush()
    return out


__all__ = [
    "IMAGE_OMITTED",
    "NO_RESULT_TEXT",
    "TOOL_IMAGE_OMITTED",
    "NormalizeToolCallId",
    "is_same_model",
    "transform_messages",
]
