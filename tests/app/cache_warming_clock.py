"""A hand-driven clock for cache-warming tests: minutes of schedule pass in one `await advance(...)`."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from pi.app.cache_warming_scheduler import CancelTimer, TimerCallback


@dataclass(order=True)
class _Timer:
    at: float
    seq: int
    callback: TimerCallback = field(compare=False)
    alive: bool = field(default=True, compare=False)


class ManualClock:
    """`Scheduler` whose time moves only in `advance`; due callbacks run in time order, each awaited."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now
        self._timers: list[_Timer] = []
        self._seq = 0

    def now_ms(self) -> float:
        return self.now

    def call_later(self, delay_ms: float, callback: TimerCallback) -> CancelTimer:
        self._seq += 1
        timer = _Timer(self.now + max(0.0, delay_ms), self._seq, callback)
        self._timers.append(timer)

        def cancel() -> None:
            timer.alive = False

        return cancel

    def pending(self) -> list[float]:
        """When the live timers are due."""
        return sorted(t.at for t in self._timers if t.alive)

    async def fire(self, at: float) -> None:
        """Run the live timers due at `at` now, without moving the clock (while `advance` waits elsewhere)."""
        for timer in sorted(t for t in self._timers if t.alive and t.at == at):
            timer.alive = False
            await asyncio.ensure_future(timer.callback())

    async def advance(self, ms: float) -> None:
        """Move time on by `ms`, running every timer that falls due on the way (also ones they set)."""
        end = self.now + ms
        while True:
            due = sorted(t for t in self._timers if t.alive and t.at <= end)
            if not due:
                break
            timer = due[0]
            timer.alive = False
            self.now = max(self.now, timer.at)
            await asyncio.ensure_future(timer.callback())
        self.now = end
        self._timers = [t for t in self._timers if t.alive]
