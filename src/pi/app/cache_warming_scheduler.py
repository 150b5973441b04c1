"""The clock and timers cache warming runs on, so that tests can drive minutes of schedule at once.

`Scheduler` is what the warmer needs: the time now and "run this coroutine function after a
delay". `LoopScheduler` uses the running asyncio loop (its monotonic clock); a test passes its
own implementation and advances time by hand.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol

TimerCallback = Callable[[], Awaitable[None]]
CancelTimer = Callable[[], None]


class Scheduler(Protocol):
    def now_ms(self) -> float:
        """Milliseconds on a monotonic clock."""
        ...

    def call_later(self, delay_ms: float, callback: TimerCallback) -> CancelTimer:
        """Run `callback()` after `delay_ms`; the returned function cancels it if it has not started."""
        ...


class LoopScheduler:
    """Timers on the running asyncio loop; each callback runs as its own task."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def now_ms(self) -> float:
        return asyncio.get_running_loop().time() * 1000

    def call_later(self, delay_ms: float, callback: TimerCallback) -> CancelTimer:
        loop = asyncio.get_running_loop()

        def fire() -> None:
            task = loop.create_task(_run(callback))
            self._tasks.add(task)  # keep a reference until it is done
            task.add_done_callback(self._tasks.discard)

        handle = loop.call_later(max(0.0, delay_ms) / 1000, fire)
        return handle.cancel


async def _run(callback: TimerCallback) -> None:
    await callback()


__all__ = ["CancelTimer", "LoopScheduler", "Scheduler", "TimerCallback"]
