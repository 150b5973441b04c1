"""A tool call in the transcript: a blank line and a padded panel whose background shows the state.

`toolPendingBg` while the arguments stream or the tool runs, `toolSuccessBg` when it is done,
`toolErrorBg` on error. The card only keeps state; the content comes from the tool's renderer and
is rebuilt at the next `render` after a change, so arguments that stream in many small pieces cost
one rebuild per frame, not one per piece. A running bash card also changes by itself (its
timer): `needs_timer_tick()` tells the app to draw again once a second.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.components.formatting import EXPAND_KEY, cut, inner_width, panel
from pi.app.modes.interactive.components.tool_renderers import renderer_for
from pi.app.modes.interactive.components.tool_renderers.base import ToolOutput, ToolResultLike, ToolState, home_dir
from pi.app.modes.interactive.components.tool_renderers.bash import timer_text

if TYPE_CHECKING:
    from pi.tui.theme import Theme


class ToolCard:
    """One tool call: arguments, then the partial and final result."""

    def __init__(
        self,
        tool_name: str,
        call_id: str,
        args: dict[str, Any],
        theme: Theme,
        *,
        cwd: str,
        expanded: bool = False,
        output_pad: int = 1,
        now: Callable[[], float] = time.monotonic,
        defined: bool | None = None,
        args_complete: bool = False,
        expand_key: str = EXPAND_KEY,
        home: str | None = None,
    ) -> None:
        self.theme = theme
        self.pad = output_pad
        self.now = now
        self.state = ToolState(
            name=tool_name,
            call_id=call_id,
            args=dict(args),
            cwd=cwd,
            home=home if home is not None else home_dir(),
            expanded=expanded,
            expand_key=expand_key,
        )
        self.renderer = renderer_for(tool_name, defined, now)
        self._version = 0
        self._cache: tuple[int, int, str | None, list[str]] | None = None
        if args_complete:
            self._complete_args()

    # --- state -------------------------------------------------------------------------------

    @property
    def tool_name(self) -> str:
        return self.state.name

    @property
    def call_id(self) -> str:
        return self.state.call_id

    @property
    def done(self) -> bool:
        return self.state.result is not None

    def _changed(self) -> None:
        self._version += 1

    def _complete_args(self) -> None:
        if not self.state.args_complete:
            self.state.args_complete = True
            self.renderer.prepare(self.state)

    def set_args(self, args: dict[str, Any], complete: bool = False) -> None:
        """The arguments so far (a partial dict while they stream); `complete` once they are final."""
        if args != self.state.args:
            self.state.args = dict(args)
            self._changed()
        if complete and not self.state.args_complete:
            self._complete_args()
            self._changed()

    def start(self) -> None:
        """The tool began to run (its arguments are final now); starts the bash timer."""
        self._complete_args()
        if self.state.started_at is None:
            self.state.started_at = self.now()
        self._changed()

    def update(self, partial_result: ToolResultLike) -> None:
        """Streamed output so far (bash)."""
        self.state.partial = ToolOutput.of(partial_result)
        self._changed()

    def finish(self, result: ToolResultLike, is_error: bool = False, duration_ms: float | None = None) -> None:
        """The final result; the background turns to success or error."""
        self._complete_args()
        state = self.state
        state.result = ToolOutput.of(result)
        state.is_error = is_error
        state.duration_ms = duration_ms
        state.ended_at = self.now()
        if state.started_at is None and duration_ms is not None:
            state.started_at = state.ended_at - duration_ms / 1000
        self._changed()

    def fail(self, text: str) -> None:
        """End a call that will not run (the turn failed or was aborted) with `text` as its error."""
        self._complete_args()
        state = self.state
        state.result = ToolOutput(text)
        state.is_error = True
        state.ended_at = self.now()
        self._changed()

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self.state.expanded:
            self.state.expanded = expanded
            self._changed()

    def needs_timer_tick(self) -> bool:
        """True while a timer on the card counts (the app then redraws once a second)."""
        state = self.state
        return self.renderer.ticks and state.started_at is not None and state.result is None

    def invalidate(self) -> None:
        self.state.memo.pop("diff_view", None)
        self.state.memo.pop("highlight", None)
        self._cache = None

    # --- rendering ---------------------------------------------------------------------------

    def background(self) -> str:
        state = self.state
        override = self.renderer.background(state)
        if override is not None:
            return override
        if state.result is None:
            return "toolPendingBg"
        return "toolErrorBg" if state.is_error else "toolSuccessBg"

    def render(self, width: int) -> list[str]:
        timer = timer_text(self.state, self.now) if self.renderer.ticks else None
        cache = self._cache
        if cache is not None and cache[0] == width and cache[1] == self._version and cache[2] == timer:
            return cache[3]
        pad = self.pad if width > 2 * self.pad else 0
        inner = inner_width(width, pad)
        content = [cut(line, inner) for line in self.renderer.render(self.state, self.theme, inner)]
        token = self.background()
        theme = self.theme
        lines = ["", *panel(content, width, pad, 1, lambda s: theme.bg(token, s))]
        self._cache = (width, self._version, timer, lines)
        return lines


__all__ = ["ToolCard"]
