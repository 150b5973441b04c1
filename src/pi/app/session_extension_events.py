"""Session events as extension events: what handlers registered with `pi.on(...)` are told.

The forwarder is an awaited session listener, so handlers run in step with the run (a `turn_end`
handler has finished before the next turn starts) and see the session as the event left it. Each
session or agent event becomes the extension payload of the same name (`thinking_level_changed`
becomes `thinking_level_select`); a session moving to another file (`session_start` from new,
resume or fork) hands the extensions over to a new runtime generation instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi.app.extensions import events as ext

if TYPE_CHECKING:
    from pi.app.session_extensions import SessionExtensions


def _result(result: Any) -> dict[str, Any]:
    """A tool result as extensions see it: pi's `{content, details, isError?}` shape."""
    content = [block.model_dump(by_alias=True) if hasattr(block, "model_dump") else block for block in result.content]
    out: dict[str, Any] = {"content": content, "details": result.details}
    if getattr(result, "is_error", False):
        out["isError"] = True
    return out


class EventForwarder:
    def __init__(self, owner: SessionExtensions) -> None:
        self.owner = owner
        self.turn_index = 0
        self.thinking_level: str = owner.session.thinking_level
        self._map: dict[str, Callable[[Any], ext.EventModel | None]] = {
            "agent_start": lambda e: ext.AgentStartEvent(),
            "agent_end": lambda e: ext.AgentEndEvent(messages=e.messages),
            "turn_start": self._turn_start,
            "turn_end": self._turn_end,
            "message_start": lambda e: ext.MessageStartEvent(message=e.message),
            "message_update": lambda e: ext.MessageUpdateEvent(
                message=e.message, assistant_message_event=e.assistant_message_event
            ),
            "message_end": lambda e: ext.MessageEndEvent(message=e.message),
            "tool_execution_start": lambda e: ext.ToolExecutionStartEvent(
                tool_call_id=e.tool_call_id,
                tool_name=e.tool_name,
                args=e.args,
                parent_tool_call_id=getattr(e, "parent_tool_call_id", None),
            ),
            "tool_execution_update": lambda e: ext.ToolExecutionUpdateEvent(
                tool_call_id=e.tool_call_id,
                tool_name=e.tool_name,
                args=e.args,
                partial_result=_result(e.partial_result),
                parent_tool_call_id=getattr(e, "parent_tool_call_id", None),
            ),
            "tool_execution_end": lambda e: ext.ToolExecutionEndEvent(
                tool_call_id=e.tool_call_id,
                tool_name=e.tool_name,
                result=_result(e.result),
                is_error=e.is_error,
                duration_ms=int(e.duration_ms) if e.duration_ms is not None else None,
                args=getattr(e, "args", None),
                parent_tool_call_id=getattr(e, "parent_tool_call_id", None),
            ),
            "model_select": lambda e: ext.ModelSelectEvent(
                model=e.model, previous_model=e.previous_model, source=e.source
            ),
            "thinking_level_changed": self._thinking,
            "session_info_changed": lambda e: ext.SessionInfoChangedEvent(name=e.name),
            "agent_settled": lambda e: ext.AgentSettledEvent(aborted=e.aborted),
            "compaction_end": self._compaction_end,
        }

    def _turn_start(self, event: Any) -> ext.EventModel:
        import time

        return ext.TurnStartEvent(turn_index=self.turn_index, timestamp=int(time.time() * 1000))

    def _turn_end(self, event: Any) -> ext.EventModel:
        index = self.turn_index
        self.turn_index += 1
        return ext.TurnEndEvent(turn_index=index, message=event.message, tool_results=event.tool_results, entries=[])

    def _thinking(self, event: Any) -> ext.EventModel:
        previous, self.thinking_level = self.thinking_level, event.level
        return ext.ThinkingLevelSelectEvent(level=event.level, previous_level=previous)

    def _compaction_end(self, event: Any) -> ext.EventModel | None:
        if event.result is not None:
            return ext.SessionCompactEvent(
                compaction_entry=event.result, from_extension=False, reason=event.reason, will_retry=event.will_retry
            )
        return ext.SessionCompactFailedEvent(
            reason=event.reason,
            error_message=event.error_message,
            aborted=event.aborted,
            will_retry=event.will_retry,
            from_extension=False,
        )

    async def __call__(self, event: Any) -> None:
        owner = self.owner
        kind = getattr(event, "type", None)
        if kind == "session_start":
            await owner.replaced(event.reason, event.previous_session_file)
            return
        if kind == "agent_start":
            self.turn_index = 0
        elif kind == "agent_settled":
            owner.run_settled()
        runner = owner.runner
        if runner is None or not isinstance(kind, str) or kind not in self._map:
            return
        build = self._map[kind]
        name: str = "thinking_level_select" if kind == "thinking_level_changed" else kind
        if kind == "compaction_end":
            name = "session_compact" if event.result is not None else "session_compact_failed"
        if not runner.has_handlers(name):
            return
        try:
            payload = build(event)
        except Exception as error:
            runner.registry.report("<runtime>", name, error)
            return
        if payload is None:
            return
        if isinstance(payload, ext.TurnEndEvent):
            await owner.points.turn_end(payload)
        elif isinstance(payload, ext.MessageEndEvent) and payload.message is owner.points.chained_message:
            owner.points.chained_message = None  # its handlers already ran, as a chain, before it was stored
        else:
            await runner.emit(payload)


__all__ = ["EventForwarder"]
