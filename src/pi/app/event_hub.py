"""Fan-out of session events to listeners, so that a slow renderer never slows the model's stream.

Two kinds of listener:

- *queued* (the default): each has its own mailbox and a worker task that calls it with every event,
  in order. `emit` only appends to the mailbox, so a listener that takes 50 ms per event (a UI that
  redraws) falls behind on its own instead of holding up token delivery for everyone.
- *awaited*: called inline, in subscription order, and awaited before `emit` returns. For listeners
  whose effect must happen before the run goes on (writing protocol records in order with command
  responses, persisting).

A listener that raises is logged with its traceback and skipped; it still gets the next event. A
broken renderer must not hide events from the others or stop what the session does next.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

E = TypeVar("E")
Listener = Callable[[E], "Awaitable[None] | None"]

logger = logging.getLogger("pi.app.events")


def report_listener_error(error: BaseException, event: Any) -> None:
    kind = getattr(event, "type", type(event).__name__)
    logger.error("a session listener failed on %s: %s", kind, str(error) or type(error).__name__, exc_info=error)


async def _call(listener: Listener[Any], event: Any) -> None:
    try:
        outcome = listener(event)
        if outcome is not None:
            await outcome
    except Exception as error:
        report_listener_error(error, event)


class _Mailbox(Generic[E]):
    """One queued listener: its pending events and the worker delivering them."""

    __slots__ = ("_idle", "_items", "_task", "_waiter", "listener")

    def __init__(self, listener: Listener[E]) -> None:
        self.listener = listener
        self._items: deque[E] = deque()
        self._task: asyncio.Task[None] | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()

    def put(self, event: E) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._deliver_now(event)
            return
        self._items.append(event)
        self._idle.clear()
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._work())
        elif self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _deliver_now(self, event: E) -> None:
        """Without an event loop (set-up code) there is no worker: call at once, sync listeners only."""
        try:
            outcome = self.listener(event)
            if inspect.isawaitable(outcome):
                close = getattr(outcome, "close", None)
                if callable(close):
                    close()
                logger.warning("an async session listener missed %s: no event loop was running", event)
        except Exception as error:
            report_listener_error(error, event)

    async def _work(self) -> None:
        while True:
            while self._items:
                await _call(self.listener, self._items.popleft())
            self._idle.set()
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
            self._waiter = None

    async def drain(self) -> None:
        # Called from this listener itself (it prompted from an event): waiting for itself would never end.
        if self._task is None or self._task.done() or asyncio.current_task() is self._task:
            return
        await self._idle.wait()

    def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._idle.set()


async def _await_outcome(outcome: Awaitable[None], event: Any) -> None:
    try:
        await outcome
    except Exception as error:
        report_listener_error(error, event)


class EventHub(Generic[E]):
    def __init__(self) -> None:
        self._awaited: list[Listener[E]] = []
        self._queued: list[_Mailbox[E]] = []
        self._scheduled: set[asyncio.Task[None]] = set()

    def subscribe(self, listener: Listener[E], *, awaited: bool = False) -> Callable[[], None]:
        """Deliver every later event to `listener`; returns the function that unsubscribes it."""
        if awaited:
            self._awaited.append(listener)

            def remove_awaited() -> None:
                if listener in self._awaited:
                    self._awaited.remove(listener)

            return remove_awaited
        box = _Mailbox(listener)
        self._queued.append(box)

        def remove_queued() -> None:
            if box in self._queued:
                self._queued.remove(box)
                box.close()

        return remove_queued

    async def emit(self, event: E) -> None:
        for box in list(self._queued):
            box.put(event)
        for listener in list(self._awaited):
            await _call(listener, event)

    def emit_nowait(self, event: E) -> None:
        """For state changes made by synchronous methods: awaited listeners that are coroutines are scheduled."""
        for box in list(self._queued):
            box.put(event)
        for listener in list(self._awaited):
            try:
                outcome = listener(event)
            except Exception as error:
                report_listener_error(error, event)
                continue
            if inspect.isawaitable(outcome):
                try:
                    task = asyncio.get_running_loop().create_task(_await_outcome(outcome, event))
                    self._scheduled.add(task)
                    task.add_done_callback(self._scheduled.discard)
                except RuntimeError:
                    logger.warning("an async session listener missed %s: no event loop was running", event)

    async def drain(self) -> None:
        """Return once every queued listener has been called with every event emitted so far."""
        for box in list(self._queued):
            await box.drain()
        while self._scheduled:
            await asyncio.gather(*list(self._scheduled))


__all__ = ["EventHub", "Listener", "report_listener_error"]
