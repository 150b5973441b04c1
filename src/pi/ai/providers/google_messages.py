"""The conversation as Gemini ``contents`` and ``functionDeclarations``.

Gemini keeps its own thought signatures on text, thinking and function-call parts; they are
replayed only to the model that wrote them, and a Gemini 3 function call without one gets Google's
documented placeholder. Tool results are ``functionResponse`` parts, images beside them as inline
data. Everything here is pure conversion: nothing is sent.
"""

from __future__ import annotations

import re
from typing import Any

from pi.ai.sanitize import sanitize_surrogates
from pi.ai.transform_messages import transform_messages
from pi.ai.types import (
    AssistantMessage,
    ImageContent,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolResultMessage,
    UserMessage,
)

SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator"
"""Google's documented stand-in for a missing signature on a replayed Gemini 3 function call."""

TOOL_RESULT_IMAGE_TEXT = "Tool result image:"
IMAGE_ONLY_RESULT_TEXT = "(see attached image)"

_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_UNSAFE_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


# --- context conversion ---------------------------------------------------------------------------


def requires_tool_call_id(model_id: str) -> bool:
    """Claude and gpt-oss models served through Gemini-shaped APIs pair calls and results by id."""
    return model_id.startswith(("claude-", "gpt-oss-"))


def normalize_tool_call_id(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    if not requires_tool_call_id(model.id):
        return tool_call_id
    return _UNSAFE_ID_CHARS.sub("_", tool_call_id)[:64]


def is_valid_signature(signature: str | None) -> bool:
    """Gemini rejects a signature that is not base64; ones from other APIs often are not."""
    return bool(signature) and len(signature or "") % 4 == 0 and _BASE64.fullmatch(signature or "") is not None


def _replay_signature(same_model: bool, signature: str | None) -> str | None:
    return signature if same_model and is_valid_signature(signature) else None


def _clean(value: Any) -> Any:
    """Strip lone surrogates from every string of a JSON value (they cannot be encoded as UTF-8)."""
    if isinstance(value, str):
        return sanitize_surrogates(value)
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


def _inline(image: ImageContent) -> dict[str, Any]:
    return {"inlineData": {"mimeType": image.mime_type, "data": image.data}}


def _user_parts(message: UserMessage) -> list[dict[str, Any]]:
    if isinstance(message.content, str):
        return [{"text": sanitize_surrogates(message.content)}] if message.content else []
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text:
                parts.append({"text": sanitize_surrogates(block.text)})
        else:
            parts.append(_inline(block))
    return parts


def _model_parts(message: AssistantMessage, model: Model) -> list[dict[str, Any]]:
    same_model = message.provider == model.provider and message.model == model.id
    gemini3 = "gemini-3" in model.id.lower()
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if not block.text.strip():
                continue
            part: dict[str, Any] = {"text": sanitize_surrogates(block.text)}
            signature = _replay_signature(same_model, block.text_signature)
        elif isinstance(block, ThinkingContent):
            if block.redacted or not block.thinking.strip():
                continue
            if not same_model:
                parts.append({"text": sanitize_surrogates(block.thinking)})
                continue
            part = {"thought": True, "text": sanitize_surrogates(block.thinking)}
            signature = _replay_signature(same_model, block.thinking_signature)
        else:
            call: dict[str, Any] = {"name": block.name, "args": _clean(block.arguments)}
            if requires_tool_call_id(model.id):
                call["id"] = block.id
            part = {"functionCall": call}
            signature = _replay_signature(same_model, block.thought_signature)
            if signature is None and gemini3:
                signature = SKIP_THOUGHT_SIGNATURE
        if signature:
            part["thoughtSignature"] = signature
        parts.append(part)
    return parts


def _add_tool_result(contents: list[dict[str, Any]], message: ToolResultMessage, model: Model) -> list[dict[str, Any]]:
    """Append the function response; return the images that must follow the run of results as a user turn."""
    text = "\n".join(block.text for block in message.content if isinstance(block, TextContent))
    images = [_inline(block) for block in message.content if isinstance(block, ImageContent)]
    value = sanitize_surrogates(text) if text else (IMAGE_ONLY_RESULT_TEXT if images else "")
    key = "error" if message.is_error else "output"
    response: dict[str, Any] = {"name": message.tool_name, "response": {key: value}}
    # Gemini 3 takes images inside the function response; older models only see them as a user turn.
    nested = bool(images) and "gemini-3" in model.id.lower()
    if nested:
        response["parts"] = images
    if requires_tool_call_id(model.id):
        response["id"] = message.tool_call_id
    part = {"functionResponse": response}
    last = contents[-1] if contents else None
    if last is not None and last["role"] == "user" and any("functionResponse" in p for p in last["parts"]):
        last["parts"].append(part)
    else:
        contents.append({"role": "user", "parts": [part]})
    return [] if nested else images


def convert_messages(model: Model, messages: list[Message]) -> list[dict[str, Any]]:
    """The ``contents`` array: user and ``model`` turns, tool results as function responses.

    Gemini wants the responses to all of a turn's function calls together in the one turn right
    after it, so images that older models can only see in a user turn wait for the end of the run.
    """
    contents: list[dict[str, Any]] = []
    result_images: list[dict[str, Any]] = []

    def flush_result_images() -> None:
        if result_images:
            contents.append({"role": "user", "parts": [{"text": TOOL_RESULT_IMAGE_TEXT}, *result_images]})
            result_images.clear()

    for message in transform_messages(messages, model, normalize_tool_call_id):
        if isinstance(message, ToolResultMessage):
            result_images.extend(_add_tool_result(contents, message, model))
            continue
        flush_result_images()
        if isinstance(message, UserMessage):
            parts = _user_parts(message)
            if parts:
                contents.append({"role": "user", "parts": parts})
        elif isinstance(message, AssistantMessage):
            parts = _model_parts(message, model)
            if parts:
                contents.append({"role": "model", "parts": parts})
    flush_result_images()
    return contents


def convert_tools(tools: list[Tool]) -> list[dict[str, Any]]:
    declarations = [
        {"name": tool.name, "description": tool.description, "parametersJsonSchema": tool.parameters} for tool in tools
    ]
    return [{"functionDeclarations": declarations}]


__all__ = [
    "IMAGE_ONLY_RESULT_TEXT",
    "SKIP_THOUGHT_SIGNATURE",
    "TOOL_RESULT_IMAGE_TEXT",
    "convert_messages",
    "convert_tools",
    "is_valid_signature",
    "normalize_tool_call_id",
    "requires_tool_call_id",
]
