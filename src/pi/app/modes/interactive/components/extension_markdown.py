"""Extensions' markdown transformers applied to what the transcript shows (never to what is stored).

`pi.register_markdown_transformer(fn, message_types=...)` rewrites the markdown of user messages,
replies (`assistant`) and thinking (`assistant-thinking`) before they are drawn. The transcript asks
`displayed_reply` for a copy of a reply whose text and thinking blocks went through the transformers;
the message the session keeps and sends to the model stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: (message type, markdown, streaming) -> the markdown to draw.
MarkdownHook = Callable[[str, str, bool], str]


def displayed_reply(message: Any, hook: MarkdownHook, streaming: bool) -> Any:
    """`message` with its text and thinking blocks transformed; the same object when nothing changes."""
    content = getattr(message, "content", None)
    if not isinstance(content, list) or not hasattr(message, "model_copy"):
        return message
    blocks: list[Any] = []
    changed = False
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "text":
            text = hook("assistant", block.text, streaming)
            if text != block.text:
                block = block.model_copy(update={"text": text})
                changed = True
        elif kind == "thinking":
            text = hook("assistant-thinking", block.thinking, streaming)
            if text != block.thinking:
                block = block.model_copy(update={"thinking": text})
                changed = True
        blocks.append(block)
    return message.model_copy(update={"content": blocks}) if changed else message


__all__ = ["MarkdownHook", "displayed_reply"]
