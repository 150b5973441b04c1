"""The fullscreen transcript's mouse and search features, switched on for the interactive app.

`pi.tui` provides the pieces (wheel, scrollbar and jump pill in the TUI itself; `Selection` and
`TranscriptSearch` as add-ons); this module turns the add-ons on after the first frame and gives
the selection the app's click behaviour: a plain click on a tool card, a `!` block or a compaction
summary expands or collapses that one item, as Ctrl+O does for all of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.tui.component import Component, Container

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp
    from pi.tui.search import TranscriptSearch
    from pi.tui.selection import Selection


def component_at_line(container: Container, width: int, line: int) -> Component | None:
    """The innermost component whose rendered lines hold document line `line` (0-based), or None."""
    offset = 0
    for child in container.children:
        count = len(child.render(width))
        if line < offset + count:
            if isinstance(child, Container) and child.children:
                inner = component_at_line(child, width, line - offset)
                return inner if inner is not None else child
            return child
        offset += count
    return None


def toggle_item_at(app: InteractiveApp, line: int) -> bool:
    """Expand or collapse the transcript item drawn on document line `line`; True if there was one."""
    from pi.app.modes.interactive.components.bash_block import UserBashView
    from pi.app.modes.interactive.components.summaries import BranchSummaryView, CompactionView, SkillCard
    from pi.app.modes.interactive.components.tool_card import ToolCard

    component = component_at_line(app.layout.document, app.tui.document_width, line)
    expandable = (ToolCard, UserBashView, CompactionView, BranchSummaryView, SkillCard)
    if not isinstance(component, expandable) or component not in app.chat.children:
        return False
    expanded = _expanded(component)
    setter = getattr(component, "set_expanded", None)
    if expanded is None or setter is None:
        return False
    setter(not expanded)
    app.tui.request_render(full=True)
    return True


def _expanded(component: Component) -> bool | None:
    state = getattr(component, "state", None)
    value = getattr(state, "expanded", None) if state is not None else getattr(component, "expanded", None)
    return value if isinstance(value, bool) else None


def enable_transcript_mouse(app: InteractiveApp) -> tuple[Selection, TranscriptSearch]:
    """Selection (copied on release when `fullscreenCopyOnSelect` is not false), click to expand,
    and Ctrl+Shift+F search; both only act in fullscreen, so a later switch of mode needs nothing."""
    from pi.tui.search import enable_search
    from pi.tui.selection import enable_selection

    copy_on_select = app.settings.get("fullscreenCopyOnSelect") is not False
    selection = enable_selection(app.tui, copy_on_select=copy_on_select)
    selection.on_click = lambda line, _col: toggle_item_at(app, line)
    search = enable_search(app.tui)
    return selection, search


__all__ = ["component_at_line", "enable_transcript_mouse", "toggle_item_at"]
