"""The conversation as OpenAI Responses input items, and the ids and signatures that pair them.

A thinking block keeps its whole reasoning item as its signature, a text block its message item id
(and phase), and a tool call both the ``call_id`` that pairs it with its output and the item id that
pairs it with its reasoning: ``"<call_id>|<item_id>"``. Replaying them verbatim is what lets the
model keep its chain of thought across tool calls. Public, so other Responses dialects can reuse it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from pi.ai.providers.grammar_tools import custom_tool, grammar_format, grammar_input
from pi.ai.sanitize import sanitize_surrogates
from pi.ai.transcript import render_system_message_update
from pi.ai.transform_messages import transform_messages
from pi.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    SystemMessage,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi.ai.wire_json import json_text

TOOL_CALL_ID_PROVIDERS = frozenset({"openai", "openai-codex", "opencode", "azure-openai-responses"})
"""Providers whose servers check the shape of replayed call ids (64 chars, ``fc`` item ids)."""

MAX_ID_LENGTH = 64

_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


# --- ids and signatures ---------------------------------------------------------------------------


def short_hash(text: str) -> str:
    """A short, stable base-36 digest, for ids that must shrink but stay distinct."""
    number = int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8], "big")
    digits = ""
    while number:
        number, rest = divmod(number, 36)
        digits = _BASE36[rest] + digits
    return digits or "0"


def _clip_id(value: str) -> str:
    # Codex rejects ids ending in "_", which truncation can leave behind.
    return _ID_UNSAFE.sub("_", value)[:MAX_ID_LENGTH].rstrip("_")


def normalize_tool_call_id(tool_call_id: str, model: Model, source: AssistantMessage) -> str:
    """Make a call id written by another model acceptable to OpenAI-run Responses servers.

    Other servers speaking this API accept what they were given, so their ids pass unchanged.
    """
    if model.provider not in TOOL_CALL_ID_PROVIDERS:
        return tool_call_id
    call_id, sep, item_id = tool_call_id.partition("|")
    call_id = _clip_id(call_id)
    if not sep:
        return call_id or tool_call_id
    item_id = _ID_UNSAFE.sub("_", item_id)
    if not item_id.startswith("fc"):
        item_id = f"fc_{item_id}"
    return f"{call_id}|{_clip_id(item_id)}"


def encode_text_signature(item_id: str, phase: str | None) -> str:
    """The textSignature of a message item: ``{"v":1,"id":...,"phase":...}``."""
    payload: dict[str, Any] = {"v": 1, "id": item_id}
    if phase:
        payload["phase"] = phase
    return json.dumps(payload, separators=(",", ":"))


def parse_text_signature(signature: str | None) -> tuple[str | None, str | None]:
    """(item id, phase) from a textSignature; older sessions stored the bare id."""
    if not signature:
        return None, None
    if signature.startswith("{"):
        try:
            data = json.loads(signature)
        except ValueError:
            data = None
        if isinstance(data, dict) and data.get("v") == 1 and isinstance(data.get("id"), str):
            phase = data.get("phase")
            return data["id"], phase if isinstance(phase, str) else None
    return signature, None


# --- conversation items ---------------------------------------------------------------------------


def _image_part(image: ImageContent) -> dict[str, Any]:
    return {"type": "input_image", "detail": "auto", "image_url": f"data:{image.mime_type};base64,{image.data}"}


def _user_item(message: UserMessage) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        parts: list[dict[str, Any]] = [{"type": "input_text", "text": sanitize_surrogates(message.content)}]
    else:
        parts = [
            {"type": "input_text", "text": sanitize_surrogates(block.text)}
            if isinstance(block, TextContent)
            else _image_part(block)
            for block in message.content
        ]
    return {"role": "user", "content": parts} if parts else None


def _reasoning_item(block: ThinkingContent) -> dict[str, Any] | None:
    if not block.thinking_signature:
        return None
    try:
        item = json.loads(block.thinking_signature)
    except ValueError:
        return None
    return item if isinstance(item, dict) and item.get("type") == "reasoning" else None


def _call_item(block: ToolCall, other_model: bool, grammar: Mapping[str, str]) -> dict[str, Any]:
    """A tool call as a ``function_call``, or as a ``custom_tool_call`` for a grammar tool.

    Item ids are ``fc_...`` for the one and ``ctc_...`` for the other; an id of the wrong kind (a
    call made while the model lacked or had grammar support) is left out rather than rejected.
    """
    call_id, _, item_id = block.id.partition("|")
    prop = grammar.get(block.name)
    if prop is not None:
        raw = grammar_input(block.name, block.arguments, prop)
        custom: dict[str, Any] = {"type": "custom_tool_call", "call_id": call_id, "name": block.name}
        if item_id.startswith("ctc_") and not other_model:
            custom["id"] = item_id
        custom["input"] = sanitize_surrogates(raw)
        return custom
    call: dict[str, Any] = {
        "type": "function_call",
        "call_id": call_id,
        "name": block.name,
        "arguments": json_text(block.arguments),
    }
    if item_id and not (other_model and item_id.startswith("fc_")) and not item_id.startswith("ctc_"):
        call["id"] = item_id
    return call


def _assistant_items(
    message: AssistantMessage, model: Model, index: int, grammar: Mapping[str, str]
) -> list[dict[str, Any]]:
    # A function_call id ("fc_...") from another model of the same service names a reasoning item
    # that is not replayed with it; the server rejects such an unpaired id, so it is left out.
    other_model = message.model != model.id and message.provider == model.provider and message.api == model.api
    items: list[dict[str, Any]] = []
    used_ids: set[str] = set()
    for block in message.content:
        if isinstance(block, ThinkingContent):
            reasoning = _reasoning_item(block)
            if reasoning is not None:
                items.append(reasoning)
        elif isinstance(block, TextContent):
            item_id, phase = parse_text_signature(block.text_signature)
            if not item_id:
                item_id = f"msg_{index}"
            elif len(item_id) > MAX_ID_LENGTH:
                item_id = f"msg_{short_hash(item_id)}"
            if item_id in used_ids:
                item_id = f"{item_id}_{len(used_ids)}"
            used_ids.add(item_id)
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": sanitize_surrogates(block.text), "annotations": []}],
                "status": "completed",
                "id": item_id,
            }
            if phase:
                item["phase"] = phase
            items.append(item)
        else:
            items.append(_call_item(block, other_model, grammar))
    return items


def _tool_result_item(message: ToolResultMessage, model: Model, grammar: Mapping[str, str]) -> dict[str, Any]:
    text = "\n".join(block.text for block in message.content if isinstance(block, TextContent))
    images = [block for block in message.content if isinstance(block, ImageContent)]
    output: str | list[dict[str, Any]]
    if images and "image" in model.input:
        parts: list[dict[str, Any]] = [{"type": "input_text", "text": sanitize_surrogates(text)}] if text else []
        parts.extend(_image_part(image) for image in images)
        output = parts
    else:
        # A result with nothing in it still needs some output; an empty one reads as a broken tool.
        output = sanitize_surrogates(
            text if text.strip() else ("(see attached image)" if images else "(no tool output)")
        )
    kind = "custom_tool_call_output" if message.tool_name in grammar else "function_call_output"
    return {"type": kind, "call_id": message.tool_call_id.partition("|")[0], "output": output}


def convert_responses_messages(
    model: Model,
    context: Context,
    *,
    include_system_prompt: bool = True,
    grammar_inputs: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The ``input`` list for `context` as `model` should see it.

    `grammar_inputs` names the tools sent as grammar tools (name -> the argument holding the raw
    input); their calls and results are replayed as ``custom_tool_call`` / ``custom_tool_call_output``.
    """
    grammar = grammar_inputs or {}
    items: list[dict[str, Any]] = []
    developer = model.compat is None or model.compat.supports_developer_role is not False
    role = "developer" if model.reasoning and developer else "system"
    if include_system_prompt and context.system_prompt:
        items.append({"role": role, "content": sanitize_surrogates(context.system_prompt)})
    for index, message in enumerate(transform_messages(context.messages, model, normalize_tool_call_id)):
        if isinstance(message, UserMessage):
            user = _user_item(message)
            if user is not None:
                items.append(user)
        elif isinstance(message, AssistantMessage):
            items.extend(_assistant_items(message, model, index, grammar))
        elif isinstance(message, SystemMessage):
            update = render_system_message_update(message)
            if update:
                items.append({"role": role, "content": sanitize_surrogates(update)})
        else:
            items.append(_tool_result_item(message, model, grammar))
    return items


def convert_responses_tools(tools: Iterable[Tool], *, grammar_supported: bool = False) -> list[dict[str, Any]]:
    """Tool definitions: grammar tools as ``custom`` tools when the model supports them, others as functions."""
    converted: list[dict[str, Any]] = []
    for tool in tools:
        found = grammar_format(tool, grammar_supported)
        if found is not None:
            converted.append(custom_tool(tool, found))
            continue
        converted.append(
            {
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
                "strict": False,
            }
        )
    return converted


__all__ = [
    "MAX_ID_LENGTH",
    "TOOL_CALL_ID_PROVIDERS",
    "convert_responses_messages",
    "convert_responses_tools",
    "encode_text_signature",
    "normalize_tool_call_id",
    "parse_text_signature",
    "short_hash",
]
