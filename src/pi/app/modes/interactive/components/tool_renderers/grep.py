"""The grep card: `grep /<pattern>/ in <path>[ (<glob>)][ limit N]`, then up to 15 result lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.app.modes.interactive.components.formatting import wrap
from pi.app.modes.interactive.components.tool_renderers.base import (
    INVALID_ARG,
    BaseRenderer,
    ToolState,
    arg_text,
    detail,
    display_path,
    format_number,
    list_result,
    number_arg,
    size_limit_note,
    styled_arg,
    title,
)

if TYPE_CHECKING:
    from pi.tui.theme import Theme

PREVIEW_LINES = 15


def grep_notes(details: object) -> list[str]:
    """Parts of `[Truncated: 100 matches limit, 50.0KB limit, some lines truncated]`."""
    parts: list[str] = []
    limit = detail(details, "match_limit_reached", "matchLimitReached")
    if limit:
        parts.append(f"{limit} matches limit")
    parts.extend(size_limit_note(details))
    if detail(details, "lines_truncated", "linesTruncated"):
        parts.append("some lines truncated")
    return parts


class GrepRenderer(BaseRenderer):
    def render(self, state: ToolState, theme: Theme, width: int) -> list[str]:
        args = state.args
        pattern = arg_text(args, "pattern")
        path = display_path(state, arg_text(args, "path")) or "."
        shown = pattern if pattern == INVALID_ARG else f"/{pattern or ''}/"
        text = title(theme, "grep") + " " + styled_arg(theme, shown, "accent")
        text += theme.fg("toolOutput", " in ") + styled_arg(theme, path, "toolOutput")
        glob = arg_text(args, "glob")
        if glob:
            text += theme.fg("toolOutput", " (") + styled_arg(theme, glob, "toolOutput") + theme.fg("toolOutput", ")")
        limit = number_arg(args, "limit")
        if limit is not None:
            text += theme.fg("toolOutput", f" limit {format_number(limit)}")
        return wrap(text, width) + list_result(state, theme, width, PREVIEW_LINES, grep_notes)


__all__ = ["GrepRenderer", "grep_notes"]
