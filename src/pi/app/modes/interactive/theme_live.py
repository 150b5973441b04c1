"""Theme changes while the UI runs: the terminal's palette answer for `system`, and /settings → Theme.

Every component holds the app's one `Theme` object, so a change is `Theme.adopt` (new colours in
place) followed by a full repaint. The `system` theme starts with the ANSI fallback and is rebuilt
from whatever the terminal reports to the OSC 10/11/4 queries, including answers that come late.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp
    from pi.tui.theme import Appearance, Theme


def follow_terminal_palette(app: InteractiveApp) -> None:
    """While the theme is `system`, rebuild it each time the terminal reports colours."""
    term = app.terminal
    previous = term.on_replies

    def on_replies() -> None:
        if previous is not None:
            previous()
        if app.theme.source != "system" or not term.palette_replies:
            return
        app.theme.adopt(system_from_terminal(app))
        app.tui.invalidate()

    term.on_replies = on_replies


def system_from_terminal(app: InteractiveApp) -> Theme:
    from pi.tui.theme_system import palette_from_replies, system_theme

    term = app.terminal
    palette = palette_from_replies(term.palette_replies) if term.palette_replies else None
    return system_theme(palette, app.theme.color_mode, term.environ)


def load_named_theme(app: InteractiveApp, name: str) -> Theme:
    """A built-in, `system`, or one of the theme files the session offers (see `theme_files`).

    Raises `ThemeError` (its message names the file and the key that is wrong)."""
    from pi.tui.theme import load_theme

    if name == "system":
        return system_from_terminal(app)
    pair = theme_pair(name)
    if pair is not None:
        name = pair[0] if terminal_appearance(app) == "light" else pair[1]
        if name == "system":
            return system_from_terminal(app)
    from pi.app.modes.interactive.theme_files import session_themes, theme_dirs, theme_target

    offered = session_themes(app.session, app.agent_dir)
    target, search = theme_target(name, offered, theme_dirs(app.agent_dir, app.session.cwd))
    return load_theme(target, search, app.theme.color_mode)


def terminal_appearance(app: InteractiveApp) -> Appearance:
    """Light or dark, from the colours the terminal reported (else its environment): which half of a
    `light/dark` pair is the one showing."""
    from pi.tui.theme_system import appearance_from_env, palette_from_replies

    term = app.terminal
    palette = palette_from_replies(term.palette_replies) if term.palette_replies else None
    return appearance_from_env(palette, term.environ)


def theme_pair(name: str) -> tuple[str, str] | None:
    """`light/dark` (two theme names that follow the terminal's appearance), else None (a name or a path)."""
    if name.endswith(".json") or name.startswith(("/", ".", "~")) or name.count("/") != 1:
        return None
    light, dark = name.split("/")
    return (light, dark) if light and dark else None


def switch_theme(app: InteractiveApp, name: str) -> bool:
    """Show `name` now (a preview or the saved choice); a broken theme is reported and nothing changes."""
    from pi.tui.theme import ThemeError

    try:
        theme = load_named_theme(app, name)
    except ThemeError as exc:
        app.show_warning(str(exc))
        return False
    app.theme.adopt(theme)
    app.tui.invalidate()
    return True


__all__ = [
    "follow_terminal_palette",
    "load_named_theme",
    "switch_theme",
    "system_from_terminal",
    "terminal_appearance",
    "theme_pair",
]
