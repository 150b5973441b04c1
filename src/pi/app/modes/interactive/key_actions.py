"""What the app's own keys do: Esc, restoring the queue, thinking blocks and levels, model cycling.

`KeyDispatch` decides which action a key press means; these functions carry the actions out on the
app, so the key table stays a table and the app class keeps to its lifecycle and API surface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp


def on_escape(app: InteractiveApp, *, double: bool) -> None:
    """Esc: cancel compaction, retry or a running `!` command; abort the run, restoring the queue."""
    session = app.session
    if app.binding.compacting or session.is_compacting:
        session.abort_compaction()
    elif app.binding.retrying:
        session.abort_retry()
    elif app.bash.running:
        app.bash.abort()
    elif session.is_streaming:
        restore_queue(app)
        app.spawn(session.abort())
    elif app.editor.is_bash_mode():
        app.editor.clear()
    elif double and app.editor.is_empty():
        app.commands.double_escape()
    app.request_render()


def restore_queue(app: InteractiveApp) -> int:
    """Move every queued message into the editor, before what is typed there; returns how many."""
    steering, follow_up = app.session.clear_queue()
    texts = [*steering, *follow_up, *app.queue.compaction_queue]
    app.queue.compaction_queue.clear()
    if not texts:
        return 0
    current = app.editor.get_text()
    app.editor.set_text("\n\n".join([*texts, current] if current else texts))
    app.queue.set_queues([], [])
    return len(texts)


def restore_queue_to_editor(app: InteractiveApp) -> None:
    """Alt+Up: the queued messages go back to the editor, with a status line saying how many."""
    count = restore_queue(app)
    if count == 0:
        app.show_status("No queued messages to restore")
    else:
        app.show_status(f"Restored {count} queued message{'s' if count != 1 else ''} to editor")


def toggle_thinking_blocks(app: InteractiveApp) -> None:
    """Ctrl+T: show or hide thinking blocks, remembered in the settings."""
    hidden = not app.chat.hide_thinking
    app.chat.set_thinking_hidden(hidden)
    app.settings.set("hideThinkingBlock", hidden)
    app.show_status(f"Thinking blocks: {'hidden' if hidden else 'visible'}")


def cycle_thinking_level(app: InteractiveApp) -> None:
    """Shift+Tab: the next thinking level the model supports."""
    level = app.session.cycle_thinking_level()
    if level is None:
        app.show_status("Current model does not support thinking")
        return
    app.editor.thinking_level = level
    app.footer.invalidate()
    app.show_status(f"Thinking level: {level}")


def cycle_model(app: InteractiveApp, *, forward: bool) -> None:
    """Ctrl+P / Shift+Ctrl+P: the next model in scope."""
    from pi.app.modes.interactive.model_cycle import cycle_model as next_model

    message = next_model(app.session, forward=forward)
    app.editor.thinking_level = app.session.thinking_level
    app.footer.refresh()
    app.show_status(message)


__all__ = [
    "cycle_model",
    "cycle_thinking_level",
    "on_escape",
    "restore_queue",
    "restore_queue_to_editor",
    "toggle_thinking_blocks",
]
