"""`pi.events`: a small in-process bus extensions use to talk to each other.

Any channel string works (`"my-ext:ready"`). Handlers run in subscription order; one that raises
(or whose coroutine fails) is reported as an extension error with event `events:<channel>` and the
others still run. Subscriptions end with the runtime (reload, session replacement) or when the
subscribing extension fails to load.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi.app.extensions.extension import Extension
    from pi.app.extensions.runtime import ExtensionRuntime

BusHandler = Callable[[Any], Any]


class EventBus:
    """The channels of one runtime, shared by all its extensions."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[tuple[str, BusHandler]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def subscribe(self, channel: str, handler: BusHandler, owner: str) -> Callable[[], None]:
        entry = (owner, handler)
        self._handlers.setdefault(channel, []).append(entry)

        def unsubscribe() -> None:
            entries = self._handlers.get(channel, [])
            if entry in entries:
                entries.remove(entry)

        return unsubscribe

    def emit(self, channel: str, data: Any, runtime: ExtensionRuntime) -> None:
        for owner, handler in list(self._handlers.get(channel, [])):
            try:
                result = handler(data)
            except Exception as error:
                if not runtime.stale:
                    runtime.registry.report(owner, f"events:{channel}", error)
                continue
            if inspect.isawaitable(result):
                self._track(result, owner, channel, runtime)

    async def drain(self) -> None:
        """Wait until the coroutine handlers started so far have finished (shutdown, tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _track(self, awaitable: Any, owner: str, channel: str, runtime: ExtensionRuntime) -> None:
        async def run() -> None:
            try:
                await awaitable
            except Exception as error:
                if not runtime.stale:  # errors of a replaced runtime's handlers are dropped
                    runtime.registry.report(owner, f"events:{channel}", error)

        task = asyncio.ensure_future(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class ExtensionEvents:
    """The bus as one extension sees it (`pi.events`): its subscriptions are tracked for clean-up."""

    def __init__(self, bus: EventBus, extension: Extension, runtime: ExtensionRuntime, guard: Callable[[], None]):
        self._bus = bus
        self._extension = extension
        self._runtime = runtime
        self._guard = guard

    def on(self, channel: str, handler: BusHandler) -> Callable[[], None]:
        """Subscribe to `channel`; returns the function that unsubscribes."""
        self._guard()
        unsubscribe = self._bus.subscribe(channel, handler, self._extension.path)
        self._extension.bus_unsubscribers.append(unsubscribe)
        return unsubscribe

    def emit(self, channel: str, data: Any = None) -> None:
        """Call every handler of `channel` with `data`."""
        self._guard()
        self._bus.emit(channel, data, self._runtime)


__all__ = ["BusHandler", "EventBus", "ExtensionEvents"]
