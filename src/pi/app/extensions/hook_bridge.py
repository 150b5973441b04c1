"""Plugging an `ExtensionRunner` into the session's ordered hook chains.

`install_runner_hooks(runner, hooks)` appends one handler per chain of a
`pi.app.session_hooks.SessionHooks` (tool_call, tool_result, input, context,
before_provider_request, before_compact); each turns the session's hook event into the extension
event, runs the extension handlers with their dispatch rule, and answers in the chain's terms. The
hook events are read by attribute only, so this module does not depend on the chain classes.
Events without a chain (message_end, context_with_system, provider headers, boundaries, ...) are
emitted by the session through the runner's `emit_*` methods directly.
"""

from __future__ import annotations

from typing import Any

from pi.app.extensions.events import (
    InputEvent,
    SessionBeforeCompactEvent,
    SessionBeforeCompactEventResult,
    ToolCallEvent,
    ToolResultEvent,
)
from pi.app.extensions.runner import ExtensionRunner


class RunnerHooks:
    """The chain handlers for one runner (each a coroutine function of the chain's event)."""

    def __init__(self, runner: ExtensionRunner) -> None:
        self.runner = runner

    async def tool_call(self, hook_event: Any) -> dict[str, Any] | None:
        """First block wins; a raising extension handler propagates (the call fails, closed)."""
        if not self.runner.has_handlers("tool_call"):
            return None
        event = ToolCallEvent(
            tool_call_id=hook_event.tool_call_id,
            tool_name=hook_event.tool_name,
            input=hook_event.input,  # the same dict: in-place edits reach the call
            parent_tool_call_id=getattr(hook_event, "parent_tool_call_id", None),
        )
        result = await self.runner.emit_tool_call(event)
        if result is None:
            return None
        return {"block": True, "reason": result.reason, "terminate": result.terminate}

    async def tool_result(self, hook_event: Any) -> dict[str, Any] | None:
        if not self.runner.has_handlers("tool_result"):
            return None
        event = ToolResultEvent(
            tool_call_id=hook_event.tool_call_id,
            tool_name=hook_event.tool_name,
            input=hook_event.input,
            content=hook_event.content,
            details=hook_event.details,
            structured_content=getattr(hook_event, "structured_content", None),
            is_error=hook_event.is_error,
            usage=getattr(hook_event, "usage", None),
            parent_tool_call_id=getattr(hook_event, "parent_tool_call_id", None),
        )
        patch = await self.runner.emit_tool_result(event)
        if patch is None:
            return None
        given = patch.model_fields_set
        out: dict[str, Any] = {}
        for name, key in (
            ("content", "content"),
            ("details", "details"),
            ("is_error", "isError"),
            ("structured_content", "structuredContent"),
            ("usage", "usage"),
        ):
            if name in given:
                out[key] = getattr(patch, name)
        return out

    async def input(self, hook_event: Any) -> dict[str, Any] | None:
        if not self.runner.has_handlers("input"):
            return None
        event = InputEvent(
            text=hook_event.text,
            images=hook_event.images,
            source=hook_event.source,
            streaming_behavior=hook_event.streaming_behavior,
        )
        result = await self.runner.emit_input(event)
        return {"action": result.action, "text": result.text, "images": result.images}

    async def context(self, hook_event: Any) -> list[Any] | None:
        if not self.runner.has_handlers("context"):
            return None
        return await self.runner.emit_context(hook_event.messages)

    async def before_provider_request(self, hook_event: Any) -> Any:
        if not self.runner.has_handlers("before_provider_request"):
            return None
        payload = await self.runner.emit_before_provider_request(hook_event.payload, getattr(hook_event, "model", None))
        return None if payload is hook_event.payload else payload

    async def before_compact(self, hook_event: Any) -> dict[str, Any] | None:
        if not self.runner.has_handlers("session_before_compact"):
            return None
        event = SessionBeforeCompactEvent(
            preparation=hook_event.preparation,
            branch_entries=hook_event.branch_entries,
            custom_instructions=hook_event.custom_instructions,
            reason=hook_event.reason,
            will_retry=hook_event.will_retry,
            signal=hook_event.signal,
        )
        result = await self.runner.emit_gate(event, SessionBeforeCompactEventResult)
        if result is None:
            return None
        if result.cancel:
            return {"cancel": True}
        return {"compaction": result.compaction} if result.compaction is not None else None


HOOK_POINTS = ("tool_call", "tool_result", "input", "context", "before_provider_request", "before_compact")


def install_runner_hooks(runner: ExtensionRunner, hooks: Any) -> RunnerHooks:
    """Append the runner's handlers to each chain of `hooks` (a `SessionHooks`) and return them."""
    bridge = RunnerHooks(runner)
    for point in HOOK_POINTS:
        getattr(hooks, point).append(getattr(bridge, point))
    return bridge


__all__ = ["HOOK_POINTS", "RunnerHooks", "install_runner_hooks"]
