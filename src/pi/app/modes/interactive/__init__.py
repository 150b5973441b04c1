"""The interactive mode: `pi` in a terminal. `run_interactive_mode` shows the UI until the user quits."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from pi.app.agent_session import AgentSession
    from pi.app.modes.interactive.context import InteractiveContext
    from pi.tui.terminal import Terminal
    from pi.tui.theme import ColorMode, Theme

logger = logging.getLogger(__name__)


def resolve_theme(
    context: InteractiveContext, settings_theme: object, terminal: Terminal, offered: Sequence[Path] | None = None
) -> Theme:
    """`--theme`, else the `theme` setting: a built-in, a file, a theme in `<agent-dir>/themes`, or `system`.

    `offered` are the session's theme files (`theme_files.session_themes`); without them names are
    looked up in the themes directories.
    """
    from pi.tui.theme import ThemeError, load_theme
    from pi.tui.theme_system import system_theme

    if context.theme is not None:
        return context.theme
    name = context.theme_name or (settings_theme if isinstance(settings_theme, str) else None) or "system"
    env = terminal.environ
    truecolor = env.get("COLORTERM") in ("truecolor", "24bit") or env.get("PI_TRUE_COLOR") == "1"
    color_mode: ColorMode = "truecolor" if truecolor else "256"
    from pi.app.modes.interactive.theme_live import theme_pair

    pair = theme_pair(name)
    if pair is not None:  # `light/dark`: the terminal's appearance picks one
        from pi.tui.theme_system import appearance_from_env

        name = pair[0] if appearance_from_env(None, env) == "light" else pair[1]
    if name != "system":
        from pi.app.modes.interactive.theme_files import theme_dirs, theme_target

        target, search = theme_target(name, offered, theme_dirs(context.agent_dir, context.cwd))
        try:
            return load_theme(target, search, color_mode)
        except ThemeError as exc:
            context.startup_warnings.append(str(exc))
    return system_theme(None, color_mode, terminal.environ)


async def run_interactive_mode(session: AgentSession, context: InteractiveContext) -> int:
    """Run the terminal UI on `session` (the process's terminal unless the context names one); returns the exit code."""
    from pi.app.modes.interactive.app import InteractiveApp
    from pi.tui.keybindings import load_keybindings
    from pi.tui.terminal import TtyTerminal

    terminal = context.terminal if context.terminal is not None else TtyTerminal()
    from pi.app.modes.interactive.theme_files import session_themes

    offered = session_themes(session, context.agent_dir)
    theme = resolve_theme(context, session.settings.get("theme"), terminal, offered)
    keybindings = context.keybindings or load_keybindings(context.agent_dir / "keybindings.json")
    app = InteractiveApp(session, context, terminal, theme, keybindings)
    try:
        return await app.run()
    finally:
        terminal.restore()


__all__ = ["resolve_theme", "run_interactive_mode"]
