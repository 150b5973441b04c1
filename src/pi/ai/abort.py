"""Cancellation that crosses layers: one signal reaches the HTTP stream, every tool and every hook.

asyncio task cancellation alone cannot tell a bash tool to kill its process group, or a provider to
close its response, in a way those pieces can observe and clean up after; an explicit signal can.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

logger = logging.getLogger(__name__)


class AbortSignal:
    """Becomes aborted once; listeners run at that moment (or at once if added afterwards)."""

    __slots__ = ("_aborted", "_event", "_listeners", "reason")

    def __init__(self) -> None:
        self._aborted = False
        self.reason: str | None = None
        self._listeners: list[Callable[[], None]] = []
        self._event: asyncio.Event | None = None

    @property
    def aborted(self) -> bool:
        return self._aborted

    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` on abort; returns a function that removes it again."""
        if self._aborted:
            listener()
            return lambda: None
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    async def wait(self) -> None:
        """Return once the signal is aborted."""
        if self._aborted:
            return
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    def _fire(self, reason: str | None) -> None:
        if self._aborted:
            return
        self._aborted = True
        self.reason = reason
        if self._event is not None:
            self._event.set()
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            try:
                listener()
            except Exception as error:  # reported, and the others still run: the abort must reach everyone
                logger.error("an abort listener failed: %s", str(error) or type(error).__name__, exc_info=error)


class AbortController:
    """Owns a signal and is the only way to abort it."""

    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: str | None = None) -> None:
        self.signal._fire(reason)


__all__ = ["AbortController", "AbortSignal"]
