"""The ls card: `ls <path or .>[ (limit N)]`, then up to 20 entries."""

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


def ls_notes(details: object) -> list[str]:
    parts: list[str] = []
    limit = detail(details, "entry_limit_reached", "entryLimitReached")
    if limit:
        parts.append(f"{limit} entries limit")
    parts.extend(size_limit_note(details))
    return parts


class LsRenderer(BaseRenderer):
    def render(self, state: ToolState, theme: Theme, width: int) -> list[str]:
        args = state.args
        path = display_path(state, arg_text(args, "path")) or "."
        text = title(theme, "ls") + " " + styled_arg(theme, path, "accent")
        limit = number_arg(args, "limit")
        if limit is not None:
            text += theme.fg("toolOutput", f" (limit {format_number(limit)})")
        return wrap(text, width) + list_result(state, theme, width, PREVIEW_LINES, ls_notes)


__all__ = ["LsRenderer", "ls_notes"]
