"""`pi --resume`: the session picker on its own screen, before any session is opened.

Returns the chosen session file, or None when the user cancels (the CLI then prints
`No session selected` and exits with 0). The terminal is restored either way.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from pi.tui.component import Container

if TYPE_CHECKING:
    from pi.session.listing import SessionInfo
    from pi.tui.terminal import Terminal


async def pick_session(
    cwd: Path,
    agent_dir: Path,
    *,
    settings_theme: object = None,
    theme_name: str | None = None,
    session_dir: str | None = None,
    tui_mode: str = "fullscreen",
    terminal: Terminal | None = None,
) -> str | None:
    """Show the picker until a session is chosen (its path) or the picker is cancelled (None)."""
    from pi.app.modes.interactive import resolve_theme
    from pi.app.modes.interactive.context import InteractiveContext
    from pi.app.modes.interactive.pickers.session_picker import startup_session_picker
    from pi.tui.keybindings import load_keybindings
    from pi.tui.terminal import TtyTerminal
    from pi.tui.tui import TUI

    term = terminal if terminal is not None else TtyTerminal()
    context = InteractiveContext(agent_dir=agent_dir, cwd=cwd, theme_name=theme_name)
    theme = resolve_theme(context, settings_theme, term)
    keybindings = load_keybindings(agent_dir / "keybindings.json")
    chosen: asyncio.Future[SessionInfo | None] = asyncio.get_running_loop().create_future()

    def done(info: SessionInfo | None) -> None:
        if not chosen.done():
            chosen.set_result(info)

    picker = startup_session_picker(str(cwd), agent_dir, theme, keybindings, done, session_dir)
    dock = Container([picker])
    tui = TUI(term, Container(), dock, mode="regular" if tui_mode == "regular" else "fullscreen", theme=theme)
    term.on_terminate = lambda _signum: done(None)
    tui.start()
    tui.set_focus(picker)
    try:
        info = await chosen
    finally:
        tui.stop("resume-hint")
        term.restore()
    return str(info.path) if info is not None else None


__all__ = ["pick_session"]
