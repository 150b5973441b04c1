"""Settings changed from inside the UI (`/settings`, Ctrl+T) take effect at once, without a restart."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp


def apply_setting(app: InteractiveApp, key: str, value: Any) -> None:
    """Apply one saved UI setting to the running app; keys the UI does not read live are ignored."""
    if key == "theme" and isinstance(value, str):
        from pi.app.modes.interactive.theme_live import switch_theme

        switch_theme(app, value)
    elif key == "tuiMode" and value in ("fullscreen", "regular"):
        app.tui.set_mode(value)
    elif key == "hideThinkingBlock":
        app.chat.set_thinking_hidden(value is True)
    elif key == "editorPaddingX" and isinstance(value, int):
        app.editor.padding_x = max(0, min(3, value))
    elif key == "autocompleteMaxVisible" and isinstance(value, int):
        app.editor.autocomplete_max_visible = max(3, min(20, value))
    elif key == "fullscreenScrollbar" and value in ("auto", "always", "hidden"):
        app.tui.scrollbar = value
    elif key == "quietStartup":
        app.resources_view.show_lists = value not in (True, "header")
    elif key == "fullscreenCopyOnSelect" and app.selection is not None:
        app.selection.copy_on_select = value is not False
    elif key == "fullscreenWheelScrollLines" and (value == "auto" or isinstance(value, int)):
        app.tui.wheel.setting = value
    elif key == "steeringMode" and isinstance(value, str):
        app.session.set_steering_mode(value)
    elif key == "followUpMode" and isinstance(value, str):
        app.session.set_follow_up_mode(value)
    app.tui.invalidate()


__all__ = ["apply_setting"]
