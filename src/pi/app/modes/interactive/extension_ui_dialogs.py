"""Showing extension dialogs in the editor's place, and waiting for their answer.

`DialogHost.ask` shows a component where the editor was, waits until the component answers, the
timeout passes or the signal aborts, then puts back what was there before (the editor, or an
earlier dialog when several are open at once: the newest is on top). A timed dialog counts down in
its title, `Title (5s)`, once a second; at zero it answers the default, as an abort does.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from pi.ai.abort import AbortSignal
    from pi.app.modes.interactive.app import InteractiveApp

T = TypeVar("T")
Answer = Callable[[Any], None]


def countdown_title(title: str, seconds_left: float) -> str:
    return f"{title} ({max(0, math.ceil(seconds_left - 1e-9))}s)"


class DialogHost:
    """Owns the dialogs an extension opened (see the module docstring)."""

    def __init__(self, app: InteractiveApp) -> None:
        self.app = app
        self._stack: list[tuple[Any, Any]] = []
        """(dialog, what the editor slot showed before it), oldest first."""

    @property
    def open_count(self) -> int:
        return len(self._stack)

    def show(self, component: Any) -> None:
        """Put `component` in the editor's place (above any dialog already shown)."""
        self._stack.append((component, self.app.slot.selector))
        self.app.show_selector(component)

    def close(self, component: Any) -> None:
        """Take `component` away; the slot shows what it showed before, skipping closed dialogs."""
        index = next((i for i, (c, _) in enumerate(self._stack) if c is component), None)
        if index is None:
            return
        _, previous = self._stack.pop(index)
        if index < len(self._stack):
            # A newer dialog sat on this one: it must fall back to what this one replaced.
            newer, _ = self._stack[index]
            self._stack[index] = (newer, previous)
            return
        if self.app.slot.selector is not component:
            return  # something else took the slot meanwhile; leave it
        if previous is None:
            self.app.close_selector()
        else:
            self.app.show_selector(previous)

    async def ask(
        self,
        build: Callable[[Answer], Any],
        default: T,
        *,
        signal: AbortSignal | None = None,
        timeout_ms: int | None = None,
        set_title: Callable[[Any, str], None] | None = None,
        title: str = "",
    ) -> T:
        """Show `build(answer)` and return what it answers (`default` on timeout or abort).

        An already-aborted signal returns `default` without showing anything.
        """
        if signal is not None and signal.aborted:
            return default
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()

        def answer(value: Any) -> None:
            if not future.done():
                future.set_result(value)

        component = build(answer)
        remove_listener = signal.add_listener(lambda: answer(default)) if signal is not None else None
        ticker: asyncio.Task[None] | None = None
        if timeout_ms is not None and timeout_ms > 0:
            ticker = asyncio.ensure_future(self._count_down(component, timeout_ms, title, set_title, answer, default))
        self.show(component)
        try:
            result: T = await future
        finally:
            if ticker is not None:
                ticker.cancel()
            if remove_listener is not None:
                remove_listener()
            self.close(component)
            self.app.request_render()
        return result

    async def _count_down(
        self,
        component: Any,
        timeout_ms: int,
        title: str,
        set_title: Callable[[Any, str], None] | None,
        answer: Answer,
        default: Any,
    ) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout_ms / 1000
        while True:
            left = end - loop.time()
            if left <= 0:
                answer(default)
                return
            if set_title is not None:
                set_title(component, countdown_title(title, left))
                self.app.request_render()
            # Wake when the whole number of seconds shown changes (or at the end).
            await asyncio.sleep(max(0.01, min(left, left - math.ceil(left - 1e-9) + 1)))


__all__ = ["Answer", "DialogHost", "countdown_title"]
