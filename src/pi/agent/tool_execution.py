"""Running the tool calls of one assistant reply, and reporting each as events and a result message.

Every call the model made gets exactly one result message, whatever happens (unknown tool, invalid
arguments, a blocking hook, a raising tool, an abort): a request that contains a tool call without
its result is refused by every provider, so a lost result would break the next turn.

Calls run concurrently unless the config or one of the called tools asks for one at a time. End
events are reported as tools finish, so a UI shows the fast tool done while the slow one still runs;
result messages keep the order of the calls, which is the order the model reads them in.

On abort, running tools get `ABORT_GRACE_S` to stop: one that honours the signal ends with its own
result (bash keeps the output so far, under "Command aborted"), which is what the user and the model
need to see. A tool still running after that is left to finish unobserved and answered with
"Operation aborted", so a tool that ignores the signal cannot hold the session.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Sequence
from typing import Any, TypeVar, cast

from msgspec import Struct, field
from pydantic import ValidationError

from pi.agent.config import AgentLoopConfig
from pi.agent.context import AgentContext
from pi.agent.events import (
    AgentEvent,
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi.agent.hooks import (
    BLOCKED_DEFAULT_REASON,
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
)
from pi.agent.tool import AgentTool, AgentToolResult
from pi.agent.tool_content import ToolContentError, tool_content
from pi.ai.abort import AbortSignal
from pi.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from pi.ai.validation import check_tool_call_arguments, validate_model_arguments

T = TypeVar("T")

ABORTED_TEXT = "Operation aborted"
ABORT_GRACE_S = 2.0
"""How long an abort waits for running tools to stop on their own before answering for them."""
TRUNCATED_CALL_TEXT = (
    'Tool call "{name}" was not executed: the response hit the output token limit, so its arguments may be '
    "truncated. Re-issue the tool call with complete arguments."
)


def _elapsed_ms(started: float) -> int:
    """Whole milliseconds since `started` (a `time.monotonic()` reading), as pi reports durations."""
    return round((time.monotonic() - started) * 1000)


class LoopAborted(Exception):
    """Raised inside the loop when the run's signal fires during an awaited step."""


def error_text(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def error_result(text: str) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=text)], details={})


async def resolve(value: Awaitable[T] | T) -> T:
    """Callbacks may be plain functions or coroutines; this accepts either result."""
    if inspect.isawaitable(value):
        return await cast(Awaitable[T], value)
    return value


async def race_abort(value: Awaitable[T] | T, signal: AbortSignal | None) -> T:
    """Await `value` unless the run is aborted first (then the awaited work is cancelled)."""
    if not inspect.isawaitable(value):
        return value
    awaitable = cast(Awaitable[T], value)
    if signal is None:
        return await awaitable
    task: asyncio.Future[T] = asyncio.ensure_future(awaitable)
    if signal.aborted:
        task.cancel()
        raise LoopAborted

    def cancel() -> None:
        task.cancel()

    remove = signal.add_listener(cancel)
    try:
        return await task
    except asyncio.CancelledError:
        if signal.aborted and task.cancelled():
            raise LoopAborted from None
        raise
    finally:
        remove()


class ToolBatch(Struct):
    """What the tool phase produced, for the loop to act on after `turn_end`."""

    results: list[ToolResultMessage] = field(default_factory=list)
    terminate: bool = False
    aborted: bool = False


class _Call(Struct, eq=False):
    """The progress of one tool call through the phase; `result` and `duration_ms` stay None until it ends."""

    call: ToolCall
    tool: AgentTool[Any] | None = None
    params: Any = None
    started: bool = False
    result: AgentToolResult | None = None
    is_error: bool = False
    ended: bool = False
    task: asyncio.Task[None] | None = None
    duration_ms: int | None = None


class _Finished(Struct):
    """A tool's final result (or its abort), as reported through the phase's channel."""

    item: _Call
    result: AgentToolResult
    is_error: bool


class _Update(Struct):
    """A running tool's partial result; `ack` resolves once its event has been yielded (a tool may await that)."""

    event: ToolExecutionUpdateEvent
    ack: asyncio.Future[None]


class _Aborted:
    pass


class _GraceOver:
    pass


_ABORT = _Aborted()
_GRACE_OVER = _GraceOver()

_Signal = _Finished | _Update | _Aborted | _GraceOver

_background: set[asyncio.Task[None]] = set()
"""Tools that ignored an abort keep running unobserved; held here so they are not collected mid-run."""


class _Channel:
    """Where running tools report to the one generator that turns their reports into events."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[_Signal] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put(self, item: _Signal) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> _Signal:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
            self._waiter = None
        return self._items.popleft()

    def drop_pending(self) -> None:
        """Release tools waiting on updates that will never be reported."""
        for item in self._items:
            if isinstance(item, _Update) and not item.ack.done():
                item.ack.set_result(None)
        self._items.clear()


class ToolPhase:
    """Executes one reply's tool calls; iterate `run()` for the events, then read `batch`."""

    def __init__(
        self,
        context: AgentContext,
        message: AssistantMessage,
        calls: Sequence[ToolCall],
        config: AgentLoopConfig,
        signal: AbortSignal | None,
    ) -> None:
        self.context = context
        self.message = message
        self.config = config
        self.signal = signal
        self.batch = ToolBatch()
        self._items = [_Call(call) for call in calls]
        self._channel = _Channel()

    # -- entry points ----------------------------------------------------------------------------

    async def run(self) -> AsyncIterator[AgentEvent]:
        signal = self.signal
        remove = signal.add_listener(self._on_abort) if signal is not None else None
        try:
            if self.message.stop_reason == "length":
                inner = self._not_executed()
            elif self._sequential():
                inner = self._run_sequential()
            else:
                inner = self._run_parallel()
            async for event in inner:
                yield event
        finally:
            if remove is not None:
                remove()
            self._channel.drop_pending()
        items = self._items
        self.batch.terminate = bool(items) and all(item.result is not None and item.result.terminate for item in items)

    def _on_abort(self) -> None:
        self.batch.aborted = True
        self._channel.put(_ABORT)

    def _sequential(self) -> bool:
        if self.config.tool_execution == "sequential":
            return True
        tools = self._tools()
        for item in self._items:
            tool = tools.get(item.call.name)
            if tool is not None and tool.execution_mode == "sequential":
                return True
        return False

    def _tools(self) -> dict[str, AgentTool[Any]]:
        return {tool.name: tool for tool in self.context.tools}

    # -- modes -----------------------------------------------------------------------------------

    async def _not_executed(self) -> AsyncIterator[AgentEvent]:
        """A reply cut off by the token limit may carry truncated arguments: run none of its calls."""
        for item in self._items:
            yield self._start(item)
            yield self._end(item, error_result(TRUNCATED_CALL_TEXT.format(name=item.call.name)), True)
            for event in self._result_message(item):
                yield event

    async def _run_sequential(self) -> AsyncIterator[AgentEvent]:
        tools = self._tools()
        for item in self._items:
            yield self._start(item)
            if not self.batch.aborted:
                try:
                    immediate = await self._prepare(item, tools)
                except LoopAborted:
                    self.batch.aborted = True
                    immediate = None
                if immediate is not None:
                    yield self._end(item, immediate, True)
                elif not self.batch.aborted:
                    self._spawn(item)
                    async for event in self._drain():
                        yield event
            if not item.ended:
                yield self._end(item, error_result(ABORTED_TEXT), True)
            for event in self._result_message(item):
                yield event

    async def _run_parallel(self) -> AsyncIterator[AgentEvent]:
        tools = self._tools()
        for item in self._items:
            if self.batch.aborted:
                break
            yield self._start(item)
            try:
                immediate = await self._prepare(item, tools)
            except LoopAborted:
                self.batch.aborted = True
                break
            if immediate is not None:
                yield self._end(item, immediate, True)
        if not self.batch.aborted:
            for item in self._items:
                if not item.ended:
                    self._spawn(item)
            async for event in self._drain():
                yield event
        for item in self._items:
            if not item.ended:
                if not item.started:
                    yield self._start(item)
                yield self._end(item, error_result(ABORTED_TEXT), True)
        for item in self._items:
            for event in self._result_message(item):
                yield event

    async def _drain(self) -> AsyncIterator[AgentEvent]:
        """Report updates and completions of the running tools until all have ended.

        After an abort the tools have `ABORT_GRACE_S` to end; those that do not are left running
        in the background (their calls are answered by the caller).
        """
        channel = self._channel
        grace: asyncio.TimerHandle | None = None
        try:
            while any(item.task is not None and not item.ended for item in self._items):
                report = await channel.get()
                if isinstance(report, _Update):
                    yield report.event
                    if not report.ack.done():
                        report.ack.set_result(None)
                elif isinstance(report, _Finished):
                    yield self._end(report.item, report.result, report.is_error)
                elif isinstance(report, _Aborted):
                    if grace is None:
                        grace = asyncio.get_running_loop().call_later(ABORT_GRACE_S, channel.put, _GRACE_OVER)
                else:
                    self._abandon_running()
                    return
        finally:
            if grace is not None:
                grace.cancel()

    def _abandon_running(self) -> None:
        for item in self._items:
            task = item.task
            if task is not None and not task.done():
                _background.add(task)
                task.add_done_callback(_background.discard)

    # -- one call --------------------------------------------------------------------------------

    async def _prepare(self, item: _Call, tools: dict[str, AgentTool[Any]]) -> AgentToolResult | None:
        """Find, repair, validate and clear the call; an error result means it will not run."""
        call = item.call
        tool = tools.get(call.name)
        if tool is None:
            return error_result(f"Tool {call.name} not found")
        try:
            check_tool_call_arguments(call.name, call.arguments_error)
            args = call.arguments
            if tool.prepare_arguments is not None:
                args = tool.prepare_arguments(args)
            params = validate_model_arguments(tool.name, tool.parameters, args)
        except Exception as exc:
            return error_result(error_text(exc))
        before = self.config.before_tool_call
        if before is not None:
            edited = copy.deepcopy(args)
            ctx = BeforeToolCallContext(
                assistant_message=self.message, tool_call=call, args=params, context=self.context, input=edited
            )
            try:
                verdict: BeforeToolCallResult | None = await race_abort(before(ctx, self.signal), self.signal)
            except LoopAborted:
                raise
            except Exception as exc:
                return error_result(error_text(exc))
            if verdict is not None and verdict.block:
                return error_result(verdict.reason or BLOCKED_DEFAULT_REASON)
            if edited != args:
                try:
                    params = validate_model_arguments(tool.name, tool.parameters, edited)
                except Exception as exc:
                    return error_result(error_text(exc))
        item.tool = tool
        item.params = params
        return None

    def _spawn(self, item: _Call) -> None:
        item.task = asyncio.get_running_loop().create_task(self._execute(item))

    async def _execute(self, item: _Call) -> None:
        tool = item.tool
        assert tool is not None
        call = item.call
        channel = self._channel

        def on_update(partial: AgentToolResult) -> Awaitable[None]:
            ack: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            if item.ended:
                ack.set_result(None)
            else:
                event = ToolExecutionUpdateEvent(call.id, call.name, call.arguments, partial)
                channel.put(_Update(event, ack))
            return ack

        started = time.monotonic()
        try:
            result = await tool.execute(call.id, item.params, self.signal, on_update)
            is_error = result.is_error
        except asyncio.CancelledError:
            item.duration_ms = _elapsed_ms(started)
            channel.put(_Finished(item, error_result(ABORTED_TEXT), True))
            raise
        except Exception as exc:
            result, is_error = error_result(error_text(exc)), True
        item.duration_ms = _elapsed_ms(started)
        result, is_error = await self._after(item, result, is_error)
        channel.put(_Finished(item, result, is_error))

    async def _after(self, item: _Call, result: AgentToolResult, is_error: bool) -> tuple[AgentToolResult, bool]:
        after = self.config.after_tool_call
        if after is None:
            return result, is_error
        ctx = AfterToolCallContext(
            assistant_message=self.message,
            tool_call=item.call,
            args=item.params,
            result=result,
            is_error=is_error,
            context=self.context,
        )
        try:
            change: AfterToolCallResult | None = await resolve(after(ctx, self.signal))
        except Exception as exc:
            return error_result(error_text(exc)), True
        if change is None:
            return result, is_error
        try:
            content = tool_content(change.content) if change.content is not None else result.content
        except ToolContentError as exc:
            return error_result(f"{exc}. The tool ran, but a tool_result hook replaced its result with this."), True
        replaced = AgentToolResult(
            content=content,
            details=change.details if change.details is not None else result.details,
            terminate=change.terminate if change.terminate is not None else result.terminate,
            structured_content=result.structured_content,
            usage=change.usage if change.usage is not None else result.usage,
        )
        return replaced, change.is_error if change.is_error is not None else is_error

    # -- events ----------------------------------------------------------------------------------

    def _start(self, item: _Call) -> ToolExecutionStartEvent:
        item.started = True
        call = item.call
        return ToolExecutionStartEvent(call.id, call.name, call.arguments)

    def _end(self, item: _Call, result: AgentToolResult, is_error: bool) -> ToolExecutionEndEvent:
        item.result = result
        item.is_error = is_error
        item.ended = True
        call = item.call
        return ToolExecutionEndEvent(call.id, call.name, result, is_error, item.duration_ms)

    def _result_message(self, item: _Call) -> tuple[MessageStartEvent, MessageEndEvent]:
        result = item.result
        assert result is not None
        call = item.call
        try:
            message = ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=list(result.content or ()),
                details=result.details,
                usage=result.usage,
                is_error=item.is_error,
                duration_ms=item.duration_ms,
            )
        except ValidationError as exc:
            message = ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=[TextContent(text=f"Tool {call.name} returned content that is not text or images: {exc}")],
                details={},
                is_error=True,
                duration_ms=item.duration_ms,
            )
        self.batch.results.append(message)
        return MessageStartEvent(message), MessageEndEvent(message)


__all__ = [
    "ABORTED_TEXT",
    "ABORT_GRACE_S",
    "TRUNCATED_CALL_TEXT",
    "LoopAborted",
    "ToolBatch",
    "ToolPhase",
    "error_result",
    "error_text",
    "race_abort",
    "resolve",
]
