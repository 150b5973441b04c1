"""The bash card: `$ <command>`, the tail of the output, truncation notes, and the timer.

Collapsed, only the last five *visual* lines show (after wrapping to the card's width) under
`... (N earlier lines, ctrl+o to expand)`. The timer reads `Elapsed 2.0s` while the command runs
and `Took 3.0s` once it ended.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.app.modes.interactive.components.formatting import expand_hint, format_duration, wrap
from pi.app.modes.interactive.components.tool_renderers.base import (
    INVALID_ARG,
    BaseRenderer,
    ToolState,
    arg_text,
    colored_block,
    detail,
    format_number,
    image_placeholders,
    number_arg,
    output_lines,
    title,
    warning_note,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from pi.tui.theme import Theme

PREVIEW_LINES = 5


def truncation_note(details: object) -> str | None:
    """`[Full output: <path>. Truncated: showing 2000 of 5000 lines]` from bash details, or None."""
    from pi.tools.truncate import DEFAULT_MAX_BYTES, format_size

    truncation = detail(details, "truncation")
    full_output = detail(details, "full_output_path", "fullOutputPath")
    truncated = bool(detail(truncation, "truncated"))
    if not truncated and not full_output:
        return None
    parts: list[str] = []
    if full_output:
        parts.append(f"Full output: {full_output}")
    if truncated:
        if detail(truncation, "truncated_by", "truncatedBy") == "lines":
            shown = detail(truncation, "output_lines", "outputLines")
            total = detail(truncation, "total_lines", "totalLines")
            parts.append(f"Truncated: showing {shown} of {total} lines")
        else:
            shown = detail(truncation, "output_lines", "outputLines")
            limit = detail(truncation, "max_bytes", "maxBytes") or DEFAULT_MAX_BYTES
            parts.append(f"Truncated: {shown} lines shown ({format_size(int(limit))} limit)")
    return "[" + ". ".join(parts) + "]"


def without_model_note(text: str, details: object) -> str:
    """The output without the `[Showing lines …. Full output: <path>]` paragraph the bash tool adds
    for the model when it truncated: the card says the same in its own note (`truncation_note`),
    and pi shows it once."""
    full_output = detail(details, "full_output_path", "fullOutputPath")
    if not full_output or not detail(detail(details, "truncation"), "truncated"):
        return text
    body = text.rstrip()
    start = body.rfind("\n\n[")
    if body.endswith("]") and start != -1 and str(full_output) in body[start:]:
        return body[:start].rstrip()
    return text


def timer_text(state: ToolState, now: Callable[[], float]) -> str | None:
    """`Elapsed 2.0s` while running, `Took 3.0s` when done, None before the command started."""
    if state.result is not None:
        if state.duration_ms is not None:
            return f"Took {format_duration(state.duration_ms / 1000)}"
        if state.started_at is not None and state.ended_at is not None:
            return f"Took {format_duration(state.ended_at - state.started_at)}"
        return None
    if state.started_at is None:
        return None
    return f"Elapsed {format_duration(now() - state.started_at)}"


class BashRenderer(BaseRenderer):
    ticks = True

    def __init__(self, now: Callable[[], float]) -> None:
        self.now = now

    def call_line(self, state: ToolState, theme: Theme) -> str:
        command = arg_text(state.args, "command")
        if command is None or command == "":
            text = title(theme, "$ ...")
        elif command == INVALID_ARG:
            text = title(theme, "$ ") + theme.fg("error", command)
        else:
            text = title(theme, f"$ {command}")
        timeout = number_arg(state.args, "timeout")
        if timeout is not None:
            text += theme.fg("muted", f" (timeout {format_number(timeout)}s)")
        return text

    def _visual(self, state: ToolState, theme: Theme, lines: list[str], width: int) -> list[str]:
        """All output lines wrapped and painted; memoised per text and width (a tick re-renders)."""
        memo = state.memo.get("bash_visual")
        if memo is not None and memo[0] is lines and memo[1] == width:
            cached: list[str] = memo[2]
            return cached
        visual = colored_block(lines, width, lambda s: theme.fg("toolOutput", s))
        state.memo["bash_visual"] = (lines, width, visual)
        return visual

    def _lines(self, state: ToolState) -> list[str]:
        output = state.output
        text = output.text if output is not None else ""
        if state.result is not None:
            text = without_model_note(text, state.result.details)
        memo = state.memo.get("bash_lines")
        if memo is not None and memo[0] == text:
            cached: list[str] = memo[1]
            return cached
        lines = output_lines(text)
        if output is not None:
            lines.extend(image_placeholders(output))
        state.memo["bash_lines"] = (text, lines)
        return lines

    def render(self, state: ToolState, theme: Theme, width: int) -> list[str]:
        out = wrap(self.call_line(state, theme), width)
        lines = self._lines(state)
        if lines:
            visual = self._visual(state, theme, lines, width)
            out.append("")
            if state.expanded or len(visual) <= PREVIEW_LINES:
                out.extend(visual)
            else:
                skipped = len(visual) - PREVIEW_LINES
                out.extend(wrap(expand_hint(theme, f"... ({skipped} earlier lines,", state.expand_key), width))
                out.extend(visual[-PREVIEW_LINES:])
        output = state.output
        note = truncation_note(output.details) if output is not None else None
        if note:
            out.extend(warning_note(theme, note, width))
        timer = timer_text(state, self.now)
        if timer:
            out.append("")
            out.extend(wrap(theme.fg("muted", timer), width))
        return out


__all__ = ["PREVIEW_LINES", "BashRenderer", "timer_text", "truncation_note", "without_model_note"]
