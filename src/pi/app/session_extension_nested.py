"""Nested tool calls: `ctx.execute_tool(name, args)` from inside an extension tool's `execute`.

The nested call goes the way a model's call goes: the tool must be callable, its arguments are
repaired and validated, extension `tool_call` handlers may block it, it runs, and `tool_result`
handlers may patch the result; `tool_execution_start`/`_end` reach extension handlers with
`parent_tool_call_id` set. Nested ids are `<parent id>/<n>`. Failures never raise: an unknown
tool, invalid arguments, a block or an exception come back as a result with `isError: true`.
Nested calls add nothing to the transcript.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pi.app.extensions import events as ext
from pi.app.extensions.tool_adapter import to_tool_result

if TYPE_CHECKING:
    from pi.ai.abort import AbortSignal
    from pi.app.session_extensions import SessionExtensions


def _error(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "details": None, "isError": True}


def _as_dict(result: Any, is_error: bool) -> dict[str, Any]:
    content = [b.model_dump(by_alias=True) if hasattr(b, "model_dump") else b for b in result.content]
    out: dict[str, Any] = {"content": content, "details": result.details}
    if is_error:
        out["isError"] = True
    if result.structured_content is not None:
        out["structuredContent"] = result.structured_content
    if result.usage is not None:
        out["usage"] = result.usage.to_json_dict()
    return out


class NestedCalls:
    """The `ToolContextHost` of one running tool call (`parent_id`)."""

    def __init__(self, owner: SessionExtensions, parent_id: str) -> None:
        self.owner = owner
        self.parent_id = parent_id
        self.count = 0

    def get_callable_tools(self) -> list[str]:
        return [tool.name for tool in self.owner.session.agent.state.tools]

    async def execute_tool(
        self, name: str, args: dict[str, Any], signal: AbortSignal | None, on_update: Callable[[Any], Any] | None
    ) -> dict[str, Any]:
        """Run a nested call; its `tool_execution_*` session events (JSON, RPC, extension handlers)
        carry `parent_tool_call_id`, and the parent's result message records it (`nestedCalls`)."""
        from pi.app.session_extension_nested_events import NestedToolExecutionEndEvent, NestedToolExecutionStartEvent

        self.count += 1
        call_id = f"{self.parent_id}/{self.count}"
        parent = self.parent_id
        session = self.owner.session
        await session.emit_session_event(
            NestedToolExecutionStartEvent(
                tool_call_id=call_id, tool_name=name, args=dict(args), parent_tool_call_id=parent
            )
        )
        started = time.monotonic()
        outcome = await self._run(call_id, name, dict(args), signal, self._updates(call_id, name, args, on_update))
        duration = (time.monotonic() - started) * 1000
        await session.emit_session_event(
            NestedToolExecutionEndEvent(
                tool_call_id=call_id,
                tool_name=name,
                result=to_tool_result(outcome),
                is_error=bool(outcome.get("isError")),
                duration_ms=duration,
                parent_tool_call_id=parent,
                args=dict(args),
            )
        )
        self.owner.points.nested.record(parent, call_id, name, args, outcome, duration)
        return outcome

    def _updates(
        self, call_id: str, name: str, args: dict[str, Any], on_update: Callable[[Any], Any] | None
    ) -> Callable[[Any], Awaitable[None]]:
        """What the nested tool's partial results do: a `tool_execution_update` event, then `on_update`."""
        from pi.app.session_extension_nested_events import NestedToolExecutionUpdateEvent

        async def update(partial: Any) -> None:
            event = NestedToolExecutionUpdateEvent(
                tool_call_id=call_id,
                tool_name=name,
                args=dict(args),
                partial_result=partial,
                parent_tool_call_id=self.parent_id,
            )
            await self.owner.session.emit_session_event(event)
            if on_update is not None:
                result = on_update(_as_dict(partial, bool(getattr(partial, "is_error", False))))
                if inspect.isawaitable(result):
                    await result

        return update

    def _reachable(self, name: str) -> Any:
        """A registered `codemode`/`deferred` tool: callable whether or not it is declared (§1.5)."""
        runner = self.owner.runner
        owned = runner.registry.tools().get(name) if runner is not None else None
        if owned is None or owned[1].exposure not in ("codemode", "deferred"):
            return None
        return self.owner.tools.all_tools().get(name)

    async def _run(
        self,
        call_id: str,
        name: str,
        args: dict[str, Any],
        signal: AbortSignal | None,
        on_update: Callable[[Any], Awaitable[None]] | None = None,
    ) -> dict[str, Any]:
        from pi.ai.validation import validate_model_arguments

        tool = next((t for t in self.owner.session.agent.state.tools if t.name == name), None) or self._reachable(name)
        if tool is None:
            return _error(f"Tool {name} not found")
        try:
            prepared = tool.prepare_arguments(args) if tool.prepare_arguments is not None else args
            params = validate_model_arguments(name, tool.parameters, prepared)
        except Exception as error:
            return _error(str(error) or type(error).__name__)
        runner = self.owner.runner
        if runner is not None and runner.has_handlers("tool_call"):
            event = ext.ToolCallEvent(
                tool_call_id=call_id, tool_name=name, input=prepared, parent_tool_call_id=self.parent_id
            )
            try:
                verdict = await runner.emit_tool_call(event)
            except Exception as error:
                return _error(str(error) or type(error).__name__)
            if verdict is not None and verdict.block:
                return _error(verdict.reason or "Tool execution was blocked")
            params = validate_model_arguments(name, tool.parameters, prepared)
        try:
            result = await tool.execute(call_id, params, signal, on_update)
            is_error = result.is_error
        except Exception as error:
            return _error(str(error) or type(error).__name__)
        outcome = _as_dict(result, is_error)
        if runner is not None and runner.has_handlers("tool_result"):
            patched = ext.ToolResultEvent(
                tool_call_id=call_id,
                tool_name=name,
                input=prepared,
                content=result.content,
                details=result.details,
                structured_content=result.structured_content,
                is_error=is_error,
                usage=result.usage,
                parent_tool_call_id=self.parent_id,
            )
            patch = await runner.emit_tool_result(patched)
            if patch is not None:
                outcome = _as_dict(
                    to_tool_result(
                        {
                            "content": patched.content,
                            "details": patched.details,
                            "isError": patched.is_error,
                            "structuredContent": patched.structured_content,
                            "usage": patched.usage,
                        }
                    ),
                    bool(patched.is_error),
                )
        return outcome


__all__ = ["NestedCalls"]
