"""The conversation as OpenAI Chat Completions messages, for every server that speaks the API.

What differs between servers (a bridge message after tool results for Mistral, thinking replayed as
text, nine-character tool-call ids, where reasoning is replayed) is read from the resolved compat
flags; this module only applies them.
"""

from __future__ import annotations

import hashlib
import json
import re
import string
from collections.abc import Mapping, Sequence
from typing import Any

from pi.ai.providers.grammar_tools import grammar_input
from pi.ai.providers.openai_compat import ResolvedCompat
from pi.ai.sanitize import sanitize_surrogates
from pi.ai.transcript import render_system_message_update
from pi.ai.transform_messages import transform_messages
from pi.ai.types import (
    AssistantMessage,
    Context,
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
from pi.ai.wire_json import json_text

BRIDGE_TEXT = "I have processed the tool results."
TOOL_IMAGES_TEXT = "Attached image(s) from tool result:"
IMAGE_ONLY_RESULT_TEXT = "(see attached image)"
EMPTY_RESULT_TEXT = "(no tool output)"

_FIELD_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ID_UNSAFE = r"[^a-zA-Z0-9_-]"
_ALNUM = string.digits + string.ascii_letters


# --- message conversion ---------------------------------------------------------------------------


def normalize_tool_call_id(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    """Ids written by another API: Responses' ``call|item`` pairs keep the call part; OpenAI caps at 40."""
    if "|" in tool_call_id:
        return re.sub(_ID_UNSAFE, "_", tool_call_id.split("|", 1)[0])[:40]
    if model.provider == "openai":
        return tool_call_id[:40]
    return tool_call_id


def mistral_tool_call_id(tool_call_id: str) -> str:
    """Nine letters or digits, the same for the same input (the call and its result must agree)."""
    kept = "".join(ch for ch in tool_call_id if ch.isascii() and ch.isalnum())
    if len(kept) == 9:
        return kept
    number = int.from_bytes(hashlib.sha256(tool_call_id.encode("utf-8")).digest()[:8], "big")
    digits = []
    for _ in range(9):
        number, rest = divmod(number, len(_ALNUM))
        digits.append(_ALNUM[rest])
    return "".join(digits)


def _wire_id(tool_call_id: str, compat: ResolvedCompat) -> str:
    return mistral_tool_call_id(tool_call_id) if compat.requires_mistral_tool_ids else tool_call_id


def _image_part(image: ImageContent) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{image.mime_type};base64,{image.data}"}}


def _user_message(message: UserMessage) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": sanitize_surrogates(message.content)}
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            parts.append({"type": "text", "text": sanitize_surrogates(block.text)})
        else:
            parts.append(_image_part(block))
    return {"role": "user", "content": parts} if parts else None


def _reasoning_details(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
    """OpenRouter's encrypted reasoning, stashed on the tool calls it belonged to."""
    details: list[dict[str, Any]] = []
    for call in calls:
        if not call.thought_signature:
            continue
        try:
            detail = json.loads(call.thought_signature)
        except ValueError:
            continue
        if isinstance(detail, dict) and detail.get("type") == "reasoning.encrypted":
            details.append(detail)
    return details


def _tool_call(call: ToolCall, compat: ResolvedCompat, grammar: Mapping[str, str]) -> dict[str, Any]:
    """A stored tool call as sent back: a ``custom`` call with its raw input for a grammar tool."""
    prop = grammar.get(call.name)
    if prop is not None:
        raw = grammar_input(call.name, call.arguments, prop)
        return {
            "id": _wire_id(call.id, compat),
            "type": "custom",
            "custom": {"name": call.name, "input": sanitize_surrogates(raw)},
        }
    return {
        "id": _wire_id(call.id, compat),
        "type": "function",
        "function": {"name": call.name, "arguments": json_text(call.arguments)},
    }


def _assistant_message(
    message: AssistantMessage, model: Model, compat: ResolvedCompat, grammar: Mapping[str, str]
) -> dict[str, Any] | None:
    texts: list[str] = []
    thinking: list[ThinkingContent] = []
    calls: list[ToolCall] = []
    for block in message.content:  # one pass: every request converts the whole history again
        if isinstance(block, ToolCall):
            calls.append(block)
        elif isinstance(block, TextContent):
            if block.text.strip():
                texts.append(sanitize_surrogates(block.text))
        elif block.thinking.strip():
            thinking.append(block)
    text = "".join(texts)
    empty = "" if compat.requires_assistant_after_tool_result or compat.requires_non_null_assistant_content else None
    out: dict[str, Any] = {"role": "assistant", "content": empty}
    if thinking and compat.requires_thinking_as_text:
        thought = sanitize_surrogates("\n\n".join(block.thinking for block in thinking))
        text = f"{thought}\n\n{text}" if text else thought
    elif thinking:
        field_name = thinking[0].thinking_signature
        if field_name and re.fullmatch(_FIELD_NAME, field_name):
            out[field_name] = sanitize_surrogates("\n".join(block.thinking for block in thinking))
    if text:
        out["content"] = text
    if calls:
        out["tool_calls"] = [_tool_call(call, compat, grammar) for call in calls]
        details = _reasoning_details(calls)
        if details:
            out["reasoning_details"] = details
    if not out["content"] and not calls:
        return None
    if compat.requires_reasoning_content_on_assistant_messages and model.reasoning:
        out.setdefault("reasoning_content", "")
    return out


def _tool_message(message: ToolResultMessage, compat: ResolvedCompat) -> dict[str, Any]:
    text = "\n".join(block.text for block in message.content if isinstance(block, TextContent))
    if not text.strip():
        has_images = any(isinstance(block, ImageContent) for block in message.content)
        text = IMAGE_ONLY_RESULT_TEXT if has_images else EMPTY_RESULT_TEXT
    out: dict[str, Any] = {
        "role": "tool",
        "content": sanitize_surrogates(text),
        "tool_call_id": _wire_id(message.tool_call_id, compat),
    }
    if compat.requires_tool_result_name:
        out["name"] = message.tool_name
    return out


def convert_messages(
    model: Model, context: Context, compat: ResolvedCompat, grammar_inputs: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """The conversation as Chat Completions messages (spec A5), system prompt first.

    `grammar_inputs` names the tools sent as grammar tools (name -> the argument holding the raw
    input, see `grammar_tools`); their calls are replayed as ``custom`` calls."""
    grammar = grammar_inputs or {}
    out: list[dict[str, Any]] = []
    role = "developer" if model.reasoning and compat.supports_developer_role else "system"
    if context.system_prompt:
        out.append({"role": role, "content": sanitize_surrogates(context.system_prompt)})
    bridge = {"role": "assistant", "content": BRIDGE_TEXT}
    messages: list[Message] = transform_messages(context.messages, model, normalize_tool_call_id)
    last_role: str | None = None
    i = 0
    while i < len(messages):
        message = messages[i]
        if isinstance(message, ToolResultMessage):
            images: list[ImageContent] = []
            while i < len(messages) and isinstance(messages[i], ToolResultMessage):
                result = messages[i]
                assert isinstance(result, ToolResultMessage)
                out.append(_tool_message(result, compat))
                images.extend(block for block in result.content if isinstance(block, ImageContent))
                i += 1
            last_role = "toolResult"
            if images and "image" in model.input:
                if compat.requires_assistant_after_tool_result:
                    out.append(dict(bridge))
                parts = [{"type": "text", "text": TOOL_IMAGES_TEXT}, *(_image_part(image) for image in images)]
                out.append({"role": "user", "content": parts})
                last_role = "user"
            continue
        i += 1
        if isinstance(message, SystemMessage):
            update = render_system_message_update(message)
            if update:
                out.append({"role": role, "content": sanitize_surrogates(update)})
            continue
        if isinstance(message, UserMessage):
            converted = _user_message(message)
            if converted is None:
                continue
            if compat.requires_assistant_after_tool_result and last_role == "toolResult":
                out.append(dict(bridge))
            out.append(converted)
            last_role = "user"
        else:
            converted = _assistant_message(message, model, compat, grammar)
            if converted is not None:
                out.append(converted)
                last_role = "assistant"
    return out


def add_anthropic_cache_control(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> None:
    """Anthropic models behind an OpenAI-compatible gateway cache only up to explicit breakpoints
    (``cacheControlFormat: "anthropic"``): mark the system prompt, the last tool and the last text."""
    for message in messages:
        if message.get("role") in ("system", "developer"):
            content = message.get("content")
            if isinstance(content, str) and content:
                message["content"] = [{"type": "text", "text": content, "cache_control": {"type": "ephemeral"}}]
            break
    if tools:
        tools[-1]["cache_control"] = {"type": "ephemeral"}
    add_openrouter_cache_control(messages)


def add_openrouter_cache_control(messages: list[dict[str, Any]]) -> None:
    """Mark the last user or assistant text as a cache breakpoint."""
    for message in reversed(messages):
        if message.get("role") not in ("user", "assistant"):
            continue
        content = message.get("content")
        if isinstance(content, str) and content:
            message["content"] = [{"type": "text", "text": content, "cache_control": {"type": "ephemeral"}}]
            return
        if isinstance(content, list):
            for part in reversed(content):
                if isinstance(part, dict) and part.get("type") == "text":
                    part["cache_control"] = {"type": "ephemeral"}
                    return


__all__ = [
    "BRIDGE_TEXT",
    "EMPTY_RESULT_TEXT",
    "IMAGE_ONLY_RESULT_TEXT",
    "TOOL_IMAGES_TEXT",
    "add_anthropic_cache_control",
    "add_openrouter_cache_control",
    "convert_messages",
    "mistral_tool_call_id",
    "normalize_tool_call_id",
]
