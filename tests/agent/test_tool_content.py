"""Content handed back by hooks and extensions becomes typed blocks, or a clear error."""

from __future__ import annotations

import pytest

from pi.agent.tool_content import ToolContentError, tool_content
from pi.ai.types import ImageContent, TextContent


def test_dicts_in_pis_json_form_become_blocks() -> None:
    blocks = tool_content([{"type": "text", "text": "hi"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}])
    assert blocks == [TextContent(text="hi"), ImageContent(data="AAAA", mime_type="image/png")]


def test_blocks_are_kept_as_the_same_objects() -> None:
    text = TextContent(text="kept")
    assert tool_content((text,))[0] is text


def test_a_mix_of_blocks_and_dicts_is_accepted() -> None:
    text = TextContent(text="one")
    blocks = tool_content([text, {"type": "text", "text": "two"}])
    assert blocks[0] is text and blocks[1] == TextContent(text="two")


def test_a_plain_string_is_one_text_block() -> None:
    assert tool_content("just text") == [TextContent(text="just text")]


def test_a_block_of_unknown_type_names_where_and_what_to_return() -> None:
    with pytest.raises(ToolContentError) as caught:
        tool_content([{"type": "text", "text": "ok"}, {"type": "video", "url": "x"}])
    message = str(caught.value)
    assert "block 1" in message and "video" in message and '{"type": "text", "text": "..."}' in message


def test_a_value_that_is_not_a_list_says_what_it_was() -> None:
    with pytest.raises(ToolContentError, match="not dict"):
        tool_content({"type": "text", "text": "one block, not in a list"})


def test_a_missing_field_is_named() -> None:
    with pytest.raises(ToolContentError, match="block 0, field mimeType: Field required"):
        tool_content([{"type": "image", "data": "AAAA"}])
