"""Time as the OAuth code sees it: injectable so device polling and expiry tests run instantly."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def now_ms(clock: Clock) -> int:
    """The clock in epoch milliseconds, the unit auth.json's `expires` uses."""
    return int(clock.now() * 1000)


__all__ = ["Clock", "SystemClock", "now_ms"]
