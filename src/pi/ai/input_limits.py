"""The image limits a model's API accepts, with pi's defaults where the catalog names none.

Code that attaches images (pasted files, `read`, tool results) shrinks and counts them with these,
so that one oversized picture never fails a whole request. An API that takes only so many images
per message or per request rejects the whole request beyond that, so the excess images (the oldest
first) are replaced by a note before sending; the session keeps them all. The same holds for a
model's `maxRequestBytes`: when the transcript would be larger, images are left out oldest first
until it fits (images are what makes a request big; text is the context window's business, where
overflow recovery compacts it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pi.ai.types import (
    AssistantMessage,
    ImageContent,
    ImageResize,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)


def image_resize_profile(model: Model) -> ImageResize:
    """Largest width, height and base64 length, and the JPEG quality to re-encode at, for `model`.

    Unset fields keep the defaults: 2000×2000 pixels, 4.5 MiB of base64, JPEG quality 80.
    """
    limits = model.input_limits
    resize = limits.images.resize if limits is not None and limits.images is not None else None
    return resize.model_copy() if resize is not None else ImageResize()


def max_images(model: Model) -> tuple[int | None, int | None]:
    """(per message, per request) image counts the API takes; None where it states no limit."""
    images = model.input_limits.images if model.input_limits is not None else None
    if images is None:
        return None, None
    return images.max_per_message, images.max_per_request


def over_message_limit(limit: int) -> str:
    return f"(image omitted: this model takes at most {limit} images per message)"


def over_request_limit(limit: int) -> str:
    return f"(image omitted: this model takes at most {limit} images per request; only the latest are sent)"


def over_request_bytes(limit: int) -> str:
    return f"(image omitted: this model takes requests of at most {limit} bytes; only the latest images are sent)"


def limit_images(messages: Sequence[Message], model: Model) -> list[Message]:
    """`messages` with at most the model's images per message and per request (newest kept), and
    without the oldest images while the transcript exceeds the model's `maxRequestBytes`.

    Within a message the first images are kept; across the request the most recent messages keep
    theirs. Messages without images, or models without limits, come back as they were.
    """
    limits = model.input_limits
    max_bytes = limits.max_request_bytes if limits is not None else None
    counted = _limit_counts(messages, model)
    return _limit_bytes(counted, max_bytes) if max_bytes is not None else counted


def _limit_counts(messages: Sequence[Message], model: Model) -> list[Message]:
    per_message, per_request = max_images(model)
    if per_message is None and per_request is None:
        return list(messages)
    budget = per_request
    out: list[Message] = []
    for message in reversed(messages):
        if not isinstance(message, UserMessage | ToolResultMessage) or isinstance(message.content, str):
            out.append(message)
            continue
        blocks: list[TextContent | ImageContent] = []
        kept = 0
        changed = False
        for block in message.content:
            if not isinstance(block, ImageContent):
                blocks.append(block)
            elif per_message is not None and kept >= per_message:
                blocks.append(TextContent(text=over_message_limit(per_message)))
                changed = True
            elif budget is not None and kept >= budget:
                blocks.append(TextContent(text=over_request_limit(per_request or 0)))
                changed = True
            else:
                blocks.append(block)
                kept += 1
        if budget is not None:
            budget -= kept
        out.append(message.model_copy(update={"content": blocks}) if changed else message)
    out.reverse()
    return out


def message_bytes(message: Message) -> int:
    """About how many bytes `message` adds to a request body: its text, arguments and base64 images."""
    content = message.content
    if isinstance(content, str):
        return len(content.encode())
    size = 0
    for block in content:
        if isinstance(block, TextContent):
            size += len(block.text.encode())
        elif isinstance(block, ImageContent):
            size += len(block.data)
        elif isinstance(block, ThinkingContent):
            size += len(block.thinking.encode()) + len(block.thinking_signature or "")
        elif isinstance(block, ToolCall):
            size += len(block.name) + len(json.dumps(block.arguments))
    return size


def _has_image(message: Message) -> bool:
    content = message.content
    if isinstance(message, AssistantMessage) or isinstance(content, str):
        return False
    return any(isinstance(block, ImageContent) for block in content)


def _limit_bytes(messages: list[Message], limit: int) -> list[Message]:
    """Oldest images first become a note until the transcript's estimated size is within `limit`."""
    if not any(_has_image(m) for m in messages):
        return messages  # nothing to leave out: a transcript of text is not measured on every request
    total = sum(message_bytes(m) for m in messages)
    if total <= limit:
        return messages
    note = over_request_bytes(limit)
    out = list(messages)
    for index, message in enumerate(out):
        if total <= limit:
            break
        if not isinstance(message, UserMessage | ToolResultMessage) or not _has_image(message):
            continue
        if isinstance(message.content, str):
            continue
        blocks: list[TextContent | ImageContent] = []
        for block in message.content:
            if isinstance(block, ImageContent) and total > limit:
                total += len(note) - len(block.data)
                blocks.append(TextContent(text=note))
            else:
                blocks.append(block)
        out[index] = message.model_copy(update={"content": blocks})
    return out


__all__ = [
    "image_resize_profile",
    "limit_images",
    "max_images",
    "message_bytes",
    "over_message_limit",
    "over_request_bytes",
    "over_request_limit",
]
