"""/tree: show the session's entry tree and move the conversation to the chosen point.

Choosing a user message continues from just before it and puts its text back in the editor (to
edit and resend); choosing any other entry continues right after it. Summarizing the branch that
is left behind is not offered in this version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.app.modes.interactive.pickers.tree_view import TreeView, tree_rows

if TYPE_CHECKING:
    from pi.app.modes.interactive.commands.api import InteractiveApi


async def navigate_to(api: InteractiveApi, entry_id: str) -> None:
    """Move the session to `entry_id` (before it, for a user message) and show where it is now."""
    session = api.session
    if entry_id == session.session.get_leaf_id():
        api.show_status("Already at this point")
        return
    try:
        editor_text = await session.navigate_tree(entry_id)
    except ValueError as exc:
        api.show_error(str(exc))
        return
    api.rebuild_chat()
    if editor_text is not None:
        api.set_editor_text(editor_text)
    api.show_status("Navigated to selected point")


def open_tree(api: InteractiveApi) -> None:
    manager = api.session.session
    active = {entry.id for entry in manager.get_branch()}
    rows = tree_rows(manager.get_tree(), active)
    if not rows:
        api.show_status("No entries in this session yet")
        return

    def chosen(entry_id: str) -> None:
        api.close_selector()
        api.spawn(navigate_to(api, entry_id))

    view = TreeView(
        rows,
        api.theme,
        api.keybindings,
        current_id=manager.get_leaf_id(),
        on_select=chosen,
        on_cancel=api.close_selector,
    )
    api.show_selector(view)


__all__ = ["navigate_to", "open_tree"]
