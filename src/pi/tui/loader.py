"""The spinner: a braille frame every 80 ms, as a line of its own or inside the editor's top rule.

The spinner only advances when something asks for a frame; it asks for one itself through the
`request_render` callable while it is running, so no frame is drawn while nothing spins.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from pi.tui.component import RenderRequester
from pi.tui.text_width import truncate_to_width, visible_width

__all__ = ["SPINNER_FRAMES", "SPINNER_INTERVAL", "Loader", "Spinner", "working_rule"]

SPINNER_FRAMES = ("⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏")
SPINNER_INTERVAL = 0.08


class Spinner:
    """Time-driven spinner state; ticks call `request_render` while running."""

    def __init__(self, request_render: RenderRequester | None = None, clock: Callable[[], float] = time.monotonic):
        self.request_render = request_render
        self.clock = clock
        self._started = clock()
        self._handle: asyncio.TimerHandle | None = None
        self.running = False

    def frame(self) -> str:
        index = int((self.clock() - self._started) / SPINNER_INTERVAL + 1e-6) % len(SPINNER_FRAMES)
        return SPINNER_FRAMES[index]

    def start(self) -> None:
        if self.running:
            return
        self.running = True
        self._started = self.clock()
        self._schedule()

    def stop(self) -> None:
        self.running = False
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _schedule(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._handle = loop.call_later(SPINNER_INTERVAL, self._tick)

    def _tick(self) -> None:
        self._handle = None
        if not self.running:
            return
        if self.request_render is not None:
            self.request_render()
        self._schedule()


def working_rule(
    width: int,
    spinner: str,
    label: str,
    paint_rule: Callable[[str], str] | None = None,
    paint_label: Callable[[str], str] | None = None,
    center: str = "",
) -> str:
    """`── ⠸ Working ────…` at `width` cells; only the spinner when the label does not fit.

    Everything is painted in the rule colour unless `paint_label` is given. With no spinner this is
    a plain rule. `center` (for example ` ↑ 3 more `) sits in the middle of the rule when it fits.
    """
    rule = paint_rule or (lambda s: s)
    text = paint_label or rule
    if width <= 0:
        return ""
    head = ""
    if spinner:
        head = f"{spinner} {label}" if label else spinner
        if visible_width(head) + 5 > width:
            head = spinner
        if visible_width(head) + 5 > width:
            head = ""
    used = 4 + visible_width(head) if head else 0
    parts = [rule("── ") + text(head) + rule(" ")] if head else []
    rest = width - used
    center_width = visible_width(center)
    if center and center_width + 2 <= rest:
        left = (width - center_width) // 2 - used
        if left >= 1:
            parts.append(rule("─" * left) + text(center))
            rest -= left + center_width
    parts.append(rule("─" * rest))
    return "".join(parts)


class Loader:
    """A line `⠸ label` that spins while started."""

    def __init__(
        self,
        label: str = "Working...",
        request_render: RenderRequester | None = None,
        paint_spinner: Callable[[str], str] | None = None,
        paint_label: Callable[[str], str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.spinner = Spinner(request_render, clock)
        self.paint_spinner = paint_spinner or (lambda s: s)
        self.paint_label = paint_label or (lambda s: s)

    def start(self) -> None:
        self.spinner.start()

    def stop(self) -> None:
        self.spinner.stop()

    def set_label(self, label: str) -> None:
        self.label = label

    def invalidate(self) -> None:
        return None

    def render(self, width: int) -> list[str]:
        line = f"{self.paint_spinner(self.spinner.frame())} {self.paint_label(self.label)}"
        return [truncate_to_width(line, width)]
