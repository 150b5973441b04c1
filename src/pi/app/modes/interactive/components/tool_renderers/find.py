"""The find card: `find <pattern> in <path>[ (limit N)]`, then up to 20 result lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.app.modes.interactive.components.formatting import wrap
from pi.app.modes.interactive.components.tool_renderers.base import (
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

PREVIEW_LINES = 20


def find_notes(details: object) -> list[str]:
    parts: list[str] = []
    limit = detail(details, "result_limit_reached", "resultLimitReached")
    if limit:
        parts.append(f"{limit} results limit")
    parts.extend(size_limit_note(details))
    return parts


class FindRenderer(BaseRenderer):
    def render(self, state: ToolState, theme: Theme, width: int) -> list[str]:
        args = state.args
        path = display_path(state, arg_text(args, "path")) or "."
        text = title(theme, "find") + " " + styled_arg(theme, arg_text(args, "pattern"), "accent")
        text += theme.fg("toolOutput", " in ") + styled_arg(theme, path, "toolOutput")
        limit = number_arg(args, "limit")
        if limit is not None:
            text += theme.fg("toolOutput", f" (limit {format_number(limit)})")
        return wrap(text, width) + list_result(state, theme, width, PREVIEW_LINES, find_notes)


__all__ = ["FindRenderer", "find_notes"]
