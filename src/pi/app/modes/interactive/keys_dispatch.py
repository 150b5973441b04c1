"""What the main keys do (tui.md §7.1), as two handlers around the editor.

`before_editor` takes the application shortcuts that must win over editing (follow-up, dequeue,
tool expansion, thinking, model cycling, suspend); `after_editor` takes the keys the editor left
alone (Escape, Ctrl+C, Ctrl+D on an empty editor). Both go through the keybinding action ids, so
`keybindings.json` applies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi.app.modes.interactive import key_actions
from pi.tui.editor_keys import PASTE_END, PASTE_START, normalize_paste

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp

DOUBLE_PRESS_SECONDS = 0.5

_BEFORE = (
    "app.message.followUp",
    "app.message.dequeue",
    "app.tools.expand",
    "app.thinking.toggle",
    "app.thinking.cycle",
    "app.model.cycleForward",
    "app.model.cycleBackward",
    "app.model.select",
    "app.suspend",
    "app.editor.external",
    "app.clipboard.pasteImage",
)
_AFTER = ("app.interrupt", "app.clear", "app.exit")


class KeyDispatch:
    """Routes key sequences to the app's actions (see the module docstring)."""

    def __init__(self, app: InteractiveApp, clock: Callable[[], float]) -> None:
        self.app = app
        self.clock = clock
        self.last_clear = -10.0
        self.last_escape = -10.0
        self.extension_keys: Callable[[str], bool] | None = None
        """Extension shortcuts: checked first (reserved keys never reach them); True when one ran."""

    def before_editor(self, data: str) -> bool:
        app = self.app
        if data.startswith(PASTE_START):  # the editor inserts it; the app notes image files it names
            app.pasted_images.note_paste(normalize_paste(data[len(PASTE_START) :].removesuffix(PASTE_END)))
            return False
        if self.extension_keys is not None and self.extension_keys(data):
            return True
        action = app.keybindings.action_for(data, list(_BEFORE))
        if action is None:
            return False
        if action == "app.message.followUp":
            app.submit_from_editor(follow_up=True)
        elif action == "app.message.dequeue":
            key_actions.restore_queue_to_editor(app)
        elif action == "app.tools.expand":
            app.set_tools_expanded(not app.chat.tools_expanded, announce=True)
        elif action == "app.thinking.toggle":
            key_actions.toggle_thinking_blocks(app)
        elif action == "app.thinking.cycle":
            key_actions.cycle_thinking_level(app)
        elif action == "app.model.cycleForward":
            key_actions.cycle_model(app, forward=True)
        elif action == "app.model.cycleBackward":
            key_actions.cycle_model(app, forward=False)
        elif action == "app.model.select":
            app.commands.try_run("/model")
        elif action == "app.suspend":
            app.tui.suspend()
        elif action == "app.editor.external":
            from pi.app.modes.interactive.external_editor import run_external_editor

            run_external_editor(app)
        elif action == "app.clipboard.pasteImage":
            from pi.app.modes.interactive.clipboard_paste import paste_from_clipboard

            app.spawn(paste_from_clipboard(app))
        return True

    def after_editor(self, data: str) -> bool:
        app = self.app
        action = app.keybindings.action_for(data, list(_AFTER))
        now = self.clock()
        if action == "app.clear":
            if now - self.last_clear <= DOUBLE_PRESS_SECONDS:
                app.quit()
            else:
                self.last_clear = now
                app.editor.clear()
            return True
        if action == "app.exit":
            if app.editor.is_empty():
                app.quit()
            return True
        if action == "app.interrupt":
            double = now - self.last_escape <= DOUBLE_PRESS_SECONDS
            self.last_escape = now
            key_actions.on_escape(app, double=double)
            return True
        return False


__all__ = ["DOUBLE_PRESS_SECONDS", "KeyDispatch"]
