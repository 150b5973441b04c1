"""At most `PI_CODEMODE_MAX_WORKERS` (default 2) live workers per process, shared by every session.

A script waits in FIFO order up to 60 seconds for a free worker (the wait counts against its
timeout); the slot is released only once the child process has exited.
"""

from __future__ import annotations

import asyncio
import os

DEFAULT_MAX_WORKERS = 2
WAIT_LIMIT_S = 60.0


def max_workers() -> int:
    raw = os.environ.get("PI_CODEMODE_MAX_WORKERS", "")
    try:
        value = int(raw)
    except ValueError:
        return DEFAULT_MAX_WORKERS
    return value if value > 0 else DEFAULT_MAX_WORKERS


class WorkerLimit:
    """A FIFO semaphore bound to the running event loop (asyncio.Semaphore wakes waiters in order)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.semaphore = asyncio.Semaphore(size)

    async def acquire(self, timeout_s: float) -> bool:
        """True once a slot is held; False when none became free within `timeout_s`."""
        try:
            await asyncio.wait_for(self.semaphore.acquire(), timeout=max(timeout_s, 0.0))
        except TimeoutError:
            return False
        return True

    def release(self) -> None:
        self.semaphore.release()


_limits: dict[int, WorkerLimit] = {}


def worker_limit() -> WorkerLimit:
    """The process's limit for the running loop (each loop needs its own primitives)."""
    loop = asyncio.get_running_loop()
    limit = _limits.get(id(loop))
    if limit is None or limit.size != max_workers():
        limit = WorkerLimit(max_workers())
        _limits.clear()
        _limits[id(loop)] = limit
    return limit


__all__ = ["DEFAULT_MAX_WORKERS", "WAIT_LIMIT_S", "WorkerLimit", "max_workers", "worker_limit"]
