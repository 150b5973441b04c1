"""One question asked before the interactive UI exists: a dialog alone on the screen, then gone.

The project-trust question and the missing-cwd question both come before the session is built, so
there is no UI to put them in yet. Each gets a short-lived TUI holding only its dialog; the answer
is whatever the dialog reports, or `cancelled` when the terminal is closed meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from pi.tui.component import Focusable
    from pi.tui.terminal import Terminal
    from pi.tui.theme import Theme

Answer = TypeVar("Answer")


async def ask_on_own_screen(
    term: Terminal,
    theme: Theme,
    tui_mode: str,
    build_dialog: Callable[[Callable[[Answer], None]], Focusable],
    cancelled: Answer,
) -> Answer:
    """Show the dialog `build_dialog(done)` returns until it calls `done(answer)`; the terminal is
    given back as it was either way."""
    from pi.tui.component import Container
    from pi.tui.tui import TUI

    answer: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()

    def done(choice: Answer) -> None:
        if not answer.done():
            answer.set_result(choice)

    dialog = build_dialog(done)
    tui = TUI(term, Container(), Container([dialog]), mode="regular" if tui_mode == "regular" else "fullscreen")
    tui.theme = theme
    term.on_terminate = lambda _signum: done(cancelled)
    tui.start()
    tui.set_focus(dialog)
    try:
        return await answer
    finally:
        tui.stop("resume-hint")
        term.restore()


__all__ = ["ask_on_own_screen"]
