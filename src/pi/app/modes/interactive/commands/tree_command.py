"""/tree: show the session's entry tree and move the conversation to the chosen point (§10.6).

Choosing a user message continues from just before it and puts its text back in the editor (to
edit and resend); choosing any other entry continues right after it. Leaving a branch first asks
`Summarize branch?` (No summary / Summarize / Summarize with custom prompt) unless
`branchSummary.skipPrompt` is set; a summary is recorded at the new position, and Esc while it is
written cancels the move. Shift+L labels the selected entry, Ctrl+X copies its text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.app.modes.interactive.pickers.tree_view import TreeView, tree_rows

if TYPE_CHECKING:
    from pi.app.modes.interactive.commands.api import InteractiveApi
    from pi.app.modes.interactive.pickers.tree_rows import TreeRow

SUMMARY_TITLE = "Summarize branch?"
SUMMARY_OPTIONS = ("No summary", "Summarize", "Summarize with custom prompt")
SUMMARIZING = "Summarizing branch... (escape to cancel)"
SUMMARY_CANCELLED = "Branch summarization cancelled"
COPIED = "Copied selected message to clipboard"


async def navigate_to(
    api: InteractiveApi, entry_id: str, *, summarize: bool = False, instructions: str | None = None
) -> None:
    """Move the session to `entry_id` (before it, for a user message) and show where it is now."""
    from pi.app.session_navigation import BranchSummaryCancelled

    session = api.session
    if entry_id == session.session.get_leaf_id():
        api.show_status("Already at this point")
        return
    if summarize:
        api.set_working(SUMMARIZING)
    try:
        editor_text = await session.navigate_tree(entry_id, summarize=summarize, custom_instructions=instructions)
    except BranchSummaryCancelled:
        api.show_status(SUMMARY_CANCELLED)
        return
    except ValueError as exc:
        api.show_error(str(exc))
        return
    finally:
        if summarize:
            api.set_working(None)
    api.rebuild_chat()
    if editor_text is not None:
        api.set_editor_text(editor_text)
    api.show_status("Navigated to selected point")


def _skip_prompt(api: InteractiveApi) -> bool:
    settings = api.settings.get("branchSummary")
    return isinstance(settings, dict) and settings.get("skipPrompt") is True


def _ask_summary(api: InteractiveApi, entry_id: str) -> None:
    from pi.app.modes.interactive.pickers.dialogs import SelectDialog, TextPromptDialog

    def custom(text: str) -> None:
        api.close_selector()
        api.spawn(navigate_to(api, entry_id, summarize=True, instructions=text.strip() or None))

    def chosen(index: int) -> None:
        if index == 2:
            prompt = TextPromptDialog(
                "Custom summary instructions",
                api.theme,
                api.keybindings,
                on_submit=custom,
                on_cancel=api.close_selector,
            )
            api.show_selector(prompt)
            return
        api.close_selector()
        api.spawn(navigate_to(api, entry_id, summarize=index == 1))

    dialog = SelectDialog(
        SUMMARY_TITLE, list(SUMMARY_OPTIONS), api.theme, api.keybindings, on_select=chosen, on_cancel=api.close_selector
    )
    api.show_selector(dialog)


def _current_rows(api: InteractiveApi) -> list[TreeRow]:
    manager = api.session.session
    active = {entry.id for entry in manager.get_branch()}
    return tree_rows(manager.get_tree(), active)


def _edit_label(api: InteractiveApi, view: TreeView, row: TreeRow) -> None:
    from pi.app.modes.interactive.pickers.dialogs import TextPromptDialog

    def back() -> None:
        api.show_selector(view)

    def save(text: str) -> None:
        api.session.session.append_label_change(row.entry_id, text.strip() or None)
        view.set_rows(_current_rows(api))
        back()

    prompt = TextPromptDialog(
        "Label", api.theme, api.keybindings, on_submit=save, on_cancel=back, value=row.label or "",
        message=["An empty label removes it."],
    )  # fmt: skip
    api.show_selector(prompt)


def open_tree(api: InteractiveApi) -> None:
    rows = _current_rows(api)
    if not rows:
        api.show_status("No entries in this session yet")
        return
    current = _shown_leaf(api, rows)

    def chosen(entry_id: str) -> None:
        if entry_id == current:
            api.close_selector()
            api.show_status("Already at this point")
            return
        if _skip_prompt(api):
            api.close_selector()
            api.spawn(navigate_to(api, entry_id))
            return
        _ask_summary(api, entry_id)

    def copy(row: TreeRow) -> None:
        api.copy_to_clipboard(row.full_text or row.text)
        api.show_status(COPIED)

    mode = api.settings.get("treeFilterMode", "default")
    view = TreeView(
        rows,
        api.theme,
        api.keybindings,
        current_id=current,
        on_select=chosen,
        on_cancel=api.close_selector,
        filter_mode=mode if isinstance(mode, str) else "default",
        on_copy=copy,
    )
    view.on_label = lambda row: _edit_label(api, view, row)
    api.show_selector(view)


def _shown_leaf(api: InteractiveApi, rows: list[TreeRow]) -> str | None:
    """The leaf, or its nearest ancestor that has a row (a label entry has none)."""
    shown = {row.entry_id for row in rows}
    for entry in reversed(api.session.session.get_branch()):
        if entry.id in shown:
            return str(entry.id)
    return None


__all__ = ["COPIED", "SUMMARIZING", "SUMMARY_CANCELLED", "SUMMARY_OPTIONS", "SUMMARY_TITLE", "navigate_to", "open_tree"]
