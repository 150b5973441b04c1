"""What nested tool calls (`ctx.execute_tool`) leave behind: session events and the parent's record.

The events are the agent's `tool_execution_start` / `_end` with `parent_tool_call_id` added (and
`parentToolCallId` on the JSON/RPC line), so every consumer of tool events sees nested calls as
such. `NestedRecords` collects each parent's calls until its tool-result message ends, which then
carries them as `nestedCalls`: name, arguments, status, duration and error, never the results.
The record is bounded: arguments over 8 KiB per call or 32 KiB per result are left out (their size
is kept), at most 256 calls are kept, and `complete` is false when anything was dropped.
"""

from __future__ import annotations

import json
from typing import Any

from msgspec import field

from pi.agent.events import ToolExecutionEndEvent, ToolExecutionStartEvent, ToolExecutionUpdateEvent
from pi.ai.types import Usage

MAX_CALLS = 256
MAX_CALL_ARGS_BYTES = 8 * 1024
MAX_RESULT_ARGS_BYTES = 32 * 1024


class NestedToolExecutionStartEvent(ToolExecutionStartEvent):
    parent_tool_call_id: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        return {**ToolExecutionStartEvent.to_json_dict(self), "parentToolCallId": self.parent_tool_call_id}


class NestedToolExecutionUpdateEvent(ToolExecutionUpdateEvent):
    parent_tool_call_id: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        return {**ToolExecutionUpdateEvent.to_json_dict(self), "parentToolCallId": self.parent_tool_call_id}


class NestedToolExecutionEndEvent(ToolExecutionEndEvent):
    parent_tool_call_id: str | None = None
    args: dict[str, Any] = field(default_factory=dict)

    def to_json_dict(self) -> dict[str, Any]:
        return {**ToolExecutionEndEvent.to_json_dict(self), "parentToolCallId": self.parent_tool_call_id}


def _error_text(outcome: dict[str, Any]) -> str | None:
    if not outcome.get("isError"):
        return None
    texts = [b.get("text", "") for b in outcome.get("content") or [] if isinstance(b, dict)]
    return "".join(texts) or "error"


class NestedRecords:
    """The nested calls of each running parent call, until the parent's result message takes them."""

    def __init__(self) -> None:
        self._calls: dict[str, list[dict[str, Any]]] = {}
        self._incomplete: set[str] = set()
        self._bytes: dict[str, int] = {}
        self._usage: dict[str, Usage] = {}

    def record(
        self, parent: str, call_id: str, name: str, args: dict[str, Any], outcome: dict[str, Any], duration: float
    ) -> None:
        self._add_usage(parent, outcome.get("usage"))
        calls = self._calls.setdefault(parent, [])
        if len(calls) >= MAX_CALLS:
            self._incomplete.add(parent)
            return
        call: dict[str, Any] = {
            "id": call_id,
            "name": name,
            "status": "error" if outcome.get("isError") else "ok",
            "duration_ms": int(duration),
        }
        error = _error_text(outcome)
        if error is not None:
            call["error"] = error
        try:
            size = len(json.dumps(args, ensure_ascii=False).encode("utf-8"))
        except (TypeError, ValueError):
            size = MAX_CALL_ARGS_BYTES + 1
        used = self._bytes.get(parent, 0)
        if size > MAX_CALL_ARGS_BYTES or used + size > MAX_RESULT_ARGS_BYTES:
            call["arguments_bytes"] = size
            self._incomplete.add(parent)
        else:
            call["arguments"] = dict(args)
            self._bytes[parent] = used + size
        calls.append(call)

    def _add_usage(self, parent: str, value: Any) -> None:
        """Nested results are not stored, so their usage is counted on the parent's result."""
        if value is None:
            return
        from pi.app.tool_usage import combine_usage, usage_from

        usage = usage_from(value)
        if usage is not None:
            known = self._usage.get(parent)
            self._usage[parent] = usage if known is None else combine_usage(known, usage)

    def take_usage(self, parent: str) -> Usage | None:
        """The summed usage of `parent`'s nested calls (None when none reported any), forgotten here."""
        return self._usage.pop(parent, None)

    def take(self, parent: str) -> Any:
        """The `NestedToolCalls` record of `parent` (None when it made no nested call), forgotten here."""
        calls = self._calls.pop(parent, None)
        complete = parent not in self._incomplete
        self._incomplete.discard(parent)
        self._bytes.pop(parent, None)
        if not calls:
            return None
        from pi.ai.types import NestedToolCall, NestedToolCalls

        return NestedToolCalls(calls=[NestedToolCall(**c) for c in calls], complete=complete)


__all__ = [
    "MAX_CALLS",
    "MAX_CALL_ARGS_BYTES",
    "MAX_RESULT_ARGS_BYTES",
    "NestedRecords",
    "NestedToolExecutionEndEvent",
    "NestedToolExecutionStartEvent",
    "NestedToolExecutionUpdateEvent",
]
