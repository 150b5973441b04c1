"""A fence around components an extension provides: its mistakes must not take the terminal UI down.

Widgets, custom components, headers and footers come from extension code, which may raise or return
lines wider than the screen (the renderer refuses those). `GuardedComponent` cuts every line to the
width, turns a failing `render` into one error line, lets a failing `handle_input` count as handled,
and reports each failure once through `on_error`, so the user sees what went wrong and pi carries on.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from pi.tui.text_width import truncate_to_width, visible_width

logger = logging.getLogger(__name__)

ErrorReporter = Callable[[str, BaseException], None]


def _lines(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return value.split("\n")
    return [str(line) for line in value]


class GuardedComponent:
    """Wraps an extension's component (anything with `render(width)`; `invalidate`, `handle_input`,
    `dispose` are optional) or fixed text (a string or a list of lines). `where` names it in error
    reports (`widget "todo"`, `custom component`)."""

    def __init__(self, inner: Any, where: str, on_error: ErrorReporter | None = None) -> None:
        self.inner = inner
        self.where = where
        self.on_error = on_error
        self.focused = False
        self._failed = False
        self._cache: tuple[int, list[str], list[str]] | None = None

    def _report(self, error: BaseException) -> None:
        if self._failed:
            return
        self._failed = True
        logger.warning("extension %s failed: %s", self.where, error)
        if self.on_error is not None:
            self.on_error(self.where, error)

    def invalidate(self) -> None:
        self._cache = None
        invalidate = getattr(self.inner, "invalidate", None)
        if callable(invalidate):
            try:
                invalidate()
            except Exception as error:
                self._report(error)

    def render(self, width: int) -> list[str]:
        if hasattr(self.inner, "focused"):
            with contextlib.suppress(Exception):  # a read-only property: the component ignores focus
                self.inner.focused = self.focused
        try:
            static = isinstance(self.inner, str | list | tuple)
            raw = _lines(self.inner) if static else _lines(self.inner.render(width))
        except Exception as error:
            self._report(error)
            return [truncate_to_width(f"[{self.where} failed: {error}]", width)]
        cache = self._cache
        if cache is not None and cache[0] == width and cache[1] == raw:
            return cache[2]  # the same list again lets containers skip unchanged parts
        lines = [line if visible_width(line) <= width else truncate_to_width(line, width) for line in raw]
        self._cache = (width, raw, lines)
        return lines

    def handle_input(self, data: str) -> bool:
        handler = getattr(self.inner, "handle_input", None)
        if not callable(handler):
            return False
        try:
            result = handler(data)
        except Exception as error:
            self._report(error)
            return True
        return True if result is None else bool(result)

    def dispose(self) -> None:
        dispose = getattr(self.inner, "dispose", None)
        if callable(dispose):
            try:
                dispose()
            except Exception as error:
                self._report(error)


__all__ = ["ErrorReporter", "GuardedComponent"]
