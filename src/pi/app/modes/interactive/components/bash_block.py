"""The block of a command the user ran (`!cmd`, or `!!cmd` kept out of the context).

Between two full-width rules (`bashMode` for `!`, `dim` for `!!`): the bold `$ <command>`, the
output in `muted`, and a spinner line while it runs or status lines once it ended. Collapsed, only
the last 20 visual lines of the output show; expanded, all of it within the 2000-line / 50KB limit
that also bounds what the model sees.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.components.formatting import EXPAND_KEY, inner_width, wrap
from pi.tui.loader import SPINNER_FRAMES, SPINNER_INTERVAL
from pi.tui.text_width import strip_ansi

if TYPE_CHECKING:
    from pi.tui.theme import Theme

PREVIEW_LINES = 20
RUNNING_LABEL = "Running... (escape/ctrl+c to cancel)"


def clean_output(chunk: str) -> str:
    """Terminal output as plain lines: escapes removed, CR LF and lone CR turned into LF."""
    return strip_ansi(chunk).replace("\r\n", "\n").replace("\r", "\n")


KEEP_CHARS = 128 * 1024
"""Streamed output kept in memory: more than the 50KB shown, so dropping the rest changes nothing."""


def _keep_tail(text: str) -> str:
    """The end of a long output, cut at a line start (what the block can show lies within it)."""
    if len(text) <= 2 * KEEP_CHARS:
        return text
    tail = text[-KEEP_CHARS:]
    newline = tail.find("\n")
    return tail[newline + 1 :] if newline != -1 else tail


class UserBashView:
    """A `!`/`!!` command: streamed output, then its exit status."""

    def __init__(
        self,
        command: str,
        exclude_from_context: bool,
        theme: Theme,
        *,
        expanded: bool = False,
        output_pad: int = 1,
        now: Callable[[], float] = time.monotonic,
        spinner_frame: Callable[[], str] | None = None,
        expand_key: str = EXPAND_KEY,
    ) -> None:
        self.command = command
        self.exclude_from_context = exclude_from_context
        self.theme = theme
        self.expanded = expanded
        self.pad = output_pad
        self.now = now
        self.expand_key = expand_key
        self._started = now()
        self._spinner_frame = spinner_frame or self._default_frame
        self._output = ""
        self.running = True
        self.exit_code: int | None = None
        self.cancelled = False
        self.truncated = False
        self.full_output_path: str | None = None
        self._version = 0
        self._lines_memo: tuple[str, list[str]] | None = None
        self._cache: tuple[int, int, str, list[str]] | None = None

    def _default_frame(self) -> str:
        index = int((self.now() - self._started) / SPINNER_INTERVAL + 1e-6) % len(SPINNER_FRAMES)
        return SPINNER_FRAMES[index]

    # --- state -------------------------------------------------------------------------------

    @property
    def output(self) -> str:
        return self._output

    def append(self, delta: str) -> None:
        """More output of the running command."""
        if delta:
            self._output = _keep_tail(self._output + clean_output(delta))
            self._version += 1

    def finish(self, result: Any) -> None:
        """The outcome: a BashResult or BashExecutionMessage (output, exit_code, cancelled, truncated, …).

        The streamed output stays; the result's output is used when nothing streamed (a resumed session).
        """
        self.running = False
        if not self._output:
            self._output = clean_output(str(getattr(result, "output", "") or ""))
        self.exit_code = getattr(result, "exit_code", None)
        self.cancelled = bool(getattr(result, "cancelled", False))
        self.truncated = bool(getattr(result, "truncated", False))
        self.full_output_path = getattr(result, "full_output_path", None)
        self._version += 1

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self.expanded:
            self.expanded = expanded
            self._version += 1

    def needs_spinner_tick(self) -> bool:
        """True while the spinner turns (the app draws a frame every 80 ms meanwhile)."""
        return self.running

    def invalidate(self) -> None:
        self._cache = None

    # --- rendering ---------------------------------------------------------------------------

    def _available_lines(self) -> list[str]:
        """Output lines within the context limit (the tail is kept), memoised per output."""
        if self._lines_memo is not None and self._lines_memo[0] == self._output:
            return self._lines_memo[1]
        from pi.tools.truncate import truncate_tail

        text = self._output
        if text:
            text = truncate_tail(text).content
        lines = text.split("\n") if text else []
        self._lines_memo = (self._output, lines)
        return lines

    def _status(self, hidden: int) -> list[str]:
        theme = self.theme
        key = theme.fg("dim", self.expand_key)
        parts: list[str] = []
        if hidden > 0:
            if self.expanded:
                parts.append("(" + key + theme.fg("muted", " to collapse") + ")")
            else:
                parts.append(
                    theme.fg("muted", f"... {hidden} more lines") + " (" + key + theme.fg("muted", " to expand") + ")"
                )
        if self.cancelled:
            parts.append(theme.fg("warning", "(cancelled)"))
        elif self.exit_code not in (None, 0):
            parts.append(theme.fg("error", f"(exit {self.exit_code})"))
        if self.truncated and self.full_output_path:
            parts.append(theme.fg("warning", f"Output truncated. Full output: {self.full_output_path}"))
        return parts

    def _body(self, inner: int, frame: str) -> list[str]:
        theme = self.theme
        color = "dim" if self.exclude_from_context else "bashMode"
        body = wrap(theme.fg(color, theme.bold(f"$ {self.command}")), inner)
        lines = self._available_lines()
        shown = lines if self.expanded else lines[-PREVIEW_LINES:]
        hidden = max(0, len(lines) - PREVIEW_LINES)
        if lines:
            visual = [""]
            for line in shown:
                visual.extend(wrap(theme.fg("muted", line), inner) if line else [""])
            body.extend(visual if self.expanded else ["", *visual[1:][-PREVIEW_LINES:]])
        if self.running:
            spinner = theme.fg(color, frame) + " " + theme.fg("muted", RUNNING_LABEL)
            body.extend(["", *wrap(spinner, inner)])
        else:
            status = self._status(hidden)
            if status:
                body.append("")
                for part in status:
                    body.extend(wrap(part, inner))
        return body

    def render(self, width: int) -> list[str]:
        frame = self._spinner_frame() if self.running else ""
        cache = self._cache
        if cache is not None and cache[0] == width and cache[1] == self._version and cache[2] == frame:
            return cache[3]
        theme = self.theme
        color = "dim" if self.exclude_from_context else "bashMode"
        pad = self.pad if width > 2 * self.pad else 0
        rule = theme.fg(color, "─" * width)
        body = [" " * pad + line for line in self._body(inner_width(width, pad), frame)]
        lines = ["", rule, *body, rule]
        self._cache = (width, self._version, frame, lines)
        return lines


__all__ = ["PREVIEW_LINES", "RUNNING_LABEL", "UserBashView", "clean_output"]
