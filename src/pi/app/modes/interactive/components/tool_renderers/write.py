"""The write card: `write <path>`, then the first ten highlighted lines of what is written.

The preview comes from the arguments, so it grows while they stream. Collapsed it ends with
`... (N more lines, T total, ctrl+o to expand)`; the result adds nothing unless the write failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.app.modes.interactive.components.formatting import expand_hint, wrap
from pi.app.modes.interactive.components.tool_renderers.base import (
    INVALID_ARG,
    BaseRenderer,
    ToolState,
    arg_text,
    colored_block,
    display_path,
    output_lines,
    styled_arg,
    title,
)
from pi.app.modes.interactive.components.tool_renderers.read import drop_trailing_blank, highlighted

if TYPE_CHECKING:
    from pi.tui.theme import Theme

PREVIEW_LINES = 10


class WriteRenderer(BaseRenderer):
    def render(self, state: ToolState, theme: Theme, width: int) -> list[str]:
        raw = arg_text(state.args, "path", "file_path")
        out = wrap(title(theme, "write") + " " + styled_arg(theme, display_path(state, raw), "accent"), width)
        content = arg_text(state.args, "content")
        if content and content != INVALID_ARG:
            lines = drop_trailing_blank(content.replace("\r\n", "\n").split("\n"))
            total = len(lines)
            shown = lines if state.expanded else lines[:PREVIEW_LINES]
            if shown:
                out.append("")
                for line in highlighted(state, theme, "\n".join(shown), raw):
                    out.extend(wrap(line, width) if line else [""])
            if total > len(shown):
                hint = f"... ({total - len(shown)} more lines, {total} total,"
                out.extend(wrap(expand_hint(theme, hint, state.expand_key), width))
        elif content == INVALID_ARG:
            out.extend(["", theme.fg("error", content)])
        if state.result is not None and state.is_error:
            lines = output_lines(state.result.text)
            if lines:
                out.append("")
                out.extend(colored_block(lines, width, lambda s: theme.fg("error", s)))
        return out


__all__ = ["PREVIEW_LINES", "WriteRenderer"]
