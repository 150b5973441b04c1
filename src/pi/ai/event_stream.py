"""An async-iterable queue of events with a final result.

A producer (a provider task) pushes events; consumers iterate them and/or await `result()`. A
terminal event resolves the result; pushes after the end are ignored; `result()` never raises, so
a failed request is always a message, never an exception at the consumer.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any, Generic, TypeVar

from pi.ai.events import AssistantMessageEvent, DoneEvent, ErrorEvent
from pi.ai.types import AssistantMessage

T = TypeVar("T")
R = TypeVar("R")


class EventStream(Generic[T, R]):
    """Single-producer queue. Iterate it once; `result()` may be awaited by anyone, any number of times."""

    def __init__(
        self,
        is_complete: Callable[[T], bool],
        extract_result: Callable[[T], R],
    ) -> None:
        self._is_complete = is_complete
        self._extract_result = extract_result
        self._queue: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._done = False
        self._result: asyncio.Future[R] | None = None
        self._result_value: tuple[R] | None = None
        self.task: asyncio.Task[None] | None = None
        """The producer task, kept here so it is not garbage-collected while it runs."""

    def push(self, event: T) -> None:
        if self._done:
            return
        if self._is_complete(event):
            self._done = True
            self._set_result(self._extract_result(event))
        self._queue.append(event)
        self._wake()

    def end(self, result: R | None = None) -> None:
        """Close iteration; `result` (if given and none is set yet) becomes the result."""
        if result is not None:
            self._set_result(result)
        self._done = True
        self._wake()

    def _set_result(self, value: R) -> None:
        if self._result_value is not None:
            return
        self._result_value = (value,)
        if self._result is not None and not self._result.done():
            self._result.set_result(value)

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def result(self) -> R:
        if self._result_value is not None:
            return self._result_value[0]
        if self._result is None:
            self._result = asyncio.get_running_loop().create_future()
        return await asyncio.shield(self._result)

    def __aiter__(self) -> AsyncIterator[T]:
        return _Events(self)

    async def _next(self) -> T:
        while True:
            if self._queue:
                return self._queue.popleft()
            if self._done:
                raise StopAsyncIteration
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self._waiter = None


class _Events(AsyncIterator[T]):
    """The iterator of an EventStream.

    A class rather than an async generator: consumers stop at the terminal event without reading on,
    and an async generator left suspended that way costs the event loop a clean-up task each time.
    """

    __slots__ = ("_stream",)

    def __init__(self, stream: EventStream[T, Any]) -> None:
        self._stream = stream

    def __aiter__(self) -> AsyncIterator[T]:
        return self

    async def __anext__(self) -> T:
        return await self._stream._next()


def _is_terminal(event: AssistantMessageEvent) -> bool:
    return event.type in ("done", "error")


def _final_message(event: AssistantMessageEvent) -> AssistantMessage:
    if isinstance(event, DoneEvent):
        return event.message
    if isinstance(event, ErrorEvent):
        return event.error
    raise TypeError(f"not a terminal event: {event.type}")


class AssistantMessageEventStream(EventStream[AssistantMessageEvent, AssistantMessage]):
    """The stream every provider returns; `await stream.result()` is the final AssistantMessage."""

    def __init__(self) -> None:
        super().__init__(_is_terminal, _final_message)


__all__ = ["AssistantMessageEventStream", "EventStream"]
