"""Turning the content a hook or extension hands back for a tool result into content blocks.

A tool builds its result from `TextContent` and `ImageContent`, but a `tool_result` handler is often
a few lines of Python that returns plain dicts (`{"type": "text", "text": ...}`), as pi's own
extensions do in JSON. Converting at the point where the patch is taken means that the next handler,
the `tool_execution_end` event and the result message all see the same typed blocks, and that a
malformed patch is reported against the handler that returned it rather than surfacing later as a
broken result message.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import TypeAdapter, ValidationError

from pi.agent.tool import ToolContent
from pi.ai.types import ImageContent, TextContent, ToolResultContent

EXAMPLE = '[{"type": "text", "text": "..."}]'


class ToolContentError(ValueError):
    """The value given as a tool result's content is not a list of text and image blocks."""


@functools.cache
def _blocks_adapter() -> TypeAdapter[list[ToolResultContent]]:
    return TypeAdapter(list[ToolResultContent])


def tool_content(value: Any) -> list[ToolContent]:
    """`value` as a list of content blocks; a plain string is one text block.

    Blocks that are already `TextContent`/`ImageContent` are kept as they are (no validator is built
    for them); anything else is validated as pi's JSON form of a block.
    """
    if isinstance(value, str):
        return [TextContent(text=value)]
    if not isinstance(value, list | tuple):
        kind = type(value).__name__
        raise ToolContentError(f"tool result content must be a list of blocks like {EXAMPLE}, not {kind}")
    if all(isinstance(block, TextContent | ImageContent) for block in value):
        return list(value)
    try:
        blocks: list[ToolContent] = _blocks_adapter().validate_python(list(value))
    except ValidationError as error:
        first = error.errors()[0]
        loc = first["loc"]  # the block's index, then its "type" tag and the field inside it, if it had a known tag
        where = f"block {loc[0]}" + (f", field {'.'.join(map(str, loc[2:]))}" if len(loc) > 2 else "")
        raise ToolContentError(
            f"tool result content is not text or image blocks ({where}: {first['msg']}); use blocks like {EXAMPLE}"
        ) from None
    return blocks


__all__ = ["ToolContentError", "tool_content"]
