"""Capture the partial tool-call arguments at the moment each delta event is pushed.

Every event carries the same mutable partial message, so a consumer that reads after the provider
has already handled the next frame would see later arguments. Recording at push time makes the
snapshots exact however the frames arrive (one per read or many at once).
"""

from __future__ import annotations

from typing import Any

import pytest

from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.events import AssistantMessageEvent, ToolCallDeltaEvent
from pi.ai.types import ToolCall


def arguments_at_each_delta(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """A list that fills with a copy of the open call's arguments at every toolcall_delta push."""
    seen: list[dict[str, Any]] = []
    original = AssistantMessageEventStream.push

    def push(self: AssistantMessageEventStream, event: AssistantMessageEvent) -> None:
        if isinstance(event, ToolCallDeltaEvent):
            block = event.partial.content[event.content_index]
            assert isinstance(block, ToolCall)
            seen.append(dict(block.arguments))
        original(self, event)

    monkeypatch.setattr(AssistantMessageEventStream, "push", push)
    return seen
